"""Regenerate every published result with one command, and check it against the committed one.

    PYTHONPATH=. python -m experiments reproduce --quick --check   # ~1-2 min, what CI runs
    PYTHONPATH=. python -m experiments reproduce --full --check    # the published tables
    PYTHONPATH=. python -m experiments reproduce --full --train    # + the two PPO trainings
    PYTHONPATH=. python -m experiments reproduce --full --only benchmark,profile,speed --export

Each experiment runs its script in a subprocess, writing into a run directory
(``runs/reproduce/<mode>/``, git-ignored; ``--out`` elsewhere). Nothing tracked is
written unless ``--export`` is given: then the files go to ``experiments/results/``
(``--full``) or ``experiments/results/quick/`` (``--quick``, the references CI checks).

``--check`` compares the regenerated files with the committed ones:

* deterministic files (tournaments, evaluations, trained policies) must match exactly,
  once the fields that record *how* a result was made are set aside (``provenance``,
  wall times, worker counts, command lines: :data:`IGNORED_KEYS`);
* timings are compared as ratios that do not depend on the machine's absolute speed
  (B=4096 vs B=1 speedup, our AEC env vs connect_four, the profile's shares), each
  within a factor :data:`TIMING_TOLERANCE` of the committed one. Quick-mode timings
  are too short to mean anything and are not compared (only run, so that the scripts
  are exercised).

To add an experiment, append an :class:`Experiment` to :data:`EXPERIMENTS`.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results"
QUICK_RESULTS = RESULTS / "quick"

#: keys that record how a result was made, not what it is; --check ignores them
IGNORED_KEYS = frozenset(
    {
        "provenance",
        "elapsed",
        "elapsed_seconds",
        "seconds",
        "games_per_second",
        "load_average_before",
        "workers",
        "command",
        "summary",
        "machine",
        "python",
        "cores",
        "git",
        "policy",
    }
)
#: a timing ratio passes if regenerated / committed lies in [1/T, T]
TIMING_TOLERANCE = 2.0


@dataclass(frozen=True)
class Experiment:
    """One script of the reproduction.

    ``args(mode)`` gives the script's arguments for ``"quick"`` or ``"full"`` (None: not
    run in that mode); the runner appends ``--out DIR``. ``deterministic`` files must
    match exactly; ``timing`` files are checked by ``ratios`` (a function of a file's
    parsed content returning named machine-independent ratios). ``train``: only with
    ``--train``.
    """

    name: str
    script: str
    args: Callable[[str], list[str] | None]
    deterministic: Callable[[str], list[str]] = lambda mode: []
    timing: Callable[[str], list[str]] = lambda mode: []
    ratios: Callable[[str, Path], dict[str, float]] | None = None
    other: Callable[[str], list[str]] = lambda mode: []
    train: bool = False
    description: str = ""
    extra_outputs: tuple[str, ...] = field(default=())


# -- timing ratios -----------------------------------------------------------------------------
def benchmark_ratios(name: str, path: Path) -> dict[str, float]:
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    speed = {(r["env"], int(r["batch"])): float(r["turns_per_s"]) for r in rows}
    vec = {b: v for (env, b), v in speed.items() if env.startswith("mamma_mia vector")}
    out = {}
    if 1 in vec and 4096 in vec:
        out["vector B=4096 / B=1"] = vec[4096] / vec[1]
    for kind in ("env()", "raw_env"):
        ours = speed.get((f"mamma_mia {kind} (AEC, 4 players)", 1))
        c4 = speed.get((f"connect_four_v3 {kind} (AEC)", 1))
        if ours and c4:
            out[f"AEC {kind} mamma_mia / connect_four"] = ours / c4
    return out


def profile_ratios(name: str, path: Path) -> dict[str, float]:
    doc = json.loads(path.read_text())
    parts = ("observe", "mask", "rules")
    serial = {p: doc[f"serial_{p}_us_per_game"] for p in parts}
    total = sum(serial.values())
    out = {f"serial {p} share": v / total for p, v in serial.items()}
    out["fused step / serial parts"] = doc["fused_kernel_us_per_turn"] / total
    return out


def speed_ratios(name: str, path: Path) -> dict[str, float]:
    doc = json.loads(path.read_text())
    # absolute, so loose: games/s per core against a 10,000-game run's committed value
    return {"games/s per core": doc["games_per_second"] / max(1, doc["cores"])}


# -- the table of experiments ------------------------------------------------------------------
def _lb_counts(mode: str) -> list[int]:
    return [2, 4] if mode == "quick" else [2, 3, 4, 5]


def _lb_files(mode: str) -> list[str]:
    return [f"leaderboard_{n}p.{ext}" for n in _lb_counts(mode) for ext in ("json", "csv")]


def _ppo(n: int) -> Experiment:
    cfg = f"experiments/configs/ppo_{n}p.json"
    return Experiment(
        name=f"ppo_{n}p_eval",
        script="experiments/train_ppo.py",
        args=lambda mode: [
            "--config",
            cfg,
            "--evaluate",
            f"agents/policies/ppo_{n}p.npz",
            "--workers",
            "1" if mode == "quick" else str(os.cpu_count() or 1),
            *(["--set", "eval.final_games=40"] if mode == "quick" else []),
        ],
        deterministic=lambda mode: [f"ppo_{n}p_final_eval.json"],
        description=f"the shipped ppo_{n}p policy against each heuristic bot",
    )


def _train(n: int) -> Experiment:
    return Experiment(
        name=f"ppo_{n}p_train",
        script="experiments/train_ppo.py",
        args=lambda mode: (
            None
            if mode == "quick"
            else ["--config", f"experiments/configs/ppo_{n}p.json", "--no-progress"]
        ),
        deterministic=lambda mode: ["policy.npz", "final_eval.json", "eval.csv"],
        train=True,
        description=f"MaskablePPO training, {n} players (hours)",
    )


EXPERIMENTS: list[Experiment] = [
    Experiment(
        name="leaderboard",
        script="experiments/leaderboard.py",
        args=lambda mode: (
            ["--games", "200", "--players", "2,4", "--workers", "1"]
            if mode == "quick"
            else ["--games", "10000"]
        ),
        deterministic=_lb_files,
        other=lambda mode: ["LEADERBOARD.md"] + [f"leaderboard_{n}p.png" for n in _lb_counts(mode)],
        description="duplicate-deal tournament of all bundled agents, 2-5 players",
    ),
    Experiment(
        name="speed",
        script="experiments/speed.py",
        args=lambda mode: ["--games", "300", "--workers", "1"] if mode == "quick" else [],
        timing=lambda mode: ["speed.json"],
        ratios=speed_ratios,
        description="10,000 four-player games between the heuristic bots, timed",
    ),
    Experiment(
        name="benchmark",
        script="experiments/benchmark.py",
        args=lambda mode: ["--quick", "--no-plot"] if mode == "quick" else [],
        timing=lambda mode: ["benchmark.csv"],
        ratios=benchmark_ratios,
        other=lambda mode: ["benchmark.txt"] + ([] if mode == "quick" else ["benchmark.png"]),
        description="turns/s of the AEC and vector envs vs PettingZoo classics",
    ),
    Experiment(
        name="profile",
        script="experiments/profile_vector.py",
        args=lambda mode: ["--batch", "256", "--seconds", "0.3"] if mode == "quick" else [],
        timing=lambda mode: ["profile_vector.json"],
        ratios=profile_ratios,
        description="where a vector-env step spends its time",
    ),
    _ppo(2),
    _ppo(4),
    _train(2),
    _train(4),
]


# -- comparison --------------------------------------------------------------------------------
def strip(doc: Any) -> Any:
    """``doc`` without the keys that record how it was made (:data:`IGNORED_KEYS`)."""
    if isinstance(doc, dict):
        return {k: strip(v) for k, v in doc.items() if k not in IGNORED_KEYS}
    if isinstance(doc, list):
        return [strip(v) for v in doc]
    return doc


def diff(a: Any, b: Any, where: str = "") -> list[str]:
    """Paths at which two parsed documents differ (at most a few per branch)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{where}/{k}: only in {'new' if k in a else 'committed'}")
            else:
                out += diff(a[k], b[k], f"{where}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: length {len(a)} vs {len(b)}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in diff(x, y, f"{where}[{i}]")
        ]
    return [] if a == b else [f"{where or '/'}: {a!r} (new) vs {b!r} (committed)"]


