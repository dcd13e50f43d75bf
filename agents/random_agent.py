"""The random agent: every legal action equally likely."""

from __future__ import annotations

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Uniform over the legal actions of each game (turn actions and reveal choices).

    Draws one uniform number per game, row by row, so a batch gives the same actions
    as its games acted one at a time with the same generator.
    """

    name = "random"

    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
    ) -> np.ndarray:
        masks = np.asarray(masks)
        if masks.ndim != 2:
            raise ValueError(f"masks must be (B, n_actions), got shape {masks.shape}")
        counts = np.cumsum(masks != 0, axis=1, dtype=np.int32)
        total = counts[:, -1]
        if (total == 0).any():
            raise ValueError(f"game {int(np.argmin(total))} has no legal action")
        pick = (rng.random(len(masks)) * total).astype(np.int32)
        return np.argmax(counts > pick[:, None], axis=1).astype(np.int64)
