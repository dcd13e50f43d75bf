"""The paragraph the leaderboard's page shows for the heuristic bots' tournament speed
(``speed.json``, written by ``experiments/benchmark/speed.py``)."""

from __future__ import annotations

__all__ = ["speed_markdown"]


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
