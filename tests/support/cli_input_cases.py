"""The input fuzz suite's cases (tests/fuzz/test_fuzz_cli_inputs.py), run in the fuzz worker.

A *sandbox* is a temporary directory holding what the bad values point at: a plain
file (``blocker``), a directory (``adir``), a read-only directory (``ro``), a FIFO,
files that are nesting bombs, latin-1, huge (sparse) or truncated, and valid
``log.json`` / ``save.json`` for the commands that need one. Every case snapshots the
sandbox before and after: a refusal may change nothing, an accepted run only the
files it was asked to write.

Running as root, a read-only directory is writable; the sandbox then also answers
``os.access(..., W_OK)`` with ``False`` under ``ro`` (what the checks ask), so the
same cases hold for every user.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from input_documents import (
    BOMB_DEPTH,
    VALID_POSITION,
    mutate,
    valid_log,
    valid_policy,
    valid_save,
    valid_state,
)

HUGE_BYTES = 256 * 2**20 + 1


# -- the sandbox ----------------------------------------------------------------------------
def _fill(root: str) -> None:
    j = os.path.join
    open(j(root, "blocker"), "w").close()
    os.mkdir(j(root, "adir"))
    os.mkdir(j(root, "ro"))
    os.chmod(j(root, "ro"), 0o555)
    os.mkfifo(j(root, "fifo"))
    with open(j(root, "bomb.json"), "w") as fh:
        fh.write("[" * BOMB_DEPTH + "]" * BOMB_DEPTH)
    with open(j(root, "latin1.json"), "wb") as fh:
        fh.write('{"format": "mamma-mia-log/2", "name": "café"}'.encode("latin-1"))
    with open(j(root, "huge.json"), "wb") as fh:
        fh.truncate(HUGE_BYTES)  # sparse: only its size is ever looked at
    text = json.dumps(valid_log())
    with open(j(root, "trunc.json"), "w") as fh:
        fh.write(text[: len(text) // 2])
    with open(j(root, "log.json"), "w") as fh:
        fh.write(text)
    with open(j(root, "save.json"), "w") as fh:
        fh.write(json.dumps(valid_save()))


def snapshot(root: str) -> dict[str, tuple]:
    """Every entry under ``root``: its kind, mode and (files) size and content hash."""
    snap: dict[str, tuple] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(dirpath, name)
            info = os.lstat(full)
            rel = os.path.relpath(full, root)
            if stat.S_ISREG(info.st_mode) and info.st_size < 2**20:
                with open(full, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
            else:
                digest = str(info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else ""
            snap[rel] = (stat.S_IFMT(info.st_mode), info.st_mode & 0o777, info.st_size, digest)
    return snap


def changed(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k))


@contextlib.contextmanager
def sandbox() -> Iterator[str]:
    """A fresh sandbox as the working directory; root's ``os.access`` sees ``ro`` as
    read-only; ``time.sleep`` returns at once (``play --delay``); stdin is at EOF; a
    server (``serve``) returns instead of serving."""
    root = tempfile.mkdtemp(prefix="inputs-")
    _fill(root)
    old_cwd, old_access, old_sleep, old_stdin = os.getcwd(), os.access, time.sleep, sys.stdin
    ro = os.path.join(root, "ro")

    def access(path: Any, mode: int, *args: Any, **kw: Any) -> bool:
        try:
            inside = os.path.realpath(path).startswith(ro)
        except (TypeError, ValueError):
            inside = False
        if inside and mode & os.W_OK:
            return False
        return old_access(path, mode, *args, **kw)

    import socketserver

    old_serve = socketserver.BaseServer.serve_forever
    socketserver.BaseServer.serve_forever = lambda self, *a, **k: None  # type: ignore[method-assign]
    os.chdir(root)
    if os.geteuid() == 0:
        os.access = access  # type: ignore[assignment]
    time.sleep = lambda s: None  # type: ignore[assignment]
    sys.stdin = io.StringIO("")
    try:
        yield root
    finally:
        os.chdir(old_cwd)
        os.access, time.sleep, sys.stdin = old_access, old_sleep, old_stdin  # type: ignore[assignment]
        socketserver.BaseServer.serve_forever = old_serve  # type: ignore[method-assign]
        os.chmod(ro, 0o755)
        import shutil

        shutil.rmtree(root, ignore_errors=True)


# -- one CLI run ----------------------------------------------------------------------------
def cli_run(argv: list[str]) -> tuple[Any, str, str]:
    """``mamma_mia_agents.cli.commands.main(argv)`` in this process: (exit code, stdout, stderr);
    an exception escaping ``main`` is returned as the code."""
    from mamma_mia_agents.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException as exc:  # the defect this suite looks for
            code = exc
    return code, out.getvalue(), err.getvalue()


def refusal_problems(code: Any, err: str, anchors: list[str]) -> list[str]:
    """Why a CLI refusal is not a good one: an exception, an exit code of 0 or beyond
    1-2, a traceback, a last line that is no ``error:`` naming one of ``anchors``."""
    if isinstance(code, BaseException):
        return [f"main raised {type(code).__name__}: {str(code)[:300]}"]
    fails = []
    if code not in (1, 2):
        fails.append(f"exit code {code!r}, expected 1 or 2")
    if "Traceback" in err:
        fails.append("a traceback on stderr: " + err[-400:])
    last = err.strip().splitlines()[-1] if err.strip() else ""
    if "error:" not in last:
        fails.append(f"the last line of stderr is no error message: {last[:300]!r}")
    elif not any(a in last for a in anchors):
        fails.append(f"the message names none of {anchors[:6]}: {last[:300]!r}")
    return fails


def run_cli_case(p: dict[str, Any]) -> tuple[list[str], str]:
    """``p``: argv, expect ("refuse" or "any"), anchors, allowed (paths an accepted run
    may write). Checks the module doc's rules."""
    with sandbox() as root:
        before = snapshot(root)
        code, _, err = cli_run(p["argv"])
        after = snapshot(root)
    diff = changed(before, after)
    if code == 0 and not isinstance(code, BaseException):
        fails = [] if p["expect"] == "any" else [f"accepted (exit 0): {err[-300:]!r}"]
        if "Traceback" in err:
            fails.append("a traceback on stderr: " + err[-400:])
        allowed = set(p.get("allowed", []))
        stray = [d for d in diff if not any(d == a or d.startswith(a + os.sep) for a in allowed)]
        if stray:
            fails.append(f"accepted, and changed {stray[:5]} (allowed: {sorted(allowed)})")
        return fails, "accepted"
    fails = refusal_problems(code, err, p["anchors"])
    if diff:
        fails.append(f"refused, but changed {diff[:5]}")
    return fails, "refused"


