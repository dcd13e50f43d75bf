"""Trained policies as agents: ``PPOAgent`` plays a MaskablePPO policy with numpy.

``experiments/train/train_ppo.py`` trains a policy with sb3-contrib's MaskablePPO and
exports its actor network to a small ``.npz`` file (``ppo_policy``: the network, the
file format and its checks); ``PPOAgent`` plays it. Playing needs numpy only, not torch
or stable-baselines3.

    >>> from mamma_mia_agents.bots.ppo_agent import PPOAgent
    >>> agent = PPOAgent()                      # the shipped policies, by player count
    >>> agent = PPOAgent("runs/ppo_2p/policy.npz")

On the command line and in tournaments: ``ppo``, or
``mamma_mia_agents.bots.ppo_agent:PPOAgent`` (the shipped 2- and 4-player policies,
picked by the game's player count).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from mamma_mia_agents.bots.base import Agent, Batch
from mamma_mia_agents.bots.ppo_policy import (
    NumpyPolicy,
)
from mamma_mia_env.game.config import Config

POLICY_DIR = Path(__file__).resolve().parents[1] / "policies"  # agents/policies/


def _check_deck(pol: NumpyPolicy, double_ingredients: bool) -> None:
    if double_ingredients != pol.config.double_ingredients:
        deck = "with" if pol.config.double_ingredients else "without"
        raise ValueError(
            f"the policy {pol.source!r} was trained {deck} double ingredients: play it "
            f"{deck} them, give it a policy trained for this deck, or choose another agent"
        )


def default_policy_path(num_players: int) -> Path:
    return POLICY_DIR / f"ppo_{num_players}p.npz"


class PPOAgent(Agent):
    """A policy trained with MaskablePPO (``experiments/train/train_ppo.py``), run with numpy.

    ``path``: a ``.npz`` policy file, or ``None`` for the shipped policies in
    ``agents/policies/`` (``ppo_2p.npz``, ``ppo_4p.npz``), picked by the player count of
    the game being played. ``deterministic`` (default True): the most likely legal
    action; False samples from the policy with the given generator.
    """

    name = "ppo"
    seats_because = "the policy relabels every seat as seat 0"

    def __init__(
        self,
        path: str | os.PathLike | NumpyPolicy | None = None,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        self.deterministic = deterministic
        self._policies: dict[int, NumpyPolicy] = {}
        self._path = path
        if path is not None:
            if not isinstance(path, (str, os.PathLike, NumpyPolicy)):
                raise TypeError(
                    f"PPOAgent path must be a policy file path or a NumpyPolicy, got {path!r}"
                )
            pol = path if isinstance(path, NumpyPolicy) else NumpyPolicy.load(path)
            self._policies = {n: pol.for_count(n) for n in pol.counts}
        if self._policies:
            pol = next(iter(self._policies.values()))
            self.observation_mode = pol.observation_mode
        if name is not None:
            self.name = name

    def policy(self, num_players: int) -> NumpyPolicy:
        if num_players not in self._policies:
            if self._path is not None:
                next(iter(self._policies.values())).for_count(num_players)  # raises: not one
            path = default_policy_path(num_players)
            if not path.exists():
                shipped = sorted(p.name for p in POLICY_DIR.glob("ppo_*p.npz"))
                counts = " or ".join(p.removeprefix("ppo_").removesuffix("p.npz") for p in shipped)
                raise ValueError(
                    f"no shipped PPO policy for {num_players} players (agents/policies/ "
                    f"holds {' and '.join(shipped) or 'none'}): "
                    f"play ppo in a {counts}-player game, give it a policy trained for "
                    f"{num_players} players (PPOAgent(path); experiments/train/train_ppo.py "
                    "trains one), or choose another agent"
                )
            self._policies[num_players] = NumpyPolicy.load(path)
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
