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

import os
import platform
import time

from experiments.common.arguments import checked
from experiments.common.output import add_output_args, output_dir, write_json
from experiments.common.speed import speed_markdown
from mamma_mia_agents.bots.roster import HEURISTICS
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env.plumbing.arguments import ArgumentParser
from mamma_mia_env.plumbing.provenance import provenance


def run_speed(out_dir: str, games: int, workers: int | None, seed: int) -> None:
    """Play and time the games, write ``speed.json`` into ``out_dir`` and print the
    markdown paragraph (``speed_markdown``)."""
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    res = run_tournament(
        list(HEURISTICS), num_players=4, games=games, seed=seed, workers=workers, progress=True
    )
    wall = time.perf_counter() - start
    record = {
        "games": res.games,
        "num_players": 4,
        "agents": list(HEURISTICS),
        "workers": res.workers,
        "cores": os.cpu_count(),
        "seconds": round(wall, 2),
        "games_per_second": round(res.games / wall, 1),
        "load_average_before": round(load_before, 2),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "mean_turns": float(res.turns.mean()),
    }
    write_json(os.path.join(out_dir, "speed.json"), record, provenance(seeds=seed, wall_time=wall))
    print(speed_markdown(record))


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    add_output_args(parser, "leaderboard")
    args = checked(parser).parse_args(argv)
    run_speed(str(output_dir(args, "leaderboard")), args.games, args.workers, args.seed)
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.speed"))
