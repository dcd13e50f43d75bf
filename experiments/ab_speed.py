"""Compare the speed of two checkouts of the package, interleaved, on a shared machine.

Each measurement runs in a fresh interpreter with one checkout first on ``sys.path``
(two versions of one package cannot share a process); the checkouts alternate, run
after run, so that a slow patch of the machine hits both alike. Reported: the median
of each row per checkout and the ratio new / base. The rows are ``experiments/
benchmark.py``'s: the vector env at a batch size (``copy=False`` as in the benchmark,
and ``copy=True``) and the AEC env (``env()``, PettingZoo's loop).

    python experiments/ab_speed.py --base /tmp/base-checkout --repeats 7
    python experiments/ab_speed.py --base /tmp/base-checkout --out ab.json

``--base`` is a directory holding the other ``mamma_mia_env`` (e.g. from
``git archive <commit> mamma_mia_env | tar -x -C /tmp/base-checkout``); the new one is
this checkout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from tqdm import tqdm

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = r"""
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import mamma_mia_env as mm
import benchmark as bm
from mamma_mia_env.vector import MammaMiaVectorEnv
row, seconds, batch = sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
assert mm.__file__.startswith(sys.argv[1]), mm.__file__
if row == "aec":
    bm.aec_turns_per_second(lambda: mm.env(num_players=4), 0.5)  # warm-up
    value = bm.aec_turns_per_second(lambda: mm.env(num_players=4), seconds)
elif row == "vector_copy_false":
    bm.vector_turns_per_second(batch, 0.5)
    value = bm.vector_turns_per_second(batch, seconds)[0]
else:
    original = MammaMiaVectorEnv.__init__
    def with_copy(self, *a, **k):
        k["copy"] = True
        original(self, *a, **k)
    MammaMiaVectorEnv.__init__ = with_copy
    bm.vector_turns_per_second(batch, 0.5)
    value = bm.vector_turns_per_second(batch, seconds)[0]
print(json.dumps(value))
"""

ROWS = ("vector_copy_false", "vector_copy_true", "aec")


def measure(checkout: Path, row: str, seconds: float, batch: int) -> float:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(checkout), str(HERE), row, str(seconds), str(batch)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--out", type=Path, default=None, help="also write the samples (JSON)")
    args = parser.parse_args(argv)
    checkouts = {"base": args.base.resolve(), "new": ROOT}
    samples: dict[str, dict[str, list[float]]] = {k: {r: [] for r in ROWS} for k in checkouts}
    runs = [(rep, row, k) for rep in range(args.repeats) for row in ROWS for k in checkouts]
    for rep, row, k in tqdm(runs, desc="interleaved runs"):
        order = list(checkouts) if rep % 2 == 0 else list(reversed(checkouts))
        k = order[list(checkouts).index(k)]  # alternate which checkout goes first
        samples[k][row].append(measure(checkouts[k], row, args.seconds, args.batch))
    report = {}
    for row in ROWS:
        base = statistics.median(samples["base"][row])
        new = statistics.median(samples["new"][row])
        report[row] = {"base_median": base, "new_median": new, "ratio": new / base}
        print(f"{row:18s} base {base:12,.0f}  new {new:12,.0f}  turns/s  new/base {new / base:.3f}")
    if args.out:
        args.out.write_text(
            json.dumps({"samples": samples, "report": report, **vars(args)}, default=str, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
