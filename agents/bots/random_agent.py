"""The random agent: every legal action equally likely."""

from __future__ import annotations

from mamma_mia_agents.bots.base import Agent
from mamma_mia_agents.compiled.tables import RANDOM_POLICY, KernelBot
from mamma_mia_env.policy import UniformRandomPolicy


class RandomAgent(UniformRandomPolicy, Agent):
    """Uniform over the legal actions of each game (turn actions and reveal choices).

    The env's ``UniformRandomPolicy`` as an ``Agent``: one uniform number per game, row
    by row, so a batch gives the same actions as its games acted one at a time.
    """

    name = "random"

    def kernel_bot(self) -> KernelBot | None:
        """The random policy of the compiled game loop (``compiled.play_out``, its own
        random stream); a subclass may act otherwise, so it gets none."""
        return RANDOM_POLICY if type(self) is RandomAgent else None
