"""One way to fan out: independent, seeded work items run in this process, in a pool of
local worker processes, or as Ray tasks, the results returned in item order. Every heavy
job uses it (a tournament's batches, a scorecard's pairings, experiments/); an item
carries its own seed, so a job's results are identical on every backend.

A ``Job`` is ``setup(shared) -> context``, run once per worker process, and
``work(context, item, report) -> result``, ``report(k)`` counting units for the progress
bar; both module-level functions, which a worker or a Ray node imports by name (the same
package version on every node, docs/CLUSTER.md). Ray runs the tasks of a dead node again
(``RETRIES`` times); an item that still cannot finish, or a dead worker process, stops
the job with a ``FanOutError``. An error of the work itself is raised as its own type.
"""

from __future__ import annotations

import contextlib
import importlib.util
import multiprocessing as mp
import os
import queue as queue_mod
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numba

from mamma_mia_interrupts import (
    children_ignore_ctrl_c,
    deferred_stop,
    end_with_parent,
)

BACKENDS = ("local", "ray")
#: Times Ray runs a task again whose node or worker process died (not its own errors).
RETRIES = 3
#: Seconds to wait for a cluster's address to answer before Ray is asked to join it.
CONNECT_TIMEOUT = 10
#: Seconds to wait for a stopped process pool's manager thread (it ends within a poll
#: once its workers are killed).
_MANAGER_JOIN_SECONDS = 10
#: The node of every item of the current ``placements()`` block, as the items finish.
_PLACEMENTS: list[list[tuple[int, str]]] = []


class FanOutError(RuntimeError):
    """A worker process or a Ray node was lost and its items could not be finished."""


@dataclass(frozen=True)
class Job:
    """What every item shares: ``setup(shared)`` once per worker process, then
    ``work(context, item, report)`` per item (module doc)."""

    setup: Callable[[Any], Any]
    work: Callable[[Any, Any, Callable[[int], None]], Any]
    shared: Any = None
    #: a fresh key per job: a Ray worker process reuses its context only for its own job
    token: str = field(default_factory=lambda: uuid.uuid4().hex)


def check_backend(backend: Any, address: Any) -> None:
    """``backend`` and ``address`` checked before anything is loaded or played."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("address is for backend='ray'")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise ValueError(f"address must name a Ray cluster ('auto', 'HOST:6379'), got {address!r}")
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        raise ValueError("the ray backend needs Ray: pip install 'mamma-mia-env[rllib]' (or 'ray')")


def fan_out(
    job: Job,
    items: Sequence[Any],
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    bar: Any = None,
) -> list[Any]:
    """``job.work`` on every item, results in item order: in this process
    (``workers=1``), in ``workers`` spawned processes, or as Ray tasks (``backend="ray"``:
    the cluster at ``address``, the running Ray instance, or a new local one on
    loopback, stopped at the end). ``bar``: a tqdm bar, advanced by ``report``."""
    check_backend(backend, address)
    if backend == "ray":
        return _on_ray(job, items, address, bar)
    if workers == 1 or len(items) <= 1:
        context = job.setup(job.shared)
        report = (lambda k: None) if bar is None else bar.update
        results = [job.work(context, item, report) for item in items]
        _placed([(i, "local") for i in range(len(items))])
        return results
    return _in_pool(job, items, workers, bar)


@contextlib.contextmanager
def placements() -> Iterator[list[tuple[int, str]]]:
    """Record where every item of the jobs run in this block ran: (item index, Ray node
    id, or ``"local"``), in the order they finished. For the tests and the benchmark."""
    record: list[tuple[int, str]] = []
    _PLACEMENTS.append(record)
    try:
        yield record
    finally:
        _PLACEMENTS.remove(record)


def _placed(where: list[tuple[int, str]]) -> None:
    for record in _PLACEMENTS:
        record.extend(where)


# -- worker processes ---------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}  # the pool's job and progress queue
_CONTEXT: dict[str, Any] = {}  # the context of the job this process last worked for


def _context(job: Job) -> Any:
    """The job's context in this worker process, set up on its first item (or the error
    that setting it up raised, raised again for every item)."""
    if _CONTEXT.get("token") != job.token:
        _CONTEXT.clear()
        _CONTEXT["token"] = job.token
        with contextlib.suppress(Exception):  # numba without a threading layer
            numba.set_num_threads(1)  # one item per CPU already
        try:
            _CONTEXT["context"], _CONTEXT["error"] = job.setup(job.shared), None
        except (Exception, SystemExit) as exc:
            _CONTEXT["error"] = exc
    if _CONTEXT["error"] is not None:
        raise _CONTEXT["error"]
    return _CONTEXT["context"]


def _init_worker(job: Job, progress_queue: Any, parent: int) -> None:
    end_with_parent(parent)  # no worker outlives a killed or interrupted job
    _WORKER["queue"] = progress_queue
    _WORKER["job"] = job


def _run_item(i: int, item: Any) -> tuple[int, Any]:
    job: Job = _WORKER["job"]
    queue = _WORKER["queue"]
    return i, job.work(_context(job), item, queue.put)


def _in_pool(job: Job, items: Sequence[Any], workers: int, bar: Any) -> list[Any]:
    """The items in a pool of ``workers`` spawned processes (spawned, not forked: this
    process may run OpenMP threads, and GNU OpenMP refuses a fork of such a process)."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    results: dict[int, Any] = {}

    def drain() -> None:
        while True:
            try:
                k = q.get_nowait()
            except queue_mod.Empty:
                return
            if bar is not None:
                bar.update(k)

    with ProcessPoolExecutor(
        max_workers=min(workers, len(items)),
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(job, q, os.getpid()),
    ) as ex:
        pending: set[Any] = set()
        try:
            with deferred_stop() as check:  # Ctrl-C, SIGTERM: raised by check(), between waits
                with children_ignore_ctrl_c():  # the workers are started by submit
                    pending = {ex.submit(_run_item, i, item) for i, item in enumerate(items)}
                while pending:
                    check()
                    done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    drain()
                    for f in done:
                        i, res = f.result()
                        results[i] = res
                        _placed([(i, "local")])
        except BrokenProcessPool as exc:
            raise FanOutError(
                f"a worker process died with {len(results)} of {len(items)} items done "
                "(killed, out of memory, or code that crashed the interpreter or called "
                "os._exit); nothing was kept: rerun (the same seeds give the same results)"
            ) from exc
        except BaseException:  # Ctrl-C, SIGTERM: the workers stop now, not after their item
            _stop_workers(ex)
            raise
        finally:
            for f in pending:
                f.cancel()
        time.sleep(0.05)
        drain()
    return [results[i] for i in range(len(items))]


