"""The benchmark script runs end to end (a tiny run; the real numbers are in docs)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from experiments.benchmark import benchmark


def test_quick_benchmark_writes_its_table(tmp_path: Path) -> None:
    assert benchmark.main(["--quick", "--out", str(tmp_path), "--no-plot"]) == 0
    with open(tmp_path / "benchmark.csv") as fh:
        rows = list(csv.DictReader(fh))
    names = {r["env"] for r in rows}
    assert "connect_four_v3 env() (AEC)" in names
    assert all(float(r["turns_per_s"]) > 0 for r in rows)
    assert "memory per game" in (tmp_path / "benchmark.txt").read_text()


def test_without_pygame_the_benchmark_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pygame" else find_spec(name, *a),
    )
    with pytest.raises(SystemExit) as stop:
        benchmark.main(["--quick", "--out", str(tmp_path), "--no-plot"])
    assert stop.value.code == 2 and "pip install pygame-ce" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # refused before measuring or writing
