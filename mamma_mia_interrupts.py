"""How every command ends when it is stopped: Ctrl-C or ``kill`` (SIGTERM) is one line
on stderr and exit status 130 (128 + SIGINT) or 143 (128 + SIGTERM), never a traceback;
a reader that closes the pipe early (``| head``) ends the command quietly with 141 (128 +
SIGPIPE), as it would end a C program; and worker processes end with the process that
started them.

``run_command(main, prog)`` wraps a command's ``main``: SIGTERM is raised in the main
thread as ``Terminated`` (a ``KeyboardInterrupt``, so the ``finally`` blocks and the
``except KeyboardInterrupt`` clean-ups that Ctrl-C runs run for it too), and either
becomes the one line. ``end_with_parent`` is called first thing in a worker process: the
worker then ignores Ctrl-C (the terminal sends it to the whole process group; the
parent decides what stops) and is killed when its parent dies, even by SIGKILL, which
no clean-up of the parent's can catch.

The module is a top-level one and imports only the standard library, so that a command
can load it before anything heavy: importing ``mamma_mia_env`` or ``mamma_mia_agents``
loads numba and the kernels (seconds on a first run), and a Ctrl-C that arrives then
must end the same way. The ``mamma-mia`` console script is ``mamma_mia`` here, which
imports the command inside ``run_command``; ``python -m experiments`` imports its
scripts inside it too. (``python -m mamma_mia_env`` and ``python -m mamma_mia_agents``
import their package before any code of theirs runs, so a Ctrl-C in their first
half second still shows Python's traceback.)
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "Terminated", "children_ignore_ctrl_c", "deferred_stop", "die_with_parent",
    "end_with_parent", "mamma_mia", "run_command",
]  # fmt: skip

_PR_SET_PDEATHSIG = 1  # prctl(2), Linux
_STATUS_SIGPIPE = 128 + signal.SIGPIPE  # what a shell reports for a writer whose reader left


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's ``KeyboardInterrupt``."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


def run_command(main: Callable[..., int], prog: str, *args: Any) -> int:
    """``main(*args)``'s exit code; 130 after Ctrl-C and 143 after SIGTERM, with one
    line on stderr naming ``prog``. Outside the main thread (a test calling a command's
    main from a thread) SIGTERM keeps its handler."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        code = main(*args)
        sys.stdout.flush()  # a reader that left shows here, not in the exit's flush
        return code
    except BrokenPipeError:  # `mamma-mia tournament | head`: the reader has what it wanted
        _silence_stdout()
        return _STATUS_SIGPIPE
    except KeyboardInterrupt as exc:
        stopped = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted (Ctrl-C)"
        with contextlib.suppress(OSError, ValueError):  # stderr closed: the status says it
            print(f"\n{prog}: {stopped}", file=sys.stderr, flush=True)
        return 143 if isinstance(exc, Terminated) else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def mamma_mia() -> int:
    """The ``mamma-mia`` console script: the command's modules (the agents, numba, the
    kernels) are imported inside ``run_command``, so a Ctrl-C while they load is the
    same one line and 130 as a Ctrl-C during the command."""
    return run_command(_run_main_of, "mamma-mia", "mamma_mia_agents.cli.commands")


def _run_main_of(module: str) -> int:
    main: Callable[[], int] = importlib.import_module(module).main
    return main()


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's flush at exit does not meet
    the closed pipe again and print "Exception ignored ... BrokenPipeError"."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def end_with_parent(parent: int) -> None:
    """In a worker process: ignore Ctrl-C, and die with the parent process ``parent``
    (its pid, taken before the worker was started). On Linux the kernel kills the
    worker when the parent dies (``PR_SET_PDEATHSIG``); a parent that died before that
    was set is caught by comparing ``getppid()``. Elsewhere the parent's clean-up
    (``run_command`` turning SIGTERM into an exception) is what ends its workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """Ask the kernel to kill this process when its parent ``parent`` dies (Linux's
    ``PR_SET_PDEATHSIG``); also a ``preexec_fn`` for a subprocess that must not outlive
    the script that started it."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


@contextlib.contextmanager
def children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside this block ignore Ctrl-C from the start (an ignored
    SIGINT is inherited, and Python then installs no ``KeyboardInterrupt`` handler), so
    a worker still loading its modules prints no traceback; this process ignores it
    for as long as the block takes (it starts processes, nothing more)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def deferred_stop() -> Iterator[Callable[[], None]]:
    """Within this block Ctrl-C and SIGTERM are only noted; the ``check()`` it yields
    raises them (``KeyboardInterrupt`` / ``Terminated``) where the caller calls it.

    For code that waits on other threads (a process pool): an exception raised by a
    signal handler at any bytecode can leave a lock of theirs held (the pool's manager
    thread then waits on it forever, and so does the interpreter's exit)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    noted: list[int] = []

    def note(signum: int, frame: Any) -> None:
        noted.append(signum)

    def check() -> None:
        if noted:
            raise Terminated if noted[0] == signal.SIGTERM else KeyboardInterrupt

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield check
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
