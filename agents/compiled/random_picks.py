"""The uniform random policy inside compiled loops: pick the k-th legal action.

``random_actions`` is ``RandomAgent.act_batch``'s kernel (uniforms from the agent's
numpy generator); ``splitmix_uniform`` is the random policy's own stream inside
``playout.play_out``, one SplitMix64 state per game.
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.plumbing.jit_cache import njit


@njit()
def random_pick(mask, u) -> int:
    """The ``floor(u * count)``-th legal action (``RandomAgent``'s rule), or -1 if none."""
    total = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            total += 1
    if total == 0:
        return -1
    pick = np.int32(u * total)  # numpy: (u * total).astype(int32)
    seen = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if seen == pick:
                return a
            seen += 1
    return -1


@njit()
def random_actions(masks, u, out) -> int:
    """``RandomAgent`` over a batch with the uniforms ``u``; returns the first game with
    no legal action, or -1."""
    for b in range(masks.shape[0]):
        out[b] = random_pick(masks[b], u[b])
        if out[b] < 0:
            return b
    return -1


_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(inline="always")
def splitmix_uniform(states, g) -> float:
    """SplitMix64 step of ``states[g]`` (the bots' own stream, not the game's): [0, 1)."""
    s = states[g] + _GAMMA
    states[g] = s
    z = (s ^ (s >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)
