"""TorchRL (0.14): the learner-seat games as a batched TorchRL env, the mask in the data.

    from mamma_mia_env.integrations.torchrl import LearnerEnv
    env = LearnerEnv(64, num_players=2)          # 64 games, the learner's view, opponents inside
    td = env.reset()                             # td["observation"] (64, obs_dim) float32,
                                                 # td["action_mask"] (64, n_actions) bool

``LearnerEnv(num_envs, **kwargs)`` is a TorchRL ``EnvBase`` over
``MammaMiaLearnerVectorEnv`` (``kwargs``: its arguments); its ``Categorical`` action spec
follows the mask. Why an adapter (TorchRL's ``GymWrapper`` steps a vector env with
unmasked random actions), the partial resets of finished games and ``"win"``:
docs/INTEGRATIONS.md, "TorchRL" (the AEC and single-game envs need no adapter).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv

__all__ = ["LearnerEnv"]


class LearnerEnv(EnvBase):
    """``num_envs`` learner-seat games as a TorchRL env (module doc)."""

    def __init__(self, num_envs: int = 1, *, device: str = "cpu", **kwargs: Any) -> None:
        self.venv = MammaMiaLearnerVectorEnv(num_envs, **kwargs)
        b = self.venv.num_envs
        super().__init__(device=device, batch_size=torch.Size([b]))
        box, space = self.venv.single_observation_space, self.venv.single_action_space
        assert isinstance(box, spaces.Box) and isinstance(space, spaces.Discrete)
        n = int(space.n)
        flag = Categorical(2, (b, 1), dtype=torch.bool)
        self.observation_spec = Composite(
            observation=Bounded(
                torch.from_numpy(np.broadcast_to(box.low, (b, *box.shape)).copy()),
                torch.from_numpy(np.broadcast_to(box.high, (b, *box.shape)).copy()),
                (b, *box.shape),
                dtype=torch.from_numpy(np.empty(0, box.dtype)).dtype,  # uint8 unless normalised
            ),
            action_mask=Categorical(2, (b, n), dtype=torch.bool),
            win=Unbounded((b, 1), dtype=torch.float32),
            shape=(b,),
        )
        self.action_spec = Categorical(n, (b,), dtype=torch.int64)
        self.reward_spec = Unbounded((b, 1), dtype=torch.float32)
        self.done_spec = Composite(
            done=flag.clone(), terminated=flag.clone(), truncated=flag.clone(), shape=(b,)
        )
        self._seed: int | None = None
        self._pending = np.zeros(b, dtype=bool)  # rows dealt again by the last step
        self._obs: np.ndarray | None = None  # the current view of every row
        self._mask: np.ndarray | None = None

    def _set_seed(self, seed: int | None) -> None:
        self._seed = seed  # the next full reset deals from it

    def _data(self, obs: np.ndarray, mask: np.ndarray, **flags: np.ndarray) -> TensorDictBase:
        """The rows' tensors: ``flags`` (reward, win, done...) copied as ``(B, 1)`` columns."""
        cols = {k: torch.tensor(v).reshape(*self.batch_size, 1) for k, v in flags.items()}
        return TensorDict(
            observation=torch.from_numpy(obs),
            action_mask=torch.from_numpy(mask),
            **cols,
            batch_size=self.batch_size,
            device=self.device,
        )

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        rows = None if tensordict is None else tensordict.get("_reset", None)
        pending = False  # only rows the last step dealt again: hand out their new games
        if rows is not None and self._obs is not None:
            pending = bool(self._pending[rows.reshape(-1).cpu().numpy()].all())
        if not pending:
            self._obs, _info = self.venv.reset(seed=self._seed)
            self._seed = None
            self._mask = self.venv.action_masks()
        self._pending[:] = False
        assert self._obs is not None and self._mask is not None
        self.action_spec.update_mask(torch.from_numpy(self._mask))
        no = np.zeros(len(self._pending), dtype=bool)
        win = np.zeros(len(no), np.float32)
        return self._data(self._obs, self._mask, win=win, done=no, terminated=no, truncated=no)

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        actions = tensordict.get("action").reshape(-1).cpu().numpy()
        obs, reward, terminated, truncated, info = self.venv.step(actions)
        mask = self.venv.action_masks()  # bool, made once per step by the vector env
        done = terminated | truncated
        self._obs, self._mask, self._pending = obs, mask, done.copy()
        win = np.zeros(len(done), dtype=np.float32)
        if done.any():  # the finished games' last view; the new ones wait for the reset
            obs = np.where(done[:, None], info["final_obs"], obs)
            mask = mask & ~done[:, None]
            win[done] = info["final_info"]["result"]["win"][done]
        self.action_spec.update_mask(torch.from_numpy(self._mask))
        return self._data(
            obs, mask, reward=reward, win=win, done=done, terminated=terminated, truncated=truncated
        )
