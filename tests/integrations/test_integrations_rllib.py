"""Ray RLlib adapter: the multi-agent env's contract, and a few PPO iterations with no glue."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import mamma_mia_env as mm  # noqa: E402
from mamma_mia_env.integrations.rllib import (  # noqa: E402
    POLICY_ID,
    MammaMiaMultiAgentEnv,
    ppo_config,
)


def random_game(env: MammaMiaMultiAgentEnv, seed: int, rng: np.random.Generator):
    obs, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = []
    while True:
        assert len(obs) == 1
        ((agent, o),) = obs.items()
        assert env.observation_spaces[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        steps.append((agent, action))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        assert set(rewards) == set(env.possible_agents)
        for a, r in rewards.items():
            totals[a] += r
        for info in infos.values():
            assert all(v is not None for v in info.values())
        if terms["__all__"] or truncs["__all__"]:
            assert set(obs) == set(env.possible_agents)  # every seat sees the end
            assert all(terms[a] for a in env.possible_agents) != truncs["__all__"]
            return totals, steps


@pytest.mark.parametrize("num_players", [2, 3])
def test_rewards_match_the_aec_env(num_players):
    """Each seat's summed rewards equal the AEC env's for the same game (canonical
    actions mapped back: the same moves are played)."""
    env = MammaMiaMultiAgentEnv({"num_players": num_players, "reward_mode": "delivered_win_loss"})
    rng = np.random.default_rng(num_players)
    totals, _ = random_game(env, 5, rng)
    aec = mm.raw_env(num_players=num_players, reward_mode="delivered_win_loss")
    aec.reset(seed=5)
    expected = dict.fromkeys(aec.possible_agents, 0.0)
    for a in env.raw.actions_taken:
        aec.step(a)
        for agent, r in aec.rewards.items():
            expected[agent] += r
    assert all(aec.terminations.values())
    assert totals == pytest.approx(expected)
    # win_loss part: the seat totals of a finished game are the engine's result
    assert env.raw.save_state() == aec.save_state()


@pytest.mark.parametrize("num_players", [2, 5])
@pytest.mark.parametrize(("mode", "size"), [("fixed", 462), ("top_card", 147)])
def test_either_observation_is_one_uint8_space(num_players, mode, size):
    """Either observation: one ``Box(0, 255, (size,), uint8)`` at every table, every
    observation of a whole game in it."""
    env = MammaMiaMultiAgentEnv(
        {"num_players": num_players, "observation_mode": mode, "normalize": False}
    )
    box = env.observation_spaces["player_0"]["observations"]
    assert (box.dtype, box.shape, int(box.high.max())) == (np.uint8, (size,), 255)
    _totals, steps = random_game(env, 1, np.random.default_rng(1))  # checks `contains`
    assert len(steps) > 20


def test_canonical_view_and_action_map():
    env = MammaMiaMultiAgentEnv({"num_players": 3})
    raw = mm.raw_env(num_players=3)
    obs, _ = env.reset(seed=9)
    raw.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(40):
        ((agent, o),) = obs.items()
        seat = env._seat[agent]
        legal = np.flatnonzero(o["action_mask"])
        a = int(rng.choice(legal))
        env_a = env.view.to_env_action(a, seat)
        assert raw.observe(agent)["action_mask"][env_a] == 1  # a legal move in the env
        from mamma_mia_env.game.symmetry import SeatCanonicalizer, obs_scale

        canon = SeatCanonicalizer(env.config).obs(raw.observe(agent)["observation"][None], [seat])
        np.testing.assert_allclose(o["observations"], canon[0] / obs_scale(), rtol=1e-6)
        raw.step(env_a)
        obs, *_ = env.step({agent: a})
    assert env.raw.save_state() == raw.save_state()
    plain = MammaMiaMultiAgentEnv({"num_players": 3, "canonical": False, "normalize": False})
    o, _ = plain.reset(seed=9)
    raw.reset(seed=9)
    np.testing.assert_array_equal(
        o["player_0"]["observations"], raw.observe("player_0")["observation"]
    )


def test_illegal_action_ends_the_game_or_raises():
    env = MammaMiaMultiAgentEnv({"num_players": 2})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    bad = int(np.flatnonzero(o["action_mask"] == 0)[0])
    _, rewards, terms, _, infos = env.step({agent: bad})
    assert terms["__all__"] and rewards[agent] == -1.0 and infos[agent]["illegal_action"] >= 0
    strict = MammaMiaMultiAgentEnv({"num_players": 2, "illegal_action": "raise"})
    strict.reset(seed=1)
    with pytest.raises(mm.IllegalActionError):
        strict.step({agent: bad})
    with pytest.raises(ValueError, match="illegal_action"):
        MammaMiaMultiAgentEnv({"illegal_action": "ignore"})
    with pytest.raises(mm.ConfigError, match="num_players"):
        MammaMiaMultiAgentEnv({"num_players": 9})
    with pytest.raises(ValueError, match="no action for"):
        env.reset(seed=1)
        env.step({"player_9": 0})
    with pytest.raises(TypeError, match="action must be an int"):
        env.reset(seed=1)
        env.step({agent: 1.5})


def test_ppo_trains_a_few_iterations():
    """Masked PPO self-play with RLlib's new API stack, built by ``ppo_config`` alone."""
    import ray
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the driver samples: more threads oversubscribe shared cores
    from mamma_mia_env.integrations.ray_cluster import init_ray

    init_ray(num_cpus=1)
    try:
        config = ppo_config(
            num_players=2,
            train_batch_size=256,
            minibatch_size=128,
            num_envs_per_env_runner=4,
            seed=0,
        ).training(num_epochs=1)
        algo = config.build_algo()
        try:
            for _ in range(2):
                result = algo.train()
        finally:
            algo.stop()
    finally:
        ray.shutdown()
        torch.set_num_threads(threads)
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 512
    stats = result["learners"][POLICY_ID]
    assert math.isfinite(stats["policy_loss"]) and math.isfinite(stats["vf_loss"])
    assert stats["entropy"] > 0


def test_training_script_runs(tmp_path):
    import json

    from experiments.train import train_rllib

    code = train_rllib.main(
        ["--iterations", "1", "--batch", "200", "--minibatch", "100", "--epochs", "1",
         "--envs-per-runner", "2", "--out", str(tmp_path)]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["env_steps"] >= 200 and summary["env_steps_per_s_overall"] > 0
    assert summary["ray_nodes"] == 1 and summary["library"].startswith("ray[rllib] ")
    assert summary["provenance"]["packages"]["ray"] and summary["provenance"]["seeds"] == 0
    assert (tmp_path / "progress.png").stat().st_size > 0
