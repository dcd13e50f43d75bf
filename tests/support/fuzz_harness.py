"""The fuzz suite's crash-catching worker and its checks (docs/TESTING.md).

Hypothesis draws the inputs in the test process; each case runs in a long-lived
*spawned* worker process (fresh interpreter, no OpenMP threads inherited), which runs
one case at a time and reports back. A native crash (SIGSEGV, SIGABRT from heap
corruption) kills only the worker: the test fails naming the input and the signal, and
the next case gets a new worker. A case that hangs past its time limit fails the same
way.

A case is a function ``run(payload) -> list[str]`` in a test module, named
``"module:function"``; it returns the invariant failures it saw (``[]`` when the entry point
behaved). Two checks shared by every case live here:

* ``refusal_failures``: a refused input must raise a ``ValueError`` or ``TypeError``
  (the project's error classes, ``StateError``, ``ConfigError``, ``IllegalActionError``,
  ``PolicyFileError``, all derive from ``ValueError``) whose message names the
  argument or a field of it: it must contain one of the case's *anchors* (argument
  names, field names, flag names, the file's name). ``KeyError``, ``IndexError``,
  ``AttributeError``, ``OverflowError``, ``RecursionError``, numba's typing errors and
  the like are failures whatever they say.
* ``play_forward``: an accepted game is played on with random legal moves, and after
  every step ``mamma_mia_env.game.state.check_state`` must find nothing, a game not over
  must have a legal move, and the game must end.

Scale: ``MAMMA_MIA_FUZZ_EXAMPLES=N`` runs N cases per entry point instead of the CI
slice; ``MAMMA_MIA_FUZZ_REPORT=path.json`` writes cases, refusals and time per entry
point when the test session ends.
"""

from __future__ import annotations

import atexit
import importlib
import json
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
from collections import deque
from typing import Any

from hypothesis import HealthCheck, settings

CASE_TIMEOUT = float(os.environ.get("MAMMA_MIA_FUZZ_TIMEOUT", "120"))
REFUSALS = (ValueError, TypeError)


# -- scale and settings -------------------------------------------------------------------------
def examples(ci: int) -> int:
    """Cases per entry point: the CI slice ``ci``, or ``MAMMA_MIA_FUZZ_EXAMPLES``."""
    env = os.environ.get("MAMMA_MIA_FUZZ_EXAMPLES")
    return int(env) if env else ci


def long_run() -> bool:
    return bool(os.environ.get("MAMMA_MIA_FUZZ_EXAMPLES"))


