"""What a viewer may see: the one place that decides it for every renderer.

``table_view`` turns one game record into a JSON-ready view for a viewer: a seat (its
own hand and orders, the public table) or ``None`` (the spectator: every hand). The
text render (``render.text``), the SVG (``render.svg``), the raster frames
(``render.image``) and the HTML replay (``render.html``) only draw a view, so they all
show the same thing and none of them can leak a hidden card by accident. How a seat is
called (``seat_label``: "you" for the viewer's own seat) is decided here too, so every
renderer names seats alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mamma_mia_env.game.cards import INGREDIENTS, N_KINDS, order_name
from mamma_mia_env.game.record import PHASE_NAMES, REVEAL


def _counts(counts: np.ndarray) -> list[list[int]]:
    """``[kind, singles, doubles]`` for each ingredient present."""
    out = []
    for k in range(N_KINDS):
        s, d = int(counts[k]), int(counts[N_KINDS + k])
        if s or d:
            out.append([k, s, d])
    return out


def _oven_entry(rec: np.void, i: int) -> dict[str, Any]:
    who, what = int(rec["oven_who"][i]), int(rec["oven_what"][i])
    if what < N_KINDS:
        return {"seat": who, "kind": what, "s": int(rec["oven_s"][i]), "d": int(rec["oven_d"][i])}
    return {"seat": who, "order": order_name(what - N_KINDS, who)}


def table_view(
    rec: np.void, num_players: int, viewer: int | None, history: bool = True
) -> dict[str, Any]:
    """What a picture of game ``rec`` shows to ``viewer`` (a seat, or ``None``: all hands).

    A seat sees its own hand and orders only; the oven is the full play history with
    ``history`` (what the ``fixed`` observation holds: a memory aid) and the top card
    otherwise (``top_card``); during a reveal the
    cards turned over so far are public.
    """
    n = num_players
    if viewer is not None and not (isinstance(viewer, (int, np.integer)) and 0 <= viewer < n):
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer!r}")
    oven_len = int(rec["oven_len"])
    phase = int(rec["phase"])
    if phase == REVEAL:
        shown = list(range(min(int(rec["reveal_pos"]) + 1, oven_len)))
    elif history:
        shown = list(range(oven_len))
    else:
        shown = [oven_len - 1] if oven_len else []
    seats = []
    for s in range(n):
        visible = viewer is None or viewer == s
        orders = np.flatnonzero(rec["orders_hand"][s])
        seats.append(
            {
                "seat": s,
                "personal": INGREDIENTS[s],
                "hand_size": int(rec["hand"][s].sum() + rec["orders_hand"][s].sum()),
                "orders_in_hand": int(rec["orders_hand"][s].sum()),
                "stack": int(rec["stack_len"][s]),
                "delivered": [order_name(int(t), s) for t in np.flatnonzero(rec["delivered"][s])],
                "hand": _counts(rec["hand"][s]) if visible else None,
                "orders": [order_name(int(t), s) for t in orders] if visible else None,
                "order_types": [int(t) for t in orders] if visible else None,
            }
        )
    return {
        "round": int(rec["round"]) + 1,
        "phase": PHASE_NAMES[phase],
        "to_act": int(rec["seat"]),
        "viewer": None if viewer is None else int(viewer),
        "supply": int(rec["supply_len"] - rec["supply_pos"]),
        "mm_holder": int(rec["mm_holder"]),
        "piles": _counts(rec["piles"]),
        "oven_len": oven_len,
        "oven_mode": "reveal" if phase == REVEAL else ("history" if history else "top_card"),
        "oven": [_oven_entry(rec, i) for i in shown],
        "reveal_pos": int(rec["reveal_pos"]) if phase == REVEAL else None,
        "seats": seats,
    }


def seat_label(seat: int, names: Sequence[str] | None = None, you: int | None = None) -> str:
    """How a seat is called everywhere: ``seat 2``; ``ppo (seat 2)`` when the agents'
    names are known (one per seat); ``you`` for the person's own seat (``you``)."""
    if you is not None and seat == you:
        return "you"
    if names is None or not 0 <= seat < len(names):
        return f"seat {seat}"
    return f"{names[seat]} (seat {seat})"


def seat_name(seat: int, names: Sequence[str] | None = None) -> str:
    """A seat's short name, where ``seat_label`` is too long (a play in the oven, a
    score): its agent's name, or ``seat 2``."""
    return names[seat] if names is not None and 0 <= seat < len(names) else f"seat {seat}"
