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
from mamma_mia_env.game.actions import describe_illegal
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.outcome import game_outcome
from mamma_mia_env.game.state import GameState
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

    def canonical_obs(self, counts: np.ndarray, obs: np.ndarray, seats: np.ndarray) -> Any:
        """``SeatCanonicalizer.obs`` of each game's count."""
        return self.apply(counts, lambda n, o, s: self.canons[n].obs(o, s), obs, seats)

    def canonical_masks(self, counts: np.ndarray, masks: np.ndarray, seats: np.ndarray) -> Any:
        """``SeatCanonicalizer.masks`` of each game's count."""
        return self.apply(counts, lambda n, m, s: self.canons[n].masks(m, s), masks, seats)

    def to_env_actions(self, counts: np.ndarray, acts: np.ndarray, seats: np.ndarray) -> Any:
        """``SeatCanonicalizer.to_env_actions`` of each game's count."""
        return self.apply(counts, lambda n, a, s: self.canons[n].to_env_actions(a, s), acts, seats)

    def describe_illegal(self, n: int, state: GameState, g: int, action: int) -> str:
        """Why ``action`` is illegal in game ``g`` of ``state``, a game of ``n`` players."""
        eng = self.engines[n]
        return describe_illegal(eng, GameState(eng.config, state.data), g, action)

    def outcomes(
        self, data: np.ndarray, rows: np.ndarray, counts: np.ndarray
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """``game_outcome`` (orders delivered, share of the win: one entry per seat of
        the game's own count) of each finished game ``rows``, by row."""
        out = {}
        for n, part in self.rows(counts):
            games = rows[part]
            delivered, share = game_outcome(data[games], n)
            for i, d, won in zip(games.tolist(), delivered, share, strict=True):
                out[i] = (d, won)
        return out

    def opponent_actions(
        self,
        counts: np.ndarray,
        who: np.ndarray,
        state: GameState,
        masks: np.ndarray,
        rng: np.random.Generator,
    ) -> Any:
        """The opponents' moves (``OpponentPool.actions``), each count's games by that
        count's pool; with one count, the one call on the whole batch.

        Each count's pool is handed the whole batch, labelled with its rules, and asked
        only for its own games (``who`` -1 elsewhere): its policies observe those rows
        alone, and no game record is copied."""
        if self.single:
            return self.pools[self.possible[0]].actions(who, state, masks, rng)
        actions = np.zeros(len(who), dtype=np.int64)
        for n in self.possible:
            mine = (counts == n) & (who >= 0)
            if mine.any():
                games = GameState(self.engines[n].config, state.data)
                chosen = self.pools[n].actions(np.where(mine, who, -1), games, masks, rng)
                actions[mine] = chosen[mine]
        return actions

    def set_opponents(self, opponents: Any, probs: Sequence[float] | None) -> None:
        """Give every count's pool the opponents: all or none (a count an opponent
        cannot play refuses the call and leaves every pool as it was)."""
        kept = [(p, p.pool, p.probs, p.observers, p.ids) for p in self.pools.values()]
        try:
            for p in self.pools.values():
                p.set(opponents, probs)
        except BaseException:
            for p, listed, weights, observers, ids in kept:
                p.pool, p.probs, p.observers, p.ids = listed, weights, observers, ids
            raise


def learner_seats(
    rng: np.random.Generator, index: np.ndarray, counts: np.ndarray | None, seats: Any
) -> np.ndarray:
    """The learner's seats in the games dealt into slots ``index``: ``seats`` (checked
    against each game's count), or with None drawn, each a seat of its game's count."""
    if seats is None:
        assert counts is not None  # one count: the caller draws as it always did
        return rng.integers(0, counts)
    seats = np.asarray(seats)
    if counts is not None and (seats >= counts).any():
        j = int(np.flatnonzero(seats >= counts)[0])
        raise ValueError(
            f"learner seat {int(seats[j])} of game {int(index[j])}: its game has "
            f"{int(counts[j])} players (seats 0-{int(counts[j]) - 1})"
        )
    return seats
