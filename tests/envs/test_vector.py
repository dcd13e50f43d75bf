"""The vector env: same games as the AEC env, autoreset, seeds, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import IllegalActionError, raw_env
from mamma_mia_env.envs.vector import MammaMiaVectorEnv

# 10 configurations x 250 games = 2,500 games through both envs, compared every step.
CONFIGS = [
    dict(num_players=2),
    dict(num_players=3, reward_mode="delivered"),
    dict(num_players=4),
    dict(num_players=5, reward_mode="delivered_win_loss"),
    dict(num_players=3, double_ingredients=True, strict_minimale=True, observation_mode="top_card"),
    dict(num_players=4, mamma_mia_in_deal=True, pass_may_play_order=True, auto_reveal=True),
    dict(num_players=2, double_ingredients=True, idle_cycle_guard=False, max_turns=120),
    dict(num_players=5, random_start_player=True, observation_mode="top_card"),
    dict(num_players=2, observation_mode="fixed"),
    dict(num_players=5, double_ingredients=True, observation_mode="fixed"),
]
GAMES = 250


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_vector_env_equals_aec_env(cfg: dict) -> None:
    n = cfg["num_players"]
    seed = 31 * n + len(cfg)
    venv = MammaMiaVectorEnv(GAMES, **cfg)
    obs, info = venv.reset(seed=seed)
    envs = []
    for i in range(GAMES):
        e = raw_env(**cfg)
        e.reset(seed=seed + i)
        envs.append(e)
    live = np.ones(GAMES, dtype=bool)  # first game of each slot still running
    rng = np.random.default_rng(seed)
    while live.any():
        actions = random_legal(info["action_mask"], rng)
        for i in np.flatnonzero(live):
            e = envs[i]
            assert venv.state.data[i].tobytes() == e.game.data[0].tobytes(), f"game {i}"
            agent = e.agent_selection
            assert info["seat"][i] == e.possible_agents.index(agent)
            o = e.observe(agent)
            assert np.array_equal(o["observation"], obs[i]), f"game {i}: observation"
            assert np.array_equal(o["action_mask"], info["action_mask"][i]), f"game {i}: mask"
            e.step(int(actions[i]))
        obs, rewards, terminated, truncated, info = venv.step(actions)
        for i in np.flatnonzero(live):
            e = envs[i]
            expected = [e.rewards[a] for a in e.possible_agents]
            assert rewards[i].tolist() == expected, f"game {i}: rewards"
            done = terminated[i] or truncated[i]
            assert done == (e.terminations[e.agent_selection] or e.truncations[e.agent_selection])
            if done:
                assert bool(truncated[i]) == bool(e.game.data["truncated"][0])
                final = e.observe(e.possible_agents[int(e.game.data["seat"][0])])
                assert np.array_equal(info["final_obs"][i], final["observation"])
                delivered = e.game.data["delivered"][0, :n].sum(axis=1)
                assert info["final_delivered"][i].tolist() == delivered.tolist()
                assert int(venv.final_game_seeds()[i]) == seed + i
                assert int(venv.game_seeds()[i]) == seed + i + GAMES  # the next deal
                live[i] = False


def test_autoreset_deals_the_next_seed_and_keeps_going() -> None:
    venv = MammaMiaVectorEnv(8, num_players=2)
    obs, info = venv.reset(seed=100)
    assert venv.game_seeds().tolist() == list(range(100, 108))
    assert "game_seed" not in info and "final_seed" not in info  # agents get no seed
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(600):
        obs, rewards, term, trunc, info = venv.step(random_legal(info["action_mask"], rng))
        if term.any():
            assert info["_final_obs"].tolist() == term.tolist()
            # a finished slot shows the first position of its next game
            for i in np.flatnonzero(term):
                assert venv.state.data["turns"][i] == 0
                assert (int(venv.game_seeds()[i]) - 100 - i) % 8 == 0
            finished += int(term.sum())
        assert info["action_mask"].any(axis=1).all()
    assert finished >= 8


def test_same_seed_same_trajectories() -> None:
    def run() -> list[bytes]:
        venv = MammaMiaVectorEnv(32, num_players=4, double_ingredients=True)
        obs, info = venv.reset(seed=9)
        rng = np.random.default_rng(3)
        out = []
        for _ in range(300):
            obs, rewards, *_rest, info = venv.step(random_legal(info["action_mask"], rng))
            out.append(obs.tobytes() + rewards.tobytes())
        return out

    assert run() == run()


def test_bad_actions_name_the_game_and_step_nothing() -> None:
    venv = MammaMiaVectorEnv(16, num_players=3)
    obs, info = venv.reset(seed=1)
    before = venv.state.data.copy()
    good = random_legal(info["action_mask"], np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="shape"):
        venv.step(good[:5])
    with pytest.raises(IllegalActionError, match="integers"):
        venv.step(good.astype(np.float64))
    bad = good.copy()
    bad[11] = int(np.flatnonzero(info["action_mask"][11] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"game 11: action {bad[11]} is illegal"):
        venv.step(bad)
    bad[11] = 10**6
    with pytest.raises(IllegalActionError, match="game 11: action 1000000 is illegal: outside"):
        venv.step(bad)
    assert venv.state.data.tobytes() == before.tobytes()
    venv.step(good)  # still usable


def test_copy_false_reuses_buffers_and_copy_true_does_not() -> None:
    for copy in (True, False):
        venv = MammaMiaVectorEnv(4, num_players=2, copy=copy)
        obs1, info = venv.reset(seed=0)
        obs2, *_rest = venv.step(random_legal(info["action_mask"], np.random.default_rng(0)))
        assert (obs1 is obs2) == (not copy)


def test_constructor_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        MammaMiaVectorEnv(0)
    with pytest.raises(ValueError, match="num_players"):
        MammaMiaVectorEnv(4, num_players=7)
    venv = MammaMiaVectorEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, dtype=np.int64))
