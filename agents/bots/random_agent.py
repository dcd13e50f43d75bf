"""The random agent: every legal action equally likely."""

from __future__ import annotations

import numpy as np

from mamma_mia_agents.bots.base import Agent
from mamma_mia_agents.compiled.random_picks import random_actions
from mamma_mia_agents.compiled.tables import RANDOM_POLICY, KernelBot
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_array


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
        masks = as_array(masks, "masks")
        if masks.ndim != 2:
            raise ValueError(f"masks must be (B, n_actions), got shape {masks.shape}")
        if masks.dtype.kind not in "biuf":  # the compiled pick reads numbers
            raise ArgumentTypeError(f"masks must be numbers or bools, got dtype {masks.dtype}")
        u = rng.random(len(masks))
        out = np.empty(len(masks), dtype=np.int64)
        bad = random_actions(np.ascontiguousarray(masks), u, out)
        if bad >= 0:
            raise ValueError(f"game {bad} has no legal action")
        return out

    def kernel_bot(self) -> KernelBot | None:
        """The random policy of the compiled game loop (``compiled.play_out``, its own
        random stream); a subclass may act otherwise, so it gets none."""
        return RANDOM_POLICY if type(self) is RandomAgent else None
