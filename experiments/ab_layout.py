"""Speed of two checkouts of the whole project, interleaved in one run.

A move of modules between folders must not cost speed. This script times the same
four rows in two checkouts (a ``--base`` checkout and this one), each in a worker
process of its own that imports only public paths both versions have, and asks the
two workers in alternation, one short slice at a time, so that both see the same
machine load. Per row it reports the median rate of each version and the median of
the per-slice ratios new / base (each ratio from two adjacent slices).

Rows (four players):

* ``vector_b4096``: the all-seat vector env, B = 4,096, uniformly random legal actions;
* ``aec``: the PettingZoo AEC env through the standard ``agent_iter`` loop;
* ``learner_b256``: the learner-seat vector env, B = 256, random opponents;
* ``builder_b4096``: the vector env with ``builder`` deciding at every seat.

    git worktree add /tmp/base <commit>
    PYTHONPATH=. python experiments/ab_layout.py --base /tmp/base --rounds 11 --export

Writes ``<name>.json`` (``--name``, default ``ab_layout``) into ``--out`` (default:
runs/ab_layout/); ``--export`` writes it to experiments/results/.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROWS = ("vector_b4096", "aec", "learner_b256", "builder_b4096")
HERE = Path(__file__).resolve().parent


@dataclass
class Args:
    """The command line (``--help`` shows the defaults)."""

    base: Path  # a checkout of the older version (folders mamma_mia_env/ and agents/)
    new: Path  # the newer checkout (default: this one)
    rounds: int  # interleaved rounds; every row is timed once per version per round
    rows: tuple[str, ...]  # which rows (default: all four)
    seconds: float  # length of one timed slice
    name: str  # the result file's stem (default ab_layout)
    out: Path | None  # output folder (default: runs/ab_layout/)
    export: bool  # write into experiments/results/ instead


# ----------------------------------------------------------------------------- worker
# The rows run in the worker processes, each importing one checkout's packages by the
# modules' current paths (a checkout from before the envs/ folder, whose modules sat at
# the package's top level, no longer runs here; its committed result is a record).
def _sampler(seed: int) -> Any:
    import numpy as np

    rng = np.random.default_rng(seed)

    def sample(masks: Any) -> Any:
        """A uniformly random legal action per row."""
        return (rng.random(masks.shape) * (masks != 0)).argmax(axis=1)

    sample.rng = rng  # type: ignore[attr-defined]
    return sample


class _VectorRow:
    """The all-seat vector env, B = 4,096: random actions, or ``agent`` at every seat."""

    def __init__(self, agent: Any) -> None:
        from mamma_mia_env.envs.vector import MammaMiaVectorEnv

        self.env = MammaMiaVectorEnv(4096, num_players=4, copy=False)
        self.obs, self.info = self.env.reset(seed=0)
        self.agent, self.sample = agent, _sampler(0)

    def step(self) -> int:
        mask = self.info["action_mask"]
        if self.agent is None:
            actions = self.sample(mask)
        else:
            actions = self.agent.act_batch(self.obs, mask, self.sample.rng, self.info["seat"])
        self.obs, _, _, _, self.info = self.env.step(actions)
        return 4096


class _LearnerRow:
    """The learner-seat vector env, B = 256, random opponents."""

    def __init__(self) -> None:
        from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv

        self.env = MammaMiaLearnerVectorEnv(256, num_players=4, reward_mode="delivered_win_loss")
        self.mask = self.env.reset(seed=0)[1]["action_mask"]
        self.sample = _sampler(1)

    def step(self) -> int:
        self.mask = self.env.step(self.sample(self.mask))[4]["action_mask"]
        return 256


class _AecRow:
    """The PettingZoo AEC env through the standard loop, one game after another."""

    def __init__(self) -> None:
        import mamma_mia_env

        self.env = mamma_mia_env.env(num_players=4)
        self.env.reset(seed=0)
        self.games, self.sample = 0, _sampler(2)

    def step(self) -> int:
        env = self.env
        _obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                self.games += 1
                env.reset(seed=self.games)
            return 0
        env.step(int(self.sample(env.observe(env.agent_selection)["action_mask"][None])[0]))
        return 1


def _worker() -> None:  # pragma: no cover - runs in the child processes
    """Answer ``row seconds`` lines with ``wall_rate cpu_rate`` lines, until stdin ends."""
    import time
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)  # old public paths, both versions
    from mamma_mia_agents import load_agent

    rows = {
        "vector_b4096": _VectorRow(None),
        "aec": _AecRow(),
        "learner_b256": _LearnerRow(),
        "builder_b4096": _VectorRow(load_agent("builder")),
    }
    for row in rows.values():  # compile and warm up
        for _ in range(50):
            row.step()
    print("ready", flush=True)
    for line in sys.stdin:
        name, seconds = line.split()
        row = rows[name]
        turns = 0
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < float(seconds):
            turns += row.step()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"{turns / wall} {turns / cpu}", flush=True)


# ----------------------------------------------------------------------------- driver
def _link_tree(checkout: Path, into: Path) -> Path:
    """A folder holding the checkout's two packages under their import names."""
    into.mkdir(parents=True, exist_ok=True)
    (into / "mamma_mia_env").symlink_to(checkout.resolve() / "mamma_mia_env")
    (into / "mamma_mia_agents").symlink_to(checkout.resolve() / "agents")
    return into


