"""Replays and JSON event logs: a game is its config, its seed and its actions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .actions import ActionCodec
from .arguments import ArgumentTypeError, as_int, as_seed
from .cards import order_name
from .config import Config
from .engine import Engine
from .rules import winners
from .state import OVER, PHASE_NAMES, GameState, StateError
from .validate import validate_state


def _start(
    engine: Engine, seed: int, actions: list[int], start: GameState | None
) -> tuple[GameState, list[int]]:
    """The first state (dealt from ``seed`` or a validated copy of ``start``) and the
    actions as ints; nothing else (``2.7``, ``True``) is read as an action."""
    if start is not None:
        state = validate_state(start, "start").copy()
        if state.config != engine.config or state.batch_size != 1:
            raise StateError("start must be one game made with this config")
    else:
        state = engine.reset(seeds=[as_seed(seed, "seed")])
    if isinstance(actions, (str, bytes)) or not hasattr(actions, "__iter__"):
        raise ArgumentTypeError(f"actions must be a list of ints, got {actions!r}")
    acts = [as_int(a, f"actions[{i}]") for i, a in enumerate(actions)]
    return state, acts


def replay(
    config: Config, seed: int, actions: list[int], start: GameState | None = None
) -> GameState:
    """The state after playing ``actions`` from ``seed`` (or from ``start``), bit for bit."""
    engine = Engine(config)
    state, actions = _start(engine, seed, actions, start)
    act = np.zeros(1, dtype=np.int64)
    for i, a in enumerate(actions):
        if state.data["phase"][0] == OVER:
            raise ValueError(f"action {i} comes after the end of the game")
        act[0] = a
        engine.step(state, act)
    return state


def final_result(state: GameState) -> dict[str, Any]:
    """Scores, tie-break counts and winners of game 0 of ``state``."""
    rec = state.data[0]
    n = state.config.num_players
    win = np.zeros(n, dtype=np.int8)
    winners(rec, n, win)
    return {
        "delivered": [int(x) for x in rec["delivered"][:n].sum(axis=1)],
        "ingredient_cards_in_hand": [int(x) for x in rec["hand"][:n].sum(axis=1)],
        "winners": [int(s) for s in np.flatnonzero(win)] if rec["terminated"] else [],
        "terminated": bool(rec["terminated"]),
        "truncated": bool(rec["truncated"]),
    }


def replay_events(
    config: Config, seed: int, actions: list[int], start: GameState | None = None
) -> dict[str, Any]:
    """A JSON-ready log of a game: one event per action, with what it did."""
    engine = Engine(config)
    codec = ActionCodec(engine)
    state, actions = _start(engine, seed, actions, start)
    act = np.zeros(1, dtype=np.int64)
    events = []
    for i, a in enumerate(actions):
        rec = state.data[0]
        if rec["phase"] == OVER:
            raise ValueError(f"action {i} comes after the end of the game")
        seat, phase, rnd = int(rec["seat"]), PHASE_NAMES[int(rec["phase"])], int(rec["round"])
        pending = None
        if phase == "reveal":
            i = int(rec["reveal_pos"])
            pending = order_name(int(rec["oven_what"][i]) - 5, int(rec["oven_who"][i]))
        act[0] = a
        delivered = engine.step(state, act)[0]
        event = {
            "round": rnd + 1,
            "seat": seat,
            "decision": "reveal" if phase == "reveal" else "turn",
            "action": int(a),
            "text": codec.to_str(a, seat),
            "delivered": {str(s): int(c) for s, c in enumerate(delivered) if c},
            "rewards": [float(x) for x in state.data["rewards"][0, : config.num_players]],
        }
        if pending:
            event["order"] = pending
        events.append(event)
    return {
        "format": "mamma-mia-log/1",
        "config": config.to_dict(),
        "seed": str(seed),
        "start_state": None if start is None else start.to_dict(),
        "actions": [int(a) for a in actions],
        "events": events,
        "result": final_result(state),
    }
