"""Time 10,000 four-player games between the four heuristic bots, on all cores.

    python -m experiments.benchmark.speed [--games 10000] [--workers 2] [--export]

The time is wall-clock for the whole ``run_tournament`` call: starting the worker
processes, playing every game, and the statistics (ratings included). Writes
``speed.json`` into ``--out`` (default runs/leaderboard/; ``--export``:
experiments/results/leaderboard/, where the leaderboard's page shows it) and prints a
markdown paragraph. The machine's load average before the run is recorded: other work on
the machine slows the run down.
"""

from __future__ import annotations

from experiments.common.output import add_output_args, output_dir
from experiments.common.speed import run_speed
from mamma_mia_env.plumbing.arguments import ArgumentParser


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    add_output_args(parser, "leaderboard")
    from experiments.common.arguments import checked  # every flag checked

    args = checked(parser).parse_args(argv)
    run_speed(str(output_dir(args, "leaderboard")), args.games, args.workers, args.seed)
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.speed"))