def _start(path: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(path))
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=path,
    )
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit(f"ab_layout.py: the worker for {path} did not start")
    return proc


def _ask(proc: subprocess.Popen, row: str, seconds: float) -> tuple[float, float]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{row} {seconds}\n")
    proc.stdin.flush()
    wall, cpu = proc.stdout.readline().split()
    return float(wall), float(cpu)


def _revision(checkout: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip() or "unknown"


def measure(args: Args) -> dict[str, Any]:
    """The interleaved run: per row, both versions' rates and the per-slice ratios."""
    from tqdm import tqdm

    tmp = Path(tempfile.mkdtemp(prefix="ab-layout-"))
    procs = {
        "base": _start(_link_tree(args.base, tmp / "base")),
        "new": _start(_link_tree(args.new, tmp / "new")),
    }
    rates: dict[str, dict[str, list[float]]] = {
        r: {"base": [], "new": [], "base_cpu": [], "new_cpu": []} for r in args.rows
    }
    try:
        for k in tqdm(range(args.rounds), desc="interleaved rounds"):
            order = ("base", "new") if k % 2 == 0 else ("new", "base")
            for row in args.rows:
                for version in order:
                    wall, cpu = _ask(procs[version], row, args.seconds)
                    rates[row][version].append(wall)
                    rates[row][version + "_cpu"].append(cpu)
    finally:
        for proc in procs.values():
            proc.kill()
    result: dict[str, Any] = {}
    for row, r in rates.items():
        ratios = [n / b for n, b in zip(r["new"], r["base"], strict=True)]
        cpu_ratios = [n / b for n, b in zip(r["new_cpu"], r["base_cpu"], strict=True)]
        result[row] = {
            "base_median_turns_per_second": round(statistics.median(r["base"])),
            "new_median_turns_per_second": round(statistics.median(r["new"])),
            "median_ratio_new_over_base": round(statistics.median(ratios), 4),
            "median_cpu_ratio_new_over_base": round(statistics.median(cpu_ratios), 4),
            "ratios": [round(x, 4) for x in ratios],
        }
    return result


def parse(argv: list[str] | None) -> Args:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", type=Path, required=True, help="checkout of the older version")
    p.add_argument("--new", type=Path, default=HERE.parent, help="default: this checkout")
    p.add_argument("--rounds", type=int, default=11, help="interleaved rounds (default 11)")
    p.add_argument("--seconds", type=float, default=1.0, help="one slice, s (default 1.0)")
    p.add_argument(
        "--rows", default=",".join(ROWS), help=f"comma-separated rows (default {','.join(ROWS)})"
    )
    sys.path.insert(0, str(HERE.parent))
    from experiments.common.output import add_output_args, file_stem

    p.add_argument("--name", type=file_stem, default="ab_layout", help="file stem (ab_layout)")
    add_output_args(p, "ab_layout")
    from experiments.common.arguments import checked  # every flag checked

    ns = checked(p).parse_args(argv)
    for name in ("base", "new"):
        path = getattr(ns, name)
        if not (path / "mamma_mia_env").is_dir() or not (path / "agents").is_dir():
            p.error(f"--{name} {path}: not a checkout (no mamma_mia_env/ and agents/ inside)")
    if ns.rounds < 1 or not (0.05 <= ns.seconds <= 60):
        p.error("--rounds must be >= 1 and --seconds within 0.05-60")
    rows = tuple(r.strip() for r in ns.rows.split(",") if r.strip())
    if not rows or any(r not in ROWS for r in rows):
        p.error(f"--rows {ns.rows!r}: choose among {', '.join(ROWS)}")
    return Args(ns.base, ns.new, ns.rounds, rows, ns.seconds, ns.name, ns.out, ns.export)


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:] == ["--worker"]:
        _worker()
        return 0
    args = parse(argv)
    from experiments.common.output import output_dir, write_json
    from mamma_mia_env.plumbing.provenance import provenance

    out = output_dir(argparse.Namespace(out=args.out, export=args.export), "ab_layout")
    rows = measure(args)
    report = {
        "rows": rows,
        "base_revision": _revision(args.base),
        "new_revision": _revision(args.new),
        "rounds": args.rounds,
        "rows_run": list(args.rows),
        "seconds_per_slice": args.seconds,
        "load_average_after": list(os.getloadavg()),
    }
    path = out / f"{args.name}.json"
    write_json(path, report, provenance())
    for row, r in rows.items():
        print(
            f"{row:15s} base {r['base_median_turns_per_second']:>10,} "
            f"new {r['new_median_turns_per_second']:>10,} "
            f"ratio {r['median_ratio_new_over_base']:.3f} "
            f"(CPU {r['median_cpu_ratio_new_over_base']:.3f})"
        )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "experiments/ab_layout.py"))
