"""The package as users get it: an sdist and a wheel built from the tracked files, the
wheel installed into a fresh venv, and the demo and the CLI run from there.

The fresh venv borrows the test interpreter's dependencies (numpy, numba, ...) through a
path entry, so nothing is downloaded; the package itself comes only from the wheel.
Building and the first numba compile of the installed copy take about a minute.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

import mamma_mia_env

ROOT = Path(__file__).resolve().parent.parent


def tracked_copy(dest: Path) -> Path:
    """The repository's tracked files (what a clone has) copied to ``dest``."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        src = ROOT / name.decode()
        if src.is_file():  # a file deleted in the work tree is not copied
            (dest / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name.decode())
    return dest


def build(src: Path, out: Path, kind: str) -> Path:
    """Run setuptools' PEP 517 hook (no isolation: nothing to download)."""
    code = f"import sys; from setuptools import build_meta as b;print(b.build_{kind}(sys.argv[1]))"
    res = subprocess.run(
        [sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return out / res.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    src = tracked_copy(tmp_path_factory.mktemp("src"))
    out = tmp_path_factory.mktemp("dist")
    return build(src, out, "sdist"), build(src, out, "wheel")


def test_version_is_single_sourced():
    assert mamma_mia_env.__version__ == importlib.metadata.version("mamma-mia-env")


def test_wheel_contents(dists):
    _, wheel = dists
    names = zipfile.ZipFile(wheel).namelist()
    assert "mamma_mia_env/py.typed" in names
    assert "mamma_mia_env/__main__.py" in names
    assert "mamma_mia_agents/policies/ppo_2p.npz" in names
    assert "mamma_mia_agents/policies/ppo_4p.npz" in names
    # no generic top-level `agents` module in users' site-packages
    assert not any(n.startswith("agents/") for n in names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith("/LICENSE") for n in names)
    assert not any(n.startswith(("tests/", "experiments/", "docs/")) for n in names)
    version = mamma_mia_env.__version__
    assert wheel.name.startswith(f"mamma_mia_env-{version}-")


def test_sdist_ships_what_its_tests_import(dists):
    sdist, _ = dists
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in (
        "LICENSE",
        "README.md",
        "pyproject.toml",
        "mamma_mia_env/py.typed",
        "tests/support/oracle.py",
        "tests/support/helpers.py",
        "experiments/train_ppo.py",
        "experiments/configs/ppo_2p.json",
        "agents/policies/ppo_2p.npz",
    ):
        assert needed in names, needed
    # every module a test imports from experiments/ or tests/ is in the sdist
    tests = [
        n for n in names if n.startswith("tests/") and n.rsplit("/", 1)[-1].startswith("test_")
    ]
    for test in (n for n in tests if n.endswith(".py")):
        text = (ROOT / test).read_text() if (ROOT / test).exists() else ""
        for line in text.splitlines():
            for pkg in ("experiments", "tests"):
                if line.strip().startswith(f"from {pkg}.") or line.strip().startswith(
                    f"from {pkg} import"
                ):
                    mod = line.split()[1]
                    if mod == pkg:  # from experiments import x
                        mod = f"{pkg}.{line.split()[3].rstrip(',')}"
                    path = mod.replace(".", "/")
                    shipped = f"{path}.py" in names or f"{path}/__init__.py" in names
                    assert shipped, f"{test} imports {mod}, missing from the sdist"
    assert not any("__pycache__" in n or n.startswith(".venv") for n in names)


def test_wheel_installs_and_runs_in_a_fresh_venv(dists, tmp_path):
    _, wheel = dists
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    pip = [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q"]
    # outside the repository and without PYTHONPATH: nothing but the wheel provides it
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([*pip, str(wheel)], check=True, capture_output=True, cwd=tmp_path, env=env)
    # then the dependencies, from the test interpreter: a plain path entry (after the
    # install, so pip does not take the editable copy there for this one), which does
    # not load that copy's .pth hook
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run = {"cwd": tmp_path, "env": env, "capture_output": True, "text": True, "timeout": 300}
    where = subprocess.run(
        [
            str(py),
            "-c",
            "import mamma_mia_env as m, mamma_mia_agents; print(m.__file__, m.__version__)",
        ],
        **run,
    )
    assert where.returncode == 0, where.stderr
    path, version = where.stdout.split()
    assert path.startswith(str(site)) and version == mamma_mia_env.__version__
    demo = subprocess.run([str(py), "-m", "mamma_mia_env", "--players", "2", "--seed", "3"], **run)
    assert demo.returncode == 0, demo.stderr
    assert f"mamma-mia-env {version}" in demo.stdout and "game over after" in demo.stdout
    cli = subprocess.run([str(venv / "bin" / "mamma-mia"), "--help"], **run)
    assert cli.returncode == 0 and "tournament" in cli.stdout, cli.stderr
    if shutil.which("mypy", path=str(Path(sys.executable).parent)):  # py.typed is honoured
        user = tmp_path / "user.py"
        user.write_text("import mamma_mia_env\nv: int = mamma_mia_env.__version__\n")
        res = subprocess.run(
            [str(Path(sys.executable).parent / "mypy"), "--python-executable", str(py), str(user)],
            **run,
        )
        assert "import-untyped" not in res.stdout, res.stdout
        assert "Incompatible types in assignment" in res.stdout, res.stdout


def test_ci_runs_the_readme_test_command() -> None:
    """README's test command is what CI runs, word for word (the project's promise)."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("**Set up and run the tests:**", 1)[1].split("```bash\n", 1)[1]
    command = block.split("\n```", 1)[0].strip()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci, command


def test_no_merge_conflict_markers_in_tracked_files() -> None:
    """A merge left a conflict marker in docs/ENV.md once; text files must hold none."""
    files = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.toml", "*.json", "*.cfg", "*.in", ".ci/run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    if not files:
        pytest.skip("not a git checkout")
    bad = []
    for name in files:
        path = ROOT / name
        if not path.is_file():
            continue
        for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if line.startswith(("<<<<<<< ", ">>>>>>> ")) or line == "=======":
                bad.append(f"{name}:{i}")
    assert not bad, bad
