"""Time 10,000 four-player games between the four heuristic bots, on all cores.

    PYTHONPATH=. python experiments/speed.py [--games 10000] [--workers 2] [--export]

The time is wall-clock for the whole ``run_tournament`` call: starting the worker
processes, playing every game, and the statistics (ratings included). Writes
``runs/speed/speed.json`` (``--export``: ``experiments/results/speed.json``) and prints a
markdown paragraph. The machine's load average before the run is recorded: other work on
the machine slows the run down.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from experiments.common import add_output_args, output_dir, provenance, write_json  # noqa: E402
from mamma_mia_agents import HEURISTICS  # noqa: E402
from mamma_mia_agents.tournament import run_tournament  # noqa: E402


def run(out_dir: str, games: int = 10000, workers: int | None = None, seed: int = 0) -> str:
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
    os.makedirs(out_dir, exist_ok=True)
    write_json(os.path.join(out_dir, "speed.json"), record, provenance(seeds=seed, wall_time=wall))
    text = speed_markdown(record)
    print(text)
    return text


def speed_markdown(record: dict) -> str:
    return "\n".join(
        [
            "## Speed",
            "",
            f"{record['games']:,} four-player games between {', '.join(record['agents'])}: "
            f"**{record['seconds']:.1f} s** wall-clock ({record['games_per_second']:,.0f} "
            f"games/s, {record['mean_turns']:.0f} turns per game) with {record['workers']} "
            f"worker processes on {record['cores']} cores, load average "
            f"{record['load_average_before']:.2f} before the run. The time covers starting "
            "the processes, every game and the statistics. "
            "Command: `PYTHONPATH=. python experiments/speed.py --export`.",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    add_output_args(parser, "speed")
    args = parser.parse_args(argv)
    run(str(output_dir(args, "speed")), args.games, args.workers, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
