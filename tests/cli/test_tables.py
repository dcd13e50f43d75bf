"""Every table people play at: which player counts each bundled agent plays (said by
the agent itself, listed by ``mamma-mia agents``, the only agents the browser form and
the terminal game take), and the screens of a 5-player table: the oven given the rows
an 80x24 terminal has, the game-over lines whole, one wording of moves everywhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from helpers import POLICY_FILE
from rich.text import Text
from serve_client import call, request, running_server

from mamma_mia_agents import REGISTRY, PPOAgent, load_agent
from mamma_mia_agents.bots.base import PLAYER_COUNTS, player_counts
from mamma_mia_agents.bots.ppo_agent import POLICY_DIR
from mamma_mia_agents.cli.play import end_lines, screen_lines
from mamma_mia_agents.cli.replay import replay_lines
from mamma_mia_agents.cli.screen import oven_block, result_lines, seat_names
from mamma_mia_agents.cli.session import Game, bundled_counts
from mamma_mia_agents.cli.web_game import WebGame
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.log import load_log, replay_events
from mamma_mia_env.render.html import step_caption

OTHERS = ["builder", "counter", "random", "hoarder"]


def _played(n: int, steps: int, seed: int = 3) -> Game:
    """A ``n``-player game, the person at seat 0 always taking the first legal action."""
    game = Game(Config.from_kwargs(num_players=n), 0, OTHERS, seed, [])
    while len(game.steps) < steps and not game.over():
        mine = int(game.rec["seat"]) == game.seat
        game.apply(int(np.flatnonzero(game.legal())[0]) if mine else game.bot_action())
    return game


def _log(game: Game) -> dict:
    """The game's event log, as a replay reads it."""
    agents = [n if n != "you" else "person" for n in game.seat_names()]
    return load_log(replay_events(game.config, game.seed, game.actions, agents=agents))


# -- the player counts of each agent ----------------------------------------------------------
def test_every_bundled_agent_plays_each_count_or_says_why() -> None:
    table = bundled_counts()
    assert list(table) == list(REGISTRY)
    for name, counts in table.items():
        assert list(counts) == list(PLAYER_COUNTS) == [2, 3, 4, 5]
        for n, why in counts.items():
            assert why is None or (why.strip() and f"{n} players" in why), (name, n, why)
            assert why is None or "['" not in why, why  # words, not a Python list
    for bot in ("random", "counter", "builder", "hoarder", "forgetful", "search"):
        assert all(why is None for why in table[bot].values()), bot


def test_the_counts_of_ppo_follow_from_the_policy_file_it_plays(tmp_path) -> None:
    counts = player_counts(load_agent("ppo"))  # the shipped network: every count
    assert [n for n, why in counts.items() if why is None] == [2, 3, 4, 5]
    one = PPOAgent(POLICY_FILE[4])  # a per-count file: its count only
    assert [n for n, why in player_counts(one).items() if why is None] == [4]
    assert "plays 4 players, not 2" in str(player_counts(one)[2])
    # the champion plays where it has settings
    champion = player_counts(load_agent("champion"))
    shipped = {int(p.name[9]) for p in POLICY_DIR.glob("champion_[2-5]p.json")}
    assert {n for n, why in champion.items() if why is None} == shipped
    # the rules matter: a ppo network trained without doubles refuses a deck with them
    assert all(
        why for why in player_counts(load_agent("ppo"), {"double_ingredients": True}).values()
    )


