"""The file doors: every writer and every loader of the project goes through here.

Two rules, one place:

* **A writer never damages what was there.** ``write_atomic`` writes a temporary file
  in the target's own directory and renames it over the target, so a failure half-way
  leaves the earlier file whole, and a symbolic link planted at the target is replaced
  (the link, not the file it points to). ``check_output`` refuses a target before any
  work starts: a missing or read-only directory, a directory where the file goes.
* **A loader names the file and the problem.** ``read_text`` and ``read_json`` refuse a
  file that is missing, too big, not UTF-8 or (JSON) nested past a sane depth with a
  ``FileDoorError`` whose message starts with the path; nothing else reaches the user.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_FILE_BYTES",
    "FileDoorError",
    "check_output",
    "read_json",
    "read_text",
    "write_atomic",
]

MAX_FILE_BYTES = 256 * 2**20
"""The largest file a loader reads (256 MiB): a log of the longest game is far below."""


class FileDoorError(ValueError):
    """A file that cannot be read or written; the message names the file and why."""


def check_output(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """``path`` as a ``Path`` if a file can be written there; ``FileDoorError`` otherwise.

    Called before the work that produces the file, so a bad ``--out`` costs nothing.
    The target itself may exist (it is replaced) unless it is a directory.
    """
    p = Path(os.fspath(path))
    if not str(p) or str(p).endswith(os.sep):
        raise FileDoorError(f"{path}: the {what} needs a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise FileDoorError(f"{p}: the {what}'s directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise FileDoorError(f"{p}: the {what}'s directory {parent} is not writable")
    if p.is_dir() and not p.is_symlink():
        raise FileDoorError(f"{p}: the {what} is a directory")
    return p


def write_atomic(path: str | os.PathLike[str], data: str | bytes, what: str = "file") -> bool:
    """Write ``data`` to ``path`` through a temporary file renamed into place.

    Returns whether an earlier file (or link) was replaced, so the caller can say so.
    The rename replaces a symbolic link at ``path`` itself: the file it pointed to is
    never opened. The new file gets the usual permissions (0666 less the umask).
    """
    p = check_output(path, what)
    replaced = os.path.lexists(p)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, p)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise FileDoorError(f"{p}: cannot write the {what}: {exc.strerror or exc}") from None
        raise
    return replaced


def read_text(
    path: str | os.PathLike[str], what: str = "file", max_bytes: int = MAX_FILE_BYTES
) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``; ``FileDoorError``
    naming the file for anything else (missing, a directory, a device, too big,
    another encoding)."""
    p = Path(os.fspath(path))
    try:
        info = p.stat()
        if not stat.S_ISREG(info.st_mode):
            raise FileDoorError(f"{p}: the {what} is not a regular file")
        if info.st_size > max_bytes:
            raise FileDoorError(
                f"{p}: the {what} is {info.st_size:,} bytes, more than the {max_bytes:,} allowed"
            )
        with open(p, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise FileDoorError(f"{p}: cannot read the {what}: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise FileDoorError(f"{p}: the {what} is more than the {max_bytes:,} bytes allowed")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileDoorError(f"{p}: the {what} is not UTF-8 text (at byte {exc.start})") from None


def read_json(
    path: str | os.PathLike[str], what: str = "file", max_bytes: int = MAX_FILE_BYTES
) -> Any:
    """The JSON document in ``path`` (``read_text`` first); a syntax error or a nesting
    bomb is a ``FileDoorError`` naming the file, never a ``RecursionError``."""
    text = read_text(path, what, max_bytes)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileDoorError(
            f"{path}: the {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg})"
        ) from None
    except RecursionError:
        raise FileDoorError(f"{path}: the {what} is JSON nested too deeply") from None
