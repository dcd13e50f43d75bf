"""Consistency of game records: every problem, each naming the game and the field.

The compiled kernels do no bounds checks, so every state from outside passes these
checks (``state.check_state``) before a kernel sees it, and the invariant tests run
them after every step of many random games: every field's range, real plays in the
oven, the phase agreeing with ``reveal_pos`` and the end flags, every card in one place.
"""

from __future__ import annotations

from collections.abc import Callable

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
from mamma_mia_env.game.record import OVER, PLAY, REVEAL

#: The largest reward one step can give a seat: every order delivered plus a win.
MAX_STEP_REWARD = N_ORDER_TYPES + 1
#: No real game comes near; a state beyond it could wrap the 32-bit turn counter.
TURNS_LIMIT = 2**30


Report = Callable[[np.ndarray | np.bool_, str], None]


def record_problems(d: np.ndarray, cfg: Config) -> list[str]:
    """Every problem of the records ``d`` under ``cfg``; [] if consistent. The other
    checks index arrays with the fields, so they run only once every field is in range."""
    problems: list[str] = []

    def report(mask: np.ndarray | np.bool_, what: str) -> None:
        bad = [int(i) for i in np.flatnonzero(mask)[:3]]
        if bad:
            problems.append(f"games {bad}: {what}")

    _field_ranges(d, cfg.num_players, report)
    if problems:
        return problems
    _oven_plays(d, cfg, report)
    _phase_agrees(d, cfg, report)
    _cards_conserved(d, cfg, report)
    return problems


def _field_ranges(d: np.ndarray, n: int, report: Report) -> None:
    def outside(name: str, lo: int, hi: int) -> np.ndarray:
        """Games with a value of field ``name`` outside ``[lo, hi]``."""
        v = d[name].reshape(len(d), -1) if len(d) else d[name].reshape(0, 0)
        return np.asarray(((v < lo) | (v > hi)).any(axis=1))

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
    report(outside("stack_known", 0, N_ORDER_TYPES), "stack_known not in 0-8")
    report((d["stack_known"] > d["stack_len"]).any(axis=1), "stack_known above stack_len")
    report(outside("orders_shown", 0, 1), "orders_shown: not 0/1")
    report((d["round_supply"] < 0).any(axis=1) | (d["round_unseen"] < 0), "round_supply: negative")
    report((d["drawn"] < 0).any(axis=(1, 2)), "drawn: negative count")
    report((d["played"] < 0).any(axis=(1, 2)), "played: negative count")
    report(
        (d["played_early"] < 0).any(axis=(1, 2))
        | (d["played_early"] > d["played"]).any(axis=(1, 2)),
        "played_early: negative or above played",
    )
    report((d["orders_shown"] > d["orders_hand"]).any(axis=(1, 2)), "orders_shown: not in hand")
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


def _oven_entries(d: np.ndarray) -> tuple[np.ndarray, ...]:
    """Oven slot indices ``(1, C)``, which slots hold entries, and their what/s/d."""
    idx = np.arange(OVEN_CAPACITY)[None, :]
    entry = idx < d["oven_len"][:, None]
    what = d["oven_what"].astype(np.int64)
    s = d["oven_s"].astype(np.int64)
    dd = d["oven_d"].astype(np.int64)
    return idx, entry, what, s, dd


def _oven_plays(d: np.ndarray, cfg: Config, report: Report) -> None:
    """The oven holds real plays."""
    _, entry, what, s, dd = _oven_entries(d)
    ing = entry & (what < N_KINDS)
    report((ing & ((s + dd < 1) | (s + dd > HAND_LIMIT))).any(axis=1), "oven: empty play")
    if not cfg.double_ingredients:
        report((entry & (dd != 0)).any(axis=1), "oven_d: doubles without double_ingredients")
    report(
        (entry & (what >= N_KINDS) & ((s != 0) | (dd != 0))).any(axis=1),
        "oven: order entry with cards",
    )


def _phase_agrees(d: np.ndarray, cfg: Config, report: Report) -> None:
    """Phase, reveal position and end flags agree (and no hand is over the limit)."""
    n = cfg.num_players
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
    # a pending reveal decision belongs to the owner of the order at reveal_pos
    pos, rows = d["reveal_pos"].astype(np.int64), np.arange(len(d))
    safe = np.minimum(pos, OVEN_CAPACITY - 1)
    w, who = d["oven_what"][rows, safe], d["oven_who"][rows, safe]
    report(
        (phase == REVEAL) & ((pos >= d["oven_len"]) | (w < N_KINDS) | (who != d["seat"])),
        "reveal: reveal_pos must point at an order whose owner is the seat to act",
    )

    hand_size = d["hand"].sum(axis=2) + d["orders_hand"].sum(axis=2)
    report((hand_size > HAND_LIMIT).any(axis=1), f"a hand holds more than {HAND_LIMIT} cards")


def _cards_conserved(d: np.ndarray, cfg: Config, report: Report) -> None:
    """Every card in exactly one place."""
    n = cfg.num_players
    idx, entry, what, s, dd = _oven_entries(d)
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
