"""The A/B speed harness (experiments/benchmark/ab.py): an A/A run, the same checkout on
both sides, writes one record with both sides' rates, ratios and provenance."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ab(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "experiments.benchmark.ab", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_an_a_a_run_times_the_engine_and_the_bots_on_both_sides(tmp_path: Path) -> None:
    res = _ab("--base", str(ROOT), "--comparison", "engine,bots", "--rounds", "2",
              "--seconds", "0.02", "--new-env", "OMP_WAIT_POLICY=PASSIVE",
              "--name", "aa", "--out", str(tmp_path))  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads((tmp_path / "aa.json").read_text())
    assert list(doc["comparisons"]) == ["engine", "bots"]
    for r in doc["comparisons"].values():
        assert r["base_median_per_second"] > 0 and r["new_median_per_second"] > 0
        assert len(r["ratios"]) == 2 and all(x > 0 for x in r["ratios"])
        low, mid, high = r["ratio_quartiles"]
        assert low <= mid <= high and r["median_ratio_new_over_base"] == mid
    sides = doc["sides"]
    assert sides["base"]["git"]["revision"] == sides["new"]["git"]["revision"]
    assert sides["base"]["env"] == {} and sides["new"]["env"] == {"OMP_WAIT_POLICY": "PASSIVE"}
    assert doc["rounds"] == 2 and len(doc["load_average_before"]) == 3
    assert doc["provenance"]["git"]["revision"]


def test_the_layouts_are_timed_against_each_other(tmp_path: Path) -> None:
    """The fixed layout against top_card (the layout_speed record timed fixed against the
    retired recall)."""
    res = _ab("--base", str(ROOT), "--comparison", "counts_engine_256", "--rounds", "1",
              "--seconds", "0.02", "--base-env", "MAMMA_MIA_AB_LAYOUT=top_card",
              "--base-env", "MAMMA_MIA_AB_PLAYERS=5", "--new-env", "MAMMA_MIA_AB_PLAYERS=5",
              "--name", "layouts", "--out", str(tmp_path))  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    doc = json.loads((tmp_path / "layouts.json").read_text())
    r = doc["comparisons"]["counts_engine_256"]
    assert r["base_median_per_second"] > 0 and r["new_median_per_second"] > 0
    assert doc["sides"]["base"]["env"] == {"MAMMA_MIA_AB_LAYOUT": "top_card",
                                           "MAMMA_MIA_AB_PLAYERS": "5"}  # fmt: skip


def test_bad_flags_are_refused_before_any_worker_starts(tmp_path: Path) -> None:
    for flags, word in (
        (["--base", str(tmp_path)], "not a checkout"),
        (["--base", str(ROOT), "--comparison", "engine,nosuch"], "--comparison"),
        (["--base", str(ROOT), "--rounds", "0"], "--rounds"),
        (["--base", str(ROOT), "--base-env", "=x"], "NAME=VALUE"),
        (["--base", str(ROOT), "--base-env", "MAMMA_MIA_AB_LAYOUT=recall"], "fixed, top_card"),
        (["--base", str(ROOT), "--new-env", "MAMMA_MIA_AB_PLAYERS=6"], "2, 3, 4, 5, mixed"),
    ):
        res = _ab(*flags, "--out", str(tmp_path / "out"), timeout=120)
        assert res.returncode == 2 and word in res.stderr, (flags, res.stderr[-500:])
        assert "Traceback" not in res.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
