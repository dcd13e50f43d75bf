"""Compare the speed of two versions of the package in one process, interleaved.

On a shared machine the load changes from second to second, so the two versions are
measured in alternation, in short slices, inside one interpreter: the other version is
imported under another name (``mamma_mia_env_base``: the package uses relative
imports only). Rows, as in ``experiments/benchmark.py``: the vector env at a batch
size with ``copy=False`` (the benchmark's setting) and ``copy=True`` (random masked
actions drawn outside the timing), and the AEC env through PettingZoo's standard loop
(``env()``, observation and mask included). Reported per row: the median turns/s of
each version and the median of the per-slice ratios new / base (each ratio from two
adjacent slices).

    git archive <commit> mamma_mia_env | tar -x -C /tmp/base
    python experiments/ab_speed.py --base /tmp/base --repeats 15 --out ab.json
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from mamma_mia_env.plumbing.files import write_file

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

# the benchmark's harness: the same sampler, AEC loop and machine line
from experiments.common import samplers as bm  # noqa: E402

ROWS = ("vector_copy_false", "vector_copy_true", "aec")


def load_base(base: Path):
    """The base checkout's package, imported as ``mamma_mia_env_base``."""
    digest = hashlib.sha256(str(base).encode()).hexdigest()[:12]
    tmp = Path(tempfile.gettempdir()) / f"ab-speed-{digest}"  # fixed: its kernels stay cached
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(base / "mamma_mia_env", tmp / "mamma_mia_env_base")
    sys.path.insert(0, str(tmp))
    return importlib.import_module("mamma_mia_env_base")


class VectorRow:
    """Steps a vector env of one version; ``run(seconds)`` returns turns/s."""

    def __init__(self, pkg, batch: int, copy: bool) -> None:
        vector = importlib.import_module(pkg.__name__ + ".vector")
        self.venv = vector.MammaMiaVectorEnv(batch, num_players=4, copy=copy)
        _obs, self.info = self.venv.reset(seed=0)
        self.batch = batch
        self.rng = np.random.default_rng(0)
        self.actions = np.zeros(batch, dtype=np.int64)
        self.sample = bm.sample_parallel if batch >= 256 else bm.sample_serial
        self.run(0.3)  # warm-up

    def run(self, seconds: float) -> float:
        stepping = 0.0
        steps = 0
        while stepping < seconds:
            self.sample(self.info["action_mask"], self.rng.random(self.batch), self.actions)
            t0 = time.perf_counter()
            _obs, _r, _te, _tr, self.info = self.venv.step(self.actions)
            stepping += time.perf_counter() - t0
            steps += 1
        return steps * self.batch / stepping


class AecRow:
    def __init__(self, pkg) -> None:
        self.pkg = pkg
        self.game = 0
        self.run(0.3)

    def run(self, seconds: float) -> float:
        env = self.pkg.env(num_players=4)
        self.game += 1000
        return bm.aec_turns_per_second(lambda: env, seconds, seed=self.game)


def _git_head() -> str:
    out = subprocess.run(
        ["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
    )
    return out.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="holds the other mamma_mia_env")
    parser.add_argument("--repeats", type=int, default=15, help="slices per version and row")
    parser.add_argument("--seconds", type=float, default=1.0, help="per slice")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--rows", default=",".join(ROWS), help=f"some of {','.join(ROWS)}")
    parser.add_argument("--out", type=Path, default=None, help="also write the samples (JSON)")
    from experiments.common.arguments import checked  # every flag checked

    args = checked(parser).parse_args(argv)
    import mamma_mia_env as new

    rows_wanted = [r for r in args.rows.split(",") if r]
    if set(rows_wanted) - set(ROWS):
        parser.error(f"--rows: unknown rows {sorted(set(rows_wanted) - set(ROWS))}")
    base = load_base(args.base.resolve())
    versions = {"base": base, "new": new}
    makers = {
        "vector_copy_false": lambda pkg: VectorRow(pkg, args.batch, copy=False),
        "vector_copy_true": lambda pkg: VectorRow(pkg, args.batch, copy=True),
        "aec": AecRow,
    }
    rows = {k: {r: makers[r](pkg) for r in rows_wanted} for k, pkg in versions.items()}
    samples: dict[str, dict[str, list[float]]] = {k: {r: [] for r in rows_wanted} for k in versions}
    for rep in tqdm(range(args.repeats), desc="interleaved slices"):
        for row in rows_wanted:
            order = ("base", "new") if rep % 2 == 0 else ("new", "base")
            for k in order:
                samples[k][row].append(rows[k][row].run(args.seconds))
    report = {}
    for row in rows_wanted:
        b, n = samples["base"][row], samples["new"][row]
        ratios = [y / x for x, y in zip(b, n, strict=True)]
        report[row] = {
            "base_median": statistics.median(b),
            "new_median": statistics.median(n),
            "ratio_median": statistics.median(ratios),
            "ratio_quartiles": statistics.quantiles(ratios, n=4),
        }
        print(
            f"{row:18s} base {statistics.median(b):12,.0f}  new {statistics.median(n):12,.0f}"
            f"  turns/s   new/base median {statistics.median(ratios):.3f} "
            f"(quartiles {', '.join(f'{q:.3f}' for q in report[row]['ratio_quartiles'])})"
        )
    if args.out:
        doc = {
            "machine": bm.machine(),
            "load_average": list(os.getloadavg()),
            "new_commit": _git_head(),
            "args": {k: str(v) for k, v in vars(args).items()},
            "report": report,
            "samples": samples,
        }
        write_file(args.out, json.dumps(doc, indent=1), "samples")
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "experiments/ab_speed.py"))
