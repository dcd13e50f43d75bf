"""A short MaskablePPO run through experiments/train/train_ppo.py, and the trained-policy agent."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

from experiments.common.evaluation import evaluate  # noqa: E402
from experiments.train.train_ppo import load_config, train
from mamma_mia_agents import load_agent  # noqa: E402
from mamma_mia_agents.bots.ppo_agent import SHIPPED, PPOAgent
from mamma_mia_agents.bots.ppo_policy import NumpyPolicy  # noqa: E402
from mamma_mia_env import Config, Engine  # noqa: E402
from mamma_mia_env.game.record import OVER  # noqa: E402

SMOKE = [
    "name=smoke",
    "seed=3",
    "env.num_players=2",
    "env.n_envs=32",
    'opponents.pool=["counter", "random"]',
    "bc.games=40",
    "bc.epochs=1",
    "bc.batch_size=256",
    "ppo.total_timesteps=3072",
    "ppo.n_steps=32",
    "ppo.batch_size=512",
    "ppo.n_epochs=2",
    "ppo.net_arch=[64, 64]",
    "self_play.enabled=true",
    "self_play.snapshot_every=1024",
    "self_play.pool_size=2",
    "eval.every=1024",
    "eval.games=8",
    'eval.bots=["counter"]',
    "eval.target=counter",
    "eval.final_games=8",
    'eval.final_bots=["counter"]',
]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo_smoke")
    summary = train(load_config(None, SMOKE), out, progress=False)
    return out, summary


def read_csv(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_short_training_run_has_finite_losses(smoke_run):
    out, summary = smoke_run
    rows = read_csv(out / "logs" / "progress.csv")
    losses = [
        float(r[k])
        for r in rows
        for k in ("train/loss", "train/value_loss", "train/policy_gradient_loss")
        if r.get(k)
    ]
    assert len(losses) >= 3 and all(math.isfinite(x) for x in losses)
    bc = read_csv(out / "bc.csv")
    assert bc and all(math.isfinite(float(bc[0][k])) for k in ("train_pi_loss", "train_vf_loss"))
    assert summary["timings"]["ppo_timesteps"] >= 3072
    evals = read_csv(out / "eval.csv")
    assert [int(r["timesteps"]) for r in evals][:2] == [0, 1024]
    assert (out / "learning_curve.png").stat().st_size > 0
    with open(out / "final_eval.json") as fh:
        assert json.load(fh)["counter"]["games"] == 8
    assert any(r.get("self_play/pool_size") for r in rows)  # self-play snapshots were taken


def test_saved_policy_loads_and_plays_only_legal_actions(smoke_run):
    out, _ = smoke_run
    # the tournament's spec of the same agent
    assert isinstance(load_agent("mamma_mia_agents.bots.ppo_agent:PPOAgent"), PPOAgent)
    assert isinstance(load_agent("ppo"), PPOAgent)  # bundled name
    pol = NumpyPolicy.load(out / "policy.npz")
    assert pol.num_players == 2 and pol.meta["trained_with"]["seed"] == 3
    for deterministic in (True, False):
        agent = PPOAgent(out / "policy.npz", deterministic=deterministic)
        eng = Engine(Config(num_players=2))
        state = eng.reset(seeds=123, batch_size=16)
        rng = np.random.default_rng(0)
        steps = 0
        while (state.data["phase"] != OVER).any():
            live = state.data["phase"] != OVER
            rows = np.flatnonzero(live)
            sub = state[rows]
            masks = eng.legal_masks(sub)
            acts = agent.act_batch(eng.observe(sub), masks, rng, sub.data["seat"])
            assert (masks[np.arange(len(rows)), acts] == 1).all()
            full = np.zeros(16, dtype=np.int64)
            full[rows] = acts
            eng.step(state, full, active=live)
            steps += 1
            assert steps < 3000
    # the SB3 model itself loads and, with masks, predicts legal actions too
    from sb3_contrib import MaskablePPO

    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv

    model = MaskablePPO.load(out / "model.zip", device="cpu")
    env = MammaMiaGymEnv(num_players=2)
    obs, _ = env.reset(seed=0)
    for _ in range(30):
        a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(a)]
        obs, _, te, tr, _ = env.step(int(a))
        if te or tr:
            obs, _ = env.reset()


def test_evaluation_with_the_same_seed_gives_the_same_result(smoke_run):
    out, _ = smoke_run
    agent = PPOAgent(out / "policy.npz")
    a = evaluate(agent, ["counter", "random"], 2, 20, seed=9)
    b = evaluate(PPOAgent(out / "policy.npz"), ["counter", "random"], 2, 20, seed=9)
    for bot in a:
        assert {k: v for k, v in a[bot].items() if k != "elapsed"} == {
            k: v for k, v in b[bot].items() if k != "elapsed"
        }
    # a sampling policy is reproducible too: the tournament seeds its generator
    s1 = evaluate(PPOAgent(out / "policy.npz", deterministic=False), ["counter"], 2, 20, seed=4)
    s2 = evaluate(PPOAgent(out / "policy.npz", deterministic=False), ["counter"], 2, 20, seed=4)
    assert s1["counter"]["win_rate"] == s2["counter"]["win_rate"]


def test_training_is_reproducible_bit_for_bit(smoke_run, tmp_path):
    """The same config and seed give the same policy: the shipped command reproduces."""
    out, _ = smoke_run
    train(load_config(None, SMOKE), tmp_path, progress=False)
    with np.load(out / "policy.npz") as a, np.load(tmp_path / "policy.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for k in a.files:
            if k != "meta":  # meta records timings
                np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("num_players", [2, 4])
def test_shipped_policy_plays_legal_games(num_players):
    assert SHIPPED.exists()
    from mamma_mia_agents.tournament import run_tournament

    res = run_tournament(
        ["ppo", "random"],
        num_players=num_players,
        games=8,
        seed=0,
        workers=1,
        progress=False,
    )
    assert res.games == 8 and not res.truncated.any()


def test_numpy_export_matches_the_sb3_policy(smoke_run):
    """The shipped .npz plays exactly the network SB3 trained (same log-probabilities)."""
    import torch
    from sb3_contrib import MaskablePPO

    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv

    out, _ = smoke_run
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    pol = NumpyPolicy.load(out / "last_policy.npz")  # model.zip is the last model
    env = MammaMiaGymEnv(num_players=2, normalize=False)  # raw canonical views
    rng = np.random.default_rng(0)
    raw, _ = env.reset(seed=5)
    rows = []
    for _ in range(60):
        rows.append(raw)
        raw, _, te, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if te or tr:
            raw, _ = env.reset()
    raw = np.stack(rows)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(raw / pol.scale))
        want = dist.distribution.logits.numpy()
    got = pol.logits(raw)
    got = got - np.log(np.exp(got - got.max(1, keepdims=True)).sum(1, keepdims=True))
    got -= got.max(1, keepdims=True) - want.max(1, keepdims=True)
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_config_typos_are_refused():
    with pytest.raises(SystemExit, match="unknown config key 'eval.evry'.*'eval.every'"):
        load_config(None, ["eval.evry=5"])
    with pytest.raises(SystemExit, match="'bc' must be a section"):
        load_config(None, ["bc=false"])
    cfg = load_config(None, ['env.rules={"strict_minimale": true}'])  # rules are free-form
    assert cfg["env"]["rules"] == {"strict_minimale": True}
