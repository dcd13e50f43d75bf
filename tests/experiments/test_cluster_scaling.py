"""experiments/benchmark/cluster_scaling.py on a tiny job: a one-node test cluster on
loopback, every row measured, the Ray results checked identical to the local ones,
the file written with its provenance; bad flags refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_script

pytest.importorskip("ray")

TINY = ["--nodes", "1", "--games", "40", "--batch", "20", "--label-games", "2",
        "--label-batch", "1", "--empty", "4"]  # fmt: skip


def test_a_tiny_run_writes_every_row(tmp_path: Path) -> None:
    out = tmp_path / "scaling.json"
    run = run_script("benchmark.cluster_scaling", *TINY, "--out", str(out), timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["identical_to_local"] is True
    backends = [r["backend"] for r in doc["rows"]]
    assert backends == ["local, in this process", "local pool, 2 processes",
                        "Ray test cluster, 1 node(s)"]  # fmt: skip
    for row in doc["rows"]:
        assert row["games"] == 40 and row["tournament_items"] == 2 and row["label_items"] == 2
        assert row["games_per_second"] > 0 and row["positions_per_second"] > 0
    assert doc["rows"][-1]["nodes_used"] == 1
    assert doc["provenance"]["git"]["revision"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["--nodes", "1,x"], "--nodes is a list"), (["--games", "0"], "at least 1")],
)
def test_bad_flags_are_refused(args: list[str], needle: str) -> None:
    run = run_script("benchmark.cluster_scaling", *args)
    assert run.returncode == 2 and needle in run.stderr, run.stderr
