"""Speed of two checkouts (or two settings of one), named comparisons timed interleaved.

A change must not cost speed, and on a shared machine a speed is only comparable
measured in alternation. This starts one worker process per side, each importing only
its own checkout's ``mamma_mia_env`` and ``mamma_mia_agents`` (by public paths both
versions have), and asks the two in turn, one short slice at a time, the side that
goes first alternating round by round (``experiments.common.speed.interleaved``), one
comparison after another: both sides see the same machine load. Per
comparison it reports each side's median rate, the median of the per-slice ratios
new / base (each from two adjacent slices), their quartiles (the spread) and the
ratio of CPU-time rates; the file records the load average before and after and each
side's commit, dirty flag and environment settings.

Comparisons (four players):

* ``engine``: the all-seat vector env, B = 4,096, uniformly random legal actions (turns/s);
* ``aec``: the PettingZoo AEC env through the standard ``agent_iter`` loop (turns/s);
* ``learner``: the learner-seat vector env, B = 256, random opponents (learner steps/s);
* ``bot_env``: the vector env, B = 4,096, ``builder`` deciding at every seat (turns/s);
* ``bots``: ``act_batch`` alone on 4,096 fixed positions, the counter, builder and hoarder
  bots in turn (decisions/s).

Player counts and observation layouts (each side's from its environment variables:
``MAMMA_MIA_AB_PLAYERS``, ``2``-``5`` for one count or ``mixed`` (the default) for a
count drawn per game at every deal, uniformly from 2-5; ``MAMMA_MIA_AB_LAYOUT``, the
observation mode, ``fixed`` (the default) or ``top_card``):

* ``counts_learner_256``, ``counts_learner_4096``: the learner-seat vector env against
  ``builder`` opponents, B = 256 / 4,096 (learner turns/s);
* ``counts_engine_256``, ``counts_engine_4096``: the all-seat vector env, random legal
  actions, B = 256 / 4,096 (turns/s).

The new side is this checkout, the base ``--base``: another checkout, or this one under
other environment settings (``--base-env``, ``--new-env``: e.g. OpenMP's waiting policy,
which libgomp reads once per process). docs/PERFORMANCE.md ("Comparing two checkouts",
"Mixed player counts", "The fixed observation") gives the commands and the runs.

Writes ``<name>.json`` (``--name``, default ``ab``) into ``--out`` (default runs/ab/;
``--export``: experiments/results/ab/).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.speed import aec_turns, random_legal

COUNTS = ("counts_learner_256", "counts_learner_4096", "counts_engine_256", "counts_engine_4096")
COMPARISONS = ("engine", "aec", "learner", "bot_env", "bots", *COUNTS)
BOTS = ("counter", "builder", "hoarder")  # forgetful reads another observation
#: the settings a side's environment may give the ``counts_*`` rows, and their values
SIDE_SETTINGS = {
    "MAMMA_MIA_AB_PLAYERS": ("2", "3", "4", "5", "mixed"),
    "MAMMA_MIA_AB_LAYOUT": ("fixed", "top_card"),
}
ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- worker
# Runs in the worker processes: imports the side's two packages (first on sys.path: the
# worker's current directory) and of the experiments only this checkout's harness.
class _EnvRow:
    """A vector env of ``batch`` games: the all-seat one, random legal actions or
    ``agent`` deciding at every seat; or the learner-seat one (``learner``), random
    learner actions. ``settings``: the env's player counts and observation layout."""

    def __init__(self, learner: bool, batch: int, settings: dict[str, Any], agent: Any = None):
        if learner:
            from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv

            self.env: Any = MammaMiaLearnerVectorEnv(batch, **settings)
        else:
            from mamma_mia_env.envs.vector import MammaMiaVectorEnv

            self.env = MammaMiaVectorEnv(batch, copy=False, **settings)
        self.obs, self.info = self.env.reset(seed=0)
        self.batch, self.agent, self.rng = batch, agent, np.random.default_rng(0)

    def step(self) -> int:
        mask = self.info["action_mask"]
        if self.agent is None:
            actions = random_legal(mask, self.rng)
        else:
            actions = self.agent.act_batch(self.obs, mask, self.rng, self.info["seat"])
        self.obs, _, _, _, self.info = self.env.step(actions)
        return self.batch


class _AecRow:
    """The PettingZoo AEC env through the standard loop, one game after another."""

    def __init__(self) -> None:
        import mamma_mia_env

        self.turns = aec_turns(mamma_mia_env.env(num_players=4))

    def step(self) -> int:
        return next(self.turns)


