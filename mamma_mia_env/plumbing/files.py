"""The file readers and writers: every writer and every loader of the project goes through here.

* **A writer never damages what was there.** ``write_atomic`` renames a temporary file
  over the target, so a failure half-way leaves the earlier file whole and a symbolic
  link planted at the target is replaced, not followed; ``check_output`` refuses a
  target before any work starts; ``write_file`` says on stderr when it replaces a file.
* **A loader names the file and the problem.** ``read_text`` and ``read_json`` refuse,
  with a ``FileError`` starting with the path, a file that is missing, not regular (a
  FIFO is never opened for a blocking read), too big, not UTF-8, or JSON that is nested
  too deep or holds a number or string the project does not read.
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
    "FileError",
    "check_output",
    "check_document",
    "check_output_dir",
    "parse_json",
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


class FileError(ValueError):
    """A file that cannot be read or written; the message names the file and why."""


def _as_path(path: Any, what: str) -> Path:
    try:
        text = os.fspath(path)
    except TypeError:
        raise FileError(f"the {what} must be a path, got {path!r:.80}") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text or "\0" in text:
        raise FileError(f"{text!r}: the {what} needs a file name (no NUL characters)")
    return Path(text)


def check_output(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """``path`` as a ``Path`` if a file can be written there (before the work, so a bad
    ``--out`` costs nothing), else ``FileError``; a read-only target says "keep me"."""
    try:
        p = _as_path(path, what)
        if str(path).endswith(os.sep) or p.name in ("", ".", ".."):
            raise FileError(f"{path}: the {what} needs a file name")
        if len(os.fsencode(p.name)) > _MAX_NAME_BYTES:
            raise FileError(f"{p}: the {what}'s name is longer than {_MAX_NAME_BYTES} bytes")
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.is_dir():
            raise FileError(f"{p}: the {what}'s directory {parent} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise FileError(f"{p}: the {what}'s directory {parent} is not writable")
        if not p.is_symlink():
            if p.is_dir():
                raise FileError(f"{p}: the {what} is a directory")
            if p.exists() and not os.access(p, os.W_OK):
                raise FileError(f"{p}: the {what} exists and is read-only")
        return p
    except OSError as exc:
        raise FileError(f"{path}: the {what} cannot be written: {exc.strerror or exc}") from None


def check_output_dir(path: str | os.PathLike[str], what: str = "output directory") -> Path:
    """``path`` as a ``Path`` if it is a writable directory or can be created as one,
    else ``FileError``. Nothing is created: the caller does that when it writes."""
    try:
        p = _as_path(path, what)
        probe = p
        while not probe.exists() and not probe.is_symlink():
            if probe.parent == probe:
                break
            probe = probe.parent
        if probe.exists() and not probe.is_dir():
            raise FileError(f"{p}: the {what} would be inside {probe}, which is not a directory")
        if not probe.is_dir():
            raise FileError(f"{p}: the {what} does not exist and cannot be created")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise FileError(f"{p}: the {what} is not writable ({probe} is read-only)")
        return p
    except OSError as exc:
        raise FileError(f"{path}: the {what} cannot be used: {exc.strerror or exc}") from None


def write_atomic(path: str | os.PathLike[str], data: str | bytes, what: str = "file") -> bool:
    """Write ``data`` to ``path`` through a temporary file renamed into place (a link at
    ``path`` is replaced, its target never opened); whether an earlier file was replaced.
    The new file gets 0666 less the umask (``mkstemp`` would give 0600)."""
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
            raise FileError(f"{p}: cannot write the {what}: {exc.strerror or exc}") from None
        raise
    return replaced


def write_file(path: str | os.PathLike[str], data: str | bytes, what: str = "file") -> bool:
    """``write_atomic``, saying on stderr when an earlier result is replaced."""
    replaced = write_atomic(path, data, what)
    if replaced:
        print(f"replacing {os.fspath(path)} (the earlier {what})", file=sys.stderr)
    return replaced


def write_json(path: str | os.PathLike[str], obj: Any, what: str = "JSON file") -> bool:
    """``obj`` as JSON (strict: no ``NaN``/``Infinity``) through ``write_file``."""
    try:
        text = json.dumps(obj, indent=2, allow_nan=False)
    except ValueError as exc:
        raise FileError(f"{os.fspath(path)}: the {what} cannot be JSON: {exc}") from None
    return write_file(path, text + "\n", what)


def write_figure(fig: Any, path: str | os.PathLike[str], what: str = "plot", **kw: Any) -> bool:
    """A matplotlib figure drawn to bytes (format from the suffix), then ``write_file``."""
    p = check_output(path, what)
    buf = io.BytesIO()
    fig.savefig(buf, format=p.suffix.lstrip(".") or "png", **kw)
    return write_file(p, buf.getvalue(), what)


def write_npz(
    path: str | os.PathLike[str], arrays: dict[str, Any], what: str = "array file"
) -> bool:
    """``numpy.savez_compressed`` to bytes, then ``write_file`` (numpy writes in place)."""
    import numpy as np  # here: the plumbing module stays cheap to import

    check_output(path, what)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return write_file(path, buf.getvalue(), what)


def read_text(
    path: str | os.PathLike[str], what: str = "file", max_bytes: int = MAX_FILE_BYTES
) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``, else ``FileError``.
    Opened without blocking and checked on the descriptor, so a FIFO swapped in after
    a check cannot hang the reader."""
    p = _as_path(path, what)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise FileError(f"{p}: the {what} is not a regular file")
            if info.st_size > max_bytes:
                raise FileError(
                    f"{p}: the {what} is {info.st_size:,} bytes, more than the "
                    f"{max_bytes:,} allowed"
                )
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise FileError(f"{p}: cannot read the {what}: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise FileError(f"{p}: the {what} is more than the {max_bytes:,} bytes allowed")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileError(f"{p}: the {what} is not UTF-8 text (at byte {exc.start})") from None


MAX_NUMBER_CHARS = 64
"""The longest number a JSON document may write (a float's ``repr`` needs 24 characters,
a 64-bit seed 20 digits): a longer one is refused before Python reads it, so a
20,000-digit number costs nothing and ``0.000...1`` is not read as 0."""


class _BadNumber:
    """A number the project does not read (``NaN``, ``1e999``), kept in the document
    until ``check_document`` refuses it naming its field."""

    def __init__(self, text: str, why: str) -> None:
        self.text, self.why = text, why


def _json_constant(text: str) -> Any:
    return _BadNumber(text, "is not a number this project reads")


def _json_number(text: str, kind: type = int) -> Any:
    """An integer (``kind`` int) or a number with a fraction or exponent (float)."""
    if len(text) > MAX_NUMBER_CHARS:
        return _BadNumber(text, f"has more than {MAX_NUMBER_CHARS} characters")
    value = kind(text)
    if value in (float("inf"), float("-inf")):  # 1e999 would be read as infinity
        return _BadNumber(text, "is not a finite number")
    return value


def _field(path: str, key: Any) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else str(key)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800"): no UTF-8 text holds one
        return False
    return True


def check_document(obj: Any, what: str = "document") -> None:
    """Refuse (``ValueError`` naming the field) a parsed JSON document nested deeper than
    ``MAX_JSON_DEPTH``, holding a bad number or a lone surrogate (JSON's ``\\ud800``
    escape writes one; printing or saving it later would crash). Iterative."""
    stack: list[tuple[Any, str, int]] = [(obj, "", 1)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, _BadNumber):
            shown = item.text if len(item.text) <= 20 else f"{item.text[:20]}..."
            raise ValueError(f"the {what}'s field {path or '(top)'} holds a bad number: "
                             f"{shown} {item.why}")  # fmt: skip
        if isinstance(item, str) and not _encodable(item):
            where = f"the {what}'s field {path}" if path else f"the {what}"
            raise ValueError(f"{where} holds a string that is not valid Unicode (a lone "
                             "surrogate)")  # fmt: skip
        if not isinstance(item, (dict, list)):
            continue
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"the {what} is JSON nested more than {MAX_JSON_DEPTH} levels deep")
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, value in pairs:
            if isinstance(key, str) and not _encodable(key):
                raise ValueError(f"the {what} has a key in {path or '(top)'} that is not "
                                 "valid Unicode (a lone surrogate)")  # fmt: skip
            stack.append((value, _field(path, key), depth + 1))


def parse_json(text: str | bytes | bytearray, what: str = "document") -> Any:
    """A JSON document read the one way the project reads JSON: strict numbers, nesting
    and strings checked (``check_document``); every refusal is a ``ValueError``."""
    try:
        if not isinstance(text, str):  # UTF-8 only (json.loads would also guess UTF-16/32)
            text = bytes(text).decode("utf-8")
        obj = json.loads(
            text,
            parse_constant=_json_constant,
            parse_int=_json_number,
            parse_float=lambda text: _json_number(text, float),
        )
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"the {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"the {what} is not UTF-8 text (at byte {exc.start})") from None
    except RecursionError:
        raise ValueError(f"the {what} is JSON nested too deeply") from None
    check_document(obj, what)
    return obj


def read_json(
    path: str | os.PathLike[str], what: str = "file", max_bytes: int = MAX_FILE_BYTES
) -> Any:
    """``parse_json`` of ``read_text``; every refusal a ``FileError`` naming the file."""
    text = read_text(path, what, max_bytes)
    try:
        return parse_json(text, what)
    except ValueError as exc:
        raise FileError(f"{os.fspath(path)}: {exc}") from None
