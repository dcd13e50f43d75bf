"""The CleanRL-style PPO script: a few iterations train, stay finite, respect the
masks (the env refuses an illegal action), beat random play on an easy setting, and
write only into the run directory."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("torch")

from pathlib import Path  # noqa: E402

from experiments.common.evaluation import FINAL_SEED  # noqa: E402
from experiments.common.policy_export import load_actor  # noqa: E402
from experiments.train import cleanrl_ppo  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

EASY = [
    "--num-players", "2", "--opponent", "random", "--reward-mode", "delivered",
    "--opponent-delivery-penalty", "0", "--total-timesteps", "8192", "--num-envs", "32",
    "--num-steps", "32", "--eval-games", "64", "--seed", "1", "--env-alone-seconds", "0.5",
]  # fmt: skip


def test_a_few_iterations_train_and_beat_random(tmp_path) -> None:
    out = tmp_path / "run"
    assert cleanrl_ppo.main([*EASY, "--out", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    assert sorted(p.name for p in out.iterdir()) == [
        "learning_curve.png", "model.pt", "policy.npz", "progress.csv", "result.json",
        "wall_curve.png",
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
    t = doc["throughput"]
    assert t["env_steps"] == 8192
    # where the loop's time went: the parts are shares of the wall time, and the ratio
    # overall / env alone is what the speeds say
    shares = [t["share_inference"], t["share_gae"], t["share_update"]]
    assert all(0 < x < 1 for x in shares) and sum(shares) < 1
    ratio = t["env_steps_per_s_overall"] / t["env_steps_per_s_env_only"]
    assert t["overall_over_env_only"] == pytest.approx(ratio)
    assert 0 < ratio < 1 and t["env_steps_per_s_rollout"] < t["env_steps_per_s_env_only"]
    # the honest ratio: against the same env stepped alone after training, outside it
    alone = t["env_steps_per_s_env_alone"]
    assert alone > 0
    assert t["overall_over_env_alone"] == pytest.approx(t["env_steps_per_s_overall"] / alone)
    assert 0 < t["cores_busy"] <= 2.5  # CPU seconds per wall second on this 2-core machine


def test_a_seed_gives_the_same_run(tmp_path) -> None:
    small = [
        "--num-players", "2", "--opponent", "builder", "--total-timesteps", "1024",
        "--num-envs", "16", "--num-steps", "32", "--eval-games", "16", "--seed", "3",
        "--env-alone-seconds", "0",
    ]  # fmt: skip
    docs, weights = [], []
    for run in ("a", "b"):
        assert cleanrl_ppo.main([*small, "--out", str(tmp_path / run)]) == 0
        doc = json.loads((tmp_path / run / "result.json").read_text())
        rows = [{k: v for k, v in r.items() if k != "wall_seconds"} for r in doc["iterations"]]
        docs.append((rows, doc["evaluation"]))
        weights.append((tmp_path / run / "model.pt").read_bytes())
    assert docs[0] == docs[1] and weights[0] == weights[1]


def test_sampling_draws_only_legal_actions_in_proportion() -> None:
    torch = pytest.importorskip("torch")
    probs = torch.tensor([[0.0, 0.5, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0],
                          [0.1, 0.2, 0.3, 0.4, 0.0]])  # fmt: skip
    torch.manual_seed(0)
    counts = torch.zeros_like(probs)
    for _ in range(4000):
        counts[torch.arange(3), cleanrl_ppo.sample(probs)] += 1
    assert (counts[probs == 0] == 0).all()  # never an action of probability 0
    assert torch.allclose(counts / 4000, probs, atol=0.03)


def test_bad_arguments_are_refused(capsys) -> None:
    for argv, message in [
        (["--total-timesteps", "100"], "less than one batch"),
        (["--num-envs", "0"], "--num-envs must be positive"),
        (["--num-minibatches", "0"], "--num-minibatches must be positive"),
        (["--env-alone-seconds", "-1"], "--env-alone-seconds must be at least 0.0"),
        (["--learning-rate", "2"], "--learning-rate"),
        (["--name", "../x"], "--name"),
        (["--norm-adv", "maybe"], "true/false"),
        (["--opponent", "nobody"], "--opponent: unknown agent 'nobody'"),
        (["--warm-start-games", "5", "--warm-start-teacher", "x"], "--warm-start-teacher"),
        (["--warm-start-epochs", "0"], "--warm-start-epochs must be positive"),
        (["--curve-games", "0"], "--curve-games must be positive"),
        (["--wall-minutes", "-1"], "--wall-minutes"),
        (["--wall-minutes", "nan"], "--wall-minutes"),
        (["--final-games", "-5"], "--final-games"),
        (["--preset", "an-hour"], "--preset"),
        (["--opponent", "builder,"], "an empty name in the comma-separated list"),
        (["--opponent", "builder,counter"], "--opponent is a pool: give the evaluations'"),
        (["--opponent", "builder,nobody", "--eval-opponent", "search"], "unknown agent 'nobody'"),
        (["--eval-opponent", "nobody"], "--eval-opponent: unknown agent 'nobody'"),
    ]:
        with pytest.raises(SystemExit):
            cleanrl_ppo.parse_args(argv)
        assert message in capsys.readouterr().err


def test_legal_lists_give_the_distribution_of_the_full_mask() -> None:
    """The policy over each row's legal actions (cleanrl_ppo.Legal) is CleanRL's masked
    softmax over all actions: same log-probabilities, entropies and gradients."""
    torch = pytest.importorskip("torch")
    from experiments.train.cleanrl_ppo import Legal

    torch.manual_seed(0)
    agent = cleanrl_ppo.Agent(7, 40, 16)
    for layer in agent.actor:  # logits far from uniform, so that the test has teeth
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.normal_(layer.weight, std=1.0)
    x = torch.randn(64, 7)
    mask = torch.rand(64, 40) < 0.2
    mask[torch.arange(64), torch.randint(0, 40, (64,))] = True  # a legal action per row
    legal = Legal.from_mask(mask)
    assert legal.actions.shape[1] == int(mask.sum(1).max())
    assert torch.equal(legal.valid.sum(1), mask.sum(1))
    assert mask.gather(1, legal.actions)[legal.valid].all()
    action = torch.multinomial(mask.float(), 1).squeeze(1)

    lp = torch.log_softmax(torch.where(mask, agent.actor(x), -1e8), dim=-1)
    ref_logprob = lp.gather(1, action.unsqueeze(1)).squeeze(1)
    ref_entropy = -(lp.exp() * lp).sum(-1)
    ref_grad = torch.autograd.grad((ref_logprob + ref_entropy).sum(), agent.actor[0].weight)
    _, logprob, entropy, _ = agent.get_action_and_value(x, legal, action)
    grad = torch.autograd.grad((logprob + entropy).sum(), agent.actor[0].weight)
    assert torch.allclose(logprob, ref_logprob, atol=1e-5)
    assert torch.allclose(entropy, ref_entropy, atol=1e-5)
    assert torch.allclose(grad[0], ref_grad[0], atol=1e-4)
    with torch.inference_mode():
        drawn, drawn_logprob, _ = agent.act(x, legal)
    assert mask[torch.arange(64), drawn].all()
    assert torch.allclose(
        drawn_logprob, lp.detach().gather(1, drawn.unsqueeze(1)).squeeze(1), atol=1e-5
    )


def test_the_logits_layer_over_the_batchs_legal_actions_is_the_full_layer() -> None:
    """Agent.legal_logits multiplies only the weight rows of actions legal in some row:
    with actions 10-29 legal nowhere, its logits and every gradient (zero for the rows
    of those actions) are the full layer's."""
    torch = pytest.importorskip("torch")
    from experiments.train.cleanrl_ppo import Legal

    torch.manual_seed(1)
    agent = cleanrl_ppo.Agent(7, 40, 16)
    x = torch.randn(32, 7)
    mask = torch.rand(32, 40) < 0.3
    mask[:, 10:30] = False
    mask[:, 0] = True
    legal = Legal.from_mask(mask)
    full = torch.where(legal.valid, agent.actor(x).gather(1, legal.actions), -1e8)
    part = agent.legal_logits(x, legal)
    assert torch.allclose(part, full, atol=1e-6)
    weights = [agent.actor[0].weight, agent.actor[-1].weight, agent.actor[-1].bias]
    ref = torch.autograd.grad(torch.log_softmax(full, -1)[legal.valid].sum(), weights)
    got = torch.autograd.grad(torch.log_softmax(part, -1)[legal.valid].sum(), weights)
    for g, r in zip(got, ref, strict=True):
        assert torch.allclose(g, r, atol=1e-5)
    assert (got[1][10:30] == 0).all() and got[1][30:].abs().sum() > 0


