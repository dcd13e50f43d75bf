"""Old import paths of moved modules keep working for one release, with a warning.

Each package keeps one table, old path -> new path (``mamma_mia_env/_moved.py``,
``agents/_moved.py``), and installs it with :func:`install`. Importing an old path then
warns with a ``DeprecationWarning`` and hands back the new module itself (the same
object, so private names, ``isinstance`` checks and monkeypatching behave exactly as at
the new path). A table instead of a shim file per module keeps the moved names out of
the folder tree, which shows only the layers.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType


class _Alias(importlib.abc.Loader):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{self.old} moved to {self.new}; the old path is kept for one release",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(self.new)
        self._spec = module.__spec__  # the import system sets __spec__ to the alias's next
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The new module is already executed; only its own ``__spec__`` is put back."""
        module.__spec__ = self._spec

    def get_code(self, fullname: str) -> None:
        """``python -m OLD.PATH``: runpy asks for code to run; an old path names a module
        that moved, not a command, so the refusal (one line from runpy) says where it
        went and what to run."""
        raise ImportError(
            f"{self.old} moved to {self.new} and is not a command: run `mamma-mia --help` "
            "(python -m mamma_mia_agents) or `python -m mamma_mia_env`"
        )


class _MovedFinder(importlib.abc.MetaPathFinder):
    def __init__(self, table: Mapping[str, str]) -> None:
        self.table = dict(table)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = self.table.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(fullname, new))


def install(table: Mapping[str, str]) -> None:
    """Serve every ``old`` module path of ``table`` as its ``new`` module (see above)."""
    sys.meta_path.insert(0, _MovedFinder(table))  # before path finders: the table decides
