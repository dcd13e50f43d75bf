"""The reproduction: provenance, the comparison, determinism across worker counts, and
that the quick reproduction matches its committed references without touching tracked
files (run in a temporary clone, never in the working tree)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from experiments import reproduce
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env.provenance import provenance, write_sidecar

ROOT = Path(__file__).resolve().parents[1]
# a training run of seconds with the shipped 2-player config (its export paths included)
SMOKE = [
    "bc.games=40",
    "bc.epochs=1",
    "bc.batch_size=256",
    "env.n_envs=32",
    "ppo.total_timesteps=2048",
    "ppo.n_steps=32",
    "ppo.batch_size=512",
    "ppo.n_epochs=1",
    "ppo.net_arch=[64, 64]",
    "eval.every=1024",
    "eval.games=8",
    'eval.bots=["counter"]',
    "eval.target=counter",
    "eval.final_games=8",
    'eval.final_bots=["counter"]',
]


def test_provenance_record(tmp_path):
    rec = provenance(seeds=[1, 2], wall_time=1.23456, command="x y")
    assert rec["seeds"] == [1, 2] and rec["wall_time_s"] == 1.235 and rec["command"] == "x y"
    assert rec["packages"]["numpy"] and rec["packages"]["numba"]
    assert rec["machine"]["cores"] == os.cpu_count() and rec["python"]
    assert rec["git"]["revision"] is None or len(rec["git"]["revision"]) == 40
    assert rec["utc"].endswith("+00:00")
    side = write_sidecar(tmp_path / "a.csv", rec)
    assert json.loads(Path(side).read_text())["provenance"]["seeds"] == [1, 2]


def test_tournament_files_carry_provenance(tmp_path):
    res = run_tournament(["random", "builder"], num_players=2, games=20, seed=3, progress=False)
    res.write(tmp_path, "t", plot=False)
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["provenance"]["seeds"] == 3
    assert (tmp_path / "t.csv.meta.json").exists()


def test_games_do_not_depend_on_the_number_of_workers():
    """The committed leaderboard differed from a re-run because the random agent's
    generators were per batch and the batches depended on the worker count."""
    kw = dict(num_players=2, games=60, seed=0, progress=False, batch_size=20)
    one = run_tournament(["random", "builder"], workers=1, **kw)
    three = run_tournament(["random", "builder"], workers=3, **kw)
    assert (one.turns == three.turns).all()
    assert one.table == three.table


def test_compare_ignores_provenance_and_reports_differences(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"x": 1, "elapsed_seconds": 3, "provenance": {"utc": "1"}}))
    b.write_text(json.dumps({"x": 1, "elapsed_seconds": 4, "provenance": {"utc": "2"}}))
    assert reproduce.compare_file(a, b) == []
    b.write_text(json.dumps({"x": 2}))
    assert reproduce.compare_file(a, b) == ["a.json: /x: 1 (new) vs 2 (committed)"]
    assert "no committed reference" in reproduce.compare_file(a, tmp_path / "c.json")[0]


def test_every_experiment_is_well_formed():
    names = [e.name for e in reproduce.EXPERIMENTS]
    assert len(names) == len(set(names))
    for e in reproduce.EXPERIMENTS:
        assert (ROOT / e.script).exists(), e.script
        if e.args("quick") is not None and not e.train:
            for f in e.deterministic("quick"):
                assert (reproduce.QUICK_RESULTS / f).exists(), f"no quick reference {f}"
        if not e.train:
            for f in e.deterministic("full") + e.timing("full"):
                assert (reproduce.RESULTS / f).exists(), f"no committed result {f}"


def _clone(tmp_path: Path) -> Path:
    """The working tree's current files in a fresh git repository (committed, clean)."""
    dst = tmp_path / "repo"
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for f in files:
        src = ROOT / f
        if src.is_file():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / f)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=dst, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dst, check=True)
    subprocess.run([*git, "commit", "-qm", "snapshot"], cwd=dst, check=True)
    return dst


def test_quick_reproduction_matches_and_leaves_the_tree_clean(tmp_path):
    repo = _clone(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(repo)}
    run = subprocess.run(
        [sys.executable, "-m", "experiments", "reproduce", "--quick", "--check"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "deterministic files match exactly" in run.stdout
    smoke = subprocess.run(
        [
            sys.executable,
            "experiments/train_ppo.py",
            "--config",
            "experiments/configs/ppo_2p.json",
            "--no-progress",
            *[a for kv in SMOKE for a in ("--set", kv)],
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert smoke.returncode == 0, smoke.stdout[-4000:] + smoke.stderr[-4000:]
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    assert status == "", status


def test_docs_blocks_match_the_result_files():
    from experiments import docs

    for path in docs.DOCS:
        text = path.read_text()
        assert docs.render(text) == text, f"{path}: run `python -m experiments docs`"


def test_numbers_quoted_in_the_docs_match_the_result_files():
    """Numbers outside the generated blocks, each against its result file."""
    results = ROOT / "experiments" / "results"
    speed = json.loads((results / "speed.json").read_text())
    seconds = f"{speed['seconds']:.1f} s"
    for doc in ("docs/AGENTS.md", "docs/PERFORMANCE.md"):
        assert seconds in (ROOT / doc).read_text(), f"{doc} should quote {seconds}"
    training = (ROOT / "docs" / "TRAINING.md").read_text()
    for n, col in ((2, 1), (4, 2)):
        ev = json.loads((results / f"ppo_{n}p_final_eval.json").read_text())
        pct = {k: f"{100 * v['win_rate']:.1f}%" for k, v in ev.items() if k != "provenance"}
        row = next(x for x in training.splitlines() if x.startswith("| vs `counter`"))
        assert row.split("|")[col + 1].strip() == (
            f"{pct['counter']} / {pct['hoarder']} / {pct['forgetful']}"
        ), f"TRAINING.md {n}p row"
        row = next(x for x in training.splitlines() if "**win rate vs `builder`**" in x)
        assert f"**{pct['builder']}**" in row.split("|")[col + 1], f"TRAINING.md {n}p builder"
