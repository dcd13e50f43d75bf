"""A stable-baselines3 ``VecEnv`` over the batched engine: one learner seat per game.

    >>> from sb3_contrib import MaskablePPO
    >>> from mamma_mia_agents import load_agent
    >>> venv = MammaMiaSB3VecEnv(64, num_players=2, opponents=load_agent("builder"))
    >>> model = MaskablePPO("MlpPolicy", venv).learn(100_000)

The opponents move inside ``step_wait`` (``LearnerGames``); finished games are dealt
again at once (SB3's autoreset) with the info keys SB3 reads. No info holds a game seed
(it determines every hidden card). docs/TRAINING.md, "MammaMiaSB3VecEnv", has the details.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from mamma_mia_env.envs.learner import LearnerGames
from mamma_mia_env.envs.learner_front import LearnerFront
from mamma_mia_env.envs.learner_options import LearnerOptions
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import IllegalActionError
from mamma_mia_env.plumbing.arguments import as_array, as_seed, is_int


class MammaMiaSB3VecEnv(LearnerFront, VecEnv):
    """``n_envs`` games of Mamma Mia!, one learner seat each (stable-baselines3 ``VecEnv``).

    Arguments as ``MammaMiaGymEnv``: the learner options (``options=LearnerOptions(...)``
    or its fields as keywords: ``opponents``, ``opponent_probs``, ``learner_seat``,
    ``opponent_delivery_penalty``, ``canonical``, ``normalize``) and the fields of
    ``Config``; plus ``seed``.
    """

    def __init__(
        self,
        n_envs: int,
        *,
        options: LearnerOptions | None = None,
        seed: int | None = None,
        config: Config | None = None,
        **kwargs: Any,
    ) -> None:
        if not is_int(n_envs) or n_envs < 1:
            raise ValueError(f"n_envs must be a positive int, got {n_envs!r}")
        options, self.config = LearnerOptions.with_config(options, config, kwargs)
        self.render_mode = None
        self.games = LearnerGames(int(n_envs), self.config, options=options)
        self.games.sb3_infos = True
        action_space = spaces.Discrete(self.games.n_actions)
        super().__init__(int(n_envs), self.games.observation_space(), action_space)
        self._seed = None if seed is None else as_seed(seed, "seed")
        self._actions: np.ndarray | None = None

    # -- VecEnv API -----------------------------------------------------------------
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the game generator; takes effect at the next ``reset``."""
        if seed is not None:
            seed = as_seed(seed, "seed")
        self._seed = seed
        return [seed] * self.num_envs

    def reset(self) -> np.ndarray:
        seed = self._seed
        self._reset_seeds()
        self._reset_options()
        obs = self.games.reset(seed=seed)
        self._seed = None  # later resets continue the generator
        self._masks = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = as_array(actions, "actions", IllegalActionError)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        acts = self._actions
        if acts.shape != (self.num_envs,):  # (4, 2) for 8 games is not 8 actions
            raise IllegalActionError(
                f"actions must have shape ({self.num_envs},), got {acts.shape}"
            )
        if acts.dtype.kind == "f":  # SB3 may hand over float arrays of integral values
            whole = np.isfinite(acts) & (acts == np.round(acts))
            if not whole.all():
                g = int(np.flatnonzero(~whole)[0])
                raise IllegalActionError(f"game {g}: action {acts[g]} is not a whole number")
            if (acts < 0).any() or (acts >= self.action_space.n).any():
                g = int(np.flatnonzero((acts < 0) | (acts >= self.action_space.n))[0])
                raise IllegalActionError(
                    f"game {g}: action {acts[g]} is outside 0-{self.action_space.n - 1}"
                )
            acts = acts.astype(np.int64)
        elif acts.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be integers, got dtype {acts.dtype}")
        obs, rewards, terminated, truncated, infos = self.games.step(acts)
        self._actions = None
        self._masks = None
        dones = terminated | truncated
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        pass

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def _all(self, indices: VecEnvIndices, what: str) -> None:
        """The games share one engine and one opponent pool: a change applies to all."""
        if sorted(self._indices(indices)) != list(range(self.num_envs)):
            raise ValueError(
                f"{what} applies to all {self.num_envs} games at once; pass no indices"
            )

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._all(indices, f"set_attr({attr_name!r})")
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        self._all(indices, f"env_method({method_name!r})")
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
