"""The timing harness the speed figures share (benchmark, learner_env_speed, ab, train_torchrl).

A speed figure is only comparable between scripts if the harness around the env is the
same: the same uniform random legal action sampler (compiled, so the harness costs
little next to the env; :func:`random_legal` where the sampling is not timed or is
part of what is timed in both sides alike), the same PettingZoo loop for the AEC env,
the same alternating order of interleaved slices (:func:`alternating`), the same
quartiles of per-slice ratios (:func:`quartiles`) and the same line naming the machine.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numba as nb
import numpy as np

__all__ = ["aec_turns_per_second", "alternating", "machine", "quartiles", "random_legal"]
__all__ += ["sample_parallel", "sample_serial"]
T = TypeVar("T")


def _make_sampler(parallel: bool) -> Any:
    loop = nb.prange if parallel else range

    @nb.njit(cache=True, parallel=parallel)
    def sample(masks, u, out):
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


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (numpy, no compilation)."""
    return (rng.random(masks.shape) * (masks != 0)).argmax(axis=1)


def alternating(names: Sequence[T], rounds: int) -> Iterator[Sequence[T]]:
    """Each round's order of ``names``, reversed every other round: interleaved slices,
    so that a slow patch of a shared machine hits every row alike, none always first."""
    for k in range(rounds):
        yield names if k % 2 == 0 else names[::-1]


def quartiles(values: list[float]) -> list[float]:
    """The three quartiles of ``values`` (of one value: it, three times)."""
    return statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
