"""Tianshou adapter: Tianshou's multi-agent collector runs whole games, no glue."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tianshou")

import mamma_mia_env as mm  # noqa: E402
from mamma_mia_env.integrations.tianshou import INFO_KEYS, tianshou_env  # noqa: E402


def test_a_whole_game_through_tianshous_wrapper():
    env = tianshou_env(num_players=3, reward_mode="delivered")
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    totals = np.zeros(3)
    steps = 0
    while True:
        assert set(info) == set(INFO_KEYS) and all(isinstance(v, int) for v in info.values())
        legal = np.flatnonzero(obs["mask"])
        assert obs["obs"].dtype == np.float32 and len(legal) > 0
        obs, rew, term, trunc, info = env.step(int(rng.choice(legal)))
        totals += rew
        steps += 1
        if term or trunc:
            break
    assert info == {"decision": mm.Decision.NONE, "phase": mm.Phase.OVER, "round": 2}
    # the same moves in the plain AEC env: the same game, the same deliveries
    raw = env.env.env.unwrapped
    aec = mm.raw_env(num_players=3, reward_mode="delivered")
    aec.reset(seed=4)
    for a in raw.actions_taken:
        aec.step(a)
    assert aec.save_state() == raw.save_state() and steps == len(raw.actions_taken)
    assert totals.sum() == aec.game.data["delivered"][0, :3].sum()


def test_collector_fills_a_buffer_without_nans():
    """The failure Tianshou once reported ('Encountered NaNs in buffer' from None infos)."""
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    env = tianshou_env(num_players=2)
    envs = DummyVectorEnv([lambda: tianshou_env(num_players=2) for _ in range(2)])
    rand = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algo = MultiAgentOffPolicyAlgorithm(algorithms=[rand, rand], env=env)
    buffer = VectorReplayBuffer(5000, 2)
    collector = Collector(algo, envs, buffer)
    collector.reset()
    stats = collector.collect(n_episode=4)
    assert stats.n_collected_episodes >= 4 and len(buffer) == stats.n_collected_steps
    assert not np.isnan(buffer.rew).any()


def test_training_script_runs(tmp_path):
    from experiments.train import train_tianshou

    code = train_tianshou.main(
        ["--iterations", "2", "--steps", "200", "--updates", "5", "--envs", "2",
         "--out", str(tmp_path)]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["env_steps"] >= 400 and summary["env_steps_per_s_overall"] > 0
    assert summary["provenance"]["packages"]["tianshou"] and "git" in summary["provenance"]
    assert (tmp_path / "progress.png").stat().st_size > 0
    rows = (tmp_path / "progress.csv").read_text().splitlines()
    assert len(rows) == 3 and "nan" not in rows[-1]
