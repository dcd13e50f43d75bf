"""What every bot kernel shares: the per-game compile options, scratch space, constants.

The per-game kernels never allocate: their scratch is cut out of the workspace arrays
the batch loops allocate once per work item (``workspace``), at the places the layout
table below gives. Each part is named and sized once, from the game's constants; the
parts follow one another (each rounded up to 8 elements) and a kernel takes its part with
``part(ws, NAME)``. Compiled without numba's runtime (NRT), a slice is a plain pointer
and length; with it, every slice and every array passed to a call takes an atomic
reference-count increment and decrement. Without them (and with the rank sort of
``oven.oven_slots``) a decision takes 0.6-0.8 of the time it took
(``experiments/results/bot_kernels/against_562aa93.json``). ``_nrt`` is numba's target option for
this (numba's own tests use it); a kernel that allocated under it would fail to compile,
so nothing can go wrong silently.

Every kernel of this package is compiled through ``mamma_mia_env.plumbing.jit_cache.njit``
(``numba.njit`` with the same options, ``parallel``, ``_nrt`` and ``inline`` included),
never numba's own ``cache=True``: numba's cache watches only the file a kernel is
written in, so an edit to the rules (``mamma_mia_env``) or to another kernel file would
leave these kernels running the old code. The shared cache is keyed on every source
file of both packages (tests/plumbing/test_stale_kernels.py edits a rule and checks).
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.actions import ORDER_SLOTS
from mamma_mia_env.game.cards import N_KINDS, N_ORDER_TYPES, REMOVED_PER_KIND
from mamma_mia_env.game.record import MAX_SEATS
from mamma_mia_env.plumbing.jit_cache import njit

K = N_KINDS  # ingredient kinds
T = N_ORDER_TYPES  # order types
F32 = np.float32
BIG32 = np.float32(1.0e9)
CHUNKS = 64  # work items of a parallel loop; each allocates its scratch once
MAX_OVEN_ORDERS = MAX_SEATS * T  # a seat puts each of its order types in the oven once
#: ``REMOVED_PER_KIND`` by player count, as a tuple the kernels can index
REMOVED_BY_PLAYERS = tuple(REMOVED_PER_KIND.get(n, 0) for n in range(MAX_SEATS + 1))

per_game = njit(_nrt=False)


class _Layout:
    """Parts of one scratch array, laid out one after the other from their sizes."""

    def __init__(self) -> None:
        self.size = 0

    def part(self, size: int) -> tuple[int, int]:
        """The next part: ``(start, stop)``, starting on a multiple of 8 elements."""
        start = self.size
        self.size += -(-size // 8) * 8
        return start, start + size


# -- the scratch layout: float32 (``ws``), float64 (``wd``), int64 (``wi``) ----------------
_ws, _wd, _wi = _Layout(), _Layout(), _Layout()
# oven.py: my_demand's order weights; simulate_oven, bound_oven, estimate_pool
DEMAND_W = _ws.part(T)
CONSUMED, OWNER_POOL = _ws.part(K), _ws.part(K)
TOOK_LO, TOOK_HI, LOW_NOW, HIGH_NOW = _ws.part(K), _ws.part(K), _ws.part(K), _ws.part(K)
UNSEEN = _ws.part(K)
OVEN_KEYS = _ws.part(MAX_OVEN_ORDERS)  # oven_slots' sort keys
NEED_F64, SHORT_F64 = _wd.part(K), _wd.part(K)  # simulate_oven: an order's need, shortfall
OVEN_SLOTS, OVEN_PACKED = _wi.part(MAX_OVEN_ORDERS), _wi.part(MAX_OVEN_ORDERS)
# decisions.py: the reveal decision
REVEAL_POOL, KEEP = _ws.part(K), _ws.part(K)
# decisions.py: the turn decision, per ingredient
HV, PV, POOL, RESERVE, HIGH = (_ws.part(K) for _ in range(5))
RIVALS, WANT, NEED_HAND = (_ws.part(K) for _ in range(3))
ADD, POOL_C, HAND_AFTER, FREE, TMP, TMP2 = (_ws.part(K) for _ in range(6))
# ... per order type, per order slot, and the slot of "no scores wanted"
SHORT, UNCOVERED, TAKEN = _ws.part(T), _ws.part(T), _ws.part(T)
ORDER_SCORE = _ws.part(ORDER_SLOTS)
NO_SCORES = _ws.part(1)
MET, COVER = _wi.part(T), _wi.part(T)
WS_SIZE, WD_SIZE, WI_SIZE = _ws.size, _wd.size, _wi.size


@njit(inline="always")
def part(a, where):
    """The part ``where`` (a ``(start, stop)`` of the layout above) of scratch array ``a``."""
    return a[where[0] : where[1]]


@njit(inline="always")
def at(ob, i: int) -> np.float32:
    """Entry ``i`` of an observation row as float32, the bots' arithmetic. The kernels
    read the envs' uint8 rows in place (float32 rows too): every uint8 value is exact in
    float32, so the decisions are the same, and a batch converted to float32 first is four
    times the memory the decisions wait on (``batch.decide``)."""
    return F32(ob[i])


@njit(inline="always")
def sum5(a) -> np.float32:
    """The float32 sum of five values, left to right (the bots' scores depend on the
    order of a float32 sum)."""
    s = a[0]
    for k in range(1, K):
        s = s + a[k]
    return s


@njit()
def workspace():
    """Scratch arrays for ``decisions.decide_one`` (float32, float64, int64), reused
    across games: the per-game functions take their parts (``part``) instead of
    allocating."""
    return np.empty(WS_SIZE, np.float32), np.empty(WD_SIZE, np.float64), np.empty(WI_SIZE, np.int64)
