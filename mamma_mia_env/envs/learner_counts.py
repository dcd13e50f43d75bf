"""The per-count parts of a learner's games: a batch may mix player counts
(``envs.player_counts``), and what depends on the count (the canonical frame, the
opponents, who read observations of their own count, the outcome) is applied to each
count's games with that count's own objects.

One count (every env built as before) is one group holding the whole batch: its calls
are the same calls on the same arrays as without groups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from mamma_mia_env.envs.opponents import OpponentPool
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.symmetry import SeatCanonicalizer


class CountGroups:
    """Engines, canonical frames and opponent pools, one of each per player count."""

    def __init__(self, config: Config, engine: Engine, possible: Sequence[int]) -> None:
        self.possible = tuple(possible)
        self.single = len(self.possible) == 1
        self.engines = {
            n: engine if n == config.num_players else Engine(config.replace(num_players=n))
            for n in self.possible
        }
        self.canons = {n: SeatCanonicalizer(e.config) for n, e in self.engines.items()}
        #: each count's opponents, built for that count (their observers are its
        #: engines); every pool is given the same opponents in the same order, so an
        #: opponent has the same registry index in each
        self.pools = {n: OpponentPool(e.config, e) for n, e in self.engines.items()}

    def rows(self, counts: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
        """Each count present in ``counts`` and the rows that have it."""
        for n in self.possible:
            rows = np.flatnonzero(counts == n)
            if len(rows):
                yield n, rows

    def apply(self, counts: np.ndarray, fn: Callable[..., np.ndarray], *arrays: Any) -> Any:
        """``fn(n, *arrays)`` row by row with each row's count ``n``: one call with the
        whole arrays for one count, else one per count present, gathered in row order."""
        if self.single:
            return fn(self.possible[0], *arrays)
        out = None
        for n, rows in self.rows(counts):
            part = np.asarray(fn(n, *(a[rows] for a in arrays)))
            if out is None:
                out = np.empty((len(counts), *part.shape[1:]), dtype=part.dtype)
            out[rows] = part
        return out

    def set_opponents(self, opponents: Any, probs: Sequence[float] | None) -> None:
        """Give every count's pool the opponents: all or none (a count an opponent
        cannot play refuses the call and leaves every pool as it was)."""
        kept = [(p, p.pool, p.probs, p.observers, p.ids) for p in self.pools.values()]
        try:
            for pool in self.pools.values():
                pool.set(opponents, probs)
        except BaseException:
            for p, pool, pool_p, observers, ids in kept:
                p.pool, p.probs, p.observers, p.ids = pool, pool_p, observers, ids
            raise
