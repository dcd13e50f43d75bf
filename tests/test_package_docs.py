"""Every package's docstring names each module and subpackage it holds.

A reader opens a folder's ``__init__.py`` to learn what is in it; a module added
without a word there is one the map does not show. Private modules (``_version``,
``__main__``) and data folders (no ``__init__.py``) are not part of the map.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(
    init.parent
    for top in ("mamma_mia_env", "agents", "experiments")
    for init in (ROOT / top).rglob("__init__.py")
)


def _members(package: Path) -> list[str]:
    modules = {p.stem for p in package.glob("*.py")}
    subpackages = {d.name for d in package.iterdir() if (d / "__init__.py").is_file()}
    return sorted(m for m in modules | subpackages if not m.startswith("_"))


def test_the_packages_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in PACKAGES}
    assert {"mamma_mia_env", "mamma_mia_env/game", "agents", "agents/cli"} <= names
    assert "cli" in _members(ROOT / "agents") and "__main__" not in _members(ROOT / "agents")


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_package_docstring_names_every_module(package: Path) -> None:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    assert doc, f"{package.relative_to(ROOT)}/__init__.py has no docstring"
    missing = [m for m in _members(package) if not re.search(rf"\b{re.escape(m)}\b", doc)]
    assert not missing, f"{package.relative_to(ROOT)}/__init__.py does not name {missing}"
