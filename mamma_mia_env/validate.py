"""Consistency checks of a batch of game states.

Used when a saved state is loaded (a corrupt state must be refused, naming the
problem) and by the invariant tests after every step of many random games: every card
is in exactly one place, hands respect the limit, fields are in range.
"""

from __future__ import annotations

import numpy as np

from .cards import HAND_LIMIT, MAMMA_MIA, N_CARD_TYPES, N_KINDS, N_ORDER_TYPES, deck_counts
from .state import OVER, PLAY, REVEAL, GameState


def _first_bad(mask: np.ndarray | np.bool_) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask)[:3]]


def check_state(state: GameState) -> list[str]:
    """Every problem found, each naming the game index and the field; [] if consistent."""
    d = state.data
    cfg = state.config
    n = cfg.num_players
    problems: list[str] = []

    def report(mask: np.ndarray | np.bool_, what: str) -> None:
        bad = _first_bad(mask)
        if bad:
            problems.append(f"games {bad}: {what}")

    report(~np.isin(d["phase"], (PLAY, REVEAL, OVER)), "phase not in 0-2")
    report((d["round"] < 0) | (d["round"] > 2), "round not in 0-2")
    report((d["seat"] < 0) | (d["seat"] >= n), f"seat not in 0-{n - 1}")
    report((d["mm_holder"] < -1) | (d["mm_holder"] >= n), "mm_holder out of range")
    report((d["hand"] < 0).any(axis=(1, 2)), "negative hand count")
    report((d["piles"] < 0).any(axis=1), "piles: negative count")
    report((d["used"] < 0).any(axis=1), "used: negative count")
    report((d["stack_len"] < 0).any(axis=1) | (d["stack_len"] > 8).any(axis=1), "stack_len")
    report((d["stack_head"] < 0).any(axis=1) | (d["stack_head"] > 7).any(axis=1), "stack_head")
    report((d["supply_pos"] < 0) | (d["supply_pos"] > d["supply_len"]), "supply_pos")
    report((d["supply_len"] < 0) | (d["supply_len"] > d["supply"].shape[1]), "supply_len")
    report((d["oven_len"] < 0) | (d["oven_len"] > d["oven_who"].shape[1]), "oven_len")
    report((d["reveal_pos"] < 0) | (d["reveal_pos"] > d["oven_len"]), "reveal_pos")
    report((d["turns"] < 0) | (d["idle"] < 0), "turns/idle: negative")
    entry = np.arange(d["oven_who"].shape[1])[None, :] < d["oven_len"][:, None]
    bad_who = entry & ((d["oven_who"] < 0) | (d["oven_who"] >= n))
    bad_what = entry & ((d["oven_what"] < 0) | (d["oven_what"] >= N_KINDS + N_ORDER_TYPES))
    report(bad_who.any(axis=1), f"oven_who: seat not in 0-{n - 1}")
    report(bad_what.any(axis=1), "oven_what: not an ingredient (0-4) or order (5-12)")
    bad_count = entry & ((d["oven_s"] < 0) | (d["oven_d"] < 0))
    report(bad_count.any(axis=1), "oven_s/oven_d: negative count")
    if problems:
        return problems  # the counts below index with these fields

    # A pending reveal decision belongs to the owner of an order at reveal_pos.
    rev = np.flatnonzero(d["phase"] == REVEAL)
    if len(rev):
        pos = d["reveal_pos"][rev].astype(np.int64)
        inside = pos < d["oven_len"][rev]
        safe = np.minimum(pos, d["oven_who"].shape[1] - 1)
        what = d["oven_what"][rev, safe]
        who = d["oven_who"][rev, safe]
        bad = ~inside | (what < N_KINDS) | (who != d["seat"][rev])
        report(
            np.isin(np.arange(len(d)), rev[bad]),
            "reveal: reveal_pos must point at an order whose owner is the seat to act",
        )

    hand_size = d["hand"].sum(axis=2) + d["orders_hand"].sum(axis=2)
    report((hand_size > HAND_LIMIT).any(axis=1), f"a hand holds more than {HAND_LIMIT} cards")

    # Cards still in the oven: all of it during play, the unrevealed part in a reveal.
    idx = np.arange(d["oven_who"].shape[1])[None, :]
    live = (idx >= d["reveal_pos"][:, None]) & (idx < d["oven_len"][:, None])
    what = d["oven_what"].astype(np.int64)
    ing = live & (what < N_KINDS)
    counts = d["hand"].sum(axis=1).astype(np.int64) + d["piles"] + d["used"]
    for k in range(N_KINDS):
        counts[:, k] += (d["oven_s"] * (ing & (what == k))).sum(axis=1)
        counts[:, N_KINDS + k] += (d["oven_d"] * (ing & (what == k))).sum(axis=1)
    spos = np.arange(d["supply"].shape[1])[None, :]
    in_supply = (spos >= d["supply_pos"][:, None]) & (spos < d["supply_len"][:, None])
    sup = d["supply"].astype(np.int64)
    for c in range(N_CARD_TYPES):
        counts[:, c] += (in_supply & (sup == c)).sum(axis=1)
    expected = deck_counts(n, cfg.double_ingredients)
    report((counts != expected[None, :]).any(axis=1), "ingredient cards not conserved")
    mm = (in_supply & (sup == MAMMA_MIA)).sum(axis=1) + (d["mm_holder"] >= 0)
    report(mm != 1, "the Mamma Mia! card is not in exactly one place")
    report((in_supply & ((sup < 0) | (sup > MAMMA_MIA))).any(axis=1), "bad supply card code")

    orders = d["orders_hand"].astype(np.int64) + d["delivered"]
    for s in range(n):
        for t in range(N_ORDER_TYPES):
            orders[:, s, t] += (live & (what == N_KINDS + t) & (d["oven_who"] == s)).sum(axis=1)
        for j in range(N_ORDER_TYPES):
            pos = (d["stack_head"][:, s].astype(np.int64) + j) % N_ORDER_TYPES
            entry = d["stack"][np.arange(len(d)), s, pos].astype(np.int64)
            inside = j < d["stack_len"][:, s]
            valid = (entry >= 0) & (entry < N_ORDER_TYPES)
            report(inside & ~valid, f"seat {s}: bad order type in stack")
            rows = np.flatnonzero(inside & valid)
            np.add.at(orders, (rows, s, entry[rows]), 1)  # type: ignore[arg-type]  # int in index
    report((orders[:, :n] != 1).any(axis=(1, 2)), "order cards not conserved (one place each)")
    unused = (
        d["hand"][:, n:].any(axis=(1, 2))
        | d["orders_hand"][:, n:].any(axis=(1, 2))
        | d["delivered"][:, n:].any(axis=(1, 2))
        | d["stack_len"][:, n:].any(axis=1)
    )
    report(unused, f"cards at seats beyond the {n} players")
    return problems
