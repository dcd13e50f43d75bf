"""Player counts per game: one batch of the vector envs can mix 2-, 3-, 4- and 5-player
games, each game's count fixed (``num_players=[2, 3, 4, 5, ...]``, one per game) or
drawn at every deal (``player_count_probs={2: 0.5, 4: 0.5}``).

What the vector envs are given is checked here, once, for both of them; the batch
itself is stepped by one engine with a parameter row per count (``game.kernels``).
A drawn count is a function of the game's seed (``kernels.seed_count``), so the same
seed deals the same game with the same count, and an experimenter replays a game from
its seed and the count the env reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mamma_mia_env.game import kernels
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import PLAYER_COUNTS
from mamma_mia_env.game.record import MAX_SEATS
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_float, is_int

__all__ = ["PlayerCounts"]


@dataclass(frozen=True, eq=False)
class PlayerCounts:
    """The player counts of a batch of ``B`` games.

    ``counts``: each game's count at the first deal, ``(B,)`` int64 (with ``cdf`` they
    are redrawn at every deal); ``cdf``: ``kernels.count_cdf`` of the probabilities,
    empty when each game keeps its count; ``possible``: the counts that can occur.
    """

    counts: np.ndarray
    cdf: np.ndarray
    possible: tuple[int, ...]

    @property
    def mixed(self) -> bool:
        """More than one count can occur: rewards and deliveries get five seats."""
        return len(self.possible) > 1

    @property
    def seats(self) -> int:
        """Seat columns of per-seat arrays: the one count's, or five for a mixed batch."""
        return MAX_SEATS if self.mixed else self.possible[0]

    def deal(self, seeds: np.ndarray, index: np.ndarray | None = None) -> np.ndarray:
        """The counts of the games dealt from ``seeds`` (into slots ``index``, default
        all): drawn from each seed with a ``cdf``, else the slots' own."""
        if len(self.cdf):
            out = np.empty(len(seeds), dtype=np.int64)
            kernels.seed_counts(np.asarray(seeds, dtype=np.uint64), self.cdf, out)
            return out
        return self.counts.copy() if index is None else self.counts[index]

    @classmethod
    def take(
        cls, kwargs: dict[str, Any], config: Config | None, batch: int
    ) -> tuple[PlayerCounts | None, dict[str, Any], Config | None]:
        """Take ``num_players`` (a list) and ``player_count_probs`` out of a vector
        env's keywords: the counts (None: one count, as before), the keywords left and
        the ``config`` with the largest count (the engine's tables cover every count).
        """
        probs = kwargs.pop("player_count_probs", None)
        given = kwargs.get("num_players")
        per_game = given is not None and not is_int(given)
        if probs is None and not per_game:
            return None, kwargs, config
        if probs is not None and given is not None:
            raise ValueError(
                "give num_players (one count, or one per game) or player_count_probs "
                "(a count drawn per game at every deal), not both"
            )
        if per_game:
            counts = _per_game(kwargs.pop("num_players"), batch)
            cdf = np.zeros(0)
            possible = tuple(sorted({int(n) for n in counts}))
        else:
            p = _distribution(probs)
            cdf = kernels.count_cdf(p)
            possible = tuple(int(n) for n in np.flatnonzero(p))
            counts = np.full(batch, possible[0], dtype=np.int64)  # redrawn at every deal
        largest = max(possible)
        if config is not None:
            config = config.replace(num_players=largest)
        else:
            kwargs["num_players"] = largest
        return cls(counts, cdf, possible), kwargs, config


def _per_game(num_players: Any, batch: int) -> np.ndarray:
    """``num_players`` as one count per game, checked."""
    if isinstance(num_players, (str, bytes, Mapping)) or not isinstance(
        num_players, (Sequence, np.ndarray)
    ):
        raise ArgumentTypeError(
            "num_players must be an int or a list of one int per game, got "
            f"{type(num_players).__name__}"
        )
    items = list(np.asarray(num_players, dtype=object).reshape(-1))
    if len(items) != batch or np.ndim(num_players) != 1:
        raise ValueError(f"num_players must hold one count per game ({batch}), got {len(items)}")
    if not all(is_int(n) for n in items):
        raise ArgumentTypeError(f"num_players must be ints, got {items!r:.80}")
    counts = np.array([int(n) for n in items], dtype=np.int64)
    bad = sorted({int(n) for n in counts if n not in PLAYER_COUNTS})
    if bad:
        raise ValueError(f"num_players: player counts must be in 2-5, got {bad}")
    return counts


def _distribution(probs: Any) -> np.ndarray:
    """``player_count_probs`` (``{count: probability}``) as 6 weights indexed by count."""
    if not isinstance(probs, Mapping) or not probs:
        raise ArgumentTypeError(
            "player_count_probs must be a dict {player count: probability}, e.g. "
            f"{{2: 0.5, 4: 0.5}}, got {probs!r:.80}"
        )
    p = np.zeros(MAX_SEATS + 1)
    for n, w in probs.items():
        if not is_int(n) or n not in PLAYER_COUNTS:
            raise ValueError(f"player_count_probs: player counts must be in 2-5, got {n!r}")
        p[n] = as_float(w, f"player_count_probs[{n}]", 0.0)
    if not np.isclose(p.sum(), 1.0, rtol=0.0, atol=1e-9) or not p.any():
        raise ValueError(
            "player_count_probs must be a distribution: probabilities that sum to 1, got "
            f"{dict(probs)!r:.120} (sum {p.sum():.6g})"
        )
    return p / p.sum()
