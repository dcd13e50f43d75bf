"""The state check is complete, and the oven push cannot write past the oven.

Each test edits one field of a real state the way a hostile saved state could, and
asserts ``GameState.from_json`` (and so every ``reset(options={"state": ...})``) refuses
it with a ``StateError`` naming the problem. Before the fix these states loaded, and
some crashed the interpreter a few moves later.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine, GameState, StateError
from mamma_mia_env.game.cards import OVEN_CAPACITY
from mamma_mia_env.game.record import OVER, PLAY, REVEAL
from mamma_mia_env.game.state import check_state, validate_state


def _play(cfg: Config, seed: int, until) -> GameState:
    """A real game of ``cfg`` played at random until ``until(record)`` holds."""
    eng = Engine(cfg)
    rng = np.random.default_rng(seed)
    for s in range(200):
        state = eng.reset(seeds=[seed * 1000 + s])
        while state.data["phase"][0] != OVER:
            if until(state.data[0]):
                return state
            eng.step(state, random_legal(eng.legal_masks(state), rng))
    raise AssertionError("no such position found")


def _doc(state: GameState) -> dict:
    return json.loads(state.to_json())


def _refused(doc: dict, pattern: str) -> None:
    with pytest.raises(StateError, match=pattern):
        GameState.from_json(json.dumps(doc))


CFG = Config(num_players=3)


@pytest.fixture(scope="module")
def mid_play() -> GameState:
    """Round 1, play phase, a few plays in the oven."""
    return _play(CFG, 1, lambda r: r["phase"] == PLAY and r["round"] == 1 and r["oven_len"] >= 3)


@pytest.fixture(scope="module")
def at_reveal() -> GameState:
    """A reveal decision with at least one entry already revealed."""
    return _play(CFG, 2, lambda r: r["phase"] == REVEAL and r["reveal_pos"] >= 1)


def test_real_states_pass(mid_play: GameState, at_reveal: GameState) -> None:
    for state in (mid_play, at_reveal):
        assert check_state(state) == []
        assert GameState.from_json(state.to_json()).equals(state)


def test_oven_full_of_empty_entries_is_refused(mid_play: GameState) -> None:
    """The reported crash: 0-card ingredient entries let oven_len reach the capacity."""
    doc = _doc(mid_play)
    g = doc["games"][0]
    n = g["oven_len"]
    g["oven_what"][n:] = [0] * (OVEN_CAPACITY - n)
    g["oven_s"][n:] = [0] * (OVEN_CAPACITY - n)
    g["oven_d"][n:] = [0] * (OVEN_CAPACITY - n)
    g["oven_len"] = OVEN_CAPACITY
    _refused(doc, "oven: empty play")


def test_one_empty_ingredient_entry_is_refused(mid_play: GameState) -> None:
    doc = _doc(mid_play)
    g = doc["games"][0]
    i = next(i for i in range(g["oven_len"]) if g["oven_what"][i] < 5)
    g["oven_s"][i] = 0
    g["oven_d"][i] = 0
    _refused(doc, "oven: empty play|not conserved")


def test_order_entry_with_cards_is_refused(mid_play: GameState) -> None:
    state = _play(
        CFG, 3, lambda r: r["phase"] == PLAY and (r["oven_what"][: r["oven_len"]] >= 5).any()
    )
    doc = _doc(state)
    g = doc["games"][0]
    i = next(i for i in range(g["oven_len"]) if g["oven_what"][i] >= 5)
    g["oven_s"][i] = 2
    _refused(doc, "order entry with cards")


def test_doubles_without_the_variant_are_refused(mid_play: GameState) -> None:
    doc = _doc(mid_play)
    g = doc["games"][0]
    i = next(i for i in range(g["oven_len"]) if g["oven_what"][i] < 5 and g["oven_s"][i] >= 1)
    g["oven_s"][i] -= 1  # one single becomes a double: same card count, wrong kind of card
    g["oven_d"][i] += 1
    _refused(doc, "doubles without double_ingredients")


def test_play_phase_with_revealed_entries_is_refused(at_reveal: GameState) -> None:
    """A play-phase state whose reveal_pos hides oven cards from the conservation count."""
    doc = _doc(at_reveal)
    doc["games"][0]["phase"] = PLAY
    _refused(doc, "revealed entries during play")


@pytest.mark.parametrize(
    "change, pattern",
    [
        ({"phase": OVER}, "phase 'over' iff terminated or truncated"),
        ({"terminated": True}, "phase 'over' iff terminated or truncated"),
        ({"truncated": True}, "phase 'over' iff|truncated without max_turns"),
        ({"phase": OVER, "terminated": True}, "terminated before the third round|unrevealed"),
        ({"last_seat": 3}, "last_seat not in 0-2"),
        ({"last_seat": -1}, "last_seat not in 0-2"),
        ({"idle": 5}, "idle: 3\\+ idle turns during play"),
        ({"turns": -1}, "turns/idle: negative"),
        ({"rewards": [float("nan")] + [0.0] * 4}, "rewards"),
        ({"rewards": [0.0] * 4 + [1.0]}, "rewards"),
        ({"rewards": [100.0] + [0.0] * 4}, "rewards"),
    ],
)
def test_flags_and_counters_are_checked(mid_play: GameState, change: dict, pattern: str) -> None:
    doc = _doc(mid_play)
    doc["games"][0].update(change)
    text = json.dumps(doc, allow_nan=True)
    with pytest.raises(StateError, match=pattern):
        GameState.from_json(text)


def test_idle_at_the_guard_limit_during_play_is_refused(mid_play: GameState) -> None:
    doc = _doc(mid_play)
    g = doc["games"][0]
    g["idle"] = 3
    g["turns"] = max(g["turns"], 3)
    _refused(doc, r"idle: 3\+ idle turns during play")


def test_order_flags_out_of_0_1_are_refused_even_when_they_sum_to_one(mid_play: GameState) -> None:
    """orders_hand 2 + delivered -1 kept "one place each" true before the fix."""
    doc = _doc(mid_play)
    g = doc["games"][0]
    t = next(t for t in range(8) if g["orders_hand"][0][t] == 1)
    g["orders_hand"][0][t] = 2
    g["delivered"][0][t] = -1
    _refused(doc, "orders_hand: not 0/1|delivered: not 0/1")


def test_stale_entries_and_codes_are_in_range(mid_play: GameState) -> None:
    doc = _doc(mid_play)
    doc["games"][0]["stack"][4][0] = 9  # a seat beyond the players, outside any stack
    _refused(doc, "stack: order type not in 0-7")
    doc = _doc(mid_play)
    doc["games"][0]["oven_who"][OVEN_CAPACITY - 1] = 7  # beyond oven_len
    _refused(doc, "oven_who")


def test_max_turns_is_respected() -> None:
    cfg = Config(num_players=2, max_turns=30)
    state = _play(cfg, 4, lambda r: r["turns"] >= 5 and r["phase"] == PLAY)
    doc = _doc(state)
    doc["games"][0]["turns"] = 30
    _refused(doc, "not below max_turns=30")


def test_auto_reveal_state_cannot_wait_for_a_decision(at_reveal: GameState) -> None:
    doc = _doc(at_reveal)
    doc["config"]["auto_reveal"] = True
    _refused(doc, "reveal decision with auto_reveal")


def test_hand_edited_state_object_is_refused_by_validate_state(mid_play: GameState) -> None:
    state = mid_play.copy()
    state.data["oven_len"] = 30000
    with pytest.raises(StateError, match="oven_len"):
        validate_state(state)
    bad = GameState(CFG, np.zeros(2))  # not the record layout at all
    with pytest.raises(StateError, match="state_dtype"):
        validate_state(bad)


def test_oven_push_past_the_capacity_raises_instead_of_writing(mid_play: GameState) -> None:
    """The kernel's own guard: the engine trusts a state's contents (for speed), but a
    state edited past the checks gets an exception from the oven push, never a write
    past the array."""
    eng = Engine(CFG)
    state = mid_play.copy()
    state.data["oven_len"] = OVEN_CAPACITY
    action = int(np.flatnonzero(eng.legal_masks(state)[0])[-1])  # plays cards
    with pytest.raises(IndexError, match="oven_push"):
        eng.step(state, np.array([action]))


def test_turn_counter_near_wrapping_is_refused(mid_play: GameState) -> None:
    doc = _doc(mid_play)
    doc["games"][0]["turns"] = 2**31 - 1  # one more turn would wrap the int32 counter
    _refused(doc, "turns: above")


def test_a_state_whose_config_is_not_a_config_is_refused(mid_play: GameState) -> None:
    with pytest.raises(StateError, match="config must be a Config"):
        validate_state(GameState({"num_players": 3}, mid_play.data.copy()))