def test_a_preset_sets_flags_and_a_flag_given_with_it_wins() -> None:
    args, _ = cleanrl_ppo.parse_args(["--preset", "ten-minutes"])
    for key, value in cleanrl_ppo.PRESETS["ten-minutes"].items():
        assert getattr(args, key) == value, key
    args, _ = cleanrl_ppo.parse_args(["--preset", "ten-minutes", "--final-games", "10"])
    assert args.final_games == 10 and args.wall_minutes == 10.0
    assert cleanrl_ppo.parse_args([])[0].final_games == 0  # no preset: the plain defaults


def test_the_vs_search_presets_chain_from_the_previous_runs(tmp_path, monkeypatch, capsys) -> None:
    """Each leg's opponents load from the repository (the cheap search by its committed
    import path), it is evaluated against the full search bot, and each leg starts from
    the policy file the previous step writes under runs/ (the chain is run in order);
    without it the leg is refused before it starts, naming the file."""
    from mamma_mia_agents import SearchAgent, load_agent

    one, two = cleanrl_ppo.PRESETS["vs-search-1"], cleanrl_ppo.PRESETS["vs-search-2"]
    cheap = load_agent(one["opponent"])
    assert isinstance(cheap, SearchAgent) and (cheap.worlds, cheap.candidates) == (4, 3)
    assert one["eval_opponent"] == two["eval_opponent"] == "search"
    assert two["opponent"].split(",") == [one["opponent"], "search"]
    ten = cleanrl_ppo.PRESETS["ten-minutes"]
    assert one["init_policy"] == f"runs/{ten['name']}/policy.npz"
    assert two["init_policy"] == f"runs/{one['name']}/policy.npz"
    monkeypatch.chdir(tmp_path)  # no runs/ here
    with pytest.raises(SystemExit):
        cleanrl_ppo.parse_args(["--preset", "vs-search-1"])
    assert "--init-policy: policy file 'runs/2p_ten_minutes/policy.npz'" in capsys.readouterr().err


