"""Replays and JSON event logs: a game is its config, its seed and its actions.

The log format's writer (``replay_events``) and reader (``load_log``) live together so
they change together. A log's events are re-derived from its config, seed and actions
on reading. A format-1 log (a step's total only, no per-order record: the package was
never released with it) is refused by name. The ``agents`` names are user input:
checked for shape only, escaped by whoever draws them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mamma_mia_env.game.actions import ActionCodec
from mamma_mia_env.game.cards import (
    DECLINE,
    DELIVER_AS,
    INGREDIENTS,
    N_CARD_TYPES,
    N_KINDS,
    OVEN_CAPACITY,
    card_name,
    order_name,
)
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine, IllegalActionError
from mamma_mia_env.game.outcome import winners
from mamma_mia_env.game.record import OVER, PHASE_NAMES, REVEAL
from mamma_mia_env.game.state import GameState, StateError, validate_state
from mamma_mia_env.game.trace import (
    HOW_NAMES,
    T_CHOICE,
    T_HAND,
    T_HOW,
    T_PILES,
    T_WHAT,
    T_WHO,
    TRACE_WIDTH,
    traced_step,
)
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_int, as_seed, seed_text
from mamma_mia_env.plumbing.files import FileError, read_json, write_file

LOG_FORMAT = "mamma-mia-log/2"
#: The longest agent name a log may record (the ``agents`` field).
MAX_AGENT_NAME = 200


def check_agents(agents: Any, num_players: int) -> list[str]:
    """The ``agents`` field: one name of 1..``MAX_AGENT_NAME`` characters per seat."""
    if not isinstance(agents, (list, tuple)) or len(agents) != num_players:
        raise ValueError(f"agents must be a list of {num_players} names, one per seat")
    for s, name in enumerate(agents):
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_AGENT_NAME:
            raise ValueError(f"agents[{s}] must be a name of 1-{MAX_AGENT_NAME} characters")
    return list(agents)


def _start(
    engine: Engine, seed: int, actions: list[int], start: GameState | None
) -> tuple[GameState, list[int]]:
    """The first state (dealt from ``seed`` or a validated copy of ``start``) and the
    actions as ints of the action space (not ``2.7``, ``True``, ``2**63``)."""
    if start is not None:
        state = validate_state(start, "start").copy()
        if state.config != engine.config or state.batch_size != 1:
            raise StateError("start must be one game made with this config")
    else:
        state = engine.reset(seeds=[as_seed(seed, "seed")])
    if isinstance(actions, (str, bytes)) or not hasattr(actions, "__iter__"):
        raise ArgumentTypeError(f"actions must be a list of ints, got {actions!r}")
    hi = engine.n_actions - 1
    acts = [as_int(a, f"actions[{i}]", 0, hi) for i, a in enumerate(actions)]
    return state, acts


def _step(engine: Engine, state: GameState, a: int, i: int) -> np.ndarray:
    """Step game 0 with ``a``; an illegal action is named by its index in ``actions``."""
    if state.data["phase"][0] == OVER:
        raise IllegalActionError(f"actions[{i}] comes after the end of the game")
    try:
        return engine.step(state, np.array([a], dtype=np.int64))
    except IllegalActionError as exc:
        raise IllegalActionError(f"actions[{i}]: {str(exc).removeprefix('game 0: ')}") from None


def _card_dict(counts: np.ndarray) -> dict[str, int]:
    """Non-zero card counts by name, each ingredient's singles then its doubles."""
    order = [c for k in range(N_KINDS) for c in (k, N_KINDS + k)]
    return {card_name(c): int(counts[c]) for c in order if counts[c]}


def traced_outcomes(trace: np.ndarray) -> list[dict[str, Any]]:
    """Each order a step turned over (``trace.traced_step``), in oven order: who, what,
    its outcome, who chose it and the cards it took (none when it failed)."""
    out = []
    for i in np.flatnonzero(trace[:, T_HOW]):
        row = trace[i]
        who, t, choice = int(row[T_WHO]), int(row[T_WHAT]) - N_KINDS, int(row[T_CHOICE])
        piles = row[T_PILES : T_PILES + N_CARD_TYPES]
        hand = row[T_HAND : T_HAND + N_CARD_TYPES]
        entry: dict[str, Any] = {
            "seat": who,
            "order": order_name(t, who),
            "delivered": choice != DECLINE,
            "by": HOW_NAMES[int(row[T_HOW])],
        }
        if choice >= DELIVER_AS:
            entry["kind"] = INGREDIENTS[choice - DELIVER_AS]  # Monotoni's joker, Minimale's "?"
        entry["from_piles"] = _card_dict(piles)
        entry["from_hand"] = _card_dict(hand)
        entry["cards_taken"] = _card_dict(piles + hand)
        out.append(entry)
    return out


def reveal_record(engine: Engine, before: GameState, action: int, after: GameState) -> dict:
    """What the reveal did in the step from ``before`` (game 0) with ``action`` to
    ``after``: ``{"outcomes": [...], "cards_taken": {...}}`` (``traced_outcomes`` and
    the sum of their cards), or ``{}`` when no oven card was turned over. The step is
    replayed traced (``trace.traced_step``) and must end in ``after``."""
    b, a = before.data[0], after.data[0]
    if not (REVEAL in (b["phase"], a["phase"]) or a["round"] != b["round"] or a["terminated"]):
        return {}
    copy, trace = before.copy(), np.zeros((OVEN_CAPACITY, TRACE_WIDTH), dtype=np.int64)
    delivered = np.zeros(engine.num_players, dtype=np.int32)
    traced_step(copy.data, action, engine.params, engine.play, engine.need, delivered, trace)
    if copy.data.tobytes() != after.data.tobytes():
        raise RuntimeError("the traced step left another state than the engine's step")
    taken = trace[:, T_PILES : T_PILES + N_CARD_TYPES] + trace[:, T_HAND : T_HAND + N_CARD_TYPES]
    return {"outcomes": traced_outcomes(trace), "cards_taken": _card_dict(taken.sum(axis=0))}