def test_mamma_mia_agents_lists_the_counts() -> None:
    out = subprocess.run([sys.executable, "-m", "mamma_mia_agents", "agents"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    table = bundled_counts()
    for name, counts in table.items():
        block = re.search(rf"(?ms)^{name} .*?(?=^\S|\Z)", out)
        assert block, (name, out)
        plays = [n for n, why in counts.items() if why is None]
        words = "2-5" if plays == [2, 3, 4, 5] else " and ".join(map(str, plays))
        assert f"plays {words} players" in block.group(0), block.group(0)
        refused = [n for n, why in counts.items() if why is not None]
        if refused:
            assert f"not {' or '.join(map(str, refused))}; at {refused[0]}: no shipped" in " ".join(
                block.group(0).split()
            )


def test_the_terminal_game_refuses_an_agent_for_a_count_it_does_not_play(tmp_path) -> None:
    refused = [(a, n) for a, c in bundled_counts().items() for n, why in c.items() if why]
    if not refused:
        pytest.skip("every bundled agent plays every count")
    agent, n = refused[0]
    proc = subprocess.run(
        [sys.executable, "-m", "mamma_mia_agents", "play", "--players", str(n), "--agents", agent],
        capture_output=True, text=True, cwd=tmp_path, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"agent {agent!r} cannot play this game: no shipped" in proc.stderr
    assert f"The bundled agents that play {n} players: random, counter, builder" in proc.stderr


def test_the_browser_form_offers_each_agent_at_its_counts_only() -> None:
    with running_server("--players", "2", "--agents", "builder") as server:
        setup = call(server, "GET", "/api/setup")
        table = bundled_counts()
        assert setup["plays"] == {
            a: [n for n, why in c.items() if why is None] for a, c in table.items()
        }
        refused = [(a, n) for a, c in table.items() for n, why in c.items() if why]
        for agent, n in refused:  # asked anyway (not through the form): refused, in words
            status, _, body = request(server, "POST", "/api/games",
                                      {"players": n, "agents": [agent]})  # fmt: skip
            error = json.loads(body)["error"]
            assert status == 400 and "cannot play this game: no shipped" in error, error
            assert "['" not in error
        five = call(server, "POST", "/api/games", {"players": 5, "agents": ["search", "counter"]})
        assert len(five["names"]) == 5 and five["view"]["seats"][4]["hand"] is None


# -- one wording of moves -------------------------------------------------------------------------
def test_moves_are_worded_once_for_the_terminal_the_browser_and_replays(tmp_path) -> None:
    game = _played(5, 30)
    page = WebGame(game).page("x" * 16)
    lines = [game.step_lines(s) for s in game.steps]
    assert [m["text"] for m in page["moves"]] == [ls[0] for ls in lines]
    assert [m["reveal"] for m in page["moves"]] == [ls[1:] for ls in lines]
    text = "\n".join(m["text"] for m in page["moves"])
    assert "you: played" in text and "builder (seat 1): played" in text
    assert ", an order card," in text  # another seat's order card, as the terminal says it
    for old in ("order type", "draw supply", "draw stack", "Seat 1 (builder)"):
        assert old not in text
    log = _log(game)  # the replay of the same moves
    captions = [step_caption(log, i + 1).split("\n")[0] for i in range(len(game.steps))]
    assert all(re.match(r"Round 1: .+ \(seat \d\): (played|passed) ", c) for c in captions[1:])
    assert not any("order type" in c or "draw supply" in c for c in captions)
    assert any(", order [" in c for c in captions)  # a replay names every order played


# -- the 5-player table at 80x24 ------------------------------------------------------------------
def test_the_oven_takes_the_rows_the_moves_leave_at_80x24() -> None:
    game = _played(5, 28)  # 45 plays in the oven, the supply nearly empty
    assert game.view()["oven_len"] > 40
    names = seat_names(game.seat, game.names)
    bottom = [Text("Your turn: which ingredient cards do you play?"), Text(" 1  play 1 pepper")]
    lines, room = screen_lines(game, names, 80, 24, bottom)
    text = [line.plain for line in lines]
    assert len(text) == 23 and all(len(x) <= 80 for x in text)  # every row used
    assert room >= 4  # the latest moves keep four rows at least
    start = next(i for i, x in enumerate(text) if x.startswith("Oven ("))
    oven = text[start : next(i for i, x in enumerate(text) if x.startswith(">") or "hand 7" in x)]
    shown = sum(len(re.findall(r"(?:you|seat \d): ", x)) for x in oven)
    assert shown >= 10 and len(oven) >= 4, "\n".join(text)
    whole = oven_block(game.view(), 80, 100)  # what fits is the newest plays
    assert len(whole) > len(oven)


def test_the_replay_gives_the_oven_the_rows_its_caption_leaves(tmp_path) -> None:
    log = _log(_played(5, 28))
    lines = [x.plain for x in replay_lines(log, 28, 0, 80, 24)]
    # every row but one the packing of whole oven cards may leave
    assert len(lines) >= 22 and all(len(x) <= 80 for x in lines)
    oven = [x for x in lines if x.startswith(("Oven (", "  seat", "  you"))]
    assert len(oven) >= 6, "\n".join(lines)


def test_the_game_over_lines_fit_80_columns_with_every_seat() -> None:
    game = _played(5, 10**6)
    assert game.over()
    names = seat_names(game.seat, game.names)
    assert len(result_lines(game, names)[0]) > 80  # five seats do not fit one line
    lines, _ = screen_lines(game, names, 80, 24, end_lines(game, names, 80))
    text = " ".join(" ".join(line.plain.split()) for line in lines)
    for s, name in names.items():
        assert f"{name} {game.view()['seats'][s]['delivered'].__len__()}" in text, name
    assert all(line.cell_len <= 80 for line in lines) and len(lines) <= 23
