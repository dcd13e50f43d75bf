"""Scale-out on Ray: the tournament's Ray backend gives the local backend's games bit for
bit, and RLlib samples with remote env runners, both on a local Ray instance started here."""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from mamma_mia_agents.cli.commands import main as cli_main  # noqa: E402
from mamma_mia_agents.tournament import run_tournament  # noqa: E402
from mamma_mia_env.integrations.ray_cluster import LOOPBACK, init_ray, node_addresses  # noqa: E402

AGENTS = ["random", "counter", "builder"]  # random draws from the batch generators


@pytest.fixture(scope="module")
def local_ray():
    init_ray(num_cpus=2)
    yield
    ray.shutdown()


def test_a_local_ray_instance_stays_on_loopback(local_ray):
    # Ray's default on Linux is the network interface's address, for every node
    assert node_addresses() == [LOOPBACK]
    assert ray.get_runtime_context().gcs_address.startswith(f"{LOOPBACK}:")


def assert_same_games(a, b):
    for key in ("assign", "deal", "delivered", "cards", "turns", "truncated", "schedule"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key), err_msg=key)
    assert a.compute_table() == b.compute_table()


@pytest.mark.parametrize("workers", [1, 3])
def test_ray_backend_is_bit_identical_to_local(local_ray, workers):
    kwargs = dict(num_players=3, games=240, seed=7, workers=workers, batch_size=50, progress=False)
    ray_res = run_tournament(AGENTS, backend="ray", **kwargs)
    local = run_tournament(AGENTS, **kwargs)
    assert_same_games(ray_res, local)
    assert ray_res.truncated.sum() == 0 and len(ray_res.turns) == 240


def test_cli_backend_ray(local_ray, capsys):
    argv = ["tournament", "--players", "2", "--games", "60", "--agents", "random,builder",
            "--seed", "2", "--workers", "2", "--no-progress", "--json"]  # fmt: skip
    assert cli_main([*argv, "--backend", "ray"]) == 0
    via_ray = json.loads(capsys.readouterr().out)
    assert cli_main(argv) == 0
    local = json.loads(capsys.readouterr().out)
    assert via_ray["results"] == local["results"] and via_ray["games"] == 60


def test_address_needs_the_ray_backend(capsys):
    with pytest.raises(SystemExit):
        cli_main(["tournament", "--agents", "random,builder", "--address", "auto"])
    assert "--address needs --backend ray" in capsys.readouterr().err
    with pytest.raises(ValueError, match="backend"):
        run_tournament(["random", "builder"], num_players=2, games=4, backend="dask")


def test_rllib_samples_with_remote_env_runners(local_ray):
    """RLlib's env runners as Ray actors (on a cluster: on its nodes), no glue."""
    pytest.importorskip("ray.rllib")
    from mamma_mia_env.integrations.rllib import ppo_config

    config = ppo_config(
        num_players=2, num_env_runners=1, num_envs_per_env_runner=2, train_batch_size=128,
        minibatch_size=64, seed=1,
    ).training(num_epochs=1)  # fmt: skip
    algo = config.build_algo()
    try:
        result = algo.train()
        runners = algo.env_runner_group.num_remote_env_runners()
    finally:
        algo.stop()
    assert runners == 1
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 128
