"""Running the experiments: each script in a subprocess, writing into a run directory,
its output logged to ``runs/reproduce/logs/<experiment>.log``.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from experiments.reproduce.entries import ROOT, Experiment
from mamma_mia_interrupts import die_with_parent


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:  # not on every platform
        return 0.0


@dataclass
class Outcome:
    exp: Experiment
    seconds: float
    files: list[str]
    returncode: int
    problems: list[str]
    skipped: str = ""


def run_one(exp: Experiment, mode: str, out: Path, extra: list[str]) -> Outcome:
    args = exp.args(mode)
    assert args is not None
    files = exp.deterministic(mode) + exp.timing(mode) + exp.other(mode)
    missing = [m for m in exp.requires if importlib.util.find_spec(m) is None]
    if missing:
        return Outcome(exp, 0.0, files, 0, [], skipped=f"needs {', '.join(missing)}")
    out.mkdir(parents=True, exist_ok=True)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out  # cwd is ROOT
    cmd = [sys.executable, *shlex.split(exp.script), *args, *extra]
    cmd += ["--out", str(exp.out_path(shown))]
    env = {  # the scripts run as modules of this checkout
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    t0 = time.perf_counter()
    logs = ROOT / "runs" / "reproduce" / "logs"  # never beside exported results
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{exp.name}.log"
    partial = log.with_suffix(".log.partial")  # streamed, then renamed over the last log
    with open(partial, "w") as fh:
        fh.write("$ " + " ".join(cmd) + "\n")
        fh.flush()
        parent = os.getpid()  # a killed runner leaves no experiment running
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                              preexec_fn=lambda: die_with_parent(parent))  # fmt: skip
    os.replace(partial, log)
    seconds = time.perf_counter() - t0
    problems = [] if proc.returncode == 0 else [f"exit code {proc.returncode}, see {log}"]
    return Outcome(exp, seconds, files, proc.returncode, problems)


def run_all(
    chosen: list[Experiment], mode: str, out: Path, export: bool
) -> tuple[list[Outcome], list[float]]:
    """Run ``chosen`` in order into ``out`` (a training run into a directory of its own);
    returns their outcomes and the load averages before, between and after them."""
    from tqdm.auto import tqdm

    outcomes = []
    loads = [_load()]
    bar = tqdm(chosen, desc=f"reproduce --{mode}", unit="experiment")
    for exp in bar:
        bar.set_postfix_str(exp.name)
        # training runs write a whole run directory; keep them apart
        dst = out / exp.name if exp.train else out / exp.folder
        if exp.train and export:
            dst = ROOT / "runs" / exp.name
        # a training run's own --export copies its policy and results into the repository
        extra = ["--export"] if exp.train and export else []
        outcomes.append(run_one(exp, mode, dst, extra))
        loads.append(_load())
    return outcomes, loads


def check(outcomes: list[Outcome], mode: str, out: Path, ref_dir: Path, timing: bool) -> None:
    """Add to each finished outcome's ``problems`` how its files differ from the
    committed ones in ``ref_dir`` (timings only with ``timing``, and only in full mode:
    quick-mode timings are too short to mean anything)."""
    from experiments.reproduce.comparison import compare_file, compare_timing

    for o in outcomes:
        dst = out / o.exp.name if o.exp.train else out / o.exp.folder
        if o.returncode != 0 or o.skipped:
            continue
        for f in o.exp.deterministic(mode):
            o.problems += compare_file(dst / f, o.exp.reference(f, ref_dir))
        if mode == "full" and timing:
            for f in o.exp.timing(mode):
                o.problems += compare_timing(o.exp, f, dst / f, ref_dir / o.exp.folder / f)
