"""One-line shims for moved modules: the old import path keeps working for one release.

A shim module holds ``alias(__name__, "new.path")``: importing the old path warns with a
``DeprecationWarning`` and hands back the new module itself (same object, so private
names, ``isinstance`` checks and monkeypatching behave exactly as at the new path).
"""

from __future__ import annotations

import importlib
import sys
import warnings


def alias(old: str, new: str) -> None:
    """Make ``old`` (the module being imported) an alias of ``new``, with a warning."""
    warnings.warn(
        f"{old} moved to {new}; the old path is kept for one release",
        DeprecationWarning,
        stacklevel=3,
    )
    sys.modules[old] = importlib.import_module(new)
