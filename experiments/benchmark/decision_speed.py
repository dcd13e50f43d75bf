"""How long the state-reading bots take per decision, on one core.

    python -m experiments.benchmark.decision_speed --export

The champion's time limit is 20 ms per decision on one core. The tuning
(``tune_champion.py``) timed every setting while its games ran beside it; this script
times the shipped bots alone, read top to bottom:

1. for each player count of ``--players`` and each bot of ``--bots`` (``search`` with its
   defaults, ``champion`` with its shipped settings file for that count),
   ``experiments.common.decision_time.decision_times`` plays ``--positions`` builder games
   to random depths and times the bot's decision in each position as its seat knows it,
   numba held to one thread, after one untimed decision that loads the kernels;
2. each time is taken by the wall clock and by this process's CPU time; the document
   records the load averages before and after, since a shared machine moves both.

Writes ``decision_speed.json`` into ``--out`` (default runs/decision_speed/);
``--export`` writes it into experiments/results/decision_speed/, where docs/AGENTS.md's
block reads it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from experiments.common.decision_time import decision_times
from experiments.common.speed import Run, benchmark_parser, parse
from mamma_mia_agents import load_agent
from mamma_mia_env import Config

BOTS = ("search", "champion")
#: The champion's limit: milliseconds per decision on one core.
LIMIT_MS = 20.0


SEED = 0  # of the builder games the positions come from, and of the bots' generator


def _problems(args: argparse.Namespace) -> list[str]:
    """What is wrong with ``--players`` or ``--bots``."""
    problems = []
    try:
        counts = [int(p) for p in args.players.split(",")]
    except ValueError:
        counts = []
    if not counts or any(not 2 <= n <= 5 for n in counts):
        problems.append(f"--players must list player counts of 2-5, got {args.players!r}")
    unknown = sorted(set(args.bots.split(",")) - set(BOTS))
    if unknown:
        problems.append(f"--bots: unknown {unknown} (choose from {', '.join(BOTS)})")
    return problems


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, Path]:
    """The arguments, checked before any game, and the output directory."""
    parser = benchmark_parser(__doc__, "decision_speed")
    parser.add_argument("--players", default="2,4", help="player counts, comma-separated "
                        "(the champion ships settings for 2 and 4; default 2,4)")  # fmt: skip
    parser.add_argument("--bots", default="search,champion", help="of search, champion")
    parser.add_argument("--positions", type=int, default=200, help="per bot and count")
    return parse(parser, argv, "decision_speed", positive=("positions",), problems=_problems)


def bot(name: str, num_players: int) -> Any:
    """The bundled bot ``name`` (the registry's, with its defaults and shipped settings),
    checked for ``num_players``-player games the way a tournament checks it."""
    agent = load_agent(name)
    agent.check_config(Config(num_players=num_players))  # ValueError: cannot play them
    return agent


def main(argv: list[str] | None = None) -> int:
    args, out = parse_args(argv)
    run = Run()
    try:  # every bot before any timing: the champion has no settings for 3 or 5 players
        bots = {
            (int(n), name): bot(name, int(n))
            for n in args.players.split(",")
            for name in args.bots.split(",")
        }
    except ValueError as exc:
        print(f"decision_speed: {exc}", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    for (n, name), timed in tqdm(bots.items(), desc="bots"):
        row = {"bot": name, "players": n, **decision_times(n, timed, args.positions, SEED)}
        rows.append(row)
        tqdm.write(f"{name} {n}p: mean {row['mean_ms']} ms, median {row['median_ms']} ms")
    doc = {
        "experiment": "decision_speed",
        "args": {
            "players": args.players,
            "bots": args.bots,
            "positions": args.positions,
            "seed": SEED,
        },  # fmt: skip
        "limit_ms": LIMIT_MS,
        "rows": rows,
        "load_average_before": run.load_before,
    }
    run.write(out / "decision_speed.json", doc, seeds={"seed": SEED})
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.decision_speed"))
