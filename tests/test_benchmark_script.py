"""The benchmark script runs end to end (a tiny run; the real numbers are in docs)."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import benchmark  # noqa: E402


def test_quick_benchmark_writes_its_table(tmp_path: Path) -> None:
    assert benchmark.main(["--quick", "--out", str(tmp_path), "--no-plot"]) == 0
    with open(tmp_path / "benchmark.csv") as fh:
        rows = list(csv.DictReader(fh))
    names = {r["env"] for r in rows}
    assert "connect_four_v3 env() (AEC)" in names
    assert all(float(r["turns_per_s"]) > 0 for r in rows)
    assert "memory per game" in (tmp_path / "benchmark.txt").read_text()
