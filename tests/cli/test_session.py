"""The played game apart from its screen (``cli/session.py``): undo across the agents'
moves, what a reveal choice announces against what the engine then does, and the round
summaries built from the reveal records."""

from __future__ import annotations

import numpy as np
import pytest

from mamma_mia_agents.cli.play import choose_turn
from mamma_mia_agents.cli.session import Game
from mamma_mia_env import Config
from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    INGREDIENTS,
    MONOTONI,
    N_KINDS,
    order_need_table,
)
from mamma_mia_env.game.log import final_result
from mamma_mia_env.game.record import REVEAL

NEED = order_need_table()
CARD = {**{k: i for i, k in enumerate(INGREDIENTS)},
        **{"double " + k: N_KINDS + i for i, k in enumerate(INGREDIENTS)}}  # fmt: skip


def _vec(cards: dict[str, int]) -> np.ndarray:
    v = np.zeros(2 * N_KINDS, dtype=np.int64)
    for name, c in cards.items():
        v[CARD[name]] += c
    return v


def _value(v: np.ndarray) -> np.ndarray:
    return v[:N_KINDS] + 2 * v[N_KINDS:]


def _to_person(game: Game) -> None:
    """Let the agents move until the person (or nobody) is to act."""
    while not game.over() and int(game.rec["seat"]) != game.seat:
        game.apply(game.bot_action())


def test_undo_goes_back_across_the_agents_moves_and_replays_them_exactly() -> None:
    rng = np.random.default_rng(0)
    game = Game(Config(num_players=3), 1, ["builder", "counter"], 21, [])
    assert not game.can_undo() and game.undo() == 0
    _to_person(game)
    history: list[tuple[list[int], int]] = []  # (actions before the decision, choice)
    for _ in range(12):
        before = list(game.actions)
        a = int(rng.choice(np.flatnonzero(game.legal())))
        game.apply(a)
        history.append((before, a))
        _to_person(game)
    full = list(game.actions)
    for before, _ in reversed(history[-3:]):
        undone = game.undo()
        assert game.actions == before and undone >= 1
        assert int(game.rec["seat"]) == game.seat and not game.over()
        assert game.state.equals(Game(game.config, 1, game.specs, 21, before).state)
    # playing the same choices again, the agents answer as they did the first time
    for _, a in history[-3:]:
        game.apply(a)
        _to_person(game)
    assert game.actions == full


def _reveal_decisions(seeds: range, players: int):
    """(game, choices) at every reveal decision of the person in games where the person
    plays random legal moves; the game then continues with a random choice."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = Game(Config(num_players=players), 0, ["random"], seed, [])
        while not game.over():
            _to_person(game)
            if game.over():
                break
            if game.rec["phase"] == REVEAL:
                yield game, game.reveal_choices(), rng
            else:
                game.apply(int(rng.choice(np.flatnonzero(game.legal()))))


def test_a_reveal_choice_adds_the_hand_cards_it_announced() -> None:
    seen = {"decline": 0, "deliver": 0, "deliver_as": 0}
    for game, choices, rng in _reveal_decisions(range(60), 2):
        rec = game.rec
        pos = int(rec["reveal_pos"])
        t = int(rec["oven_what"][pos]) - N_KINDS
        assert [c["action"] for c in choices] == list(np.flatnonzero(game.legal()))
        piles = _value(rec["piles"].astype(np.int64))
        hand = rec["hand"][0].astype(np.int64)
        for c in choices:  # the announcement against the order's need (docs/SPEC.md)
            given = _value(_vec(c["from_hand"]))
            if c["choice"] == "decline":
                assert not c["from_hand"] and not c["from_piles"]
                continue
            if t == BOMBASTICA:
                short = max(BOMBASTICA_MIN - int(piles.sum()), 0)
                assert short <= given.sum() <= short + 1
                continue
            need = NEED[0, t].astype(np.int64) if t < 5 else np.zeros(N_KINDS, np.int64)
            if t >= 5:
                need[0] = 1
                need[INGREDIENTS.index(c["kind"])] = 6 if t == MONOTONI else 3
            short = np.maximum(need - piles, 0)
            assert (short <= given).all() and (given <= short + 1).all()
        pick = choices[int(rng.integers(len(choices)))]
        seen[pick["choice"]] += 1
        outcomes = game.apply(pick["action"])["outcomes"]
        first = outcomes[0]
        assert first["from_hand"] == pick["from_hand"]
        assert first["from_piles"] == pick["from_piles"]
        assert first["delivered"] == (pick["choice"] != "decline")
        # the hand lost what was announced, plus what later orders of the step took
        later = sum((_vec(o["from_hand"]) for o in outcomes[1:] if o["seat"] == 0),
                    np.zeros(2 * N_KINDS, np.int64))  # fmt: skip
        assert (hand - game.rec["hand"][0] == _vec(pick["from_hand"]) + later).all()
    assert seen["decline"] > 10 and seen["deliver"] + seen["deliver_as"] > 10, seen


def test_reveal_choices_need_a_reveal_decision() -> None:
    game = Game(Config(num_players=2), 0, ["builder"], 3, [])
    with pytest.raises(ValueError, match="no reveal decision"):
        game.reveal_choices()


def test_the_turn_questions_refuse_a_reveal_choice() -> None:
    """``choose_turn`` asks about ingredients, order and draw pile: handed a reveal
    choice, it says so before asking anything (the terminal is never touched)."""
    game = Game(Config(num_players=2), 0, ["builder"], 3, [])
    legal = [*np.flatnonzero(game.legal()), game.engine.n_turn_actions]  # + "decline"
    with pytest.raises(ValueError, match="is a reveal choice, not a turn"):
        choose_turn(None, game, {}, legal)


def test_round_summaries_account_for_every_delivered_order() -> None:
    game = Game(Config(num_players=3), 0, ["builder"], 8, [])
    rng = np.random.default_rng(8)
    while not game.over():
        _to_person(game)
        if not game.over():
            game.apply(int(rng.choice(np.flatnonzero(game.legal()))))
    summaries = [game.round_summary(r) for r in (1, 2, 3)]
    assert all(s["finished"] for s in summaries)
    assert summaries[-1]["totals"] == final_result(game.state)["delivered"]
    assert [sum(s["delivered"]) for s in summaries] == [
        sum(o["delivered"] for o in s["outcomes"]) for s in summaries
    ]
    assert np.sum([s["delivered"] for s in summaries], axis=0).tolist() == summaries[-1]["totals"]
    assert all(s["outcomes"] for s in summaries)  # every round turns orders over
    ends = [i for i, s in enumerate(game.steps) if s.round_end]
    assert len(ends) == 3 and ends[-1] == len(game.steps) - 1
