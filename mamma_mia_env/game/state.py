"""The game state: one numpy structured array with a leading batch axis.

A batch of B games is one array of B records; every field of a record is a small
fixed-size numpy array, so the whole batch lives in one contiguous block that the
numba kernels in ``rules.py`` read and write, that ``copy()`` clones and that
``to_json`` / ``from_json`` round-trip exactly. The AEC environment holds a batch of
one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from mamma_mia_env.game.cards import (
    DOUBLES_PER_KIND,
    HAND_LIMIT,
    MAMMA_MIA,
    N_CARD_TYPES,
    N_KINDS,
    N_ORDER_TYPES,
    OVEN_CAPACITY,
    SUPPLY_CAPACITY,
    deck_counts,
)
from mamma_mia_env.game.config import Config
from mamma_mia_env.plumbing.arguments import as_int

PLAY, REVEAL, OVER = 0, 1, 2
PHASE_NAMES = ("play", "reveal", "over")


MAX_SEATS = 5


def state_dtype() -> np.dtype:
    """The record layout (documented in docs/ENV.md).

    Per-seat fields always have room for five seats (unused seats stay zero): one
    layout for every player count, so that one compiled kernel serves all configs.
    """
    n = MAX_SEATS
    return np.dtype(
        [
            ("seed", np.uint64),  # the seed this game was dealt from
            ("rng", np.uint64),  # SplitMix64 state
            ("hand", np.int8, (n, N_CARD_TYPES)),  # ingredient cards per seat and type
            ("orders_hand", np.int8, (n, N_ORDER_TYPES)),  # 1 = order type in hand
            ("stack", np.int8, (n, N_ORDER_TYPES)),  # order stacks, circular buffers
            ("stack_head", np.int8, (n,)),
            ("stack_len", np.int8, (n,)),
            ("delivered", np.int8, (n, N_ORDER_TYPES)),
            ("supply", np.int8, (SUPPLY_CAPACITY,)),  # card codes, index supply_pos is top
            ("supply_pos", np.int16),
            ("supply_len", np.int16),
            ("piles", np.int16, (N_CARD_TYPES,)),  # face-up piles per card type
            ("used", np.int16, (N_CARD_TYPES,)),  # this round's used stack
            ("oven_who", np.int8, (OVEN_CAPACITY,)),
            ("oven_what", np.int8, (OVEN_CAPACITY,)),  # 0-4 ingredient, 5+t order type t
            ("oven_s", np.int8, (OVEN_CAPACITY,)),  # singles in an ingredient entry
            ("oven_d", np.int8, (OVEN_CAPACITY,)),  # doubles in an ingredient entry
            ("oven_len", np.int16),
            ("reveal_pos", np.int16),
            ("mm_holder", np.int8),  # -1: the Mamma Mia! card is in the supply
            ("round", np.int8),
            ("phase", np.int8),
            ("seat", np.int8),  # seat to act (the order's owner in a reveal decision)
            ("last_seat", np.int8),  # seat that took the last play turn
            ("idle", np.int8),  # consecutive turns in which no card moved
            ("turns", np.int32),
            ("terminated", np.bool_),
            ("truncated", np.bool_),
            ("rewards", np.float32, (n,)),  # rewards produced by the last step
        ]
    )


class StateError(ValueError):
    """A saved state is corrupt or does not fit the config; the message names the field."""


class StateTypeError(StateError, TypeError):
    """Not a state at all (a ``GameState`` was expected): a ``StateError`` and, as for
    any argument of the wrong type, a ``TypeError``."""


@dataclass
class GameState:
    """A batch of games: the config they follow and their records."""

    config: Config
    data: np.ndarray

    @classmethod
    def empty(cls, config: Config, batch_size: int) -> GameState:
        """A batch of ``batch_size`` all-zero records (not a dealt game: ``Engine.reset``
        deals into it). ``batch_size`` 0 is allowed here (an empty batch to fill), not
        as an engine's input."""
        if not isinstance(config, Config):
            raise StateTypeError(f"config must be a Config, got {type(config).__name__}")
        return cls(config, np.zeros(as_int(batch_size, "batch_size", 0), dtype=state_dtype()))

    @property
    def batch_size(self) -> int:
        return int(self.data.shape[0])

    def copy(self) -> GameState:
        return GameState(self.config, self.data.copy())

    def __getitem__(self, index: Any) -> GameState:
        """A sub-batch (a copy), e.g. ``state[[3]]`` for game 3 alone."""
        return GameState(self.config, np.atleast_1d(self.data[index]).copy())

    def equals(self, other: GameState) -> bool:
        return self.config == other.config and self.data.tobytes() == other.data.tobytes()

    # -- JSON ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        games = []
        for rec in self.data:
            game = {}
            for name in self.data.dtype.names or ():
                value = rec[name]
                if name in ("seed", "rng"):
                    game[name] = str(int(value))  # 64-bit: keep exact in any JSON reader
                elif isinstance(value, np.ndarray):
                    game[name] = value.tolist()
                else:
                    game[name] = value.item()
            games.append(game)
        return {"format": "mamma-mia-state/1", "config": self.config.to_dict(), "games": games}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, obj: Any) -> GameState:
        if not isinstance(obj, dict) or obj.get("format") != "mamma-mia-state/1":
            raise StateError("not a mamma-mia-state/1 document (field 'format')")
        if not isinstance(obj.get("config"), dict):
            raise StateError("field 'config' is missing or not an object")
        try:
            config = Config.from_kwargs(**obj["config"])
        except (TypeError, ValueError) as exc:  # ConfigError: name it as the saved state's
            raise StateError(f"field 'config': {exc}") from exc
        games = obj.get("games")
        if not isinstance(games, list) or not games:
            raise StateError("field 'games' must be a non-empty list")
        dtype = state_dtype()
        assert dtype.names is not None and dtype.fields is not None  # a structured dtype
        data = np.zeros(len(games), dtype=dtype)
        for i, game in enumerate(games):
            if not isinstance(game, dict):
                raise StateError(f"games[{i}] is not an object")
            missing = sorted(set(dtype.names) - set(game))
            extra = sorted(set(game) - set(dtype.names))
            if missing or extra:
                raise StateError(f"games[{i}]: missing fields {missing}, unknown fields {extra}")
            for name in dtype.names:
                field_dtype = dtype.fields[name][0]
                shape = field_dtype.shape
                try:
                    raw = game[name]
                    if name in ("seed", "rng"):  # 64-bit: written as decimal strings
                        if isinstance(raw, str) and raw.isdigit():
                            raw = int(raw)
                        elif isinstance(raw, bool) or not isinstance(raw, int):
                            raise StateError(
                                f"games[{i}].{name}: expected a decimal string, got {raw!r}"
                            )
                    value = np.array(raw)
                    if value.shape != shape:
                        raise StateError(
                            f"games[{i}].{name}: shape {value.shape}, expected {shape}"
                        )
                    base = field_dtype.base
                    kinds = {"b": "b", "f": "fiu"}.get(base.kind, "iu")
                    if value.dtype.kind not in kinds:  # no 1.0, true or "3" for a count
                        expected = {"b": "booleans", "f": "numbers"}.get(base.kind, "integers")
                        raise StateError(
                            f"games[{i}].{name}: expected {expected}, got {value.dtype} values"
                        )
                    cast = value.astype(base)
                    if not np.array_equal(cast, value):
                        raise StateError(f"games[{i}].{name}: value out of range for {base}")
                except StateError:
                    raise
                except (TypeError, ValueError, OverflowError, RecursionError) as exc:
                    raise StateError(f"games[{i}].{name}: {exc}") from exc
                data[i][name] = cast
        state = cls(config, data)
        problems = check_state(state)
        if problems:
            raise StateError("corrupt state: " + "; ".join(problems[:5]))
        return state

    @classmethod
    def from_json(cls, text: str | bytes | bytearray) -> GameState:
        if not isinstance(text, (str, bytes, bytearray)):
            raise StateError(f"a saved state must be JSON text, got {type(text).__name__}")
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise StateError(f"not valid JSON: {exc}") from exc
        except RecursionError:
            raise StateError("not a saved state: JSON nested too deeply") from None
        return cls.from_dict(obj)


