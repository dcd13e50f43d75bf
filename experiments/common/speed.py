"""The heuristic bots' tournament speed: ``experiments/benchmark/speed.py`` runs it, and
``experiments/evaluate/leaderboard.py`` runs it (``--speed``) and shows it on its page.

The time is wall-clock for the whole ``run_tournament`` call: starting the worker
processes, playing every game, and the statistics (ratings included); the machine's
load average before the run is recorded, since other work slows the run down.
"""

from __future__ import annotations

import os
import platform
import time

from experiments.common.output import write_json
from mamma_mia_agents.bots.roster import HEURISTICS
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["run_speed", "speed_markdown"]


def run_speed(out_dir: str, games: int = 10000, workers: int | None = None, seed: int = 0) -> str:
    """Play and time the games, write ``speed.json`` into ``out_dir``, print and return
    the markdown paragraph (:func:`speed_markdown`)."""
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
    text = speed_markdown(record)
    print(text)
    return text


def speed_markdown(record: dict) -> str:
    """The paragraph LEADERBOARD.md shows for a ``speed.json`` record."""
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
            "Command: `python -m experiments.benchmark.speed --export`.",
            "",
        ]
    )
