"""Text rendering of the public table, seen from one seat."""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.cards import INGREDIENTS, N_KINDS, order_name
from mamma_mia_env.game.state import PHASE_NAMES, REVEAL


def _cards(counts: np.ndarray) -> str:
    parts = []
    for k in range(N_KINDS):
        if counts[k]:
            parts.append(f"{int(counts[k])} {INGREDIENTS[k]}")
        if counts[N_KINDS + k]:
            parts.append(f"{int(counts[N_KINDS + k])} double {INGREDIENTS[k]}")
    return ", ".join(parts) if parts else "-"


def _oven_entry(rec: np.void, i: int) -> str:
    who, what = int(rec["oven_who"][i]), int(rec["oven_what"][i])
    if what < N_KINDS:
        s, d = int(rec["oven_s"][i]), int(rec["oven_d"][i])
        text = f"{s} {INGREDIENTS[what]}" if s else ""
        if d:
            text += (" + " if s else "") + f"{d} double {INGREDIENTS[what]}"
        return f"seat {who}: {text}"
    return f"seat {who}: order [{order_name(what - N_KINDS, who)}]"


def render_table(rec: np.void, viewer: int, num_players: int, recall: bool = True) -> str:
    """The public table plus ``viewer``'s own hand; hidden cards are never shown."""
    n = num_players
    phase = PHASE_NAMES[int(rec["phase"])]
    lines = [
        f"Mamma Mia! round {int(rec['round']) + 1}/3, {phase}, seat {int(rec['seat'])} to act"
        f" (view of seat {viewer})",
        f"supply: {int(rec['supply_len'] - rec['supply_pos'])} cards   "
        f"Mamma Mia! card: "
        + (f"seat {int(rec['mm_holder'])}" if rec["mm_holder"] >= 0 else "in the supply"),
        f"face-up piles: {_cards(rec['piles'])}",
    ]
    oven_len = int(rec["oven_len"])
    if rec["phase"] == REVEAL:
        i = int(rec["reveal_pos"])
        lines.append(f"reveal: card {i + 1}/{oven_len} is {_oven_entry(rec, i)}")
    elif oven_len:
        if recall:
            lines.append(f"oven ({oven_len} plays, first to last):")
            lines += [f"  {_oven_entry(rec, i)}" for i in range(oven_len)]
        else:
            lines.append(f"oven top card: {_oven_entry(rec, oven_len - 1)}")
    else:
        lines.append("oven: empty")
    for s in range(n):
        size = int(rec["hand"][s].sum() + rec["orders_hand"][s].sum())
        delivered = [order_name(int(t), s) for t in np.flatnonzero(rec["delivered"][s])]
        lines.append(
            f"seat {s} ({INGREDIENTS[s]}): hand {size} ({int(rec['orders_hand'][s].sum())} orders),"
            f" stack {int(rec['stack_len'][s])}, delivered {len(delivered)}"
            + (f" [{'; '.join(delivered)}]" if delivered else "")
        )
    hand = _cards(rec["hand"][viewer])
    orders = [
        f"{t}: {order_name(int(t), viewer)}" for t in np.flatnonzero(rec["orders_hand"][viewer])
    ]
    lines.append(f"your hand (seat {viewer}): {hand}; orders: {'; '.join(orders) or '-'}")
    return "\n".join(lines)
