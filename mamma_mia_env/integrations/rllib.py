"""Ray RLlib (new API stack): Mamma Mia! as a turn-based ``MultiAgentEnv``, and a PPO config.

    from mamma_mia_env.integrations.rllib import ppo_config
    algo = ppo_config(num_players=2).build_algo()  # self-play, masked PPO
    for _ in range(10):
        print(algo.train()["env_runners"]["episode_return_mean"])

``env_config``: the fields of ``Config`` plus ``canonical``, ``normalize`` (``SeatView``)
and ``illegal_action`` (``"terminate"``, the default, so that RLlib's env checker, which
samples unmasked actions, runs; or ``"raise"``). docs/INTEGRATIONS.md, "Ray RLlib".
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from mamma_mia_env.envs.aec import raw_env
from mamma_mia_env.game.config import Config
from mamma_mia_env.integrations.seat_view import SeatView
from mamma_mia_env.plumbing.arguments import as_float

POLICY_ID = "shared"
StepResult = tuple[dict, dict, dict, dict, dict]  # observations, rewards, ..., infos
VIEW_OPTIONS = ("canonical", "normalize")


class MammaMiaMultiAgentEnv(MultiAgentEnv):
    """Mamma Mia! for RLlib: one agent per seat, turn by turn (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})  # RLlib passes an EnvContext (a dict)
        view = {k: options.pop(k) for k in VIEW_OPTIONS if k in options}
        self.illegal_action = options.pop("illegal_action", "terminate")
        if self.illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {self.illegal_action!r}"
            )
        self.illegal_reward = as_float(options.pop("illegal_reward", -1.0), "illegal_reward")
        self.raw = raw_env(**options)
        self.config: Config = self.raw.config
        self.view = SeatView(self.config, **view)
        self.possible_agents = list(self.raw.possible_agents)
        self.agents = list(self.possible_agents)
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        space = self.view.space("observations", np.float32)
        self.observation_spaces: dict[str, gym.Space] = dict.fromkeys(self.possible_agents, space)
        self.action_spaces: dict[str, gym.Space] = {
            a: gym.spaces.Discrete(self.view.n_actions) for a in self.possible_agents
        }
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.raw.observe(agent)
        return self.view.observe(raw, self._seat[agent], "observations", np.float32)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.raw.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        agent = self.raw.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: dict[str, Any]) -> StepResult:
        agent = self.raw.agent_selection
        if agent not in action_dict:
            raise ValueError(f"no action for {agent}, the agent to act (got {sorted(action_dict)})")
        action = self.view.to_env_action(action_dict[agent], self._seat[agent])
        raw, every = self.raw, self.possible_agents
        if not raw.observe(agent)["action_mask"][action]:
            if self.illegal_action == "raise":
                raw.step(action)  # raises IllegalActionError, naming the action
            # as PettingZoo's TerminateIllegalWrapper: the game ends, the offender pays
            rewards = {a: self.illegal_reward if a == agent else 0.0 for a in every}
            return self._end(
                rewards, False, {a: {"illegal_action": action} if a == agent else {} for a in every}
            )
        raw.step(action)
        # every seat, every step (0.0 too): RLlib wants a reward with each next observation
        rewards = {a: float(raw.rewards[a]) for a in every}
        if raw.terminations[agent] or raw.truncations[agent]:
            return self._end(rewards, bool(raw.truncations[agent]), {a: {} for a in every})
        nxt = raw.agent_selection
        return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: {}}

    def _end(self, rewards: dict, truncated: bool, infos: dict) -> StepResult:
        """The game's last step: every seat's last observation, over for every seat."""
        obs = {a: self._observe(a) for a in self.possible_agents}
        terms = dict.fromkeys([*self.possible_agents, "__all__"], not truncated)
        return obs, rewards, terms, dict.fromkeys(terms, truncated), infos


def ppo_config(
    num_players: int = 2,
    *,
    env_config: dict[str, Any] | None = None,
    hidden: tuple[int, ...] = (256, 256),
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 8,
    train_batch_size: int = 4000,
    minibatch_size: int = 256,
    lr: float = 3e-4,
    seed: int | None = None,
) -> Any:
    """A ready ``PPOConfig``: masked PPO on the new API stack, one policy for all seats.

    ``env_config``: further ``MammaMiaMultiAgentEnv`` options (rules, ``reward_mode``,
    ...). ``num_env_runners``: remote sampling workers (0 samples in the driver);
    on a cluster they are placed on any node with a free CPU. The result is an
    ordinary ``PPOConfig``: change anything with its methods before ``build_algo()``.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    cfg = {"num_players": num_players, **(env_config or {})}
    config = (
        PPOConfig()
        .environment(MammaMiaMultiAgentEnv, env_config=cfg)
        .multi_agent(
            policies={POLICY_ID},
            policy_mapping_fn=_to_shared_policy,
            policies_to_train=[POLICY_ID],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    POLICY_ID: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": list(hidden), "vf_share_layers": False},
                    )
                }
            )
        )
        .env_runners(
            num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner
        )
        .training(
            train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size, lr=lr
        )
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def _to_shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return POLICY_ID
