"""experiments/train/tune_champion.py: the champion's tuning on a tiny grid, its files, and its
flags checked before any game."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, run_script

from mamma_mia_agents.bots.champion import ChampionAgent, read_settings


def _run(*args: str) -> subprocess.CompletedProcess:
    return run_script("train.tune_champion", *args)


def test_a_tiny_tuning_writes_its_files_and_a_champion(tmp_path: Path) -> None:
    grid = ["--grid", "2x2,3x2", "--priors", "none,ppo", "--games", "4", "--positions", "2"]
    shipped = ROOT / "agents" / "policies" / "champion_2p.json"
    before = shipped.read_bytes()
    proc = _run(
        "--players", "2", *grid, "--workers", "1", "--max-ms", "1000", "--out", str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "tuning.json").read_text())
    assert [r["label"] for r in doc["rows"]] == ["2x2", "2x2+ppo", "3x2", "3x2+ppo"]
    for r in doc["rows"]:
        assert r["games"] == 4 and r["ci_low"] <= r["win_rate"] <= r["ci_high"]
        assert r["cpu_mean_ms"] > 0 and r["positions"] == 2
    best = max(doc["rows"], key=lambda r: (r["win_rate"], -r["cpu_mean_ms"]))
    assert doc["champion"] == best["label"] and doc["provenance"]["seeds"] == {"seed": 23}
    settings = read_settings(tmp_path / "champion.json")
    assert settings["num_players"] == 2 and settings["worlds"] == best["settings"]["worlds"]
    assert ChampionAgent(tmp_path / "champion.json").search(2).worlds == settings["worlds"]
    assert (tmp_path / "tuning.png").stat().st_size > 0
    assert shipped.read_bytes() == before  # no --export: the shipped settings untouched


def test_no_setting_within_the_limit_is_an_error_message(tmp_path: Path) -> None:
    grid = ["--grid", "2x2", "--priors", "none", "--games", "2", "--positions", "1"]
    proc = _run(*grid, "--workers", "1", "--max-ms", "0.000001", "--out", str(tmp_path))
    assert proc.returncode == 1 and "no setting within" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--grid", "64"], "--grid entries are WORLDSxCANDIDATES"),
        (["--grid", "0x3"], "--grid entries are WORLDSxCANDIDATES"),
        (["--priors", "net"], "--priors are none or ppo, got 'net'"),
        (["--priors", "ppo.npz"], "--priors are none or ppo"),
        (["--players", "6"], "--players must be 2-5"),
        (["--games", "0"], "--games must be positive"),
        (["--max-ms", "nan"], "--max-ms"),
    ],
)
def test_bad_flags_are_refused_before_any_game(args: list[str], needle: str) -> None:
    proc = _run(*args)
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr


def test_the_prior_is_tuned_as_the_champion_plays_it() -> None:
    """``--priors none,ppo``: the setting keeps the name, its label says it has the
    prior, and the search bot gets the shipped network as the champion would."""
    from experiments.train import tune_champion

    args, _ = tune_champion.parse_args(["--grid", "8x2", "--priors", "none,ppo"])
    plain, guided = tune_champion.settings(args)
    assert plain["prior"] is None and guided["prior"] == "ppo"
    assert [tune_champion.label(s) for s in (plain, guided)] == ["8x2", "8x2+ppo"]
    bot = tune_champion.search_bot(guided)
    assert bot.prior is not None and bot.prior.policy(2).source.endswith("ppo.npz")
