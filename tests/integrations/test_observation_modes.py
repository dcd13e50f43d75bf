"""Both uint8 observations through every adapter: one ``Box(0, 255, (size,), uint8)``
for 2-5 players (``fixed``: 462, ``top_card``: 147; the scaled float view where
``normalize`` asks for it), and the libraries' own checkers pass with either."""

from __future__ import annotations

import numpy as np
import pytest

import mamma_mia_env as mm
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
from mamma_mia_env.envs.vector import MammaMiaVectorEnv

SIZES = {"fixed": 462, "top_card": 147}
MODES = list(SIZES)


def _is_uint8_box(box, mode: str) -> bool:
    return (box.dtype, box.shape, int(box.low.min()), int(box.high.max())) == (
        np.uint8, (SIZES[mode],), 0, 255,
    )  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_vector_envs_hand_out_uint8_views_of_one_size(num_players: int, mode: str) -> None:
    venv = MammaMiaVectorEnv(16, num_players=num_players, observation_mode=mode)
    learner = MammaMiaLearnerVectorEnv(
        8, num_players=num_players, observation_mode=mode, normalize=False
    )
    for env in (venv, learner):
        assert _is_uint8_box(env.single_observation_space, mode)
        obs, info = env.reset(seed=num_players)
        rng = np.random.default_rng(0)
        for _ in range(30):
            assert obs.dtype == np.uint8 and obs.shape == (env.num_envs, SIZES[mode])
            assert env.observation_space.contains(obs)
            masks = info["action_mask"] if env is venv else env.action_masks()
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, *_rest, info = env.step(acts)
    scaled = MammaMiaLearnerVectorEnv(4, num_players=num_players, observation_mode=mode)
    obs, _ = scaled.reset(seed=0)
    assert obs.dtype == np.float32 and scaled.observation_space.contains(obs)


@pytest.mark.parametrize("mode", MODES)
def test_sb3_vec_env_with_either_observation(mode: str) -> None:
    pytest.importorskip("stable_baselines3")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    env = MammaMiaSB3VecEnv(4, num_players=3, observation_mode=mode, normalize=False)
    assert _is_uint8_box(env.observation_space, mode)
    env.seed(1)
    obs = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        assert obs.dtype == np.uint8 and env.observation_space.contains(obs[0])
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        env.step_async(acts)
        obs, *_rest = env.step_wait()


@pytest.mark.parametrize("mode", MODES)
def test_torchrl_check_env_specs_with_either_observation(mode: str) -> None:
    pytest.importorskip("torchrl")
    import torch
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    from mamma_mia_env.integrations.torchrl import LearnerEnv

    env = LearnerEnv(4, num_players=5, observation_mode=mode, normalize=False)
    check_env_specs(env)
    assert env.observation_spec["observation"].dtype == torch.uint8
    td = env.reset()
    assert td["observation"].dtype == torch.uint8
    assert td["observation"].shape == (4, SIZES[mode])
    aec = PettingZooWrapper(
        env=mm.env(num_players=4, observation_mode=mode), use_mask=True,
        categorical_actions=True, seed=0,
    )  # fmt: skip
    check_env_specs(aec)


@pytest.mark.parametrize("mode", MODES)
def test_tianshou_wrapper_with_either_observation(mode: str) -> None:
    pytest.importorskip("tianshou")
    from mamma_mia_env.integrations.tianshou import tianshou_env

    env = tianshou_env(num_players=4, observation_mode=mode, normalize=False)
    obs, _info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    box = env.observation_space["observation"]
    assert _is_uint8_box(box, mode)
    for _ in range(60):
        assert obs["obs"].dtype == np.uint8 and box.contains(obs["obs"])
        obs, _rew, term, trunc, _info = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        if term or trunc:
            break
