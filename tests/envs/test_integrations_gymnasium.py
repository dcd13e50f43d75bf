"""Gymnasium conventions: registered ids, episode statistics, info keys, AEC seeding."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mamma_mia_env as mm
from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
from mamma_mia_env.envs.registration import ENV_ID, PLAYER_COUNT_IDS


def play_out(env: gym.Env, rng: np.random.Generator) -> tuple[list[float], dict]:
    rewards, done, info = [], False, {}
    while not done:
        mask = env.unwrapped.action_masks()
        _, r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(r)
        done = te or tr
    return rewards, info


# -- registration ----------------------------------------------------------------------------------
def test_ids_registered_on_import():
    assert ENV_ID == "MammaMia-v0"
    assert ENV_ID in gym.registry
    for n, env_id in PLAYER_COUNT_IDS.items():
        assert env_id == f"MammaMia-{n}p-v0" and env_id in gym.registry


@pytest.mark.parametrize(
    "env_id,players", [(ENV_ID, 4), *((i, n) for n, i in PLAYER_COUNT_IDS.items())]
)
def test_make_gives_the_learner_env(env_id, players):
    env = gym.make(env_id)
    assert isinstance(env.unwrapped, MammaMiaGymEnv)
    assert env.unwrapped.config.num_players == players
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert set(info) >= {"action_mask", "seat"}
    rewards, info = play_out(env, np.random.default_rng(0))
    assert "result" in info and len(rewards) > 3


def test_make_passes_keywords_and_env_checker():
    env = gym.make("MammaMia-2p-v0", reward_mode="delivered", learner_seat=1)
    assert env.unwrapped.config.reward_mode == "delivered"
    assert env.reset(seed=3)[1]["seat"] == 1
    check_env(env.unwrapped, skip_render_check=True)
    with pytest.raises(mm.ConfigError, match="num_players"):
        gym.make("MammaMia-2p-v0", num_players=7)


def test_make_with_module_prefix_imports_the_package():
    """``gymnasium.make("mamma_mia_env:MammaMia-v0")`` works in a fresh interpreter."""
    code = (
        "import gymnasium as gym; e = gym.make('mamma_mia_env:MammaMia-3p-v0');"
        "print(e.unwrapped.config.num_players)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "3"


def test_registration_imports_nothing_heavy():
    """Importing the package registers the ids without loading the gym env, SB3 or torch."""
    code = (
        "import sys, gymnasium, mamma_mia_env;"
        "assert 'MammaMia-v0' in gymnasium.registry;"
        "print(sorted(m for m in ('mamma_mia_env.envs.gym_env', 'torch', 'stable_baselines3',"
        " 'ray', 'tianshou') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registering_twice_is_silent():
    from mamma_mia_env.envs.registration import register_envs

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium warns when an id is overridden
        register_envs()
    assert gym.spec(ENV_ID).entry_point == "mamma_mia_env.envs.gym_env:MammaMiaGymEnv"


# -- episode statistics and info keys --------------------------------------------------------------
def test_record_episode_statistics_counts_the_episode():
    env = gym.wrappers.RecordEpisodeStatistics(gym.make("MammaMia-2p-v0"))
    env.reset(seed=1)
    rewards, info = play_out(env, np.random.default_rng(1))
    assert info["episode"]["l"] == len(rewards)
    assert np.isclose(info["episode"]["r"], sum(rewards))


def test_truncated_game_has_no_legacy_keys_in_gym_env():
    env = MammaMiaGymEnv(num_players=2, max_turns=3)
    env.reset(seed=0)
    _, info = play_out(env, np.random.default_rng(0))
    assert info["result"]["truncated"]
    assert "TimeLimit.truncated" not in info and "episode" not in info


def test_sb3_vec_env_keeps_sb3_conventions():
    """SB3 reads ``episode`` (Monitor's statistics) and ``TimeLimit.truncated`` (to
    bootstrap the value of a cut game): the SB3 VecEnv keeps both."""
    pytest.importorskip("stable_baselines3")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    venv = MammaMiaSB3VecEnv(4, num_players=2, max_turns=3, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        _, _, dones, infos = venv.step(acts)
        if dones.any():
            break
    i = int(np.flatnonzero(dones)[0])
    assert infos[i]["TimeLimit.truncated"] is True
    assert infos[i]["episode"]["l"] >= 1


# -- AEC seeding -----------------------------------------------------------------------------------
def game_seeds(env, seeds: list[int | None]) -> list[int]:
    out = []
    for s in seeds:
        env.reset(seed=s)
        out.append(env.unwrapped.seed_used)
    return out


def test_aec_reset_without_seed_continues_the_seeded_stream():
    a = game_seeds(mm.env(num_players=3), [7, None, None, None])
    b = game_seeds(mm.env(num_players=3), [7, None, None, None])
    assert a == b  # reproducible from the first seed, as gymnasium's reset
    assert a[0] == 7  # the seeded game is dealt from the seed itself
    assert len(set(a)) == 4
    c = game_seeds(mm.env(num_players=3), [8, None, None, None])
    assert c[1:] != a[1:]
    # re-seeding restarts the stream
    assert game_seeds(mm.env(num_players=3), [7, None, 7, None]) == [a[0], a[1], a[0], a[1]]


def test_aec_unseeded_resets_draw_fresh_games():
    assert len(set(game_seeds(mm.env(num_players=2), [None] * 4))) == 4
    e1, e2 = mm.env(num_players=2), mm.env(num_players=2)
    assert game_seeds(e1, [None]) != game_seeds(e2, [None])


def test_aec_game_from_stream_equals_game_from_its_seed():
    e = mm.raw_env(num_players=2)
    e.reset(seed=11)
    e.reset()
    again = mm.raw_env(num_players=2)
    again.reset(seed=e.seed_used)
    assert e.save_state() == again.save_state()


def test_aec_refused_seed_leaves_the_stream_alone():
    a = mm.raw_env(num_players=2)
    a.reset(seed=5)
    with pytest.raises((ValueError, TypeError, OverflowError)):
        a.reset(seed=-1)
    a.reset()
    b = mm.raw_env(num_players=2)
    b.reset(seed=5)
    b.reset()
    assert a.seed_used == b.seed_used


def test_aec_infos_hold_no_none():
    """Tianshou and other buffers turn ``None`` into NaN: no info value is ``None``."""
    e = mm.env(num_players=2)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    seen_over = False
    for _agent in e.agent_iter():
        obs, _, te, tr, info = e.last()
        for a in e.agents:
            assert all(v is not None for v in e.infos[a].values()), e.infos[a]
        if te or tr:
            assert info == {"decision": mm.Decision.NONE, "phase": mm.Phase.OVER, "round": 2}
            seen_over = True
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    assert seen_over
