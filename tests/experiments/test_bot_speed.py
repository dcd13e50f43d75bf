"""experiments/benchmark/bot_speed.py: a small run (fewer games than its 64-game warm-up)
finishes and writes its record with every part in the order the docs quote it, and the
docs block (AGENTS.md's bot_speed) renders it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_script


def test_a_small_run_writes_its_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc = run_script(
        "benchmark.bot_speed", "--batch", "4", "--steps", "5", "--rounds", "1", "--games", "8",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "bot_speed.json").read_text())
    assert list(doc) == [
        "experiment", "load_average_before", "vector_env", "games", "step_profile_cpu",
        "load_average_after", "provenance",
    ]  # fmt: skip
    assert doc["games"]["games"] == 8 and doc["games"]["tournament_games"] == 8
    assert doc["vector_env"]["batch"] == 4
    assert set(doc["step_profile_cpu"]) >= {"observe_us", "legal_mask_us", "builder_decision_us"}

    from experiments.docs import bots

    monkeypatch.setattr(bots, "result", lambda name: doc)  # the block reads this run
    block = bots.bot_speed_table()
    assert "numpy" not in block and "| the same games through `run_tournament`" in block
