"""The timing harness the speed scripts share (benchmark, bot_speed).

A speed figure is only comparable between scripts if the harness around the env is the
same: the same uniform random legal action sampler (compiled, so the harness costs
little next to the env), the same PettingZoo loop for the AEC env, and the same line
naming the machine.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numba as nb
import numpy as np

__all__ = ["aec_turns_per_second", "machine", "sample_parallel", "sample_serial"]


def _make_sampler(parallel: bool) -> Any:
    loop = nb.prange if parallel else range

    @nb.njit(cache=True, parallel=parallel)
    def sample(masks, u, out):  # type: ignore[no-untyped-def]
        """out[b] = the floor(u[b] * count)-th legal action of row b: uniform, cheap."""
        for b in loop(masks.shape[0]):
            row = masks[b]
            count = 0
            for j in range(row.shape[0]):
                count += row[j]
            k = int(u[b] * count)
            for j in range(row.shape[0]):
                if row[j]:
                    if k == 0:
                        out[b] = j
                        break
                    k -= 1

    return sample


#: ``sample(masks, u, out)``: one uniform legal action per row, on one thread
sample_serial = _make_sampler(False)
#: the same over numba's threads (the scripts use it from a batch of 256 games)
sample_parallel = _make_sampler(True)


def aec_turns_per_second(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    """PettingZoo's standard loop with uniform random legal actions."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    game = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + game)
        game += 1
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
            del agent
    return steps / (time.perf_counter() - start)


def machine() -> str:
    """One line for a timing file: CPU model, cores, Python, numpy and numba versions."""
    from mamma_mia_env.plumbing.provenance import cpu_model

    return (
        f"{cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}, "
        f"numpy {np.__version__}, numba {nb.__version__}"
    )
