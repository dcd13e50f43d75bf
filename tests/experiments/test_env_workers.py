"""The env worker processes: each group plays exactly the games of the same env in this
process, and a worker's failure reaches the caller with its message."""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("torch")

from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402

from experiments.common.env_workers import EnvWorkerError, EnvWorkers  # noqa: E402
from experiments.train import cleanrl_ppo  # noqa: E402


def _args(opponent: str = "builder") -> cleanrl_ppo.Args:
    return cleanrl_ppo.Args(num_players="3", opponent=opponent)


def test_each_group_plays_the_games_of_the_same_env_in_process() -> None:
    args, sizes, seed = _args(), [5, 4], 11
    local = [RecordEpisodeStatistics(cleanrl_ppo.make_env(args, n)) for n in sizes]
    rng = np.random.default_rng(0)
    ended = 0
    with EnvWorkers(functools.partial(cleanrl_ppo.make_env, args), sizes) as workers:
        starts = workers.reset(seed)
        infos = []
        for g, env in enumerate(local):
            obs, info = env.reset(seed=seed + g)
            np.testing.assert_array_equal(starts[g][0], obs)
            np.testing.assert_array_equal(starts[g][1], info["action_mask"])
            infos.append(info)
        for _ in range(150):  # past the end of every first game
            actions = [(rng.random(i["action_mask"].shape) * i["action_mask"]).argmax(1)
                       for i in infos]  # fmt: skip
            for g, a in enumerate(actions):
                workers.step_async(g, a)
            for g, env in enumerate(local):
                got = workers.step_wait(g)
                obs, reward, term, trunc, infos[g] = env.step(actions[g])
                done = term | trunc
                np.testing.assert_array_equal(got.obs, obs)
                np.testing.assert_array_equal(got.mask, infos[g]["action_mask"])
                np.testing.assert_array_equal(got.reward, reward)
                np.testing.assert_array_equal(got.done, done)
                if done.any():
                    i = infos[g]
                    np.testing.assert_array_equal(got.episode_returns, i["episode"]["r"][done])
                    np.testing.assert_array_equal(got.wins, i["final_info"]["result"]["win"][done])
                else:
                    assert got.episode_returns.size == got.wins.size == 0
                ended += int(done.sum())
    assert ended > 9  # the comparison covered finished games and their results


def test_a_worker_failure_names_the_problem() -> None:
    bad = _args(opponent="no-such-bot")
    with pytest.raises(EnvWorkerError, match="no-such-bot"):
        EnvWorkers(functools.partial(cleanrl_ppo.make_env, bad), [2, 2])
