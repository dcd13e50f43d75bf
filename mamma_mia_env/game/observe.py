"""Observers: what one seat may know, as a flat vector (docs/ENV.md).

Kept apart from the rules (as OpenSpiel keeps observers apart from games) because
this is the one place where hidden information could leak. The vector holds the
observing seat's own hand and order stack contents, and public information only:
never another seat's hand, the order of the supply, or the order of any stack.

Seats are relative: slot j describes seat ``(observer + j) % N``, so slot 0 is always
the observer.

Both modes are uint8 with ``MAX_SEATS`` seat slots (the slots past N are zero, and a
``seat_present`` flag per slot says which hold a seat): one dtype and one size for
every table, so one network can play 2-5 players (``game.fields`` names and decodes
their sections).

* ``fixed`` (perfect memory, the default): the public history of this round's oven,
  the used stack and the own order stack.
* ``top_card``: only what a player sees at a glance without memory: the top card of
  the oven instead of its history, and no used-stack or own-stack contents (knowing
  those takes remembering the oven).
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.cards import MAMMA_MIA, N_CARD_TYPES, N_KINDS, N_ORDER_TYPES
from mamma_mia_env.game.record import MAX_SEATS, REVEAL
from mamma_mia_env.plumbing.jit_cache import njit

#: The bound of every observation entry (the ``Box`` of every env): counts, flags and
#: positions are all far below it.
OBS_HIGH = 255.0
#: The dtype of every observation: each entry is an integer in 0-255 (``game.fields``).
OBS_DTYPE = np.dtype(np.uint8)
FIXED, TOP_CARD = 0, 1
#: The kernel's code of each mode (``config.OBSERVATION_MODES`` names them).
MODE_CODES = {"fixed": FIXED, "top_card": TOP_CARD}
SEAT_FEATURES = ("hand_size", "orders_in_hand", "stack_size", "delivered", "mm_holder", "to_act")
ORDER_SLOT_FEATURES = 7  # in_oven, oven index, ingredient value played before it (5)


def remembers(mode: str) -> bool:
    """Whether an observation of ``mode`` holds what a perfect memory knows (the oven's
    history, the used stack, the own stack): ``fixed``, not ``top_card``."""
    return mode != "top_card"


def observation_layout(mode: str) -> list[tuple[str, int]]:
    """The observation's sections in order, with their sizes (docs/ENV.md): the same
    for every player count."""
    n = MAX_SEATS
    memory = remembers(mode)
    layout = [
        ("seat_present", n),
        ("hand", N_CARD_TYPES),
        ("orders_in_hand", N_ORDER_TYPES),
    ]
    if memory:
        layout.append(("orders_in_stack", N_ORDER_TYPES))
    layout += [
        ("seats", len(SEAT_FEATURES) * n),
        ("delivered", N_ORDER_TYPES * n),
        ("piles", N_CARD_TYPES),
    ]
    if memory:
        layout.append(("used", N_CARD_TYPES))
    layout += [
        ("supply_size", 1),
        ("round", 3),
        ("phase", 2),
        ("pending_order", n + N_ORDER_TYPES),
    ]
    if memory:
        layout += [
            ("oven_totals", N_CARD_TYPES),
            ("oven_by_seat", N_KINDS * n),
            ("oven_orders", ORDER_SLOT_FEATURES * N_ORDER_TYPES * n),
            ("oven_progress", 2),
        ]
    else:
        layout.append(("top_card", n + N_KINDS + N_ORDER_TYPES + 2))
    layout.append(("personal", N_KINDS))
    return layout


def observation_size(mode: str) -> int:
    return sum(size for _, size in observation_layout(mode))


@njit(inline="always")
def _rel(who: int, seat: int, n: int) -> int:
    """``(who - seat) % n`` for seats in ``[0, n)``, without an integer division (the
    division in the oven loop below was a third of the vector env's step time)."""
    d = who - seat
    return d + n if d < 0 else d


@njit()
def observe_game(r, seat: int, n: int, mode: int, out) -> int:
    """Write seat ``seat``'s view of record ``r`` into ``out``; returns the size written.

    ``out`` is uint8 (or the float32 of ``global_state``): every value written is a
    count, flag or index of at most 112 (the oven's capacity; the value ranges are in
    ``game.fields``), so a uint8 write never wraps."""
    out[:] = 0
    slots = MAX_SEATS
    memory = mode != TOP_CARD
    for j in range(n):
        out[j] = 1
    o = slots
    for c in range(N_CARD_TYPES):
        out[o + c] = r.hand[seat, c]
    o += N_CARD_TYPES
    for t in range(N_ORDER_TYPES):
        out[o + t] = r.orders_hand[seat, t]
    o += N_ORDER_TYPES
    if memory:
        for j in range(r.stack_len[seat]):
            out[o + r.stack[seat, (r.stack_head[seat] + j) % N_ORDER_TYPES]] = 1
        o += N_ORDER_TYPES
    for j in range(n):
        s = seat + j - n if seat + j >= n else seat + j
        out[o] = r.hand[s].sum() + r.orders_hand[s].sum()
        out[o + 1] = r.orders_hand[s].sum()
        out[o + 2] = r.stack_len[s]
        out[o + 3] = r.delivered[s].sum()
        out[o + 4] = 1 if r.mm_holder == s else 0
        out[o + 5] = 1 if r.seat == s else 0
        o += 6
    o += 6 * (slots - n)
    for j in range(n):
        s = seat + j - n if seat + j >= n else seat + j
        for t in range(N_ORDER_TYPES):
            out[o + t] = r.delivered[s, t]
        o += N_ORDER_TYPES
    o += N_ORDER_TYPES * (slots - n)
    for c in range(N_CARD_TYPES):
        out[o + c] = r.piles[c]
    o += N_CARD_TYPES
    if memory:
        for c in range(N_CARD_TYPES):
            out[o + c] = r.used[c]
        o += N_CARD_TYPES
    out[o] = r.supply_len - r.supply_pos
    o += 1
    out[o + r.round] = 1
    o += 3
    in_reveal = r.phase == REVEAL
    out[o + (1 if in_reveal else 0)] = 1
    o += 2
    if in_reveal:
        i = r.reveal_pos
        out[o + _rel(r.oven_who[i], seat, n)] = 1
        out[o + slots + r.oven_what[i] - N_KINDS] = 1
    o += slots + N_ORDER_TYPES
    if memory:
        o = _write_oven(r, seat, n, slots, out, o)
    else:
        if r.oven_len > 0 and not in_reveal:
            i = r.oven_len - 1
            out[o + _rel(r.oven_who[i], seat, n)] = 1
            out[o + slots + r.oven_what[i]] = 1
            out[o + slots + N_KINDS + N_ORDER_TYPES] = r.oven_s[i]
            out[o + slots + N_KINDS + N_ORDER_TYPES + 1] = r.oven_d[i]
        o += slots + N_KINDS + N_ORDER_TYPES + 2
    out[o + seat] = 1  # the observer's personal ingredient: ingredient = seat
    o += N_KINDS
    return o


@njit(inline="always")
def _write_oven(r, seat: int, n: int, slots: int, out, o: int) -> int:
    """The oven's public history from offset ``o`` (``oven_totals`` to
    ``oven_progress``, ``slots`` seat slots); returns the offset after it."""
    totals = o
    by_seat = totals + N_CARD_TYPES
    orders = by_seat + N_KINDS * slots
    for i in range(r.oven_len):
        rel = _rel(r.oven_who[i], seat, n)
        what = r.oven_what[i]
        if what < N_KINDS:
            out[totals + what] += r.oven_s[i]
            out[totals + N_KINDS + what] += r.oven_d[i]
            out[by_seat + rel * N_KINDS + what] += r.oven_s[i] + 2 * r.oven_d[i]
        else:
            slot = orders + (rel * N_ORDER_TYPES + what - N_KINDS) * ORDER_SLOT_FEATURES
            out[slot] = 1
            out[slot + 1] = i
            for k in range(N_KINDS):  # value played before it: the running totals
                out[slot + 2 + k] = out[totals + k] + 2 * out[totals + N_KINDS + k]
    o = orders + ORDER_SLOT_FEATURES * N_ORDER_TYPES * slots
    out[o] = r.oven_len
    out[o + 1] = r.reveal_pos
    return o + 2


def global_state_layout(num_players: int) -> list[tuple[str, int]]:
    """The centralised-critic state: seat 0's ``fixed`` view plus every private field."""
    n = num_players
    return [
        ("seat0_view", observation_size("fixed")),
        ("hands", N_CARD_TYPES * n),
        ("orders_in_hand", N_ORDER_TYPES * n),
        ("orders_in_stack", N_ORDER_TYPES * n),
        ("supply_contents", N_CARD_TYPES + 1),
    ]


@njit()
def global_state_game(r, n: int, view_size: int, out) -> None:
    out[:] = 0.0
    observe_game(r, 0, n, FIXED, out[:view_size])
    o = view_size
    for s in range(n):
        for c in range(N_CARD_TYPES):
            out[o + c] = r.hand[s, c]
        o += N_CARD_TYPES
    for s in range(n):
        for t in range(N_ORDER_TYPES):
            out[o + t] = r.orders_hand[s, t]
        o += N_ORDER_TYPES
    for s in range(n):
        for j in range(r.stack_len[s]):
            out[o + r.stack[s, (r.stack_head[s] + j) % N_ORDER_TYPES]] = 1.0
        o += N_ORDER_TYPES
    for i in range(N_CARD_TYPES + 1):
        out[o + i] = 0.0
    for i in range(r.supply_pos, r.supply_len):
        c = r.supply[i]
        out[o + (N_CARD_TYPES if c == MAMMA_MIA else c)] += 1.0


def observation_slices(mode: str) -> dict[str, slice]:
    """Section name -> slice of the observation vector, e.g. ``obs[..., s["piles"]]``."""
    out = {}
    o = 0
    for name, size in observation_layout(mode):
        out[name] = slice(o, o + size)
        o += size
    return out
