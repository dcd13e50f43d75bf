"""The gymnasium learner-seat VectorEnv: its API, the same games as the SB3 VecEnv
(one engine core underneath), rewards routed to the learner, wrappers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers import vector as vw
from helpers import random_legal

from mamma_mia_agents import load_agent
from mamma_mia_env import IllegalActionError
from mamma_mia_env.envs.learner import LearnerGames
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv


def test_api_spaces_and_infos() -> None:
    envs = MammaMiaLearnerVectorEnv(6, num_players=3, opponents=load_agent("builder"))
    assert isinstance(envs, VectorEnv) and isinstance(envs.games, LearnerGames)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    n = envs.games.n_actions
    assert envs.single_action_space == gym.spaces.Discrete(n)
    assert envs.action_space == gym.spaces.MultiDiscrete([n] * 6)
    assert envs.observation_space.shape == (6, envs.games.obs_dim)
    obs, info = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["_action_mask"].all()
    assert (info["seat"] >= 0).all() and (info["seat"] < 3).all()
    rng = np.random.default_rng(0)
    ends = 0
    seats = info["seat"].copy()
    while ends < 10:
        acts = random_legal(info["action_mask"], rng)
        obs, rew, term, trunc, info = envs.step(acts)
        assert rew.shape == (6,) and rew.dtype == np.float32
        assert envs.observation_space.contains(obs)
        assert info["action_mask"].any(axis=1).all()  # every game at a learner decision
        done = term | trunc
        if done.any():
            assert info["_final_obs"].tolist() == done.tolist()
            res = info["final_info"]["result"]
            assert res["_win"].tolist() == done.tolist()
            assert set(np.round(res["win"][done], 6)) <= {0.0, 1.0, 0.5, 0.333333}
            assert (res["seat"][done] == seats[done]).all()  # the finished games' seats
            assert envs.single_observation_space.contains(info["final_obs"][done][0])
            ends += int(done.sum())
        seats = info["seat"].copy()


def test_same_games_as_the_sb3_vec_env() -> None:
    """One core underneath: the same seed and actions give the same everything."""
    kw = dict(num_players=2, reward_mode="delivered_win_loss", opponent_delivery_penalty=1.0)
    gym_envs = MammaMiaLearnerVectorEnv(8, opponents=load_agent("counter"), **kw)
    sb3 = MammaMiaSB3VecEnv(8, opponents=load_agent("counter"), seed=5, **kw)
    obs_g, info = gym_envs.reset(seed=5)
    obs_s = sb3.reset()
    assert np.array_equal(obs_g, obs_s)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(200):
        assert np.array_equal(info["action_mask"] != 0, sb3.action_masks())
        acts = random_legal(info["action_mask"], rng)
        obs_g, rew_g, term, trunc, info = gym_envs.step(acts)
        obs_s, rew_s, dones, infos = sb3.step(acts)
        assert np.array_equal(obs_g, obs_s) and np.array_equal(rew_g, rew_s)
        assert np.array_equal(term | trunc, dones)
        for i in np.flatnonzero(dones):
            assert np.array_equal(info["final_obs"][i], infos[i]["terminal_observation"])
            for key, value in infos[i]["result"].items():
                assert info["final_info"]["result"][key][i] == value
            ends += 1
        assert np.array_equal(gym_envs.game_seeds(), sb3.game_seeds())
    assert ends > 8


def test_rewards_reach_the_learner() -> None:
    """reward_mode="delivered": the learner's return is the orders its seat delivered,
    also those delivered on opponents' moves (reveals they triggered)."""
    envs = MammaMiaLearnerVectorEnv(16, num_players=3, reward_mode="delivered")
    _obs, info = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    ret = np.zeros(16)
    checked = 0
    while checked < 40:
        _obs, rew, term, trunc, info = envs.step(random_legal(info["action_mask"], rng))
        ret += rew
        done = term | trunc
        if done.any():
            got = info["final_info"]["result"]["delivered"]
            assert np.array_equal(ret[done], got[done])
            ret[done] = 0
            checked += int(done.sum())


