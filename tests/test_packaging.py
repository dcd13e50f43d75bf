"""The package as users get it: an sdist and a wheel built from the tracked files, what
they hold (every file the code opens next to its modules, every tracked file of the
package folders; the sdist: the repository minus CI), the wheel installed into a fresh
venv, and the demo and the CLI run from there. (.ci/installed plays every bundled agent
from a wheel installed with its dependencies from the registry; docs/TESTING.md.)

The fresh venv borrows the test interpreter's dependencies (numpy, numba, ...) through a
path entry, so nothing is downloaded; the package itself comes only from the wheel.
Building and the first numba compile of the installed copy take about a minute.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
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
def tracked(tmp_path_factory) -> tuple[Path, set[str]]:
    """A copy of the tracked files, and their names (before a build adds its own)."""
    src = tracked_copy(tmp_path_factory.mktemp("src"))
    return src, files_under(src)


@pytest.fixture(scope="module")
def dists(tracked, tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    return build(tracked[0], out, "sdist"), build(tracked[0], out, "wheel")


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


#: The installed name of each package folder (pyproject.toml's package-dir).
INSTALLED_AS = {"mamma_mia_env": "mamma_mia_env", "agents": "mamma_mia_agents"}
#: The modules that use their own location for something other than package data.
NOT_PACKAGE_DATA = {
    "mamma_mia_env/__main__.py": "prints where the package was imported from",
    "mamma_mia_env/plumbing/jit_cache.py": "hashes the package's own .py files",
    "mamma_mia_env/plumbing/provenance.py": "asks git about the checkout, if there is one",
}


def opened_package_data() -> dict[str, set[str]]:
    """The files each module opens next to itself, as the code names them, in the
    wheel's layout: the policies and champion settings, the serve page, the replay
    page's script and style."""
    import mamma_mia_agents
    from mamma_mia_agents.bots import champion, ppo_agent
    from mamma_mia_agents.cli import web_server

    agents_dir = Path(mamma_mia_agents.__file__).resolve().parent

    def wheel_name(path: Path) -> str:
        return "mamma_mia_agents/" + path.resolve().relative_to(agents_dir).as_posix()

    counts = range(2, 6)
    ppo = {ppo_agent.SHIPPED}
    settings = {champion.default_settings_path(n) for n in counts}
    html = (ROOT / "mamma_mia_env/render/html.py").read_text()
    assets = set(re.findall(r"_asset\('([^']+)'\)", html))
    assert assets, "html.py no longer names its assets as _asset('name')"
    return {
        "agents/bots/ppo_agent.py": {wheel_name(p) for p in ppo if p.exists()},
        "agents/bots/champion.py": {wheel_name(p) for p in settings if p.exists()},
        "agents/cli/web_server.py": {f"mamma_mia_agents/cli/web/{n}" for n in web_server.STATIC},
        "mamma_mia_env/render/html.py": {f"mamma_mia_env/render/{n}" for n in assets},
    }


def test_version_is_single_sourced():
    assert mamma_mia_env.__version__ == importlib.metadata.version("mamma-mia-env")


def test_wheel_contents(dists):
    _, wheel = dists
    names = zipfile.ZipFile(wheel).namelist()
    # no generic top-level `agents` module in users' site-packages
    assert not any(n.startswith("agents/") for n in names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any(n.startswith(("tests/", "experiments/", "docs/")) for n in names)
    version = mamma_mia_env.__version__
    assert wheel.name.startswith(f"mamma_mia_env-{version}-")


def test_every_module_that_opens_files_next_to_itself_is_listed() -> None:
    """A module that finds files through its own location (``__file__``,
    ``importlib.resources``) is either listed in ``opened_package_data`` with the files
    it opens, so the next test checks the wheel holds them, or says why it is not."""
    uses_location = re.compile(r"__file__|importlib\.resources|from importlib import resources")
    found = {
        path.relative_to(ROOT).as_posix()
        for folder in INSTALLED_AS
        for path in (ROOT / folder).rglob("*.py")
        if uses_location.search(path.read_text(encoding="utf-8"))
    }
    assert found == set(opened_package_data()) | set(NOT_PACKAGE_DATA)


def test_the_package_data_the_code_opens_is_in_the_wheel(dists) -> None:
    """The installed package once lacked the champion's settings: the code opened
    ``policies/champion_*.json``, which the wheel's package data did not list."""
    _, wheel = dists
    names = set(zipfile.ZipFile(wheel).namelist())
    opened = opened_package_data()
    assert all(opened.values()), opened  # each module opens something that exists
    opened["PEP 561 (type checkers)"] = {"mamma_mia_env/py.typed"}
    missing = [f"{name} (opened by {who})" for who, files in opened.items()
               for name in sorted(files) if name not in names]  # fmt: skip
    assert not missing, f"not in the wheel: {missing}"


def test_every_file_of_the_package_folders_is_in_the_wheel(tracked, dists) -> None:
    """Modules of a subpackage missing from pyproject.toml's list, data files missing
    from its package data: anything tracked in a package folder is installed."""
    _, wheel = dists
    names = set(zipfile.ZipFile(wheel).namelist())
    _, files = tracked
    expected = {
        installed + name.removeprefix(folder)
        for folder, installed in INSTALLED_AS.items()
        for name in files
        if name.startswith(f"{folder}/")
    }
    assert not sorted(expected - names), f"not in the wheel: {sorted(expected - names)}"


def test_the_sdist_is_the_repository_minus_its_tooling(tracked, dists) -> None:
    """The sdist builds the wheel users get and runs the tests (which import
    experiments/ and tests/ helpers): every tracked file but CI's, nothing else."""
    sdist, _ = dists
    with tarfile.open(sdist) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()}
    expected = {n for n in tracked[1] if not n.startswith((".ci/", ".git"))}
    made = {"PKG-INFO", "setup.cfg"}  # setuptools' metadata, and the egg-info folder
    extra = {n for n in names - expected - made if not n.startswith("mamma_mia_env.egg-info/")}
    assert not sorted(expected - names), f"not in the sdist: {sorted(expected - names)}"
    assert not extra, f"in the sdist but not tracked: {sorted(extra)}"


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
