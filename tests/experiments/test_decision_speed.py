"""experiments/benchmark/decision_speed.py: the bots' time per decision, its file, and its flags
checked before any position is played."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import run_script


def _run(*args: str) -> subprocess.CompletedProcess:
    return run_script("benchmark.decision_speed", *args)


def test_times_each_bot_at_each_count_and_records_them(tmp_path: Path) -> None:
    proc = _run("--players", "2,4", "--positions", "3", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "decision_speed.json").read_text())
    assert [(r["bot"], r["players"]) for r in doc["rows"]] == [
        ("search", 2), ("champion", 2), ("search", 4), ("champion", 4),
    ]  # fmt: skip
    for r in doc["rows"]:
        assert r["positions"] == 3
        assert 0 < r["median_ms"] <= r["p90_ms"] and r["mean_ms"] > 0 and r["cpu_mean_ms"] > 0
    assert doc["limit_ms"] == 20.0 and len(doc["load_average_before"]) == 3
    assert doc["provenance"]["seeds"] == {"seed": 0}

    from experiments.reproduce.ratios import decision_speed_ratios

    ratios = decision_speed_ratios("decision_speed", tmp_path / "decision_speed.json")
    assert sorted(ratios) == [
        "champion / search CPU ms per decision, 2p",
        "champion / search CPU ms per decision, 4p",
    ]


def test_bad_flags_are_refused(tmp_path: Path) -> None:
    for argv, message in [
        (["--positions", "0"], "--positions must be positive"),
        (["--bots", "search,oracle"], "--bots: unknown ['oracle']"),
        (["--players", "2,six"], "--players must list player counts of 2-5"),
        (["--players", "7"], "--players must list player counts of 2-5"),
    ]:
        proc = _run(*argv, "--out", str(tmp_path))
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
