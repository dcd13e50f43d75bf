"""Scale-out on Ray: the tournament's Ray backend gives the local backend's games bit for
bit, and RLlib samples with remote env runners, both on a local Ray instance started here."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from mamma_mia_agents.cli.commands import main as cli_main  # noqa: E402
from mamma_mia_agents.tournament import run_tournament  # noqa: E402
from mamma_mia_env.integrations.ray_cluster import LOOPBACK, init_ray, node_addresses  # noqa: E402

AGENTS = ["random", "counter", "builder"]  # random draws from the batch generators


@pytest.fixture
def another_instance():
    """Another Ray instance on this machine, as someone's ``ray start --head`` makes one
    (it also names itself the machine's current cluster); stopped with its processes."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        port = s.getsockname()[1]
    ray_cli = Path(sys.executable).with_name("ray")
    cmd = [str(ray_cli), "start", "--head", "--block", "--node-ip-address", LOOPBACK,
           "--port", str(port), "--num-cpus", "1", "--include-dashboard", "false",
           "--disable-usage-stats"]  # fmt: skip
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, "ray start failed"
            time.sleep(0.2)
        time.sleep(1)  # ray start names the current cluster once the head is up
        yield f"{LOOPBACK}:{port}"
    finally:  # ray start and every process it started: one process group
        os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # ray start --block outlives SIGTERM
        proc.wait(30)


def _listening(port: int) -> bool:
    try:
        socket.create_connection((LOOPBACK, port), 1).close()
    except OSError:
        return False
    return True


def test_a_new_instance_even_beside_another_on_the_machine(another_instance):
    """With no address, ``init_ray`` starts its own instance: Ray's ``ray.init()`` joined
    the machine's current cluster instead, and then refused ``num_cpus``."""
    init_ray(num_cpus=2)
    try:
        assert ray.get_runtime_context().gcs_address != another_instance
        assert node_addresses() == [LOOPBACK]
    finally:
        ray.shutdown()


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
