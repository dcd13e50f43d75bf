"""The A/B of the CleanRL-style PPO's update settings (experiments/train/cleanrl_defaults.py):
both settings train from the same seeds and the file records what each learnt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_ab_trains_both_settings_and_writes_its_record(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "experiments.train.cleanrl_defaults", "--seeds", "1",
           "--total-timesteps", "4096", "--eval-games", "16", "--out", str(tmp_path)]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads((tmp_path / "update.json").read_text())
    settings = doc["settings"]
    assert [(s["update_epochs"], s["learning_rate"]) for s in settings.values()] == [
        (4, 2.5e-4),
        (1, 1e-3),
    ]
    for s in settings.values():
        (run,) = s["runs"]
        assert run["seed"] == 1 and run["env_steps"] == 4096
        assert 0.0 <= run["win"] <= 1.0 and run["delivered"] > 0
        assert 0.0 < run["overall_over_env_only"] <= 1.0
        assert s["summary"]["win_mean"] == run["win"]
    assert doc["provenance"]["git"]["revision"]
    assert (tmp_path / "update.png").stat().st_size > 0


def test_bad_flags_are_refused_before_any_run(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "experiments.train.cleanrl_defaults", "--seeds", "0",
           "--out", str(tmp_path)]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 2 and "--seeds" in res.stderr and "Traceback" not in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_warm_start_study_trains_the_preset_with_and_without_it() -> None:
    """The warm-start A/B runs the ten-minute preset without its wall budget (equal env
    steps: win rates repeatable from the seeds), its settings differ only by the warm
    start, and its default length is the preset's."""
    from experiments.train import cleanrl_defaults as ab
    from experiments.train import cleanrl_ppo

    args, _ = ab.parse_args(["--study", "warm-start"])
    study = ab.STUDIES["warm-start"]
    preset = cleanrl_ppo.PRESETS["ten-minutes"]
    assert args.total_timesteps == study.total_timesteps == preset["total_timesteps"]
    assert study.shape[:2] == ["--preset", "ten-minutes"] and "--wall-minutes" in study.shape
    flags = [f for _, f, _ in study.settings]
    assert flags == [["--warm-start-games", "0"],
                     ["--warm-start-games", str(preset["warm_start_games"])]]  # fmt: skip
    assert ab.parse_args([])[0].total_timesteps == 300_000  # the update study's default
