"""What every bot kernel shares: the per-game compile options, scratch space, constants.

The per-game kernels never allocate: their scratch is sliced out of the workspace
arrays the batch loops allocate once per work item (``workspace``). Compiled without
numba's runtime (NRT), a slice is a plain pointer and length; with it, every slice and
every array passed to a call takes an atomic reference-count increment and decrement.
Without them (and with the rank sort of ``oven.oven_slots``) a decision takes 0.6-0.8
of the time it took (``experiments/results/ab_bot_kernels_i12.json``). ``_nrt`` is
numba's target option for this (numba's own tests use it); a kernel that allocated
under it would fail to compile, so nothing can go wrong silently.

Every kernel of this package is compiled through ``mamma_mia_env.plumbing.jit_cache.njit``
(``numba.njit`` with the same options, ``parallel``, ``_nrt`` and ``inline`` included),
never numba's own ``cache=True``: numba's cache watches only the file a kernel is
written in, so an edit to the rules (``mamma_mia_env``) or to another kernel file would
leave these kernels running the old code. The shared cache is keyed on every source
file of both packages (tests/plumbing/test_stale_kernels.py edits a rule and checks).
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.cards import N_KINDS
from mamma_mia_env.plumbing.jit_cache import njit

K = N_KINDS  # ingredient kinds
T = 8  # order types
F32 = np.float32
BIG32 = np.float32(1.0e9)
BIG64 = 1.0e9
CHUNKS = 64  # work items of a parallel loop; each allocates its scratch once

per_game = njit(_nrt=False)


@njit(inline="always")
def sum5(a) -> np.float32:
    """numpy's float32 sum of five values: left to right."""
    s = a[0]
    for k in range(1, K):
        s = s + a[k]
    return s


@njit()
def workspace():
    """Scratch arrays for ``decisions.decide_one`` (float32, float64, int64), reused
    across games: the per-game functions carve fixed slices out of them instead of
    allocating."""
    return np.empty(296, np.float32), np.empty(16, np.float64), np.empty(104, np.int64)
