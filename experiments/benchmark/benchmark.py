"""Measure the speed of the environments under random masked play.

One run measures, on this machine:

* the AEC env's turns/s through PettingZoo's standard loop (``agent_iter`` / ``last``
  / ``step``, observation and mask included), next to PettingZoo's own
  ``connect_four_v3`` and ``tictactoe_v3`` through the very same loop;
* the vector env's turns/s at several batch sizes, observation and mask included;
  the harness's random-action sampling is timed apart and reported separately;
* memory per game.

Each measurement is repeated (``--repeats``, interleaved so that a slow patch of the
machine hits every row alike) and the median is reported.

    python -m experiments.benchmark.benchmark --export   # full run, experiments/results/benchmark/
    python -m experiments.benchmark.benchmark --quick    # a few seconds, for a smoke test
"""

from __future__ import annotations

import importlib.util
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np

import mamma_mia_env as mm
from experiments.common.output import save_figure, subplots, write_csv
from experiments.common.speed import aec_turns, benchmark_parser, interleaved, parse, timed_rates
from mamma_mia_env.envs.vector import MammaMiaVectorEnv
from mamma_mia_env.game.record import state_dtype
from mamma_mia_env.plumbing.files import write_file
from mamma_mia_env.plumbing.provenance import cpu_model, provenance, write_sidecar


def _make_sampler(parallel: bool) -> Any:
    loop = nb.prange if parallel else range

    @nb.njit(cache=True, parallel=parallel)
    def sample(masks, u, out):
        """out[b] = the floor(u[b] * count)-th legal action of row b: uniform, cheap."""
        for b in loop(masks.shape[0]):
            row = masks[b]
            count = 0
            for j in range(row.shape[0]):
                count += row[j]
            k = int(u[b] * count)
            for j in range(row.shape[0]):
                if row[j]:
                    if k == 0:
                        out[b] = j
                        break
                    k -= 1

    return sample


#: ``sample(masks, u, out)``: one uniform legal action per row, compiled so that the
#: harness costs little next to the env; on one thread, and over numba's threads (from
#: a batch of 256 games)
sample_serial, sample_parallel = _make_sampler(False), _make_sampler(True)


def aec_turns_per_second(make_env: Callable[[], Any], seconds: float) -> float:
    """Turns/s of PettingZoo's standard loop, random legal actions, on a fresh env."""
    return timed_rates(partial(next, aec_turns(make_env())), seconds)[0]


def vector_turns_per_second(batch: int, seconds: float, num_players: int = 4) -> tuple:
    """Turns/s of the vector env (obs + mask included) and the sampling share."""
    venv = MammaMiaVectorEnv(batch, num_players=num_players, copy=False)
    _obs, info = venv.reset(seed=0)
    sample = sample_parallel if batch >= 256 else sample_serial
    rng = np.random.default_rng(0)
    actions = np.zeros(batch, dtype=np.int64)
    for _ in range(3):  # warm-up (compilation happened at import or in an earlier row)
        sample(info["action_mask"], rng.random(batch), actions)
        _obs, _r, _te, _tr, info = venv.step(actions)
    sampling = 0.0
    stepping = 0.0
    steps = 0
    while sampling + stepping < seconds:
        t0 = time.perf_counter()
        sample(info["action_mask"], rng.random(batch), actions)
        t1 = time.perf_counter()
        _obs, _r, _te, _tr, info = venv.step(actions)
        t2 = time.perf_counter()
        sampling += t1 - t0
        stepping += t2 - t1
        steps += 1
    turns = steps * batch
    return turns / stepping, turns / sampling, turns / (stepping + sampling)


def vector_bytes_per_game(batch: int, num_players: int = 4) -> tuple[int, int]:
    """(state record bytes, all arrays a vector env holds per game)."""
    venv = MammaMiaVectorEnv(batch, num_players=num_players, copy=False)
    venv.reset(seed=0)
    arrays = [venv.state.data] + [v for v in vars(venv).values() if isinstance(v, np.ndarray)]
    total = sum(a.nbytes for a in arrays)
    return state_dtype().itemsize, total // batch


