"""The terminal game's screen pieces (``cli/screen.py``): lines never wider than the
terminal, cards never parted from their names, seats named apart from cards."""

from __future__ import annotations

import re

import numpy as np
from rich.text import Text

from mamma_mia_agents.cli.screen import (
    HELP,
    chip,
    oven_block,
    pack,
    seat_lines,
    seat_names,
    status_line,
    table_lines,
    wrap,
)
from mamma_mia_agents.cli.session import Game
from mamma_mia_env import Config
from mamma_mia_env.game.cards import INGREDIENTS

CARD = re.compile(r"\b\d+ (?:double )?(" + "|".join(INGREDIENTS) + r")\b")


def test_pack_keeps_every_item_whole_within_the_width() -> None:
    items = [chip(k % 5, 1 + k % 3, k % 2) for k in range(12)]
    for width in (36, 50, 80):  # the widest chip, "2 mushroom + 1 double mushroom", fits
        lines = pack(items, width, "Your cards: ")
        assert all(line.cell_len <= width for line in lines)
        text = " ".join(line.plain for line in lines)
        assert sum(len(CARD.findall(i.plain)) for i in items) == len(CARD.findall(text))


def test_wrap_never_parts_a_count_from_its_card() -> None:
    text = "  reveal: your 1 of each: delivered, took " + ", ".join(
        f"{k + 1} {name}" for k, name in enumerate(INGREDIENTS * 3)
    ) + ", 2 double pepper from hand"  # fmt: skip
    for width in (40, 60, 80):
        lines = [line.plain for line in wrap(text, width)]
        assert all(len(line) <= width for line in lines)
        assert len(CARD.findall(" ".join(lines))) == len(CARD.findall(text))
        assert not any(re.search(r"\b\d+$", line) for line in lines)


def test_a_whole_game_of_screens_fits_80_columns() -> None:
    rng = np.random.default_rng(1)
    game = Game(Config(num_players=5), 2, ["builder", "counter"], 1, [])
    names = seat_names(2, game.names)
    assert names[2] == "you" and names[0] == "builder (seat 0)"
    while not game.over():
        view = game.view()
        lines = table_lines(view, names, 80, 2)
        assert all(line.cell_len <= 80 for line in lines)
        assert lines[0].plain.startswith(f" Round {view['round']}/3 · supply {view['supply']}")
        assert len(oven_block(view, 80, 2)) <= 2
        # a seat's line starts with its name, never with a count
        for line, s in zip(seat_lines(view, names, 80), view["seats"], strict=True):
            assert line.plain[3:].startswith(names[s["seat"]])
        if int(game.rec["seat"]) == 2:
            game.apply(int(rng.choice(np.flatnonzero(game.legal()))))
        else:
            game.apply(game.bot_action())
    assert "game over" in status_line(game.view(), 80).plain


def test_help_explains_the_orders_the_reveal_and_the_keys() -> None:
    text = "\n".join(HELP)
    assert all(len(line) <= 79 for line in HELP)
    for needed in ("Pizza Minimale", "Pizza Monotoni", "Bombastica", "'?'", "J", "1 of each",
                   "THE REVEAL", "undo", "q  save", "'>' marks"):  # fmt: skip
        assert needed in text, needed
    assert isinstance(chip(0, 1, 0), Text)
