"""TorchRL: the AEC env through ``PettingZooWrapper`` as it is, the learner-seat env with its
mask in the data, the gym env through ``GymWrapper``, and the training script's smoke run."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torchrl")

import torch  # noqa: E402
from tensordict import TensorDictBase  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402
from torchrl.modules import MaskedCategorical  # noqa: E402

import mamma_mia_env as mm  # noqa: E402
from mamma_mia_env.game.config import OBSERVATION_MODES, REWARD_MODES  # noqa: E402
from mamma_mia_env.integrations.torchrl import LearnerEnv  # noqa: E402


def masked_random(td: TensorDictBase) -> TensorDictBase:
    """A uniformly random legal action for every agent group, drawn by MaskedCategorical."""
    for group in [k for k in td.keys() if k.startswith("player_")]:  # noqa: SIM118 - keys, not rows
        mask = td[group, "action_mask"]
        dist = MaskedCategorical(logits=torch.zeros(mask.shape), mask=mask)
        td[group, "action"] = dist.sample()
    return td


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_the_issue_snippet_wraps_and_checks(num_players: int) -> None:
    env = PettingZooWrapper(
        env=mm.env(num_players=num_players), use_mask=True, categorical_actions=True, seed=0
    )
    check_env_specs(env)
    info = env.observation_spec["player_0", "info"]
    assert set(info.keys()) == {"decision", "phase", "round"}


@pytest.mark.parametrize(
    "num_players, observation_mode, reward_mode",
    [(2, m, r) for m in OBSERVATION_MODES for r in REWARD_MODES] + [(3, "fixed", "win_loss")],
)
def test_a_whole_game_through_rollout(num_players, observation_mode, reward_mode) -> None:
    torch.manual_seed(0)
    cfg = dict(num_players=num_players, observation_mode=observation_mode, reward_mode=reward_mode)
    env = PettingZooWrapper(env=mm.env(**cfg), use_mask=True, categorical_actions=True, seed=3)
    td = env.rollout(5_000, policy=masked_random, break_when_any_done=True)
    raw = env._env.unwrapped
    assert bool(td["next", "done"][-1]) and not td["next", "done"][:-1].any()
    assert td.shape[0] == len(raw.actions_taken)  # one TorchRL step per move of the game
    groups = [f"player_{i}" for i in range(num_players)]
    decisions = torch.stack([td[g, "info", "decision"].squeeze(-1) for g in groups], -1)
    acting = torch.stack([td[g, "mask"].squeeze(-1) for g in groups], -1)
    assert (acting.sum(-1) == 1).all()  # one agent acts per step, and it has a decision
    assert set(decisions[acting].tolist()) <= {float(mm.Decision.TURN), float(mm.Decision.REVEAL)}
    assert (decisions[~acting] == mm.Decision.NONE).all()
    # the same moves in the plain env give the same rewards, seat by seat
    plain = mm.raw_env(**cfg)
    plain.reset(seed=raw.seed_used)
    totals = np.zeros(num_players)
    for a in raw.actions_taken:
        plain.step(a)
        totals += [plain.rewards[g] for g in groups]
    got = torch.stack([td["next", g, "reward"].sum() for g in groups]).numpy()
    assert np.allclose(got, totals)
    final = td["next", "player_0", "info"][-1]
    assert final["phase"] == mm.Phase.OVER and final["decision"] == mm.Decision.NONE


def test_learner_env_specs_and_masked_collection() -> None:
    from torchrl.collectors import Collector

    env = LearnerEnv(4, num_players=2)
    check_env_specs(env)
    env.set_seed(0)
    collector = Collector(
        env, lambda td: _act(td), frames_per_batch=400, total_frames=400,
        auto_register_policy_transforms=False,
    )  # fmt: skip
    batch = next(iter(collector))
    collector.shutdown()
    done = batch["next", "done"].squeeze(-1)
    assert done.any()  # games ended and the collector carried on with new ones
    assert not batch["next", "action_mask"][done].any()  # a finished game has no move
    assert batch["action_mask"].any(-1).all()  # every decision has a legal move
    wins = batch["next", "win"].squeeze(-1)
    assert ((wins >= 0) & (wins <= 1)).all() and (wins[~done] == 0).all()


def _act(td: TensorDictBase) -> TensorDictBase:
    mask = td["action_mask"]
    td["action"] = MaskedCategorical(logits=torch.zeros(mask.shape), mask=mask).sample()
    return td


def test_learner_env_partial_reset_keeps_the_new_games_and_the_mask_is_not_copied() -> None:
    env = LearnerEnv(3, num_players=2, learner_seat=0)
    env.set_seed(1)
    td = env.reset()
    # the mask in the data is the vector env's own bool array, wrapped (one copy per step)
    assert td["action_mask"].dtype == torch.bool
    assert np.shares_memory(td["action_mask"].numpy(), env.venv.action_masks())
    seeds = env.venv.game_seeds().copy()
    while True:
        td = env.step(_act(td))
        done = td["next", "done"].squeeze(-1)
        if done.any():
            break
        td = td["next"].exclude("reward", "win")
    dealt = env.venv.game_seeds().copy()  # the env dealt the next games in that step
    assert (dealt[done.numpy()] != seeds[done.numpy()]).all()
    final = env.venv.final_game_seeds()
    assert (final[done.numpy()] == seeds[done.numpy()]).all()
    reset = env.reset(td["next"].exclude("reward", "win").set("_reset", done.unsqueeze(-1)))
    assert (env.venv.game_seeds() == dealt).all()  # no second deal
    assert reset["action_mask"].any(-1).all() and not reset["done"].any()


def test_gym_env_through_gymwrapper_with_the_mask_from_info() -> None:
    """The single-game gym env as it is: GymWrapper reads ``info["action_mask"]`` (int8)
    with an info reader; the policy casts it to bool."""
    import gymnasium
    from torchrl.data import Unbounded
    from torchrl.envs import GymWrapper, default_info_dict_reader

    base = gymnasium.make("MammaMia-2p-v0")
    n = base.action_space.n
    env = GymWrapper(base, categorical_action_encoding=True)
    spec = Unbounded((n,), dtype=torch.int8)
    env.set_info_dict_reader(default_info_dict_reader(["action_mask"], spec=[spec]))
    check_env_specs(env)

    def policy(td: TensorDictBase) -> TensorDictBase:
        mask = td["action_mask"].bool()
        td["action"] = MaskedCategorical(logits=torch.zeros(n), mask=mask).sample()
        return td

    td = env.rollout(500, policy=policy, break_when_any_done=True)
    assert bool(td["next", "done"][-1])  # a whole game, no illegal move
    assert (td["action_mask"].gather(-1, td["action"][:, None]) == 1).all()


def test_training_script_smoke(tmp_path) -> None:
    from experiments.train import train_torchrl

    assert train_torchrl.main(["--smoke", "--out", str(tmp_path), "--name", "t"]) == 0
    summary = json.loads((tmp_path / "t.json").read_text())
    assert summary["env_steps"] == 256 and summary["evaluation"]["games"] == 20
    assert summary["env_steps_per_s_env_alone"] > 0 and summary["cpu_s"] > 0
    assert (tmp_path / "t.png").exists() and (tmp_path / "t.csv").exists()


def test_integrations_doc_quotes_the_committed_run() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = json.loads((root / "experiments" / "results" / "torchrl" / "2p.json").read_text())
    ev = run["evaluation"]
    assert ev["games"] == 1000 and ev["win_rate_low"] >= 0.9  # the bar set for the integration
    row = (
        f"| {run['env_steps']:,} | {run['wall_s']:.0f} s ({run['cpu_s']:.0f} s) | "
        f"{run['env_steps_per_s_overall']:,.0f} / {run['env_steps_per_s_collect']:,.0f} / "
        f"{run['env_steps_per_s_env_alone']:,.0f} | {ev['win_rate']:.3f} "
        f"({ev['win_rate_low']:.3f}-{ev['win_rate_high']:.3f}) |"
    )
    assert row in (root / "docs" / "INTEGRATIONS.md").read_text()
