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
from pathlib import Path

from experiments.common.speed import Run, benchmark_parser, parse, speed_markdown
from mamma_mia_agents.bots.roster import HEURISTICS
from mamma_mia_agents.tournament import run_tournament


def run_speed(out_dir: Path, games: int, workers: int | None, seed: int) -> None:
    """Play and time the games, print the markdown paragraph (``speed_markdown``) and
    write ``speed.json`` into ``out_dir``."""
    run = Run()
    res = run_tournament(
        list(HEURISTICS), num_players=4, games=games, seed=seed, workers=workers, progress=True
    )
    wall = run.seconds()
    record = {
        "games": res.games,
        "num_players": 4,
        "agents": list(HEURISTICS),
        "workers": res.workers,
        "cores": os.cpu_count(),
        "seconds": round(wall, 2),
        "games_per_second": round(res.games / wall, 1),
        "load_average_before": round(run.load_before[0], 2),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "mean_turns": float(res.turns.mean()),
    }
    print(speed_markdown(record))
    run.write(out_dir / "speed.json", record, seeds=seed)


def main(argv: list[str] | None = None) -> int:
    parser = benchmark_parser(__doc__, "leaderboard")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args, out = parse(parser, argv, "leaderboard")
    run_speed(out, args.games, args.workers, args.seed)
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.speed"))