def test_an_opponent_pool_trains_and_the_evaluations_use_the_eval_opponent(tmp_path) -> None:
    """``--opponent a,b``: the env draws each game's opponents from both; the curve and
    the final evaluation play ``--eval-opponent``."""
    from mamma_mia_agents import BuilderAgent, RandomAgent

    argv = [*EASY[:2], "--opponent", "random,builder", "--eval-opponent", "counter",
            "--total-timesteps", "1024", "--num-envs", "16", "--num-steps", "32",
            "--eval-games", "8", "--curve-every", "1024", "--curve-games", "10",
            "--final-games", "10"]  # fmt: skip
    args, _ = cleanrl_ppo.parse_args(argv)
    env = cleanrl_ppo.make_env(args, 64)
    env.reset(seed=3)
    assert [type(p) for p in env.games.pool] == [RandomAgent, BuilderAgent]
    assert env.games.pool_p.tolist() == [0.5, 0.5]
    opp = env.games.opp
    assert set(np.unique(opp[opp >= 0])) == {0, 1}  # both drawn among 64 games
    out = tmp_path / "run"
    assert cleanrl_ppo.main([*argv, "--out", str(out)]) == 0
    doc = json.loads((out / "result.json").read_text())
    assert doc["evaluation"]["final"]["opponent"] == "counter"
    assert doc["args"]["opponent"] == "random,builder" and len(doc["curve"]) == 2


