"""Both packages type-check clean: mypy on ``mamma_mia_env`` and ``mamma_mia_agents``.

The folder agents/ installs as ``mamma_mia_agents`` through setuptools' ``package-dir``;
mypy cannot map the folder to that name and does not follow setuptools' editable finder,
so ``mypy`` alone (``files`` in pyproject.toml) checks ``mamma_mia_env`` only. This test
puts a link named ``mamma_mia_agents`` to agents/ in a temporary folder on mypy's search
path (``MYPYPATH``) and runs mypy on both packages from the repository root, with the
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
PACKAGES = {"mamma_mia_env": ROOT / "mamma_mia_env", "mamma_mia_agents": ROOT / "agents"}


def test_both_packages_type_check_clean(tmp_path: Path) -> None:
    link = tmp_path / "mamma_mia_agents"
    link.symlink_to(PACKAGES["mamma_mia_agents"], target_is_directory=True)
    args = [arg for name in PACKAGES for arg in ("-p", name)]
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
    # every module of both packages was checked, none missed through the link (mypy
    # also counts a folder of data files, agents/policies/ say, as a namespace package)
    modules = sum(len(list(folder.rglob("*.py"))) for folder in PACKAGES.values())
    checked = re.search(r"Success: no issues found in (\d+) source files", report)
    assert checked is not None, report
    assert int(checked.group(1)) >= modules, report