# -- consistency ---------------------------------------------------------------------
# The compiled kernels do no bounds checks: a field out of range makes them read or write
# past an array. So every state that comes from outside (a saved state, a built position,
# a ``GameState`` handed to ``reset``) passes ``check_state`` before a kernel sees it, and
# the invariant tests run it after every step of many random games. It checks every field:
# its range, that the oven holds real plays, that the phase agrees with ``reveal_pos`` and
# the end flags, and that every card is in exactly one place. It lives with the record so
# that ``GameState.from_dict`` can check what it read (validate.py imports this module).
#: The largest reward one step can give a seat: every order delivered plus a win.
MAX_STEP_REWARD = N_ORDER_TYPES + 1
#: No real game comes near; a state beyond it could wrap the 32-bit turn counter.
TURNS_LIMIT = 2**30
_DTYPE = state_dtype()


def _first_bad(mask: np.ndarray | np.bool_) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask)[:3]]


def check_state(state: GameState) -> list[str]:
    """Every problem found, each naming the game index and the field; [] if consistent.

    A batch of no games has no problems (``check_layout`` is what refuses it as an
    engine's input); a ``state`` that is not a ``GameState`` of the record layout is
    refused with ``StateError``, as it cannot be checked.
    """
    if not isinstance(state, GameState) or not isinstance(state.config, Config):
        raise StateTypeError(f"state must be a GameState, got {type(state).__name__}")
    if not isinstance(state.data, np.ndarray) or state.data.dtype != _DTYPE or state.data.ndim != 1:
        raise StateError("state.data must be a one-dimensional array of state_dtype() records")
    d = state.data
    cfg = state.config
    n = cfg.num_players
    problems: list[str] = []

    def report(mask: np.ndarray | np.bool_, what: str) -> None:
        bad = _first_bad(mask)
        if bad:
            problems.append(f"games {bad}: {what}")

    def outside(name: str, lo: int, hi: int) -> np.ndarray:
        """Games with a value of field ``name`` outside ``[lo, hi]``."""
        v = d[name].reshape(len(d), -1) if len(d) else d[name].reshape(0, 0)
        return np.asarray(((v < lo) | (v > hi)).any(axis=1))

    # -- ranges of every field (the kernels index arrays with these) --------------------
    report(~np.isin(d["phase"], (PLAY, REVEAL, OVER)), "phase not in 0-2")
    report(outside("round", 0, 2), "round not in 0-2")
    report(outside("seat", 0, n - 1), f"seat not in 0-{n - 1}")
    report(outside("last_seat", 0, n - 1), f"last_seat not in 0-{n - 1}")
    report(outside("mm_holder", -1, n - 1), f"mm_holder not in -1-{n - 1}")
    report((d["hand"] < 0).any(axis=(1, 2)), "negative hand count")
    report((d["hand"] > HAND_LIMIT).any(axis=(1, 2)), f"hand: a count above {HAND_LIMIT}")
    report(outside("orders_hand", 0, 1), "orders_hand: not 0/1")
    report(outside("delivered", 0, 1), "delivered: not 0/1")
    report(outside("stack", 0, N_ORDER_TYPES - 1), "stack: order type not in 0-7")
    report(outside("stack_len", 0, N_ORDER_TYPES), "stack_len not in 0-8")
    report(outside("stack_head", 0, N_ORDER_TYPES - 1), "stack_head not in 0-7")
    report(outside("supply", 0, MAMMA_MIA), "bad supply card code (not in 0-10)")
    report(outside("supply_len", 0, SUPPLY_CAPACITY), f"supply_len not in 0-{SUPPLY_CAPACITY}")
    report((d["supply_pos"] < 0) | (d["supply_pos"] > d["supply_len"]), "supply_pos")
    report((d["piles"] < 0).any(axis=1), "piles: negative count")
    report((d["used"] < 0).any(axis=1), "used: negative count")
    report(outside("oven_len", 0, OVEN_CAPACITY), f"oven_len not in 0-{OVEN_CAPACITY}")
    report(outside("oven_who", 0, n - 1), f"oven_who: seat not in 0-{n - 1}")
    report(
        outside("oven_what", 0, N_KINDS + N_ORDER_TYPES - 1),
        "oven_what: not an ingredient (0-4) or order (5-12)",
    )
    report(outside("oven_s", 0, HAND_LIMIT), f"oven_s: count not in 0-{HAND_LIMIT}")
    report(outside("oven_d", 0, DOUBLES_PER_KIND), f"oven_d: count not in 0-{DOUBLES_PER_KIND}")
    report((d["reveal_pos"] < 0) | (d["reveal_pos"] > d["oven_len"]), "reveal_pos")
    report((d["turns"] < 0) | (d["idle"] < 0), "turns/idle: negative")
    report(d["turns"] > TURNS_LIMIT, f"turns: above {TURNS_LIMIT} (the 32-bit counter would wrap)")
    flags = d["terminated"].view(np.uint8) | d["truncated"].view(np.uint8)
    report(flags > 1, "terminated/truncated: not a bool")
    rewards = d["rewards"]
    report(
        ~np.isfinite(rewards).all(axis=1)
        | (rewards < -1).any(axis=1)
        | (rewards > MAX_STEP_REWARD).any(axis=1)
        | (rewards[:, n:] != 0).any(axis=1),
        f"rewards: not in -1-{MAX_STEP_REWARD} (0 beyond the players)",
    )
    if problems:
        return problems  # the checks below index with these fields

    # -- the oven holds real plays -----------------------------------------------------
    idx = np.arange(OVEN_CAPACITY)[None, :]
    entry = idx < d["oven_len"][:, None]
    what = d["oven_what"].astype(np.int64)
    s = d["oven_s"].astype(np.int64)
    dd = d["oven_d"].astype(np.int64)
    ing = entry & (what < N_KINDS)
    report((ing & ((s + dd < 1) | (s + dd > HAND_LIMIT))).any(axis=1), "oven: empty play")
    if not cfg.double_ingredients:
        report((entry & (dd != 0)).any(axis=1), "oven_d: doubles without double_ingredients")
    report(
        (entry & (what >= N_KINDS) & ((s != 0) | (dd != 0))).any(axis=1),
        "oven: order entry with cards",
    )

    # -- phase, reveal position and end flags agree --------------------------------------
    phase = d["phase"]
    over = phase == OVER
    report(over != (d["terminated"] | d["truncated"]), "phase 'over' iff terminated or truncated")
    report(d["terminated"] & d["truncated"], "terminated and truncated at once")
    report((phase == PLAY) & (d["reveal_pos"] != 0), "reveal_pos: revealed entries during play")
    report(d["terminated"] & (d["round"] != 2), "terminated before the third round")
    report(
        d["terminated"] & (d["reveal_pos"] != d["oven_len"]),
        "terminated with unrevealed oven entries",
    )
    report(d["truncated"] & (d["reveal_pos"] != 0), "truncated during a reveal")
    if cfg.max_turns is not None:
        report(~over & (d["turns"] >= cfg.max_turns), f"turns: not below max_turns={cfg.max_turns}")
        report(d["truncated"] & (d["turns"] < cfg.max_turns), "truncated before max_turns")
    else:
        report(d["truncated"], "truncated without max_turns")
    if cfg.idle_cycle_guard:
        report((phase == PLAY) & (d["idle"] >= n), f"idle: {n}+ idle turns during play")
    if cfg.auto_reveal:
        report(phase == REVEAL, "reveal decision with auto_reveal")
    rev = np.flatnonzero(phase == REVEAL)
    if len(rev):  # a pending reveal decision belongs to the owner of the order at reveal_pos
        pos = d["reveal_pos"][rev].astype(np.int64)
        inside = pos < d["oven_len"][rev]
        safe = np.minimum(pos, OVEN_CAPACITY - 1)
        w = d["oven_what"][rev, safe]
        who = d["oven_who"][rev, safe]
        bad = ~inside | (w < N_KINDS) | (who != d["seat"][rev])
        report(
            np.isin(np.arange(len(d)), rev[bad]),
            "reveal: reveal_pos must point at an order whose owner is the seat to act",
        )

    hand_size = d["hand"].sum(axis=2) + d["orders_hand"].sum(axis=2)
    report((hand_size > HAND_LIMIT).any(axis=1), f"a hand holds more than {HAND_LIMIT} cards")

    # -- every card in exactly one place -----------------------------------------------
    # Cards still in the oven: all of it during play, the unrevealed part in a reveal
    # (a revealed entry's cards are in the piles, the used stack, a stack or delivered).
    live = (idx >= d["reveal_pos"][:, None]) & entry
    ing = live & (what < N_KINDS)
    counts = d["hand"].sum(axis=1).astype(np.int64) + d["piles"] + d["used"]
    for k in range(N_KINDS):
        counts[:, k] += (s * (ing & (what == k))).sum(axis=1)
        counts[:, N_KINDS + k] += (dd * (ing & (what == k))).sum(axis=1)
    spos = np.arange(SUPPLY_CAPACITY)[None, :]
    in_supply = (spos >= d["supply_pos"][:, None]) & (spos < d["supply_len"][:, None])
    sup = d["supply"].astype(np.int64)
    for c in range(N_CARD_TYPES):
        counts[:, c] += (in_supply & (sup == c)).sum(axis=1)
    expected = deck_counts(n, cfg.double_ingredients)
    report((counts != expected[None, :]).any(axis=1), "ingredient cards not conserved")
    mm = (in_supply & (sup == MAMMA_MIA)).sum(axis=1) + (d["mm_holder"] >= 0)
    report(mm != 1, "the Mamma Mia! card is not in exactly one place")

    orders = d["orders_hand"].astype(np.int64) + d["delivered"]
    for seat in range(n):
        for t in range(N_ORDER_TYPES):
            orders[:, seat, t] += (live & (what == N_KINDS + t) & (d["oven_who"] == seat)).sum(
                axis=1
            )
        for j in range(N_ORDER_TYPES):
            pos = (d["stack_head"][:, seat].astype(np.int64) + j) % N_ORDER_TYPES
            t = d["stack"][np.arange(len(d)), seat, pos].astype(np.int64)
            rows = np.flatnonzero(j < d["stack_len"][:, seat])
            np.add.at(orders, (rows, seat, t[rows]), 1)  # type: ignore[arg-type]  # int in index
    report((orders[:, :n] != 1).any(axis=(1, 2)), "order cards not conserved (one place each)")
    unused = (
        d["hand"][:, n:].any(axis=(1, 2))
        | d["orders_hand"][:, n:].any(axis=(1, 2))
        | d["delivered"][:, n:].any(axis=(1, 2))
        | d["stack_len"][:, n:].any(axis=1)
    )
    report(unused, f"cards at seats beyond the {n} players")
    return problems
