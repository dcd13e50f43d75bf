"""One seat's view of the AEC env as learners want it, shared by the adapters.

A policy shared by every seat (self-play) learns one game instead of N when each
seat's observation, mask and actions are relabelled so that it looks like seat 0
(``canonical``, ``mamma_mia_env.game.symmetry``) and the observation is scaled to about
[0, 1] (``normalize``), as the gym and SB3 envs do by default.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from mamma_mia_env.envs.learner import observation_box
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.observe import OBS_DTYPE
from mamma_mia_env.game.symmetry import SeatCanonicalizer, obs_scale


class SeatView:
    """Observation, mask and action maps for one seat at a time."""

    def __init__(self, config: Config, canonical: bool = True, normalize: bool = True) -> None:
        if not isinstance(canonical, bool) or not isinstance(normalize, bool):
            raise TypeError(
                f"canonical and normalize must be bools, got {canonical!r}, {normalize!r}"
            )
        self.canonical = canonical
        self.normalize = normalize
        self.canon = SeatCanonicalizer(config)
        self.scale = obs_scale(config.observation_mode).astype(np.float32)
        self.n_actions = self.canon.n_actions

    def space(self, obs_key: str, mask_dtype: type) -> spaces.Dict:
        """A seat's observation space: ``{obs_key: the view, "action_mask": 0/1}``."""
        box = observation_box(self.canon.obs_dim, OBS_DTYPE, self.scale, self.normalize)
        mask = spaces.Box(0, 1, (self.n_actions,), mask_dtype)
        return spaces.Dict({obs_key: box, "action_mask": mask})

    def observe(
        self, raw: dict[str, np.ndarray], seat: int, obs_key: str, mask_dtype: type
    ) -> dict[str, np.ndarray]:
        """``raw_env.observe``'s dict for ``seat`` in the form of ``space``."""
        mask: np.ndarray = self.mask(raw["action_mask"], seat).astype(mask_dtype, copy=False)
        return {obs_key: self.obs(raw["observation"], seat), "action_mask": mask}

    def obs(self, observation: np.ndarray, seat: int) -> np.ndarray:
        """The seat's own observation vector (from ``raw_env.observe``), as learned on."""
        obs = np.asarray(observation, dtype=OBS_DTYPE)
        if self.canonical:
            obs = self.canon.obs(obs[None], np.array([seat]))[0]
        if self.normalize:
            return (obs / self.scale).astype(np.float32, copy=False)
        return obs

    def mask(self, mask: np.ndarray, seat: int) -> np.ndarray:
        """The seat's legal actions (int8 0/1) in the learner's frame."""
        m = np.asarray(mask, dtype=np.int8)
        if self.canonical:
            m = self.canon.masks(m[None], np.array([seat]))[0]
        return m

    def to_env_action(self, action: int, seat: int) -> int:
        """A learner's action for ``seat`` in the env's frame (checked against the range)."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            arr = np.asarray(action)
            if arr.shape != () or arr.dtype.kind not in "iu":
                raise TypeError(f"action must be an int, got {action!r}")
            action = int(arr)
        a = int(action)
        if not 0 <= a < self.n_actions:
            raise ValueError(f"action must be in 0-{self.n_actions - 1}, got {a}")
        if self.canonical:
            return int(self.canon.to_env_actions(np.array([a]), np.array([seat]))[0])
        return a