def replay(
    config: Config, seed: int, actions: list[int], start: GameState | None = None
) -> GameState:
    """The state after playing ``actions`` from ``seed`` (or from ``start``), bit for bit."""
    engine = Engine(config)
    state, actions = _start(engine, seed, actions, start)
    for i, a in enumerate(actions):
        _step(engine, state, a, i)
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
    config: Config,
    seed: int,
    actions: list[int],
    start: GameState | None = None,
    agents: list[str] | None = None,
) -> dict[str, Any]:
    """A JSON-ready log of a game: one event per action, with what it did; ``agents``
    (the name on each seat) is recorded so that a replay can say who played."""
    return _events(config, seed, actions, start, agents)[0]


def _events(
    config: Config, seed: int, actions: list[int], start: GameState | None, agents: Any
) -> tuple[dict[str, Any], list[np.void]]:
    """``replay_events``'s log, and the game's record before every action and after
    the last (what a replay draws)."""
    names = None if agents is None else check_agents(agents, config.num_players)
    engine = Engine(config)
    codec = ActionCodec(engine)
    state, actions = _start(engine, seed, actions, start)
    events, states = [], [state.data[0].copy()]
    for i, a in enumerate(actions):
        rec = state.data[0]
        seat, phase, rnd = int(rec["seat"]), PHASE_NAMES[int(rec["phase"])], int(rec["round"])
        pending = None
        if phase == "reveal":
            pos = int(rec["reveal_pos"])
            pending = order_name(int(rec["oven_what"][pos]) - 5, int(rec["oven_who"][pos]))
        before = state.copy()
        delivered = _step(engine, state, a, i)[0]
        states.append(state.data[0].copy())
        event: dict[str, Any] = {
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
        reveal = reveal_record(engine, before, a, state)
        if reveal:
            event["reveal"] = reveal["outcomes"]
            event["failed"] = [o for o in reveal["outcomes"] if not o["delivered"]]
            event["cards_taken"] = reveal["cards_taken"]
        events.append(event)
    log: dict[str, Any] = {
        "format": LOG_FORMAT,
        "config": config.to_dict(),
        "seed": str(seed),
        "start_state": None if start is None else start.to_dict(),
        "actions": [int(a) for a in actions],
        "events": events,
        "result": final_result(state),
    }
    if names is not None:
        log["agents"] = names
    return log, states


# -- reading a log ------------------------------------------------------------------
class LogError(ValueError):
    """An event log that cannot be replayed; the message names the file and field."""


def load_log(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """Read and check an event log (a path or the parsed JSON), re-derived in
    ``LOG_FORMAT``. The actions are replayed, so a hand-edited or corrupt log is refused
    naming what is wrong instead of drawing a game that never happened."""
    where = "log"
    if isinstance(source, (str, Path)):
        where = str(source)
        try:
            obj = read_json(source, "event log")
        except FileError as exc:
            raise LogError(str(exc)) from None
    else:
        obj = source
    if isinstance(obj, dict) and obj.get("format") == "mamma-mia-log/1":
        raise LogError(
            f"{where} is a format-1 game log; this version reads format 2: record the game again"
        )
    if not isinstance(obj, dict) or obj.get("format") != LOG_FORMAT:
        raise LogError(f"{where}: not a {LOG_FORMAT} document (field 'format')")
    if not isinstance(obj.get("config", {}), dict):
        raise LogError(f"{where}: field 'config' must be an object of Config fields")
    try:
        config = Config.from_kwargs(**obj.get("config", {}))
    except (TypeError, ValueError) as exc:
        raise LogError(f"{where}: field 'config': {exc}") from exc
    try:
        seed = seed_text(obj.get("seed"), "field 'seed'")
    except ValueError as exc:
        raise LogError(f"{where}: {str(exc)[:200]}") from None
    actions = obj.get("actions")
    if not isinstance(actions, list):  # its items are checked as the game is replayed
        raise LogError(f"{where}: field 'actions' must be a list of integers")
    start = None
    if obj.get("start_state") is not None:
        try:
            start = GameState.from_dict(obj["start_state"])
        except (StateError, TypeError, ValueError) as exc:
            raise LogError(f"{where}: field 'start_state': {exc}") from exc
        if start.config != config or start.batch_size != 1:
            raise LogError(f"{where}: field 'start_state' is not one game of the log's config")
    agents = obj.get("agents")
    if agents is not None:
        try:
            agents = check_agents(agents, config.num_players)
        except ValueError as exc:
            raise LogError(f"{where}: field 'agents': {exc}") from None
    try:
        log, states = _events(config, seed, actions, start, agents)
    except ValueError as exc:  # IllegalActionError, an action outside the action space
        raise LogError(f"{where}: field 'actions': {exc}") from None
    return {**log, "_states": states}


def write_log(path: str | Path, log: dict[str, Any]) -> bool:
    """Write an event log to ``path`` (``write_file``); whether an earlier file was replaced."""
    doc = {k: v for k, v in log.items() if not k.startswith("_")}  # not load_log's states
    return write_file(path, json.dumps(doc, indent=1), "event log")
