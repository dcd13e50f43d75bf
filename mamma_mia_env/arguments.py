"""Checks of the plain arguments the public doors take: seeds, integers, ``out=`` buffers.

One place for the rule "nothing is silently changed": a seed of ``1.5``, ``"5"`` or
``True`` is refused, not rounded or read as 1; a numpy integer is an integer. Every
error names the argument and says what was wrong.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SEED_LIMIT = 2**64


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (a float or bool where an int belongs, ...).

    Both a ``TypeError`` and a ``ValueError``: code that caught the ``ValueError`` a
    bad value always raised keeps working.
    """


def is_int(value: Any) -> bool:
    """A Python or numpy integer, not a bool (``True`` is an ``int`` to Python)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def as_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int in ``[lo, hi]``, or ``TypeError`` / ``ValueError`` naming ``name``."""
    if not is_int(value):
        raise ArgumentTypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be in {lo}-{hi}, got {v}")
    return v


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


def as_array(values: Any, name: str, error: type[Exception] = ArgumentTypeError) -> np.ndarray:
    """``np.asarray(values)``, with numpy's own failures (ragged nested lists, objects it
    cannot hold) raised as ``error`` naming ``name``; shape and dtype are the caller's
    checks."""
    try:
        return np.asarray(values)
    except (TypeError, ValueError, OverflowError) as exc:
        raise error(f"{name} must be an array of numbers, got {values!r}: {exc}") from None


def check_out(out: Any, shape: tuple[int, ...], dtype: type, name: str = "out") -> np.ndarray:
    """An ``out=`` buffer the kernels may write: exact shape and dtype, C order, writable.

    The kernels write by index with no bounds checks; a wrong buffer would be written
    past its end.
    """
    if not isinstance(out, np.ndarray):
        raise ArgumentTypeError(f"{name} must be a numpy array, got {type(out).__name__}")
    if out.shape != shape or out.dtype != np.dtype(dtype):
        raise ValueError(
            f"{name} must have shape {shape} and dtype {np.dtype(dtype)}, "
            f"got shape {out.shape} and dtype {out.dtype}"
        )
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"{name} must be a C-contiguous, writable array")
    return out
