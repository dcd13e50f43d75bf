"""Who plays whom, on which deal: the seating schedule, the deal seeds and the limits.

With k agents at N seats, a *table* is a group of N agents: the agents cycled to fill N
seats when k <= N (``random,counter`` at 4 seats sit as ``random,counter,random,counter``),
every combination of N agents when k > N. Each table is played in all N cyclic
rotations (``seating="rotate"``) or all distinct seat permutations (``"permute"``). The
list of all seatings is the *schedule*; every agent sits in every seat equally often.

A *deal* is one game seed; every deal is played once per seating of the schedule, so
the same shuffles are replayed with the seats permuted and luck of the deal cancels
out. Deal ``d`` of a tournament with seed ``s`` uses the engine seed ``s * 2**32 + d``.
A run holds at most ``MAX_GAMES`` games, refused before any game is played.
"""

from __future__ import annotations

import itertools
import math
import os

import numpy as np

SEATINGS = ("rotate", "permute")
#: The most games one run plays: every game's result is kept in memory for the
#: statistics (a few hundred bytes per game), so a bigger count is refused up front
#: rather than found out by the out-of-memory killer hours later.
MAX_GAMES = 1_000_000


class TournamentSizeError(ValueError):
    """A run would hold more than ``MAX_GAMES`` games (or start too many workers)."""


def max_workers() -> int:
    """The most worker processes a run may start: four per core."""
    return 4 * (os.cpu_count() or 1)


def seating_schedule(n_agents: int, num_players: int, seating: str = "rotate") -> np.ndarray:
    """Every seating of one deal, ``(S, num_players)`` agent indices (see module doc)."""
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {SEATINGS}, got {seating!r}")
    if n_agents < 1:
        raise ValueError("a tournament needs at least one agent")
    n = num_players
    if n_agents <= n:
        tables = [tuple(i % n_agents for i in range(n))]
    else:
        tables = list(itertools.combinations(range(n_agents), n))
    rows: list[tuple[int, ...]] = []
    for table in tables:
        if seating == "rotate":
            rows += [table[r:] + table[:r] for r in range(n)]
        else:
            rows += sorted(set(itertools.permutations(table)))
    return np.array(rows, dtype=np.int64)


def schedule_size(n_agents: int, num_players: int, seating: str = "rotate") -> int:
    """``len(seating_schedule(...))`` without building it (a big one would not fit)."""
    n = num_players
    if n_agents <= n:
        if seating == "rotate":
            return n
        counts = [sum(1 for i in range(n) if i % n_agents == a) for a in range(n_agents)]
        distinct = math.factorial(n)
        for c in counts:
            distinct //= math.factorial(c)
        return distinct
    return math.comb(n_agents, n) * (n if seating == "rotate" else math.factorial(n))


def deal_seeds(seed: int, deals: int) -> np.ndarray:
    """The engine seed of each deal: ``seed * 2**32 + d``."""
    if not 0 <= seed < 2**32:
        raise ValueError(f"seed must be in 0-{2**32 - 1}, got {seed}")
    return np.array([(seed << 32) + d for d in range(deals)], dtype=np.uint64)


def count_deals(n_agents: int, num_players: int, seating: str, games: int) -> int:
    """The deals that give at least ``games`` games, refused (``TournamentSizeError``)
    above ``MAX_GAMES``, without building the schedule (a big one would not fit)."""
    s = schedule_size(n_agents, num_players, seating)
    if s > MAX_GAMES:
        raise TournamentSizeError(
            f"{n_agents} agents at {num_players} seats ({seating}) make {s:,} seatings "
            f"per deal, more than the {MAX_GAMES:,} games one run may hold: use fewer "
            "agents or --seating rotate"
        )
    deals = math.ceil(games / s)
    if deals * s > MAX_GAMES:
        raise TournamentSizeError(
            f"games={games:,} ({deals * s:,} after rounding up to whole deals of {s} "
            f"seatings) is more than the {MAX_GAMES:,} games one run may hold (every "
            "game's result is kept for the statistics); split it into runs with "
            "different seeds"
        )
    return deals


def batches(g_total: int, batch_size: int) -> list[tuple[int, int]]:
    """``(lo, hi)`` game ranges of at most ``batch_size`` games. The split must not
    depend on ``workers`` (each batch has its own generator), or the same seed gives
    other games elsewhere."""
    size = min(batch_size, g_total)
    return [(lo, min(lo + size, g_total)) for lo in range(0, g_total, size)]