class _BotsRow:
    """The heuristic bots' decisions alone: 4,096 positions of random four-player play
    (ten random turns in), each call one bot's ``act_batch`` over all of them."""

    def __init__(self) -> None:
        from mamma_mia_agents import load_agent

        env = _EnvRow(False, 4096, {"num_players": 4})
        for _ in range(10):
            env.step()
        self.obs, self.info = env.obs.copy(), {k: v.copy() for k, v in env.info.items()}
        self.bots = [load_agent(name) for name in BOTS]
        self.rng, self.calls = np.random.default_rng(3), 0

    def step(self) -> int:
        bot = self.bots[self.calls % len(self.bots)]
        self.calls += 1
        bot.act_batch(self.obs, self.info["action_mask"], self.rng, self.info["seat"])
        return len(self.obs)


def _side_settings() -> dict[str, Any]:
    """The ``counts_*`` rows' player counts and observation layout, as this side's
    ``SIDE_SETTINGS`` say: one count, or counts drawn per deal (``mixed``)."""
    players = os.environ.get("MAMMA_MIA_AB_PLAYERS", "mixed")
    if players == "mixed":
        counts: dict[str, Any] = {"player_count_probs": {n: 0.25 for n in (2, 3, 4, 5)}}
    else:
        counts = {"num_players": int(players)}
    return {**counts, "observation_mode": os.environ.get("MAMMA_MIA_AB_LAYOUT", "fixed")}


def _make(name: str) -> Any:
    if name in ("aec", "bots"):
        return {"aec": _AecRow, "bots": _BotsRow}[name]()
    from mamma_mia_agents import load_agent

    if name in COUNTS:  # counts_<learner|engine>_<batch>: the learner against builder
        _, kind, batch = name.split("_")
        settings = _side_settings()
        if kind == "learner":
            settings["opponents"] = load_agent("builder")
        return _EnvRow(kind == "learner", int(batch), settings)
    if name == "learner":  # random opponents
        return _EnvRow(True, 256, {"num_players": 4, "reward_mode": "delivered_win_loss"})
    agent = load_agent("builder") if name == "bot_env" else None
    return _EnvRow(False, 4096, {"num_players": 4}, agent)


def _worker(comparisons: list[str]) -> None:  # pragma: no cover - runs in the workers
    """Answer ``comparison seconds`` lines with ``wall_rate cpu_rate`` lines until stdin
    ends."""
    from experiments.common.speed import timed_rates

    rows = {name: _make(name) for name in comparisons}
    for row in rows.values():  # compile and warm up
        for _ in range(50):
            row.step()
    print("ready", flush=True)
    for line in sys.stdin:
        name, seconds = line.split()
        print("{} {}".format(*timed_rates(rows[name].step, float(seconds))), flush=True)


# ----------------------------------------------------------------------------- driver
def _link_tree(checkout: Path, into: Path) -> Path:
    """A folder holding the checkout's two packages under their import names."""
    into.mkdir(parents=True, exist_ok=True)
    (into / "mamma_mia_env").symlink_to(checkout.resolve() / "mamma_mia_env")
    (into / "mamma_mia_agents").symlink_to(checkout.resolve() / "agents")
    return into


def _start(path: Path, comparisons: tuple[str, ...], env: dict[str, str]) -> subprocess.Popen:
    """A worker whose current directory (first on its sys.path) holds one side's
    packages; this checkout's ``experiments`` comes after them on PYTHONPATH."""
    from mamma_mia_interrupts import die_with_parent

    parent = os.getpid()
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.benchmark.ab", "--worker", *comparisons],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=path,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        preexec_fn=lambda: die_with_parent(parent),
    )  # fmt: skip
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        raise SystemExit(f"python -m experiments.benchmark.ab: the worker for {path} failed")
    return proc


def _ask(proc: subprocess.Popen, name: str, seconds: float) -> tuple[float, float]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{name} {seconds}\n")
    proc.stdin.flush()
    wall, cpu = proc.stdout.readline().split()
    return float(wall), float(cpu)