def _stop_workers(ex: ProcessPoolExecutor) -> None:
    """Kill the pool's workers and wait for them and for the pool's manager thread
    (leaving the ``with`` block would wait for every running item to finish). The
    manager thread, which ``shutdown(wait=False)`` forgets, would close its wake-up pipe
    while the exit hook writes to it: "Exception ignored ... Bad file descriptor"."""
    processes = list(getattr(ex, "_processes", {}).values())
    manager = getattr(ex, "_executor_manager_thread", None)
    ex.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.kill()
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(5)
    if manager is not None:
        manager.join(_MANAGER_JOIN_SECONDS)


# -- Ray tasks ----------------------------------------------------------------------------------
def _ray_item(job: Job, item: Any) -> tuple[Any, int, str]:
    """One item in a Ray worker: its result, the units it reported, and its node."""
    import ray

    done = [0]

    def report(k: int) -> None:
        done[0] += int(k)

    result = job.work(_context(job), item, report)
    return result, done[0], ray.get_runtime_context().get_node_id()


@contextlib.contextmanager
def ray_session(address: str | None = None) -> Iterator[Any]:
    """The Ray module, connected: to the instance already running in this process, or to
    the cluster at ``address`` (or ``RAY_ADDRESS``), or to a new local instance on
    loopback; what is started here is stopped at the end."""
    import ray  # there: check_backend

    from mamma_mia_env.integrations.ray_cluster import init_ray

    started = not ray.is_initialized()
    if started:
        if address is not None:
            _check_reachable(address)
        init_ray(address)  # a new local instance stays on loopback
    elif address is not None:
        raise ValueError("address given, but Ray is already initialised in this process")
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def _check_reachable(address: str) -> None:
    """A ``HOST:PORT`` address answers (Ray itself would retry a wrong one for ever)."""
    if "://" in address or ":" not in address:  # "auto", Ray Client: Ray's own checks
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except (OSError, ValueError) as exc:
        raise FanOutError(f"no Ray cluster answers at {address!r}: {exc}") from None


def session(backend: str, address: str | None = None) -> contextlib.AbstractContextManager[Any]:
    """One Ray connection for a job of many fan-outs (``ray_session``), or nothing for
    the local backend: the fan-outs inside pass no address and use it."""
    check_backend(backend, address)
    return ray_session(address) if backend == "ray" else contextlib.nullcontext()


def _on_ray(job: Job, items: Sequence[Any], address: str | None, bar: Any) -> list[Any]:
    """Every item as one Ray task (one CPU each, spread over the nodes); lost tasks are
    run again by Ray."""
    with ray_session(address) as ray:
        options = {"num_cpus": 1, "max_retries": RETRIES, "retry_exceptions": False}
        task = ray.remote(scheduling_strategy="SPREAD", **options)(_ray_item)
        job_ref = ray.put(job)
        index = {task.remote(job_ref, item): i for i, item in enumerate(items)}
        results: dict[int, Any] = {}
        pending = list(index)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=0.5)
                for ref in done:
                    res, units, node = ray.get(ref)  # the work's own error: as its own type
                    results[index[ref]] = res
                    _placed([(index[ref], node)])
                    if bar is not None:
                        bar.update(units)
        except ray.exceptions.RayTaskError:
            raise
        except ray.exceptions.RayError as exc:
            raise FanOutError(
                f"Ray lost an item {RETRIES + 1} times ({type(exc).__name__}: a node or "
                f"worker died) with {len(results)} of {len(items)} items done; nothing was "
                "kept: rerun when the cluster is whole (the same seeds give the same results)"
            ) from exc
        finally:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
    return [results[i] for i in range(len(items))]