def test_reset_options_and_bad_input() -> None:
    envs = MammaMiaLearnerVectorEnv(4, num_players=4)
    _obs, info = envs.reset(
        seed=1, options={"game_seeds": [9, 8, 7, 6], "learner_seats": [0, 1, 2, 3]}
    )
    assert envs.game_seeds().tolist() == [9, 8, 7, 6]
    assert info["seat"].tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="unknown reset options"):
        envs.reset(options={"game_seed": 1})
    with pytest.raises(ValueError, match="learner seats"):
        envs.reset(options={"learner_seats": [0, 1, 2, 4]})
    with pytest.raises(TypeError, match="seed"):
        envs.reset(seed=[1, 2, 3, 4])  # type: ignore[arg-type]
    acts = random_legal(info["action_mask"], np.random.default_rng(0))
    bad = acts.copy()
    bad[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    before = envs.games.state.data.copy()
    with pytest.raises(IllegalActionError, match="game 2"):
        envs.step(bad)
    with pytest.raises(IllegalActionError):
        envs.step(acts.astype(np.float32))
    with pytest.raises(IllegalActionError):
        envs.step(acts[:3])
    assert envs.games.state.data.tobytes() == before.tobytes()
    envs.step(acts)


def test_gymnasium_wrappers() -> None:
    envs = vw.RecordEpisodeStatistics(
        MammaMiaLearnerVectorEnv(8, num_players=2, reward_mode="delivered_win_loss")
    )
    _obs, info = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    ret = np.zeros(8)
    while envs.episode_count < 12:
        _obs, rew, term, trunc, info = envs.step(random_legal(info["action_mask"], rng))
        ret += rew
        done = term | trunc
        if done.any():
            assert np.allclose(info["episode"]["r"][done], ret[done])
            ret[done] = 0
    listed = vw.DictInfoToList(MammaMiaLearnerVectorEnv(3, num_players=2))
    _obs, infos = listed.reset(seed=0)
    assert len(infos) == 3 and infos[0]["action_mask"].shape == (655,)


def test_speed_script_writes_its_result(tmp_path) -> None:
    import json

    from experiments.benchmark import learner_env_speed

    out = tmp_path / "speed"
    argv = ["--batch", "4", "--repeats", "1", "--seconds", "0.05", "--out", str(out)]
    assert learner_env_speed.main(argv) == 0
    doc = json.loads((out / "2p_b4.json").read_text())
    assert set(doc["report"]) == {"learner_vector", "sb3_vecenv", "sync_vector_gym"}
    assert all(r["median_steps_per_s"] > 0 for r in doc["report"].values())
    assert "git" in doc["provenance"] and doc["settings"]["opponent"] == "builder"


def test_make_vec_gives_the_batched_env() -> None:
    """The registered ids' vector entry point: gymnasium.make_vec builds one engine
    batch; vectorization_mode="sync" still gives gymnasium's SyncVectorEnv."""
    envs = gym.make_vec("MammaMia-3p-v0", num_envs=5, opponents=load_agent("builder"))
    assert isinstance(envs.unwrapped, MammaMiaLearnerVectorEnv)
    assert envs.num_envs == 5 and envs.unwrapped.num_players == 3
    assert envs.spec is not None and envs.spec.id == "MammaMia-3p-v0"
    obs, info = envs.reset(seed=0)
    assert obs.shape == (5, envs.unwrapped.games.obs_dim)
    envs.step(random_legal(info["action_mask"], np.random.default_rng(0)))
    default = gym.make_vec("MammaMia-v0", num_envs=2)
    assert default.unwrapped.num_players == 4
    sync = gym.make_vec("MammaMia-2p-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)
    sync.close()


def _numbers(obj, out: list) -> None:
    if isinstance(obj, dict):
        for v in obj.values():
            _numbers(v, out)
    else:
        out.extend(np.asarray(obj).ravel().tolist())


def test_no_info_or_observation_holds_a_game_seed() -> None:
    """The game seeds (drawn up to 2**63: each determines every hidden card) stay with
    the experimenter: no number an agent receives equals one."""
    envs = MammaMiaLearnerVectorEnv(8, num_players=3)
    obs, info = envs.reset(seed=11)
    seeds = set(envs.game_seeds().tolist())
    rng = np.random.default_rng(0)
    for _ in range(150):
        handed: list = []
        _numbers(info, handed)
        _numbers(obs, handed)
        assert not seeds & {int(x) for x in handed if float(x).is_integer()}
        obs, _r, _te, _tr, info = envs.step(random_legal(info["action_mask"], rng))
        seeds |= set(envs.game_seeds().tolist()) | set(envs.final_game_seeds().tolist())
        seeds.discard(0)  # final_game_seeds() of a slot with no finished game yet
    assert len(seeds) > 8