# -- one file-field case ---------------------------------------------------------------------
def _write_doc(path: str, doc: Any, raw: bytes | None) -> None:
    with open(path, "wb") as fh:
        fh.write(raw if raw is not None else json.dumps(doc).encode())


def run_file_case(p: dict[str, Any]) -> tuple[list[str], str]:
    """``p``: fmt (save, log, state, position), path, op, expect, truncate (a fraction
    of the valid file's bytes to keep, instead of an edit)."""
    fmt = p["fmt"]
    doc = {"save": valid_save, "log": valid_log, "state": valid_state,
           "position": lambda: json.loads(json.dumps(VALID_POSITION))}[fmt]()  # fmt: skip
    name = f"mutant-{fmt}.json"
    with sandbox() as root:
        if p.get("truncate") is not None:
            raw = json.dumps(doc).encode()
            with open(name, "wb") as fh:
                fh.write(raw[: int(p["truncate"] * len(raw))])
        else:
            mutant, raw_m = mutate(doc, p["path"], p["op"])
            _write_doc(name, mutant, raw_m)
        before = snapshot(root)
        fails, status = _load(fmt, name, p)
        after = snapshot(root)
    diff = [d for d in changed(before, after) if not (status == "accepted" and d == name)]
    if diff:
        fails.append(f"{status}, and changed {diff[:5]}")
    return fails, status