def main(argv: list[str] | None = None) -> int:
    parser = benchmark_parser(__doc__, "benchmark")
    parser.add_argument("--quick", action="store_true", help="tiny run (smoke test)")
    parser.add_argument("--seconds", type=float, default=4.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-plot", action="store_true")
    args, out = parse(parser, argv, "benchmark", positive=("seconds", "repeats"))
    if importlib.util.find_spec("pygame") is None:  # PettingZoo's classic envs import it
        parser.error("the PettingZoo classic envs it compares against need pygame: "
                     "pip install pygame-ce (it is in the [test] extra)")  # fmt: skip
    t0 = time.perf_counter()
    batches = [1, 64, 1024, 4096, 16384]
    if args.quick:
        args.seconds, args.repeats, batches = 0.3, 1, [1, 64]
    rows = measure(batches, args.seconds, args.repeats)
    lines = report(rows, batches)
    print("\n".join(lines))
    write_csv(out / "benchmark.csv", rows, "benchmark table")
    write_file(
        out / "benchmark.txt",
        "\n".join(lines) + f"\ncommand: python {' '.join(sys.argv)}\n",
        "benchmark table",
    )
    write_sidecar(out / "benchmark.csv", provenance(wall_time=time.perf_counter() - t0))
    if not args.no_plot:
        plot(rows, out / "benchmark.png")
    return 0


def measure(batches: list[int], seconds: float, repeats: int) -> list[dict]:
    """Every row ``repeats`` times, interleaved; the medians, one row per env and batch."""
    warnings.filterwarnings("ignore")  # PettingZoo's deprecation notice for classic envs
    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    aec_rows = {
        "mamma_mia env() (AEC, 4 players)": lambda: mm.env(num_players=4),
        "connect_four_v3 env() (AEC)": connect_four_v3.env,
        "tictactoe_v3 env() (AEC)": tictactoe_v3.env,
        "mamma_mia raw_env (AEC, 4 players)": lambda: mm.raw_env(num_players=4),
        "connect_four_v3 raw_env (AEC)": connect_four_v3.raw_env,
        "tictactoe_v3 raw_env (AEC)": tictactoe_v3.raw_env,
    }
    aec_turns_per_second(aec_rows["mamma_mia env() (AEC, 4 players)"], 0.2)  # warm up
    timed: dict[str, Callable[[], Any]] = {
        name: partial(aec_turns_per_second, make, seconds) for name, make in aec_rows.items()
    }
    timed.update({f"B={b}": partial(vector_turns_per_second, b, seconds) for b in batches})
    samples = interleaved(timed, repeats, "benchmark rounds")

    rows = []
    for name in aec_rows:
        rows.append({"env": name, "batch": 1, "turns_per_s": statistics.median(samples[name])})
    for b in batches:
        runs = samples[f"B={b}"]
        rows.append(
            {
                "env": "mamma_mia vector env (4 players)",
                "batch": b,
                "turns_per_s": statistics.median(r[0] for r in runs),
                "sampling_turns_per_s": statistics.median(r[1] for r in runs),
                "with_sampling_turns_per_s": statistics.median(r[2] for r in runs),
            }
        )
    return rows


def report(rows: list[dict], batches: list[int]) -> list[str]:
    """The table of ``benchmark.txt``: the rows, the AEC ratios, the memory per game."""
    state_bytes, vector_bytes = vector_bytes_per_game(max(batches))
    speed = {r["env"]: r["turns_per_s"] for r in rows if r["batch"] == 1 and "AEC" in r["env"]}

    machine = (
        f"{cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}, "
        f"numpy {np.__version__}, numba {nb.__version__}"
    )
    lines = [
        f"machine: {machine}",
        f"{'env':40s} {'batch':>6s} {'turns/s':>12s} {'sampling/s':>12s} {'both/s':>12s}",
    ]
    for row in rows:
        lines.append(
            f"{row['env']:40s} {row['batch']:>6d} {row['turns_per_s']:>12,.0f} "
            + (
                f"{row['sampling_turns_per_s']:>12,.0f} {row['with_sampling_turns_per_s']:>12,.0f}"
                if "sampling_turns_per_s" in row
                else ""
            )
        )
    for kind in ("env()", "raw_env"):
        ours = speed[f"mamma_mia {kind} (AEC, 4 players)"]
        ratio = ours / speed[f"connect_four_v3 {kind} (AEC)"]
        lines.append(f"AEC {kind}: mamma_mia / connect_four_v3 = {ratio:.2f}x")
    lines.append(
        f"memory per game: state record {state_bytes} B; vector env total {vector_bytes} B"
    )
    return lines


def plot(rows: list[dict], path: Path) -> None:
    vec = [r for r in rows if r["env"].startswith("mamma_mia vector")]
    aec = [r for r in rows if "AEC" in r["env"]]
    fig, ax = subplots(figsize=(7, 4.5))
    ax.plot([r["batch"] for r in vec], [r["turns_per_s"] for r in vec], "o-", label="vector env")
    ax.plot(
        [r["batch"] for r in vec],
        [r["with_sampling_turns_per_s"] for r in vec],
        "s--",
        label="vector env + random-action sampling",
    )
    for r, style in zip(aec, ("^", "v", "D", "<", ">", "P"), strict=False):
        ax.scatter([1], [r["turns_per_s"]], marker=style, s=60, label=r["env"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("games stepped at once (B)")
    ax.set_ylabel("turns per second")
    ax.set_title("Random masked play, observation and mask included")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, path, dpi=120)


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.benchmark"))