def fuzz_settings(ci: int) -> settings:
    return settings(
        max_examples=examples(ci),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


# -- the worker ---------------------------------------------------------------------------------
def _worker_main(conn: Any) -> None:
    import faulthandler

    faulthandler.enable()  # a native crash prints the Python stack of the case
    import warnings

    warnings.simplefilter("ignore")  # PettingZoo / gymnasium warn on purpose-made misuse
    cache: dict[str, Any] = {}
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        name, payload = msg
        try:
            fn = cache.get(name)
            if fn is None:
                mod, _, attr = name.partition(":")
                fn = cache[name] = getattr(importlib.import_module(mod), attr)
            result = fn(payload)
            reply = ("ok", list(result[0]), result[1])
        except BaseException as exc:  # the case itself broke: report, keep the worker
            reply = ("error", ["".join(traceback.format_exception(exc))[-4000:]], "error")
        conn.send(reply)


class Worker:
    """One spawned worker process; ``run`` sends it a case and waits for the verdict."""

    def __init__(self) -> None:
        self.proc: Any = None
        self.conn: Any = None

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent

    def stop(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(5)
            except (OSError, BrokenPipeError):
                pass
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
        self.proc = self.conn = None

    def run(self, name: str, payload: Any, timeout: float = CASE_TIMEOUT) -> tuple[list[str], str]:
        """(failures, status): status is the case's own label, or crash/timeout/error."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.conn.send((name, payload))
        if not self.conn.poll(timeout):
            self.proc.kill()
            self.proc.join()
            self.proc = None
            return [f"timed out after {timeout:.0f} s (a hang or an endless game?)"], "timeout"
        try:
            kind, failures, status = self.conn.recv()
        except (EOFError, ConnectionResetError, OSError):
            self.proc.join(10)
            code = self.proc.exitcode
            self.proc = None
            if code is not None and code < 0:
                sig = signal.Signals(-code).name
                return [f"the worker process was killed by {sig} (a native crash)"], "crash"
            return [f"the worker process died (exit code {code})"], "crash"
        if kind == "error":
            return ["the fuzz case itself raised:\n" + failures[0]], "error"
        return failures, status


_WORKER = Worker()
atexit.register(_WORKER.stop)

# -- known holes --------------------------------------------------------------------------------
#: Defects the fuzz suite found that are not fixed yet, each pinned by a strict-xfail
#: regression test in tests/fuzz/test_fuzz_regressions.py: (entry point prefix, text of the
#: failure, regression test). A case failing only with these counts as "known hole" in
#: the report instead of failing the run; when a hole is fixed its regression test
#: starts to pass (and fails as strict xfail), and its line here must go. Empty: every
#: hole found so far is fixed (docs/TESTING.md, "Found and fixed").
KNOWN_HOLES: list[tuple[str, str, str]] = []


def _known(entry: str, failures: list[str]) -> str | None:
    names = set()
    for f in failures:
        hit = [t for e, text, t in KNOWN_HOLES if entry.startswith(e) and text in f]
        if not hit:
            return None
        names.add(hit[0])
    return ", ".join(sorted(names)) or None


# -- bookkeeping --------------------------------------------------------------------------------
STATS: dict[str, dict[str, Any]] = {}
_RECENT: deque = deque(maxlen=3)


def run_case(entry: str, name: str, payload: Any) -> None:
    """Run one case in the worker; fail (AssertionError) naming the input on any defect.

    ``entry`` labels the entry point in the statistics. A crash is re-run alone in a
    fresh worker to tell a crash caused by this input from one left by an earlier case.
    """
    start = time.perf_counter()
    failures, status = _WORKER.run(name, payload)
    if status == "crash":
        alone, _ = _WORKER.run(name, payload)
        if alone:
            failures.append("reproduced alone in a fresh worker: " + "; ".join(alone)[:300])
        else:
            failures.append(
                "NOT reproduced alone: an earlier case may have corrupted the worker; the "
                f"cases before it: {list(_RECENT)!r}"[:2000]
            )
    known = _known(entry, failures) if failures else None
    if known:
        status, failures = f"known hole ({known})", []
    st = STATS.setdefault(entry, {"cases": 0, "seconds": 0.0, "statuses": {}, "failures": []})
    st["cases"] += 1
    st["seconds"] += time.perf_counter() - start
    st["statuses"][status] = st["statuses"].get(status, 0) + 1
    _RECENT.append((name, payload))
    if failures:
        st["failures"].append({"payload": repr(payload)[:1000], "failures": failures[:3]})
        text = "\n".join(failures)
        raise AssertionError(f"{entry}: input {payload!r:.1500}\n{text}")


def _write_report() -> None:
    path = os.environ.get("MAMMA_MIA_FUZZ_REPORT")
    if not path or not STATS:
        return
    import hypothesis
    import numpy

    doc = {
        "format": "mamma-mia-fuzz-report/1",
        "examples_per_test": os.environ.get("MAMMA_MIA_FUZZ_EXAMPLES"),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "hypothesis": hypothesis.__version__,
        "entry_points": STATS,
        "total_cases": sum(s["cases"] for s in STATS.values()),
        "total_seconds": round(sum(s["seconds"] for s in STATS.values()), 1),
    }
    if _AT_START is not None:  # the code under test is the checkout the run started on
        prov = dict(_AT_START[1])
        prov["wall_time_s"] = round(time.time() - _AT_START[0], 1)
        doc["git_commit"] = (prov.get("git") or {}).get("revision")
        doc["wall_clock"] = {
            "start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(_AT_START[0])),
            "end": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        }
        doc["provenance"] = prov
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1, default=str)


def _start_record() -> tuple[float, dict[str, Any]] | None:
    """(start time, ``mamma_mia_env.plumbing.provenance`` record) of a reporting test process."""
    if not os.environ.get("MAMMA_MIA_FUZZ_REPORT") or mp.parent_process() is not None:
        return None
    from mamma_mia_env.plumbing.provenance import provenance

    return time.time(), provenance()


_AT_START = _start_record()
atexit.register(_write_report)


# -- checks used inside the worker ------------------------------------------------------------
def refusal_failures(exc: BaseException, anchors: list[str] | tuple[str, ...]) -> list[str]:
    """Why a refusal is not a good one (see the module doc); [] when it is."""
    what = f"{type(exc).__name__}: {str(exc)[:300]}"
    if not isinstance(exc, REFUSALS) or isinstance(exc, (UnicodeError,)):
        return [f"refused with {what} (not a ValueError/TypeError naming the input)"]
    text = str(exc).lower()
    if not any(a.lower() in text for a in anchors):
        return [f"the refusal names none of {list(anchors)[:12]}...: {what}"]
    return []


def attempt(call: Any) -> tuple[bool, Any]:
    """(True, result) or (False, exception) for a call that may refuse its input."""
    try:
        return True, call()
    except Exception as exc:
        return False, exc


def play_forward(state: Any, max_steps: int = 3000, seed: int = 0) -> list[str]:
    """Play an accepted batch of games to the end with random legal moves, checking
    ``check_state`` after every step, a legal move while not over, and the end."""
    import numpy as np

    from mamma_mia_env import Engine
    from mamma_mia_env.game.record import OVER
    from mamma_mia_env.game.state import check_state

    rng = np.random.default_rng(seed)
    problems = check_state(state)
    if problems:
        return [f"accepted, but check_state finds: {problems[:3]}"]
    try:
        eng = Engine(state.config)
        b = state.batch_size
        for step in range(max_steps):
            live = state.data["phase"] != OVER
            if not live.any():
                return []
            masks = eng.legal_masks(state)
            eng.observe(state)
            eng.global_state(state)
            legal = masks != 0
            stuck = live & ~legal.any(axis=1)
            if stuck.any():
                return [f"step {step}: game {int(np.flatnonzero(stuck)[0])} has no legal move"]
            acts = np.zeros(b, np.int64)
            for g in np.flatnonzero(live):
                acts[g] = rng.choice(np.flatnonzero(legal[g]))
            eng.step(state, acts)
            problems = check_state(state)
            if problems:
                return [f"accepted, then after {step + 1} random legal steps: {problems[:3]}"]
        return [f"the game did not end within {max_steps} steps"]
    except Exception as exc:
        return [f"accepted, then playing on raised {type(exc).__name__}: {exc}"]