#: The fields of each format: an edit that keeps a field's type but changes its
#: meaning (another config, seed, agent list) is found out where the replay breaks,
#: so such a refusal may name the field that broke instead of the edited one.
FIELDS = {"save": ["format", "config", "seat", "agents", "seed", "actions", "state"],
          "log": ["format", "config", "seed", "start_state", "actions"]}  # fmt: skip


def _anchors(p: dict[str, Any], name: str, fmt: str) -> list[str]:
    keys = [str(k) for k in p.get("path", []) if isinstance(k, str)]
    if p.get("expect") == "any":
        keys += FIELDS.get(fmt, [])
    return [name, *keys]


def _load(fmt: str, name: str, p: dict[str, Any]) -> tuple[list[str], str]:
    if fmt in ("save", "log"):
        argv = ["play", "--resume", name] if fmt == "save" else ["replay", name]
        code, _, err = cli_run(argv)
        if code == 0 and not isinstance(code, BaseException):
            fails = [] if p["expect"] == "any" else [f"accepted {p.get('op')} at {p.get('path')}"]
            return fails, "accepted"
        fails = refusal_problems(code, err, [name])
        if not fails:
            last = err.strip().splitlines()[-1]
            if (
                p.get("path")
                and not any(a in last for a in _anchors(p, name, fmt)[1:])
                and not any(
                    w in last for w in ("JSON", "UTF-8", "format", "nested", "replayed", "bytes")
                )
            ):
                fails.append(f"the message names no field of {p['path']}: {last[:300]!r}")
        return fails, "refused"
    from fuzz_harness import attempt, refusal_failures

    if fmt == "state":
        from mamma_mia_env.game.state import GameState

        ok, res = attempt(lambda: GameState.load(name))
    else:
        from mamma_mia_env.game.positions import load_position

        ok, res = attempt(lambda: load_position(name))
    if ok:
        fails = [] if p["expect"] == "any" else [f"accepted {p.get('op')} at {p.get('path')}"]
        return fails, "accepted"
    fails = refusal_failures(res, [name])
    if not str(res).startswith(name) or "\n" in str(res):
        fails.append(f"the message does not start with the file's name on one line: {res}")
    return fails, "refused"


# -- policy files ----------------------------------------------------------------------------
def run_policy_case(p: dict[str, Any]) -> tuple[list[str], str]:
    """One edit of the shipped policy: a metadata field (``meta`` path and op) or an
    array (``array`` key and op: drop, float64, int32, bool, scalar, nan); the loader
    must refuse naming the file, or accept."""
    import numpy as np
    from fuzz_harness import attempt, refusal_failures

    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    arrays, meta = valid_policy()
    raw_meta = None
    if "meta" in p:
        meta, raw = mutate(meta, p["meta"], p["op"])
        raw_meta = raw.decode("latin-1") if raw is not None else None
    else:
        key, op = p["array"], p["op"]
        a = arrays[key]
        if op == "drop":
            del arrays[key]
        elif op == "scalar":
            arrays[key] = np.asarray(a.ravel()[0])
        elif op == "nan":
            arrays[key] = np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, a)
        else:
            arrays[key] = a.astype(op)
    arrays["meta"] = np.array(raw_meta if raw_meta is not None else json.dumps(meta))
    with sandbox() as root:
        name = os.path.join(root, "mutant-policy.npz")
        np.savez(name, **arrays)
        ok, res = attempt(lambda: PPOAgent(name))
    if ok:
        fails = [] if p["expect"] == "any" else [f"accepted {p}"]
        return fails, "accepted"
    return refusal_failures(res, ["mutant-policy.npz"]), "refused"
