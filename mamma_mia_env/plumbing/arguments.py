"""Checks of the plain arguments the public API takes: seeds, integers, ``out=`` buffers.

One place for the rule "nothing is silently changed": a seed of ``1.5``, ``"5"`` or
``True`` is refused, not rounded or read as 1; a numpy integer is an integer. Every
error names the argument and says what was wrong.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mamma_mia_env.plumbing.files import FileError, check_output, check_output_dir

SEED_LIMIT = 2**64


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` that reads ``--flag=--`` as the value ``"--"``, as
    Python 3.12 does: Python 3.11 drops that ``--`` as the end-of-options marker and hands
    the flag an empty list, which its own check then meets as a list (a traceback). With
    the value kept, the flag's check names what is wrong with it. Sub-commands made with
    ``add_subparsers`` are of this class too."""

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (a float or bool where an int belongs, ...); also a
    ``ValueError``, so one ``except ValueError`` catches every refused argument."""


def is_int(value: Any) -> bool:
    """A Python or numpy integer, not a bool (``True`` is an ``int`` to Python)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def as_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int in ``[lo, hi]``, or ``TypeError`` / ``ValueError`` naming ``name``."""
    if not is_int(value):
        raise ArgumentTypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {_bounds(lo, hi)}, got {v}")
    return v


def _bounds(lo: float | None, hi: float | None) -> str:
    if lo is None:
        return f"at most {hi}"
    if hi is None:
        return f"at least {lo}"
    return f"in {lo}-{hi}"


def as_seed(value: Any, name: str = "seed") -> int:
    """A seed: an int in ``[0, 2**64)``."""
    if not is_int(value):
        raise ArgumentTypeError(
            f"{name} must be an int in [0, 2**64), got {value!r} ({type(value).__name__})"
        )
    v = int(value)
    if not 0 <= v < SEED_LIMIT:
        raise ValueError(f"{name} must be in [0, 2**64), got {v}")
    return v


def seed_text(value: Any, name: str = "seed") -> int:
    """A seed as a file writes it: a string of plain ASCII digits (JSON numbers lose
    precision above 2**53), in ``[0, 2**64)``; nothing else is read as a seed."""
    if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20):
        raise ArgumentTypeError(f"{name} must be a string of digits, got {value!r:.60}")
    return as_seed(int(value), name)


def require_reset(ready: bool, method: str) -> None:
    """``RuntimeError`` saying to call ``reset()`` first (not an ``AttributeError``)."""
    if not ready:
        raise RuntimeError(f"call reset() before {method}(): the env has no game yet")


def as_bool(value: Any, name: str) -> bool:
    """A bool (Python's or numpy's); ``"no"``, ``0`` or ``None`` are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(
            f"{name} must be True or False, got {value!r:.80} ({type(value).__name__})"
        )
    return bool(value)


