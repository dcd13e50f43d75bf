"""Trained policies as agents: ``PPOAgent`` plays a policy network (``ppo_policy``: the
network, its file format and checks) with numpy, not torch. On the command line and in
tournaments, ``ppo`` is the shipped ``agents/policies/ppo.npz``, one network over the
fixed observation for every player count (docs/TRAINING.md, "One network for every
table").
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from mamma_mia_agents.bots.base import Agent, Batch
from mamma_mia_agents.bots.ppo_policy import NumpyPolicy
from mamma_mia_env.game.config import Config

POLICY_DIR = Path(__file__).resolve().parents[1] / "policies"  # agents/policies/


def _check_deck(pol: NumpyPolicy, double_ingredients: bool) -> None:
    if double_ingredients != pol.config.double_ingredients:
        deck = "with" if pol.config.double_ingredients else "without"
        raise ValueError(
            f"the policy {pol.source!r} was trained {deck} double ingredients: play it "
            f"{deck} them, give it a policy trained for this deck, or choose another agent"
        )


SHIPPED = POLICY_DIR / "ppo.npz"


class PPOAgent(Agent):
    """A trained policy network, one for 2-5 players, run with numpy.

    ``path``: a ``.npz`` policy file (or a loaded ``NumpyPolicy``); ``None`` plays the
    shipped ``agents/policies/ppo.npz``. A file lists the player counts it plays (one
    or several: the observation has one size for every count); every other count is refused by
    ``check_config`` with the reason. ``deterministic`` (default True): the most likely
    legal action; False samples from the policy with the given generator.
    """

    name = "ppo"
    seats_because = "the policy relabels every seat as seat 0"

    def __init__(
        self,
        path: str | os.PathLike | NumpyPolicy | None = None,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        if not isinstance(path, (str, os.PathLike, NumpyPolicy, type(None))):
            raise TypeError(
                f"PPOAgent path must be a policy file path or a NumpyPolicy, got {path!r}"
            )
        self.deterministic = deterministic
        self._path = path
        pol = path if isinstance(path, NumpyPolicy) else NumpyPolicy.load(path or SHIPPED)
        self._policy = pol
        self._policies = {n: pol.for_count(n) for n in pol.counts}
        self.observation_mode = pol.observation_mode
        if name is not None:
            self.name = name

    def policy(self, num_players: int) -> NumpyPolicy:
        """The network at a ``num_players`` table; a count it does not play is refused."""
        if num_players not in self._policies:
            self._policy.for_count(num_players)  # raises, naming the counts it plays
        return self._policies[num_players]

    def check_config(self, config: Config) -> None:
        pol = self.policy(config.num_players)  # raises when there is none for this count
        _check_deck(pol, config.double_ingredients)

    def decide(self, batch: Batch, rng: np.random.Generator) -> np.ndarray:
        info = batch.info
        pol = self.policy(info.num_players)
        _check_deck(pol, info.double_ingredients)
        if info.observation_mode != pol.observation_mode:
            raise ValueError(
                f"the policy {pol.source!r} reads '{pol.observation_mode}' observations, "
                f"got '{info.observation_mode}'"
            )
        return pol.act(batch.observations, batch.masks, batch.seats, rng, self.deterministic)

    def __repr__(self) -> str:
        return f"PPOAgent({str(self._path) if self._path is not None else ''})"
