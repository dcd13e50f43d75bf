"""mamma_mia_env/plumbing/provenance.py: a result's stamp says whether the code that made it
differs from its commit, wherever in the checkout the change is."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mamma_mia_env.plumbing.provenance import git_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
                   cwd=root, check=True, capture_output=True)  # fmt: skip


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    for path in ("mamma_mia_env/game.py", "agents/bot.py", "experiments/results/r.json"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x = 1\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "start")
    return tmp_path


def test_a_clean_checkout_is_not_dirty(checkout: Path) -> None:
    assert git_state(checkout / "mamma_mia_env")["dirty"] is False


def test_a_change_outside_the_package_folder_is_dirty(checkout: Path) -> None:
    # the stamp is asked from inside the package; a bot or a script changed elsewhere counts
    (checkout / "agents" / "bot.py").write_text("x = 2\n")
    assert git_state(checkout / "mamma_mia_env")["dirty"] is True


def test_rewritten_result_files_are_not_a_change_of_code(checkout: Path) -> None:
    (checkout / "experiments" / "results" / "r.json").write_text("{}\n")
    assert git_state(checkout / "mamma_mia_env")["dirty"] is False
    assert git_state(checkout)["dirty"] is False
