"""The project type-checks clean: mypy on the packages ``mamma_mia_env``,
``mamma_mia_agents`` and ``experiments`` and the module ``mamma_mia_interrupts``.

The folder agents/ installs as ``mamma_mia_agents`` through setuptools' ``package-dir``;
mypy cannot map the folder to that name and does not follow setuptools' editable finder,
so ``mypy`` alone (``files`` in pyproject.toml) checks ``mamma_mia_env`` and
``mamma_mia_interrupts`` only (``experiments`` imports ``mamma_mia_agents``). This test
puts a link named ``mamma_mia_agents`` to agents/ in a temporary folder on mypy's search
path (``MYPYPATH``) and runs mypy on all of them from the repository root, with the
project's settings (``[tool.mypy]`` in pyproject.toml). mypy's cache (.mypy_cache) is
shared with the developers' runs: with it, a run takes a second or two.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "mamma_mia_env": ROOT / "mamma_mia_env",
    "mamma_mia_agents": ROOT / "agents",
    "experiments": ROOT / "experiments",
}
MODULES = {"mamma_mia_interrupts": ROOT / "mamma_mia_interrupts.py"}


def test_the_project_type_checks_clean(tmp_path: Path) -> None:
    link = tmp_path / "mamma_mia_agents"
    link.symlink_to(PACKAGES["mamma_mia_agents"], target_is_directory=True)
    args = [arg for name in PACKAGES for arg in ("-p", name)]
    args += [arg for name in MODULES for arg in ("-m", name)]
    run = subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = (run.stdout + run.stderr).replace(str(link), "agents")  # the files as they are
    assert run.returncode == 0, report
    # every module was checked, none missed through the link (mypy
    # also counts a folder of data files, agents/policies/ say, as a namespace package)
    modules = len(MODULES) + sum(len(list(d.rglob("*.py"))) for d in PACKAGES.values())
    checked = re.search(r"Success: no issues found in (\d+) source files", report)
    assert checked is not None, report
    assert int(checked.group(1)) >= modules, report
