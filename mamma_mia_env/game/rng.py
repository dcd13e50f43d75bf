"""SplitMix64: the per-game random number generator (docs/SPEC.md, Random numbers).

Each game carries its own 64-bit state, so game i of a batch is reproducible on its
own from its seed, whatever the other games do.
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.plumbing.jit_cache import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


@njit(inline="always")
def splitmix_output(s: np.uint64) -> np.uint64:
    """SplitMix64's output for the state ``s`` (already advanced by ``GAMMA``)."""
    z = (s ^ (s >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(inline="always")
def next_u64(r) -> np.uint64:
    """Advance the record's ``rng`` field and return the next 64-bit output."""
    s = r.rng + GAMMA
    r.rng = s
    return splitmix_output(s)


@njit(inline="always")
def below(r, n: int) -> int:
    return int(next_u64(r) % np.uint64(n))


@njit()
def shuffle(r, a, length: int) -> None:
    """Fisher-Yates over ``a[:length]``, consuming the record's generator."""
    for i in range(length - 1, 0, -1):
        j = below(r, i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp
