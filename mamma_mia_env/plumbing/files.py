"""The file doors: every writer and every loader of the project goes through here.

Two rules, one place:

* **A writer never damages what was there.** ``write_atomic`` writes a temporary file
  in the target's own directory and renames it over the target, so a failure half-way
  leaves the earlier file whole, and a symbolic link planted at the target is replaced
  (the link, not the file it points to). ``check_output`` refuses a target before any
  work starts: a missing or read-only directory, a directory where the file goes, a
  read-only file, a name too long for the file system. ``write_file`` (and
  ``write_json``, ``write_figure``, ``write_npz`` on top of it) also says on stderr
  when it replaces an earlier run's file.
* **A loader names the file and the problem.** ``read_text`` and ``read_json`` refuse a
  file that is missing, not a regular file (a FIFO or a device is never opened for a
  blocking read), too big, not UTF-8 or (JSON) nested past a sane depth, holding
  ``NaN``/``Infinity`` or a number too long to read, with a ``FileDoorError`` whose
  message starts with the path; nothing else reaches the user.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_JSON_DEPTH",
    "FileDoorError",
    "check_output",
    "check_output_dir",
    "read_json",
    "read_text",
    "write_atomic",
    "write_figure",
    "write_file",
    "write_json",
    "write_npz",
]

MAX_FILE_BYTES = 256 * 2**20
"""The largest file a loader reads (256 MiB): a log of the longest game is far below."""
MAX_JSON_DEPTH = 64
"""The deepest nesting a JSON document may have (a saved state needs 5 levels)."""
_MAX_NAME_BYTES = 240  # 255 on common file systems, less the temporary file's affixes


class FileDoorError(ValueError):
    """A file that cannot be read or written; the message names the file and why."""


def _as_path(path: Any, what: str) -> Path:
    try:
        text = os.fspath(path)
    except TypeError:
        raise FileDoorError(f"the {what} must be a path, got {path!r:.80}") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text or "\0" in text:
        raise FileDoorError(f"{text!r}: the {what} needs a file name (no NUL characters)")
    return Path(text)


def check_output(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """``_check_output``, with the file system's own refusals (a name too long, a loop
    of links) as ``FileDoorError`` naming the path."""
    try:
        return _check_output(path, what)
    except OSError as exc:
        raise FileDoorError(
            f"{path}: the {what} cannot be written: {exc.strerror or exc}"
        ) from None


def _check_output(path: str | os.PathLike[str], what: str) -> Path:
    """``path`` as a ``Path`` if a file can be written there; ``FileDoorError`` otherwise.

    Called before the work that produces the file, so a bad ``--out`` costs nothing.
    The target itself may exist (it is replaced) unless it is a directory or a
    read-only file (a read-only file says "keep me"; a symbolic link is replaced, never
    followed).
    """
    p = _as_path(path, what)
    if str(path).endswith(os.sep) or p.name in ("", ".", ".."):
        raise FileDoorError(f"{path}: the {what} needs a file name")
    if len(os.fsencode(p.name)) > _MAX_NAME_BYTES:
        raise FileDoorError(f"{p}: the {what}'s name is longer than {_MAX_NAME_BYTES} bytes")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise FileDoorError(f"{p}: the {what}'s directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise FileDoorError(f"{p}: the {what}'s directory {parent} is not writable")
    if not p.is_symlink():
        if p.is_dir():
            raise FileDoorError(f"{p}: the {what} is a directory")
        if p.exists() and not os.access(p, os.W_OK):
            raise FileDoorError(f"{p}: the {what} exists and is read-only")
    return p


def check_output_dir(path: str | os.PathLike[str], what: str = "output directory") -> Path:
    """``_check_output_dir``, with the file system's own refusals as ``FileDoorError``."""
    try:
        return _check_output_dir(path, what)
    except OSError as exc:
        raise FileDoorError(f"{path}: the {what} cannot be used: {exc.strerror or exc}") from None


def _check_output_dir(path: str | os.PathLike[str], what: str) -> Path:
    """``path`` as a ``Path`` if it is a writable directory or can be created as one
    (its nearest existing ancestor is a writable directory); ``FileDoorError``
    otherwise. Nothing is created: the caller does that when it writes."""
    p = _as_path(path, what)
    probe = p
    while not probe.exists() and not probe.is_symlink():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise FileDoorError(f"{p}: the {what} would be inside {probe}, which is not a directory")
    if not probe.is_dir():
        raise FileDoorError(f"{p}: the {what} does not exist and cannot be created")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise FileDoorError(f"{p}: the {what} is not writable ({probe} is read-only)")
    return p


def write_atomic(path: str | os.PathLike[str], data: str | bytes, what: str = "file") -> bool:
    """Write ``data`` to ``path`` through a temporary file renamed into place.

    Returns whether an earlier file (or link) was replaced, so the caller can say so.
    The rename replaces a symbolic link at ``path`` itself: the file it pointed to is
    never opened. The new file gets the usual permissions (0666 less the umask). On any
    failure the temporary file is removed and the earlier file is left as it was.
    """
    p = check_output(path, what)
    replaced = os.path.lexists(p)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, p)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            raise FileDoorError(f"{p}: cannot write the {what}: {exc.strerror or exc}") from None
        raise
    return replaced


def write_file(path: str | os.PathLike[str], data: str | bytes, what: str = "file") -> bool:
    """``write_atomic``, and a line on stderr when an earlier file was replaced (so a
    rerun into the same directory never replaces a result silently)."""
    replaced = write_atomic(path, data, what)
    if replaced:
        print(f"replacing {os.fspath(path)} (the earlier {what})", file=sys.stderr)
    return replaced


def write_json(
    path: str | os.PathLike[str], obj: Any, what: str = "JSON file", indent: int | None = 2
) -> bool:
    """``obj`` as JSON (strict: no ``NaN``/``Infinity``) through ``write_file``."""
    try:
        text = json.dumps(obj, indent=indent, allow_nan=False)
    except ValueError as exc:
        raise FileDoorError(f"{os.fspath(path)}: the {what} cannot be JSON: {exc}") from None
    return write_file(path, text + "\n", what)


def write_figure(fig: Any, path: str | os.PathLike[str], what: str = "plot", **kw: Any) -> bool:
    """A matplotlib figure drawn to bytes (format from the suffix), then ``write_file``."""
    p = check_output(path, what)
    buf = io.BytesIO()
    fig.savefig(buf, format=p.suffix.lstrip(".") or "png", **kw)
    return write_file(p, buf.getvalue(), what)


def write_npz(
    path: str | os.PathLike[str], arrays: dict[str, Any], what: str = "array file",
    compressed: bool = True,
) -> bool:  # fmt: skip
    """``numpy.savez(_compressed)`` to bytes, then ``write_file`` (numpy writes in place)."""
    import numpy as np  # here: the plumbing module stays cheap to import

    check_output(path, what)
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return write_file(path, buf.getvalue(), what)


def read_text(
    path: str | os.PathLike[str], what: str = "file", max_bytes: int = MAX_FILE_BYTES
) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``; ``FileDoorError``
    naming the file for anything else (missing, a directory, a device or a FIFO, too
    big, another encoding). The file is opened without blocking and checked on the open
    descriptor, so a FIFO swapped in after a check cannot hang the reader."""
    p = _as_path(path, what)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise FileDoorError(f"{p}: the {what} is not a regular file")
            if info.st_size > max_bytes:
                raise FileDoorError(
                    f"{p}: the {what} is {info.st_size:,} bytes, more than the "
                    f"{max_bytes:,} allowed"
                )
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise FileDoorError(f"{p}: cannot read the {what}: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise FileDoorError(f"{p}: the {what} is more than the {max_bytes:,} bytes allowed")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileDoorError(f"{p}: the {what} is not UTF-8 text (at byte {exc.start})") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number this project reads")


def _depth(obj: Any) -> int:
    """The nesting depth of a parsed document (iterative: no recursion to exhaust)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        item, d = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, d)
            if d <= MAX_JSON_DEPTH:
                stack.extend(
                    (v, d + 1) for v in (item.values() if isinstance(item, dict) else item)
                )
    return deepest


def read_json(
    path: str | os.PathLike[str], what: str = "file", max_bytes: int = MAX_FILE_BYTES
) -> Any:
    """The JSON document in ``path`` (``read_text`` first); a syntax error, a nesting
    bomb (deeper than ``MAX_JSON_DEPTH``), ``NaN``/``Infinity`` or a number of more
    digits than Python reads is a ``FileDoorError`` naming the file, never a
    ``RecursionError`` or a traceback."""
    text = read_text(path, what, max_bytes)
    where = os.fspath(path)
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise FileDoorError(
            f"{where}: the {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg})"
        ) from None
    except RecursionError:
        raise FileDoorError(f"{where}: the {what} is JSON nested too deeply") from None
    except ValueError as exc:  # NaN / Infinity, an integer of thousands of digits
        raise FileDoorError(f"{where}: the {what} holds a bad number: {exc}") from None
    if _depth(obj) > MAX_JSON_DEPTH:
        raise FileDoorError(
            f"{where}: the {what} is JSON nested more than {MAX_JSON_DEPTH} levels deep"
        )
    return obj
