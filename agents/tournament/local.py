"""The local backend: batches of games (``matches.Plan``) in this process or in a pool of
worker processes; the same games whatever the number of workers.

Workers are spawned and load the agents themselves (names and import paths are sent,
objects only where there is no name); an agent that fails to load, raises, exits or
kills its worker is an ``AgentError`` naming it.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue as queue_mod
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numba

from mamma_mia_agents.bots.loading import agent_name
from mamma_mia_agents.tournament.matches import (
    AgentError,
    BatchOutcomes,
    Plan,
    failure,
    load_agents,
    sendable,
)
from mamma_mia_env.plumbing.interrupts import (
    children_ignore_ctrl_c,
    deferred_stop,
    end_with_parent,
)


def run_serial(plan: Plan, loaded: list[Any], bar: Any) -> dict[int, BatchOutcomes]:
    """Play every batch of ``plan`` in this process; results keyed by batch index."""
    progress = None if bar is None else bar.update
    return dict(plan.play(i, loaded, progress) for i in range(len(plan.chunks)))


# -- worker processes ---------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(progress_queue: Any, plan: Plan, specs: Sequence[object], parent: int) -> None:
    end_with_parent(parent)  # no worker outlives a killed or interrupted tournament
    with contextlib.suppress(Exception):  # numba without a threading layer
        numba.set_num_threads(1)  # one process per core already
    _WORKER["queue"] = progress_queue
    _WORKER["plan"] = plan
    # a failing agent is reported by the first chunk: an exception escaping the
    # initializer would only break the pool, naming nobody
    try:
        _WORKER["agents"] = load_agents(specs)
        _WORKER["error"] = None
    except (Exception, SystemExit) as exc:
        _WORKER["error"] = AgentError(f"in a worker process: {exc}")


def _run_chunk(i: int) -> tuple[int, BatchOutcomes]:
    if _WORKER["error"] is not None:
        raise _WORKER["error"]
    return _WORKER["plan"].play(i, _WORKER["agents"], progress=_WORKER["queue"].put)


def run_parallel(
    plan: Plan, specs: Sequence[object], loaded: list[Any], workers: int, bar: Any
) -> dict[int, BatchOutcomes]:
    """Play every batch of ``plan`` in a pool of ``workers`` spawned processes; results
    keyed by batch index."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    results: dict[int, BatchOutcomes] = {}

    def drain() -> None:
        while True:
            try:
                k = q.get_nowait()
            except queue_mod.Empty:
                return
            if bar is not None:
                bar.update(k)

    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(q, plan, sendable(specs, loaded), os.getpid()),
    ) as ex:
        pending: set[Any] = set()
        try:
            with deferred_stop() as check:  # Ctrl-C, SIGTERM: raised by check(), between waits
                with children_ignore_ctrl_c():  # the workers are started by submit
                    pending = {ex.submit(_run_chunk, i) for i in range(len(plan.chunks))}
                while pending:
                    check()
                    done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    drain()
                    for f in done:
                        i, res = f.result()
                        results[i] = res
        except BrokenProcessPool as exc:
            names = ", ".join(repr(agent_name(a)) for a in loaded)
            raise AgentError(
                f"a worker process died while agents {names} were playing (an agent "
                "crashed the interpreter or called os._exit?); rerun with --workers 1 "
                "to see which"
            ) from exc
        except SystemExit as exc:  # pragma: no cover - _run_chunk turns it into AgentError
            raise AgentError(f"a worker process {failure(exc)}") from exc
        except BaseException:  # Ctrl-C, SIGTERM: the workers stop now, not after their chunk
            _stop_workers(ex)
            raise
        finally:
            for f in pending:
                f.cancel()
        time.sleep(0.05)
        drain()
    return results


def _stop_workers(ex: ProcessPoolExecutor) -> None:
    """Kill the pool's workers and wait for them: leaving the ``with`` block would
    otherwise wait for every running chunk to finish."""
    processes = list(getattr(ex, "_processes", {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.kill()
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(5)