def compare_file(new: Path, ref: Path) -> list[str]:
    """Differences between a regenerated deterministic file and the committed one."""
    if not ref.exists():
        return [f"{ref.name}: no committed reference ({ref})"]
    if not new.exists():
        return [f"{new.name}: not produced"]
    if new.suffix == ".json":
        d = diff(strip(json.loads(new.read_text())), strip(json.loads(ref.read_text())))
    elif new.suffix == ".npz":
        import numpy as np

        a, b = np.load(new), np.load(ref)
        d = [
            f"{k}: differs"
            for k in sorted(set(a.files) | set(b.files))
            if k not in a.files or k not in b.files or not np.array_equal(a[k], b[k])
        ]
    else:
        d = [] if new.read_bytes() == ref.read_bytes() else ["contents differ"]
        if d and new.suffix == ".csv":
            na, nb = new.read_text().splitlines(), ref.read_text().splitlines()
            d = [
                f"line {i + 1}: {x!r} (new) vs {y!r} (committed)"
                for i, (x, y) in enumerate(zip(na, nb, strict=False))
                if x != y
            ][:5]
            if len(na) != len(nb):
                d.append(f"{len(na)} lines (new) vs {len(nb)} (committed)")
    return [f"{new.name}: {x}" for x in d[:10]]


