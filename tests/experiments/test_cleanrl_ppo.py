"""The CleanRL-style PPO script: a few iterations train, stay finite, respect the
masks (the env refuses an illegal action), beat random play on an easy setting, and
write only into the run directory."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("torch")

from experiments import cleanrl_ppo  # noqa: E402

EASY = [
    "--num-players", "2", "--opponent", "random", "--reward-mode", "delivered",
    "--opponent-delivery-penalty", "0", "--total-timesteps", "8192", "--num-envs", "32",
    "--num-steps", "32", "--eval-games", "64", "--seed", "1",
]  # fmt: skip


def test_a_few_iterations_train_and_beat_random(tmp_path) -> None:
    out = tmp_path / "run"
    assert cleanrl_ppo.main([*EASY, "--out", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    assert sorted(p.name for p in out.iterdir()) == [
        "learning_curve.png", "model.pt", "progress.csv", "result.json",
    ]  # fmt: skip
    doc = json.loads((out / "result.json").read_text())
    rows = doc["iterations"]
    assert len(rows) == 8 and rows[-1]["global_step"] == 8192
    for row in rows:
        for key in ("loss", "value_loss", "policy_loss", "entropy", "approx_kl"):
            assert math.isfinite(row[key]), (row["iteration"], key)
    assert all(row["episodes"] > 0 for row in rows)
    ev = doc["evaluation"]
    # every game of both evaluations was played with legal actions only (the env raises
    # on an illegal one) on the same deals; the trained policy delivers more orders
    assert ev["trained"]["games"] == ev["random"]["games"] == 64
    assert ev["trained"]["delivered"] > ev["random"]["delivered"]
    assert doc["provenance"]["seeds"] == {"seed": 1, "eval_seed": 10001}
    assert "git" in doc["provenance"] and "packages" in doc["provenance"]
    assert doc["throughput"]["env_steps"] == 8192


def test_bad_arguments_are_refused(capsys) -> None:
    for argv, message in [
        (["--total-timesteps", "100"], "less than one batch"),
        (["--num-envs", "0"], "--num-envs must be positive"),
        (["--learning-rate", "2"], "--learning-rate"),
        (["--name", "../x"], "--name"),
        (["--norm-adv", "maybe"], "true/false"),
    ]:
        with pytest.raises(SystemExit):
            cleanrl_ppo.parse_args(argv)
        assert message in capsys.readouterr().err