WARM = [
    "--num-players", "2", "--opponent", "builder", "--total-timesteps", "2048",
    "--num-envs", "16", "--num-steps", "32", "--eval-games", "16", "--seed", "2",
    "--warm-start-games", "60", "--warm-start-epochs", "3", "--curve-every", "1024",
    "--curve-games", "20", "--final-games", "20",
]  # fmt: skip


def test_warm_start_curve_and_final_evaluation(tmp_path) -> None:
    """The warm start fits the agent to the teacher (the holdout accuracy rises above a
    uniform choice's), the curve has a point before PPO and after each curve_every
    steps, and the exported policy file is evaluated on duplicate deals."""
    out = tmp_path / "run"
    assert cleanrl_ppo.main([*WARM, "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "learning_curve.png", "model.pt", "policy.npz", "progress.csv", "result.json",
        "wall_curve.png",
    ]  # fmt: skip
    doc = json.loads((out / "result.json").read_text())
    warm = doc["warm_start"]
    assert len(warm["epochs"]) == 3 and warm["bc_decisions"] > 1000
    assert warm["epochs"][-1]["holdout_accuracy"] > 0.2  # builder's choice, not a guess
    assert warm["epochs"][-1]["train_pi_loss"] < warm["epochs"][0]["train_pi_loss"]
    assert [c["global_step"] for c in doc["curve"]] == [0, 1024, 2048]
    walls = [c["wall_seconds"] for c in doc["curve"]]
    # the curve's times are rounded to 0.01 s: the first comes after the warm start
    assert walls == sorted(walls) and walls[0] >= round(warm["seconds"], 2) - 0.01
    assert warm["seconds"] > 0
    final = doc["evaluation"]["final"]
    assert final["games"] == 20 and final["seed"] == FINAL_SEED
    assert final["win_rate_low"] <= final["win_rate"] <= final["win_rate_high"]
    assert 0 <= final["sampled"]["win_rate"] <= 1  # the same deals, actions drawn
    wall = doc["wall"]
    assert wall["stopped_by"] == "total_timesteps" and len(wall["load_average"]) == 3
    assert wall["training_seconds"] >= wall["warm_start_seconds"] + wall["ppo_seconds"]
    assert doc["provenance"]["seeds"]["final_seed"] == FINAL_SEED


@pytest.mark.parametrize("overlap", ["false", "true"])
def test_the_wall_budget_stops_training(tmp_path, overlap) -> None:
    """With --overlap too: the rollout collected when the budget runs out is waited for
    and dropped (its steps are not counted)."""
    out = tmp_path / "run"
    argv = [*WARM[:-8], "--total-timesteps", "4096000", "--wall-minutes", "0.05"]
    argv += ["--overlap", overlap]
    assert cleanrl_ppo.main([*argv, "--out", str(out)]) == 0
    doc = json.loads((out / "result.json").read_text())
    assert doc["wall"]["stopped_by"] == "wall_minutes"
    assert 0 < doc["throughput"]["env_steps"] < 4096000
    assert doc["throughput"]["env_steps"] == doc["iterations"][-1]["global_step"]
    # an iteration after the first starts only while the budget (3 s) lasts, and the last
    # ends past it by about one iteration (the previous one's time the estimate); the
    # first always runs, however long the warm start took on a loaded machine
    rows = doc["iterations"]
    assert all(r["wall_seconds"] < 3.0 for r in rows[:-1])
    assert len(rows) == 1 or rows[-1]["wall_seconds"] < 3.0 + 2.0


def test_a_budget_spent_before_the_loop_still_trains_one_iteration(tmp_path) -> None:
    """A wall budget shorter than the setup (6 ms here) stops the loop after its first
    iteration: a policy and the loop's throughput, not a division by zero time."""
    out = tmp_path / "run"
    argv = [*EASY[:-2], "--total-timesteps", "2048", "--num-envs", "16", "--eval-games", "8",
            "--env-alone-seconds", "0", "--wall-minutes", "0.0001", "--out", str(out)]  # fmt: skip
    assert cleanrl_ppo.main(argv) == 0
    doc = json.loads((out / "result.json").read_text())
    assert doc["wall"]["stopped_by"] == "wall_minutes" and len(doc["iterations"]) == 1
    assert doc["throughput"]["env_steps"] == 16 * 32 and doc["throughput"]["train_seconds"] > 0
    assert (out / "policy.npz").is_file()


def test_the_exported_policy_plays_as_the_torch_actor(tmp_path) -> None:
    """The numpy policy file, played by PPOAgent on the raw views of any seat, picks the
    torch actor's most likely legal action in the canonical frame it was trained in."""
    torch = pytest.importorskip("torch")
    import numpy as np

    from experiments.train.cleanrl_ppo import export_policy
    from mamma_mia_agents.bots.ppo_agent import PPOAgent
    from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
    from mamma_mia_env.game.symmetry import SeatCanonicalizer, obs_scale

    args, _ = cleanrl_ppo.parse_args(["--hidden", "32"])
    # raw views (not canonical, not scaled): the agent sees them as in a tournament
    envs = MammaMiaLearnerVectorEnv(64, num_players=2, canonical=False, normalize=False)
    canon, scale = SeatCanonicalizer(envs.config), obs_scale()
    torch.manual_seed(0)
    agent = cleanrl_ppo.Agent(envs.single_observation_space.shape[0], 655, 32)
    for layer in agent.actor:  # logits far from uniform, so that the test has teeth
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.normal_(layer.weight, std=0.5)
    export_policy(args, agent, 0).save(tmp_path / "p.npz")
    player = PPOAgent(tmp_path / "p.npz")
    obs, info = envs.reset(seed=5)
    seats_seen = set()
    for _ in range(30):
        seats, mask = info["seat"], info["action_mask"]
        cobs = canon.obs(obs, seats) / scale  # what the training env hands the agent
        with torch.no_grad():
            logits = agent.actor(torch.from_numpy(cobs.astype(np.float32))).numpy()
        want = np.where(canon.masks(mask, seats) != 0, logits, -np.inf).argmax(1)
        got = player.act_batch(obs, mask, np.random.default_rng(0), seats=seats)
        assert (got == canon.to_env_actions(want, seats)).all()
        seats_seen.update(seats.tolist())
        obs, _, _, _, info = envs.step(got)
    assert seats_seen == {0, 1}  # both seats' frames were checked


def test_init_policy_starts_the_actor_from_a_policy_file(tmp_path) -> None:
    """--init-policy: a run's exported actor, loaded into a fresh agent, is the same
    network (every weight), and the run that starts from it trains on."""
    torch = pytest.importorskip("torch")

    from experiments.train.cleanrl_ppo import export_policy
    from mamma_mia_env.game.symmetry import obs_scale

    args, _ = cleanrl_ppo.parse_args(["--hidden", "32"])
    scale = obs_scale()
    torch.manual_seed(0)
    first = cleanrl_ppo.Agent(len(scale), 655, 32)
    export_policy(args, first, 0).save(tmp_path / "p.npz")
    torch.manual_seed(1)
    second = cleanrl_ppo.Agent(len(scale), 655, 32)
    load_actor(second.actor, str(tmp_path / "p.npz"))
    for a, b in zip(first.actor.parameters(), second.actor.parameters(), strict=True):
        assert torch.equal(a, b)
    out = tmp_path / "run"
    argv = [*EASY[:-2], "--hidden", "32", "--total-timesteps", "2048", "--seed", "1"]
    argv += ["--init-policy", str(tmp_path / "p.npz")]
    argv += ["--out", str(out)]
    assert cleanrl_ppo.main(argv) == 0
    doc = json.loads((out / "result.json").read_text())
    assert doc["args"]["init_policy"] == str(tmp_path / "p.npz")
    assert doc["throughput"]["env_steps"] == 2048


def test_an_init_policy_that_does_not_fit_is_refused(tmp_path, capsys) -> None:
    """Refused before the run, with a message naming the file and the misfit: a missing
    or malformed file, a network of the retired recall layout, one of raw seat views
    (canonical false), another width or activation (an SB3 network the
    earlier champions were tuned with), and a warm start given with it. A network of
    another player count fits (the fixed observation has one size for every count)."""
    from helpers import POLICY_FILE

    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    relu_4p, tanh_2p = str(POLICY_FILE[4]), str(POLICY_FILE[2])  # two layers of 256 each
    recall_net = str(
        ROOT / "experiments" / "results" / "cleanrl_ppo" / "cleanrl_ppo_2p_vs_search_1.npz"
    )
    with np.load(tanh_2p, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")))
    np.savez(tmp_path / "raw.npz", meta=np.array(json.dumps({**meta, "canonical": False})),
             **arrays)  # fmt: skip
    wide = ["--hidden", "256"]
    for argv, message in [
        (["--init-policy", str(tmp_path / "none.npz")], "--init-policy"),
        (["--init-policy", str(tmp_path / "junk.npz")], "--init-policy"),
        (["--init-policy", recall_net], "reads the retired 'recall' observation layout"),
        ([*wide, "--init-policy", str(tmp_path / "raw.npz")], "raw seat views is not played"),
        ([*wide, "--init-policy", relu_4p], "its hidden layers are [256, 256] (relu)"),
        (["--init-policy", tanh_2p, "--hidden", "64"], "the agent's two of --hidden 64"),
        ([*wide, "--init-policy", tanh_2p, "--warm-start-games", "10"], "give one"),
    ]:
        with pytest.raises(SystemExit):
            cleanrl_ppo.parse_args(argv)
        err = capsys.readouterr().err
        assert message in err, (argv, err)
    assert cleanrl_ppo.parse_args([*wide, "--init-policy", tanh_2p])[0].init_policy == tanh_2p
    four = cleanrl_ppo.parse_args([*wide, "--num-players", "4", "--init-policy", tanh_2p])[0]
    assert four.init_policy == tanh_2p  # a 2-player network starts a 4-player run


def test_a_narrower_init_policy_is_widened_to_the_same_policy(tmp_path) -> None:
    """--init-policy of a 32-unit file into --hidden 48: the first 32 units hold the
    file's weights, every weight leaving an extra unit is 0 (so the actor's logits are
    the file's, to float precision), and the extra units' incoming weights are fresh
    (not zero: they can learn)."""
    torch = pytest.importorskip("torch")

    from experiments.train.cleanrl_ppo import export_policy
    from mamma_mia_env.game.symmetry import obs_scale

    args, _ = cleanrl_ppo.parse_args(["--hidden", "32"])
    scale = obs_scale()
    torch.manual_seed(0)
    narrow = cleanrl_ppo.Agent(len(scale), 655, 32)
    for layer in narrow.actor:  # logits far from uniform, so that the test has teeth
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.normal_(layer.weight, std=0.5)
    export_policy(args, narrow, 0).save(tmp_path / "p.npz")
    assert cleanrl_ppo.parse_args(["--hidden", "48", "--init-policy", str(tmp_path / "p.npz")])
    wide = cleanrl_ppo.Agent(len(scale), 655, 48)
    load_actor(wide.actor, str(tmp_path / "p.npz"))
    x = torch.rand(256, len(scale))
    with torch.no_grad():
        torch.testing.assert_close(wide.actor(x), narrow.actor(x), rtol=1e-5, atol=1e-5)
    first, second, out = (m for m in wide.actor if isinstance(m, torch.nn.Linear))
    assert (second.weight[:, 32:] == 0).all() and (out.weight[:, 32:] == 0).all()
    assert (first.weight[32:] != 0).any() and (second.weight[32:, :32] != 0).any()
    with pytest.raises(SystemExit):  # wider than the agent: refused
        cleanrl_ppo.parse_args(["--hidden", "16", "--init-policy", str(tmp_path / "p.npz")])


def test_one_network_for_every_count(tmp_path) -> None:
    """Several --num-players: one network over the fixed observation, every batch holding
    games of each count; the curve and the final evaluation give each count its own
    figure, and the policy file plays them all."""
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

    out = tmp_path / "all"
    argv = [
        "--num-players", "2,3,4,5", "--opponent", "random",
        "--total-timesteps", "2048", "--num-envs", "16", "--num-steps", "32",
        "--warm-start-games", "8", "--warm-start-epochs", "1",
        "--curve-every", "1024", "--curve-games", "4", "--final-games", "4",
        "--eval-games", "8", "--env-alone-seconds", "0.2", "--out", str(out),
    ]  # fmt: skip
    assert cleanrl_ppo.main(argv) == 0
    doc = json.loads((out / "result.json").read_text())
    assert [(c["global_step"], c["num_players"]) for c in doc["curve"]] == [
        (step, n) for step in (0, 1024, 2048) for n in (2, 3, 4, 5)
    ]
    finals = doc["evaluation"]["final_by_count"]
    assert sorted(finals) == ["2", "3", "4", "5"] and "final" not in doc["evaluation"]
    assert all(f["games"] >= 4 for f in finals.values())
    policy = NumpyPolicy.load(out / "policy.npz")
    assert policy.counts == (2, 3, 4, 5) and policy.observation_mode == "fixed"
    assert doc["warm_start"]["bc_decisions"] > 0


def test_several_counts_are_checked(capsys) -> None:
    """The learner reads the fixed observation, one size for every count: no flag picks
    another layout."""
    args, _ = cleanrl_ppo.parse_args(["--num-players", "2,4"])
    assert args.counts == (2, 4) and not hasattr(args, "observation_mode")
    with pytest.raises(SystemExit):
        cleanrl_ppo.parse_args(["--observation-mode", "recall"])
    capsys.readouterr()
    for bad in ("2,2", "2, 2", "6", "two", "2,,3"):
        with pytest.raises(SystemExit):
            cleanrl_ppo.parse_args(["--num-players", bad])
        assert "a count 2-5, or several comma-separated" in capsys.readouterr().err


def test_overlap_collects_while_updating_and_a_seed_gives_the_same_run(tmp_path) -> None:
    """--overlap: the next rollout comes from the policy before the update (a thread
    collects it meanwhile), so the run differs from the plain one, trains, and is still
    one run per seed whatever the threads' timing."""
    small = [
        "--num-players", "2,3", "--opponent", "builder", "--total-timesteps", "2048",
        "--num-envs", "16", "--num-steps", "32", "--eval-games", "16", "--seed", "3",
        "--env-alone-seconds", "0.2", "--curve-every", "1024", "--curve-games", "8",
    ]  # fmt: skip
    runs = {}
    for run, flags in (("a", ["--overlap", "true"]), ("b", ["--overlap", "true"]), ("c", [])):
        assert cleanrl_ppo.main([*small, *flags, "--out", str(tmp_path / run)]) == 0
        doc = json.loads((tmp_path / run / "result.json").read_text())
        rows = [{k: v for k, v in r.items() if k != "wall_seconds"} for r in doc["iterations"]]
        runs[run] = (rows, doc["evaluation"], (tmp_path / run / "model.pt").read_bytes())
    assert runs["a"] == runs["b"]
    assert runs["a"][0] != runs["c"][0]  # the lag changes what the updates see
    rows = runs["a"][0]
    assert [r["global_step"] for r in rows] == [512, 1024, 1536, 2048]
    assert all(r["episodes"] > 0 and math.isfinite(r["loss"]) for r in rows)
    t = json.loads((tmp_path / "a" / "result.json").read_text())["throughput"]
    assert t["env_steps"] == 2048 and t["overall_over_env_alone"] > 0
