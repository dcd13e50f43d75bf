"""A tournament stopped at a random moment, by Ctrl-C (SIGINT to the whole process
group, as a terminal sends it), ``kill`` (SIGTERM) or SIGKILL: no process of it is left,
no output file that looks complete is left half-written, and the next run into the same
``--out`` works. Ctrl-C and SIGTERM are one line and exit status 130 / 143. The signal
comes once the worker processes run (before that, while Python loads the modules, the
interpreter's own handling applies: docs/SECURITY.md)."""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ctrl_c_as_at_a_terminal

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["tournament", "--players", "2", "--agents", "random,builder", "--games", "4000",
         "--batch-size", "100", "--workers", "2", "--no-progress", "--no-plot"]  # fmt: skip
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGKILL: -signal.SIGKILL}


def _start(out: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "mamma_mia_agents", *FLAGS, "--out", str(out)]
    return subprocess.Popen(cmd, env=env, cwd=out.parent, text=True, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=ctrl_c_as_at_a_terminal)  # fmt: skip


def _live_in_group(pgid: int) -> list[str]:
    """The processes of process group ``pgid`` still running (zombies excluded: they
    are only waiting for init to reap them)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(f"{stat.parent.name} {text[: text.rfind(')') + 1]}")
    return live


def _check_outputs(out: Path, complete: bool) -> None:
    """Every visible file in ``out`` is whole: the CSV parses with its rows, the JSON
    documents parse. A SIGKILL during a write may leave only a hidden ``.name.*.tmp``
    temporary file, which no reader takes for a result."""
    if not out.exists():
        assert not complete
        return
    names = sorted(p.name for p in out.iterdir())
    visible = [n for n in names if not n.startswith(".")]
    assert all(n.endswith(".tmp") for n in names if n.startswith(".")), names
    for name in visible:
        text = (out / name).read_text()
        if name.endswith(".json"):
            json.loads(text)
        else:
            rows = list(csv.reader(text.splitlines()))
            assert len(rows) == 3 and rows[0][0], rows  # a header and one row per agent
    if complete:
        assert {"tournament.csv", "tournament.json"} <= set(visible), names


def _wait_gone(pgid: int, seconds: float = 3.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (live := _live_in_group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return live


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_tournament_leaves_nothing_behind(tmp_path):
    rnd = random.Random(20261127)
    out = tmp_path / "runs"
    # warm up once (compiles or loads the kernels), and note how long a whole run takes
    t0 = time.monotonic()
    proc = _start(out)
    _, err = proc.communicate(timeout=600)
    whole = time.monotonic() - t0
    assert proc.returncode == 0, err
    signals = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL] * 2
    rnd.shuffle(signals)
    stopped = 0
    for sig in signals:
        proc = _start(out)
        started = time.monotonic()
        while len(_live_in_group(proc.pid)) < 3 and proc.poll() is None:  # workers up
            time.sleep(0.05)
        time.sleep(rnd.uniform(0.0, max(0.2, 0.8 * whole - (time.monotonic() - started))))
        if sig == signal.SIGINT:  # a terminal sends Ctrl-C to the whole group
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert not _wait_gone(proc.pid), (sig, _live_in_group(proc.pid))
        if proc.returncode != 0:  # 0: it finished before the signal came
            stopped += 1
            assert proc.returncode == CODES[sig], (sig, proc.returncode, err)
            assert "Traceback" not in err, err
            if sig != signal.SIGKILL:
                assert err.strip().splitlines()[-1].startswith("mamma-mia: "), err
        _check_outputs(out, complete=True)  # the warm-up's files: replaced whole or kept
    assert stopped >= 3, f"only {stopped} of {len(signals)} runs were stopped mid-way"
    proc = _start(out)  # the next run into the same --out
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "Traceback" not in err, err
    _check_outputs(out, complete=True)
    assert not _wait_gone(proc.pid, 5.0)
