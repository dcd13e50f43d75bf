"""Every import path and source file the README and docs/ show exists, where it lives.

Modules move; the docs must move with them. This reads README.md, SECURITY.md and
docs/*.md, and checks

* every ``from mamma_mia_env... import a, b`` line and every dotted name such as
  ``mamma_mia_env.envs.vector.MammaMiaVectorEnv`` resolves (a module, then attributes);
* a class or function shown through a module (not a package's ``__init__``) is defined
  in that module: the docs show where the code lives, never a name a module imports;
* every source path such as ``mamma_mia_env/game/rules.py`` is a file of the repository.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]
PACKAGES = ("mamma_mia_env", "mamma_mia_agents", "experiments")
# optional libraries: a documented module that needs one is skipped when it is missing
OPTIONAL = {
    "ray",
    "tianshou",
    "pyspiel",
    "torch",
    "torchrl",
    "tensordict",
    "stable_baselines3",
    "sb3_contrib",
}

_ROOTS = "|".join(PACKAGES)
FROM_IMPORT = re.compile(rf"from\s+((?:{_ROOTS})(?:\.\w+)*)\s+import\s+(\([\w ,\n#]+\)|[\w ,]+)")
DOTTED = re.compile(rf"\b((?:{_ROOTS})(?:\.\w+)+)")
SOURCE = re.compile(r"\b((?:mamma_mia_env|agents|experiments|tests)/[\w/]+\.py)\b")


def _text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in DOCS)


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing = getattr(exc, "name", None) or ""
        if missing.split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs the optional library {missing}")
        raise


def _resolve(dotted: str) -> object:
    """The object a dotted name shows: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            obj: object = _import(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name) and cut > 1:
                continue
            raise
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                raise AssertionError(f"{dotted}: {name} has no attribute {attr!r}")
            owner, obj = obj, getattr(obj, attr)
            if isinstance(owner, ModuleType) and not hasattr(owner, "__path__"):
                home = getattr(obj, "__module__", None) if callable(obj) else None
                assert home in (None, owner.__name__), f"{dotted}: defined in {home}"
        return obj
    raise AssertionError(f"{dotted}: nothing importable")


def _documented_names() -> list[str]:
    text = _text()
    names = set()
    for module, imported in FROM_IMPORT.findall(text):
        listed = re.sub(r"#[^\n]*", "", imported.strip("()"))  # comments in a ( ) list
        listed = re.sub(r"\bas\s+\w+", "", listed)  # ``import a as b``: a is the name
        for name in re.split(r"[,\s]+", listed.strip()):
            if name.isidentifier():
                names.add(f"{module}.{name}")
    for dotted in DOTTED.findall(text):
        names.add(dotted.rstrip("."))
    # a dotted name ending in a file suffix is a path, not a name (``mamma_mia_env.rules.py``)
    return sorted(n for n in names if not n.endswith((".py", ".json", ".md", ".npz", ".csv")))


@pytest.mark.parametrize("dotted", _documented_names())
def test_documented_name_resolves(dotted: str) -> None:
    _resolve(dotted)


@pytest.mark.parametrize("path", sorted(set(SOURCE.findall(_text()))))
def test_documented_source_file_exists(path: str) -> None:
    assert (ROOT / path).is_file(), f"the docs show {path}, which is not in the repository"
