"""experiments/train/expert_iteration.py and its helpers (common/search_labels.py,
common/distill.py): the labels are the network's own positions with legal, valued
candidates; the fit moves the network toward the best of them; the script checks its
flags and writes a policy file that plays."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import POLICY_FILE

from experiments.common.distill import fit_to_values, numpy_policy, soft_targets, torch_actor
from experiments.common.search_labels import LabelJob, label_games, label_parallel
from experiments.train import expert_iteration
from mamma_mia_agents.bots.ppo_agent import SHIPPED, PPOAgent
from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

POLICY = str(POLICY_FILE[2])


def _job(games: int = 4, **kw: object) -> LabelJob:
    settings = dict(policy_path=POLICY, opponent="builder", labeller_worlds=3,
                    labeller_candidates=3, extra_top=2, num_players=2, first_game=0,
                    games=games, seed=5, batch=2)  # fmt: skip
    return LabelJob(**{**settings, **kw})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def labels() -> dict[str, np.ndarray]:
    return label_games(_job())


def test_labels_are_the_networks_positions_with_legal_valued_candidates(labels) -> None:
    pol = NumpyPolicy.load(POLICY)
    rows = len(labels["obs"])
    assert rows > 20 and labels["wins"].shape == (4,)
    masks = np.unpackbits(labels["masks"], axis=1)[:, : pol.canon.n_actions].astype(bool)
    assert masks.sum(axis=1).min() >= 2  # only decisions with a choice are labelled
    cands, values = labels["cands"], labels["values"]
    ok = cands >= 0
    assert (ok.sum(axis=1) >= 2).all()
    assert np.isfinite(values[ok]).all() and np.isnan(values[~ok]).all()
    assert masks[np.nonzero(ok)[0], cands[ok]].all()  # every candidate legal
    # the network's own favourite is always among the candidates (extra_top)
    logits = np.where(masks, pol.logits(labels["obs"]), -np.inf)
    fav = logits.argmax(axis=1)
    assert (cands == fav[:, None]).any(axis=1).all()


def test_labels_are_reproducible_and_split_over_workers_alike(labels) -> None:
    again = label_games(_job())
    split = label_parallel(_job(), workers=2, progress=False)
    for key in labels:
        assert np.array_equal(labels[key], again[key], equal_nan=True), key
        assert np.array_equal(labels[key], split[key], equal_nan=True), key


def test_soft_targets() -> None:
    cands = np.array([[3, 1, -1], [7, -1, -1]])
    values = np.array([[0.6, 0.5, np.nan], [0.2, np.nan, np.nan]])
    t = soft_targets(cands, values, 0.1)
    assert np.allclose(t.sum(axis=1), 1) and t[0, 2] == 0 and t[1, 0] == 1
    assert np.isclose(t[0, 0] / t[0, 1], np.e)  # 0.1 better at temperature 0.1: e times


def test_the_torch_actor_is_the_policy_and_exports_back() -> None:
    pol = NumpyPolicy.load(POLICY)
    x = np.random.default_rng(0).integers(0, 4, (5, pol.scale.shape[0])).astype(np.float32)
    actor = torch_actor(pol)
    with torch.no_grad():
        logits = actor(torch.from_numpy(x / pol.scale)).numpy()
    assert np.allclose(logits, pol.logits(x), atol=1e-4)
    back = numpy_policy(actor, pol)
    assert np.array_equal(back.logits(x), pol.logits(x))
    assert back.num_players == 2 and back.meta["trained_with"] == pol.meta["trained_with"]


def test_the_fit_moves_the_network_to_the_best_candidates(labels) -> None:
    pol = NumpyPolicy.load(POLICY)
    actor = torch_actor(pol)
    torch.manual_seed(0)
    rows: list[dict] = []
    fit = {"temperature": 0.02, "epochs": 30, "batch_size": 64, "learning_rate": 3e-3,
           "holdout": 0.1}  # fmt: skip
    data = {k: labels[k] for k in ("obs", "masks", "cands", "values")}
    fit_to_values(actor, data, pol.scale, fit, seed=0, log_rows=rows, progress=False)
    assert len(rows) == 30 and rows[-1]["train_loss"] < rows[0]["train_loss"] / 2
    # on the positions it was fitted to (a tenth held out), the network now favours the
    # best candidate: 32% of the 133 positions before the fit, 77% after (seed 0)
    fitted = numpy_policy(actor, pol)
    masks = np.unpackbits(data["masks"], axis=1)[:, : pol.canon.n_actions].astype(bool)
    best = data["cands"][np.arange(len(masks)), np.nanargmax(data["values"], axis=1)]
    before = np.where(masks, pol.logits(data["obs"]), -np.inf).argmax(axis=1)
    fav = np.where(masks, fitted.logits(data["obs"]), -np.inf).argmax(axis=1)
    assert (fav == best).mean() > max(0.7, 2 * (before == best).mean())


def test_the_script_refuses_bad_flags(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a policy")
    cases = [
        (["--games", "3"], "--games must be a multiple of --num-players"),
        (["--init-policy", str(bad)], "--init-policy"),
        (["--init-policy", str(POLICY_FILE[4])], "is not a canonical 2-player"),
        (["--opponent", "nobody"], "--opponent 'nobody'"),
        (["--temperature", "0"], "--temperature must be positive"),
        (["--workers", "0"], "--workers must be positive"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit):
            expert_iteration.parse_args(argv)
        assert message in capsys.readouterr().err


def test_the_script_writes_a_policy_that_plays(tmp_path) -> None:
    """Two labelling workers after the script set two threads: the workers are spawned
    (a fork of a process running OpenMP threads is refused by GNU OpenMP)."""
    out = tmp_path / "run"
    argv = ["--games", "4", "--iterations", "2", "--curve-games", "2", "--final-games", "2",
            "--opponent", "builder", "--init-policy", POLICY, "--workers", "2",
            "--threads", "2", "--labeller-worlds", "2", "--labeller-candidates", "2",
            "--out", str(out)]  # fmt: skip
    assert expert_iteration.main(argv) == 0
    doc = json.loads((out / "result.json").read_text())
    assert [r["round"] for r in doc["rounds"]] == [1, 2]
    assert all(r["positions"] > 0 and r["fit"] for r in doc["rounds"])
    assert doc["final"]["games"] == 2 and doc["provenance"]["seeds"]["final_seed"] > 0
    assert (out / "curve.png").read_bytes()[:4] == b"\x89PNG"
    agent = PPOAgent(out / "policy.npz")
    assert agent.policy(2).meta["trained_with"]["script"] == "expert_iteration.py"


def test_the_shipped_policy_is_the_one_network_run_export() -> None:
    """``ppo`` plays what ``cleanrl_ppo --preset all-counts --export`` made (copied to
    agents/policies/ppo.npz), at every count, and is the one network bundled."""
    root = Path(__file__).resolve().parents[2]
    shipped = (root / "agents" / "policies" / "ppo.npz").read_bytes()
    made = root / "experiments" / "results" / "cleanrl_ppo" / "cleanrl_ppo_all_counts.npz"
    assert shipped == made.read_bytes()
    meta = NumpyPolicy.load(SHIPPED).meta
    assert meta["trained_with"]["name"] == "all_counts" and meta["num_players"] == [2, 3, 4, 5]
    assert sorted(p.name for p in (root / "agents" / "policies").glob("*.npz")) == ["ppo.npz"]
