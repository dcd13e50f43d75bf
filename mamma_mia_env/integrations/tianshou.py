"""Tianshou (2.x, multi-agent): Mamma Mia! as Tianshou's ``PettingZooEnv``, ready to collect.

    from tianshou.env import DummyVectorEnv
    from mamma_mia_env.integrations.tianshou import tianshou_env
    envs = DummyVectorEnv([lambda: tianshou_env(num_players=2) for _ in range(8)])

``SeatViewWrapper`` gives each seat its canonical, scaled view, so one algorithm plays
every seat; infos keep the same keys and no ``None`` (Tianshou's buffers make it NaN).
What Tianshou's reward credit misses: docs/INTEGRATIONS.md, "Tianshou".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper
from tianshou.env import PettingZooEnv

from mamma_mia_env.envs.aec import env as make_aec_env
from mamma_mia_env.integrations.seat_view import SeatView

INFO_KEYS = ("decision", "phase", "round")


class SeatViewWrapper(BaseWrapper):
    """An AEC wrapper: each seat's observation, mask and actions in its canonical frame."""

    def __init__(self, env: Any, canonical: bool = True, normalize: bool = True) -> None:
        super().__init__(env)
        self.view = SeatView(env.unwrapped.config, canonical=canonical, normalize=normalize)
        self._seat = {a: i for i, a in enumerate(env.possible_agents)}
        self._space = self.view.space("observation", np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.view.observe(self.env.observe(agent), self._seat[agent], "observation", np.int8)

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        if action is None or self.env.terminations[agent] or self.env.truncations[agent]:
            self.env.step(action)  # the dead agent's step: passed through as it is
        else:
            self.env.step(self.view.to_env_action(action, self._seat[agent]))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.env.agent_selection
        info = self.env.infos[agent]
        return (
            self.observe(agent) if observe else None,
            self.env._cumulative_rewards[agent],
            self.env.terminations[agent],
            self.env.truncations[agent],
            {k: info[k] for k in INFO_KEYS},  # the AEC env's: same keys, ints
        )


def tianshou_env(
    canonical: bool = True, normalize: bool = True, illegal_reward: float = -1.0, **config: Any
) -> PettingZooEnv:
    """A Tianshou ``PettingZooEnv`` of Mamma Mia! (``config``: the fields of ``Config``)."""
    aec = make_aec_env(illegal_reward=illegal_reward, **config)
    return PettingZooEnv(SeatViewWrapper(aec, canonical=canonical, normalize=normalize))
