"""The tournament's Ray backend: the same batches of games, played as Ray tasks.

``run_tournament(..., backend="ray")`` (``mamma-mia tournament --backend ray``) plays
the local backend's batches (``matches.Plan``), so the results are bit-identical to
its. ``address=None`` starts a local Ray instance (and stops it at the end);
``address="auto"`` or ``"ray://host:10001"`` joins a running cluster, whose nodes need
this package installed (the same version); a Ray instance already started is used as is.

Custom agents given as objects are shipped to the tasks with Ray's serializer; agents
given by name or ``module:Class`` are loaded in each task.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numba

from mamma_mia_agents import load_agent
from mamma_mia_agents.tournament.matches import BatchOutcomes, Plan, sendable
from mamma_mia_env.integrations.ray_cluster import init_ray


def _play_batch(i: int, plan: Plan, specs: Sequence[object]) -> tuple[int, BatchOutcomes]:
    """Batch ``i`` of ``plan`` in a Ray worker: as ``local._run_chunk`` does locally."""
    with contextlib.suppress(Exception):  # numba without a threading layer
        numba.set_num_threads(1)  # one task per CPU already
    return plan.play(i, [load_agent(s) for s in specs])


def run_batches(
    plan: Plan,
    specs: Sequence[object],
    loaded: list[Any],
    bar: Any = None,
    address: str | None = None,
) -> dict[int, BatchOutcomes]:
    """Play every batch of ``plan`` as one Ray task; results keyed by batch index."""
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "the ray backend needs Ray: pip install 'mamma-mia-env[rllib]' (or 'ray')"
        ) from exc
    started = not ray.is_initialized()
    if started:
        init_ray(address)  # a new local instance stays on loopback
    elif address is not None:
        raise ValueError("address given, but Ray is already initialised in this process")
    try:
        play = ray.remote(num_cpus=1)(_play_batch)
        plan_ref, specs_ref = ray.put(plan), ray.put(sendable(specs, loaded))
        sizes = {}
        pending = []
        for i, (lo, hi) in enumerate(plan.chunks):
            ref = play.remote(i, plan_ref, specs_ref)
            sizes[ref] = hi - lo
            pending.append(ref)
        results: dict[int, BatchOutcomes] = {}
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=0.5)
            for ref in done:
                i, res = ray.get(ref)  # an agent's error is re-raised here, as its own type
                results[i] = res
                if bar is not None:
                    bar.update(sizes[ref])
        return results
    finally:
        if started:
            ray.shutdown()
