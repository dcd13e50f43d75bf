"""Speed of the engine with OpenMP's waiting policies: the package's default
(``PASSIVE``, mamma_mia_env/plumbing/threads.py) against libgomp's own default (spin, then
sleep; chosen by an empty ``OMP_WAIT_POLICY``) and ``ACTIVE`` (spin).

Each measurement runs in a fresh process (libgomp reads the policy once), the policies
interleaved repeat by repeat so that a change in the machine's load hits all alike.
Rows: the vector env at B=4096 (4 players, random masked play, ``copy=False``) and the
learner-seat vector env at B=256 (2 players against ``builder``): the case where
spinning workers hurt most (many short parallel kernels with Python in between).

    PYTHONPATH=. python experiments/omp_wait.py [--repeats 5] [--seconds 3] [--export]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tqdm import tqdm  # noqa: E402

from experiments.common.output import add_output_args, output_dir, write_json  # noqa: E402
from mamma_mia_env.plumbing.provenance import provenance  # noqa: E402

POLICIES = {"passive (package default)": None, "libgomp default": "", "active": "ACTIVE"}

#: one timed process: ``{setup}`` builds ``env`` (B games), then random legal play
TIMED = """
import sys, time, numpy as np
{setup}
_, info = env.reset(seed=0)
rng = np.random.default_rng(0)
def run(sec):
    global info
    n, t = 0, time.perf_counter()
    while time.perf_counter() - t < sec:
        m = info["action_mask"]
        _, _, _, _, info = env.step((rng.random(m.shape) * m).argmax(1)); n += env.num_envs
    return n / (time.perf_counter() - t)
run(1.0); print(run(float(sys.argv[1])))
"""
VECTOR = TIMED.format(
    setup="from mamma_mia_env.envs.vector import MammaMiaVectorEnv\n"
    "env = MammaMiaVectorEnv(4096, num_players=4, copy=False)"
)
LEARNER = TIMED.format(
    setup="from mamma_mia_agents import load_agent\n"
    "from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv\n"
    'env = MammaMiaLearnerVectorEnv(256, num_players=2, opponents=load_agent("builder"))'
)

ROWS = {"vector B=4096 (turns/s)": VECTOR, "learner B=256 (learner steps/s)": LEARNER}


def measure(code: str, policy: str | None, seconds: float) -> float:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    res = subprocess.run(
        [sys.executable, "-c", code, str(seconds)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=HERE.parent,
    )
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-2000:])
    return float(res.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5, help="processes per policy and row")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per process")
    add_output_args(p, "omp_wait")
    from experiments.common.arguments import checked  # every flag checked

    args = checked(p).parse_args(argv)
    if args.repeats < 1 or not args.seconds > 0:
        p.error("--repeats must be >= 1 and --seconds > 0")
    start = time.perf_counter()
    runs: dict[str, dict[str, list[float]]] = {r: {k: [] for k in POLICIES} for r in ROWS}
    total = args.repeats * len(ROWS) * len(POLICIES)
    with tqdm(total=total, unit="run", desc="omp_wait") as bar:
        for _ in range(args.repeats):
            for row, code in ROWS.items():
                for name, policy in POLICIES.items():
                    runs[row][name].append(measure(code, policy, args.seconds))
                    bar.update()
    summary = {
        row: {name: round(float(sorted(v)[len(v) // 2]), 1) for name, v in by.items()}
        for row, by in runs.items()
    }
    for row, by in summary.items():
        base = by["libgomp default"]
        print(row)
        for name, v in by.items():
            print(f"  {name:28s} {v:>12,.0f}  x{v / base:.2f} vs libgomp default")
    out = output_dir(args, "omp_wait")
    path = out / "omp_wait.json"
    doc = {"median": summary, "runs": runs, "repeats": args.repeats, "seconds": args.seconds}
    write_json(path, doc, provenance(wall_time=time.perf_counter() - start))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "experiments/omp_wait.py"))