def as_float(value: Any, name: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite real number (not a bool or a string: ``float()`` would read ``"0.5"``
    and ``True``) in ``[lo, hi]``, or ``TypeError`` / ``ValueError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise ArgumentTypeError(
            f"{name} must be a real number, got {value!r:.80} ({type(value).__name__})"
        )
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {v}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {_bounds(lo, hi)}, got {v}")
    return v


def as_array(value: Any, name: str, error: type[Exception] | None = None) -> np.ndarray:
    """``np.asarray(value)``, numpy's own refusals (a ragged list) raised as ``error``
    (default ``ArgumentTypeError``) naming ``name``; the caller checks shape and dtype."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise (error or ArgumentTypeError)(
            f"{name} must be an array (or a flat list) of numbers, got {value!r:.80}: "
            f"{type(exc).__name__}: {str(exc)[:120]}"
        ) from None


def as_seed_array(values: Any, name: str = "seeds") -> np.ndarray:
    """A sequence or array of seeds as uint64 (ints only: no floats, bools or strings)."""
    if isinstance(values, (str, bytes, bytearray, dict, set)):
        raise ArgumentTypeError(f"{name} must be an int or a sequence of ints, got {values!r}")
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "iu" or values.ndim != 1:
            raise ArgumentTypeError(
                f"{name} must be a 1-d integer array, got {values.dtype} of shape {values.shape}"
            )
        if values.dtype.kind == "i" and (values < 0).any():
            raise ValueError(f"{name} must be in [0, 2**64), got a negative seed")
        return values.astype(np.uint64)
    try:
        items = list(values)
    except TypeError:
        raise ArgumentTypeError(
            f"{name} must be an int or a sequence of ints, got {values!r}"
        ) from None
    return np.array([as_seed(s, f"{name}[{i}]") for i, s in enumerate(items)], dtype=np.uint64)


def check_out(
    out: Any,
    shape: tuple[int, ...],
    dtype: type | np.dtype,
    name: str = "out",
    inputs: Mapping[str, Any] | None = None,
) -> np.ndarray:
    """An ``out=`` buffer the kernels may write: exact shape and dtype, C order, writable,
    and sharing no memory (by bounds) with any array of ``inputs`` (name to value). The
    kernels write by index with no bounds checks; a buffer over the game state would
    change the games it is computed from while it is computed."""
    if not isinstance(out, np.ndarray):
        raise ArgumentTypeError(f"{name} must be a numpy array, got {type(out).__name__}")
    if out.shape != shape or out.dtype != np.dtype(dtype):
        raise ValueError(
            f"{name} must have shape {shape} and dtype {np.dtype(dtype)}, "
            f"got shape {out.shape} and dtype {out.dtype}"
        )
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"{name} must be a C-contiguous, writable array")
    for what, arr in (inputs or {}).items():
        if isinstance(arr, np.ndarray) and np.may_share_memory(out, arr):
            raise ValueError(
                f"{name} shares memory with {what}, which it is computed from: pass a "
                "separate buffer"
            )
    return out


def out_array(
    out: Any, shape: tuple[int, ...], dtype: type | np.dtype, inputs: Mapping[str, Any]
) -> np.ndarray:
    """A new array when ``out`` is None, else ``out`` checked (``check_out``)."""
    if out is None:
        return np.empty(shape, dtype=dtype)
    return check_out(out, shape, dtype, inputs=inputs)


# -- command-line flags -------------------------------------------------------------------
def parse_digits(text: str, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer in plain ASCII digits (``-`` for a negative) in ``[lo, hi]``, or
    ``ValueError`` naming ``name``: the one reader of an integer given as text. ``int()``
    would also take ``" 5"``, ``"+5"``, ``"5_000"`` and other scripts' digits."""
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()) or len(text) > 40:
        raise ValueError(f"{name} must be an integer written in plain digits, got {text!r:.60}")
    value = int(text)
    below = lo is not None and (value < lo or (lo >= 0 and text.startswith("-")))  # "-0"
    if below or (hi is not None and value > hi):
        bound = f"{lo}-{hi}" if lo is not None and hi is not None else _bounds(lo, hi)
        raise ValueError(f"{name} must be {bound}, got {text}")
    return value


def check_reset_options(options: Any, known: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``options`` is None or a dict of known keys; an unknown key is refused by name."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ArgumentTypeError(f"options must be a dict or None, got {type(options).__name__}")
    unknown = set(options) - known
    if unknown:
        raise ValueError(
            f"unknown reset options {sorted(map(str, unknown))}; known: {sorted(known) or 'none'}"
        )
    return options


def int_flag(name: str, lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse ``type=``: ``parse_digits``, every refusal naming the flag."""

    def parse(text: str) -> int:
        try:
            return parse_digits(text, name, lo, hi)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def add_int_flag(
    parser: argparse._ActionsContainer, flag: str, lo: int | None, hi: int | None, **kw: Any
) -> None:
    """``add_argument(flag, type=int_flag(flag, lo, hi), **kw)``: the name said once."""
    parser.add_argument(flag, type=int_flag(flag, lo, hi), **kw)


def real_flag(
    name: str, lo: float | None = None, hi: float | None = None
) -> Callable[[str], float]:
    """An argparse ``type=``: a finite real number in ``[lo, hi]`` (``type=float`` takes
    ``nan``, ``inf`` and ``1e999``)."""

    def parse(text: str) -> float:
        try:
            value = float(text) if len(text) <= 40 else float("nan")
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r:.60}") from None
        try:
            return as_float(value, name, lo, hi)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{exc} (from {text!r:.60})") from None

    return parse


def out_file_flag(name: str, kind: type = str) -> Callable[[str], Any]:
    """An argparse ``type=``: a path a file can be written to (``files.check_output``),
    checked before any work; the value as ``kind`` (``str`` or ``Path``)."""

    def parse(text: str) -> Any:
        return _checked_output(check_output, text, f"{name} file", kind)

    return parse


def out_dir_flag(name: str, kind: type = Path) -> Callable[[str], Any]:
    """An argparse ``type=``: a directory that is writable or can be created
    (``files.check_output_dir``); the value as ``kind`` (``Path`` or ``str``)."""

    def parse(text: str) -> Any:
        return _checked_output(check_output_dir, text, f"{name} directory", kind)

    return parse


def _checked_output(check: Callable[[str, str], Path], text: str, what: str, kind: type) -> Any:
    try:
        path = check(text, what)
    except FileError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return path if kind is Path else text