def compare_timing(exp: Experiment, name: str, new: Path, ref: Path) -> list[str]:
    if not ref.exists():
        return [f"{name}: no committed reference ({ref})"]
    if not new.exists():
        return [f"{name}: not produced"]
    a, b = exp.ratios(name, new), exp.ratios(name, ref)
    out = []
    for key in sorted(set(a) & set(b)):
        r = a[key] / b[key] if b[key] else math.inf
        if not 1 / TIMING_TOLERANCE <= r <= TIMING_TOLERANCE:
            out.append(
                f"{name}: {key} = {a[key]:.3g} (new) vs {b[key]:.3g} (committed), "
                f"ratio {r:.2f} outside x/÷{TIMING_TOLERANCE}"
            )
    return out


# -- the runner --------------------------------------------------------------------------------
@dataclass
class Outcome:
    exp: Experiment
    seconds: float
    files: list[str]
    returncode: int
    problems: list[str]


def run_one(exp: Experiment, mode: str, out: Path, extra: list[str]) -> Outcome:
    args = exp.args(mode)
    assert args is not None
    out.mkdir(parents=True, exist_ok=True)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out  # cwd is ROOT
    cmd = [sys.executable, exp.script, *args, *extra, "--out", str(shown)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    t0 = time.perf_counter()
    logs = ROOT / "runs" / "reproduce" / "logs"  # never beside exported results
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{exp.name}.log"
    with open(log, "w") as fh:
        fh.write("$ " + " ".join(cmd) + "\n")
        fh.flush()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - t0
    files = exp.deterministic(mode) + exp.timing(mode) + exp.other(mode)
    problems = [] if proc.returncode == 0 else [f"exit code {proc.returncode}, see {log}"]
    return Outcome(exp, seconds, files, proc.returncode, problems)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments reproduce", description=__doc__.split("\n\n")[0]
    )
    m = ap.add_mutually_exclusive_group()
    m.add_argument(
        "--quick",
        action="store_const",
        dest="mode",
        const="quick",
        help="small versions of every experiment (minutes)",
    )
    m.add_argument(
        "--full", action="store_const", dest="mode", const="full", help="the published results"
    )
    ap.add_argument(
        "--train", action="store_true", help="also the two PPO training runs (hours; --full)"
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="compare with the committed results; exit 1 on a mismatch",
    )
    ap.add_argument(
        "--export",
        action="store_true",
        help="write into experiments/results/ (quick: results/quick/)",
    )
    ap.add_argument("--only", help="comma-separated experiment names (see --list)")
    ap.add_argument("--list", action="store_true", help="list the experiments and exit")
    ap.add_argument("--out", type=Path, help="run directory (default runs/reproduce/<mode>)")
    ap.add_argument(
        "--no-timing-check",
        action="store_true",
        help="with --check, compare deterministic files only",
    )
    args = ap.parse_args(argv)
    mode = args.mode or "quick"
    if args.list:
        for e in EXPERIMENTS:
            a = e.args(mode)
            shown = " ".join(a) if a is not None else "(not in this mode)"
            print(f"{e.name:16s} {e.script:32s} {shown}" + ("  [--train]" if e.train else ""))
        return 0
    if args.export and args.out:
        ap.error("--export and --out are exclusive")
    names = {e.name for e in EXPERIMENTS}
    only = None
    if args.only:
        only = [x.strip() for x in args.only.split(",") if x.strip()]
        bad = [x for x in only if x not in names]
        if bad:
            ap.error(
                f"--only: unknown experiment(s) {', '.join(bad)}; known: {', '.join(sorted(names))}"
            )
    if args.train and mode != "full":
        ap.error("--train needs --full")
    chosen = [
        e
        for e in EXPERIMENTS
        if e.args(mode) is not None
        and (only is None or e.name in only)
        and (not e.train or args.train or (only is not None and e.name in only and mode == "full"))
    ]
    ref_dir = QUICK_RESULTS if mode == "quick" else RESULTS
    out = ref_dir if args.export else args.out or ROOT / "runs" / "reproduce" / mode
    from tqdm.auto import tqdm

    outcomes = []
    bar = tqdm(chosen, desc=f"reproduce --{mode}", unit="experiment")
    for exp in bar:
        bar.set_postfix_str(exp.name)
        # training runs write a whole run directory; keep them apart
        dst = out / exp.name if exp.train else out
        if exp.train and args.export:
            dst = ROOT / "runs" / exp.name
        # a training run's own --export copies its policy and results into the repository
        extra = ["--export"] if exp.train and args.export else []
        outcomes.append(run_one(exp, mode, dst, extra))
    if args.check:
        for o in outcomes:
            dst = out / o.exp.name if o.exp.train else out
            if o.returncode != 0:
                continue
            for f in o.exp.deterministic(mode):
                ref = (
                    (ROOT / "agents" / "policies" / f"{o.exp.name[:6]}.npz")
                    if f == "policy.npz"
                    else ref_dir / (f"{o.exp.name[:6]}_{f}" if o.exp.train else f)
                )
                o.problems += compare_file(dst / f, ref)
            if mode == "full" and not args.no_timing_check and o.exp.ratios:
                for f in o.exp.timing(mode):
                    o.problems += compare_timing(o.exp, f, dst / f, ref_dir / f)
    print()
    print(f"{'experiment':16s} {'wall s':>8s}  {'result':8s} files (in {out})")
    for o in outcomes:
        status = (
            "FAILED"
            if o.returncode
            else ("differs" if o.problems else ("matches" if args.check else "ok"))
        )
        print(f"{o.exp.name:16s} {o.seconds:8.1f}  {status:8s} {', '.join(o.files)}")
    bad = [p for o in outcomes for p in (f"{o.exp.name}: {x}" for x in o.problems)]
    print(f"total {sum(o.seconds for o in outcomes):.1f} s")
    if bad:
        print("\nDifferences / failures:")
        print("\n".join("  " + b for b in bad))
        return 1
    if args.check:
        note = "deterministic files match exactly"
        if mode == "full" and not args.no_timing_check:
            note += f"; timing ratios within x/÷{TIMING_TOLERANCE}"
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