def _summary(samples: dict[str, list[tuple[float, float]]]) -> dict[str, Any]:
    """Both sides' median rates and the ratios new / base of one comparison."""
    from experiments.common.speed import ratios

    wall = {side: [w for w, _ in rates] for side, rates in samples.items()}
    r = ratios(wall["new"], wall["base"])
    cpu = ratios(*([c for _, c in samples[side]] for side in ("new", "base")))
    return {
        "base_median_per_second": round(statistics.median(wall["base"])),
        "new_median_per_second": round(statistics.median(wall["new"])),
        "median_ratio_new_over_base": round(r["median"], 4),
        "ratio_quartiles": [round(q, 4) for q in r["quartiles"]],
        "median_cpu_ratio_new_over_base": round(cpu["median"], 4),
        "ratios": [round(x, 4) for x in r["ratios"]],
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """The interleaved run: per comparison, both sides' rates and the per-slice ratios."""
    from experiments.common.speed import interleaved

    tmp = Path(tempfile.mkdtemp(prefix="ab-"))
    procs: dict[str, subprocess.Popen] = {}
    try:
        for side, path in (("base", args.base), ("new", ROOT)):
            procs[side] = _start(_link_tree(path, tmp / side), args.comparisons, args.env[side])
        results = {}
        for name in args.comparisons:
            ask = {side: partial(_ask, proc, name, args.seconds) for side, proc in procs.items()}
            results[name] = _summary(interleaved(ask, args.rounds, name))
        return results
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()


def _env_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE")
    if value not in SIDE_SETTINGS.get(key, (value,)):
        raise argparse.ArgumentTypeError(f"{key} must be one of {', '.join(SIDE_SETTINGS[key])}")
    return key, value


def _chosen(text: str) -> tuple[str, ...]:
    """The comparisons ``--comparison`` names, in order, each once."""
    return tuple(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))


def _problems(ns: argparse.Namespace) -> list[str]:
    """What is wrong with ``--base``, ``--seconds`` or ``--comparison``."""
    found = []
    if not (ns.base / "mamma_mia_env").is_dir() or not (ns.base / "agents").is_dir():
        found.append(f"--base {ns.base}: not a checkout (no mamma_mia_env/ and agents/ inside)")
    if not 0.01 <= ns.seconds <= 60:
        found.append("--seconds must be within 0.01-60")
    chosen = _chosen(ns.comparison)
    if not chosen or any(c not in COMPARISONS for c in chosen):
        found.append(f"--comparison {ns.comparison!r}: choose among {', '.join(COMPARISONS)}")
    return found


def parse(argv: list[str] | None) -> tuple[argparse.Namespace, Path]:
    """The command line (``--help`` shows the defaults): ``base`` the older checkout (the
    newer is this one), ``comparisons`` the chosen ones, ``env`` each side's settings;
    and the output directory."""
    from experiments.common.speed import benchmark_parser, parse
    from mamma_mia_agents.cli.options import stem

    p = benchmark_parser(__doc__, "ab")
    p.add_argument("--base", type=Path, required=True, help="checkout of the older version")
    p.add_argument("--comparison", default=",".join(COMPARISONS),
                   help=f"comma-separated, of {','.join(COMPARISONS)} (default: all)")  # fmt: skip
    p.add_argument("--rounds", type=int, default=11, help="interleaved rounds (default 11)")
    p.add_argument("--seconds", type=float, default=1.0, help="one slice, s (default 1.0)")
    for side in ("base", "new"):
        p.add_argument(f"--{side}-env", type=_env_pair, action="append", default=[],
                       metavar="NAME=VALUE", help=f"environment of the {side} worker")  # fmt: skip
    p.add_argument("--name", type=stem, default="ab", help="file stem (default ab)")
    ns, out = parse(p, argv, "ab", positive=("rounds",), problems=_problems)
    ns.comparisons, ns.base = _chosen(ns.comparison), ns.base.resolve()
    ns.env = {"base": dict(ns.base_env), "new": dict(ns.new_env)}
    return ns, out


def main(argv: list[str] | None = None) -> int:
    args, out = parse(argv)
    from experiments.common.speed import Run
    from mamma_mia_env.plumbing.provenance import git_state

    run = Run()
    results = measure(args)
    for name, r in results.items():
        q = r["ratio_quartiles"]
        print(
            f"{name:8s} base {r['base_median_per_second']:>12,} "
            f"new {r['new_median_per_second']:>12,}/s  "
            f"new/base {r['median_ratio_new_over_base']:.3f} "
            f"(quartiles {q[0]:.3f}-{q[2]:.3f}, CPU {r['median_cpu_ratio_new_over_base']:.3f})"
        )
    sides = {"base": args.base, "new": ROOT}
    report = {
        "comparisons": results,
        "sides": {
            side: {"checkout": str(path), "git": git_state(path), "env": args.env[side]}
            for side, path in sides.items()
        },
        "rounds": args.rounds,
        "seconds_per_slice": args.seconds,
        "load_average_before": run.load_before,
    }
    run.write(out / f"{args.name}.json", report)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:  # a side's worker: its own packages only
        _worker(sys.argv[2:])
    else:
        from mamma_mia_interrupts import run_command  # one line on Ctrl-C

        raise SystemExit(run_command(main, "python -m experiments.benchmark.ab"))
