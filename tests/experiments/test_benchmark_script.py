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


def test_layout_speed_measures_both_layouts_in_one_run(tmp_path: Path) -> None:
    import json

    from experiments.benchmark import layout_speed
    from experiments.docs.layout import layout_speed_block
    from mamma_mia_env.game.observe import observation_size

    assert layout_speed.main(["--quick", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "layout_speed.json").read_text())
    rows = doc["rows"]
    assert {(r["env"], r["batch"]) for r in rows} == {
        (kind, b) for kind in ("vector", "learner") for b in (8, 256)
    }
    for r in rows:
        n, rc, fx = r["players"], r["recall"], r["fixed"]
        assert (rc["obs_dtype"], rc["obs_bytes"]) == ("float32", 4 * observation_size(n, "recall"))
        assert (fx["obs_dtype"], fx["obs_bytes"]) == ("uint8", observation_size(n, "fixed"))
        assert fx["step_bytes"] - fx["obs_bytes"] == rc["step_bytes"] - rc["obs_bytes"] > 0
        assert r["obs_bytes_fixed_over_recall"] == round(fx["obs_bytes"] / rc["obs_bytes"], 4)
        ratios = r["fixed_over_recall"]
        assert len(ratios["each"]) == doc["settings"]["rounds"] and ratios["median"] > 0
        for side in (rc, fx):
            assert side["turns_per_s"] > 0
            if r["env"] == "vector":  # the write bound is timed beside the vector env only
                # (no order of the two speeds is asserted: a loaded machine can stall a slice)
                assert side["write_bound_turns_per_s"] > 0
                fraction = side["fraction_of_write_bound"]
                assert len(fraction["each"]) == doc["settings"]["rounds"]
                assert fraction["quartiles"][0] <= fraction["median"] <= fraction["quartiles"][1]
            else:
                assert "write_bound_turns_per_s" not in side
    text = layout_speed_block(doc)
    assert "462 B (uint8)" in text and "of the write bound" in text


@pytest.mark.parametrize("flag", [["--players", "6"], ["--envs", "aec"], ["--seconds", "0"]])
def test_layout_speed_refuses_bad_flags(flag: list[str], tmp_path: Path) -> None:
    from experiments.benchmark import layout_speed

    with pytest.raises(SystemExit) as stop:
        layout_speed.main([*flag, "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert not any(tmp_path.iterdir())  # refused before measuring or writing

