"""One owner per rule: game/outcome.py (who won), policy.py (the seat-policy loop),
LearnerOptions (the learner fronts' options)."""

from __future__ import annotations

import numpy as np
import pytest

from mamma_mia_env import Config, Engine
from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
from mamma_mia_env.envs.learner import LearnerGames
from mamma_mia_env.envs.learner_options import LearnerOptions
from mamma_mia_env.game.outcome import (
    delivered_and_cards,
    finishing_ranks,
    game_outcome,
    win_shares,
    winners,
)
from mamma_mia_env.game.record import OVER
from mamma_mia_env.policy import (
    Policy,
    PolicyFailure,
    UniformRandomPolicy,
    observers_for,
    policy_actions,
)


def _finished_games(n: int, games: int, seed: int) -> np.ndarray:
    """Records of ``games`` finished games of uniformly random play."""
    config = Config(num_players=n)
    engine = Engine(config)
    state = engine.reset(seeds=np.arange(seed, seed + games, dtype=np.uint64))
    rng = np.random.default_rng(seed)
    policy = UniformRandomPolicy()
    observers = observers_for(config, [policy])
    while (state.data["phase"] != OVER).any():
        live = state.data["phase"] != OVER
        masks = engine.legal_masks(state)
        acts = policy_actions([policy], np.where(live, 0, -1), state, masks, rng, observers)
        engine.step(state, acts, active=live)
    return state.data


@pytest.mark.parametrize("n", [2, 3, 5])
def test_batched_winners_match_the_compiled_rule(n):
    data = _finished_games(n, 64, seed=n)
    delivered, cards = delivered_and_cards(data, n)
    shares = win_shares(delivered, cards)
    ranks = finishing_ranks(delivered, cards)
    for g in range(len(data)):
        win = np.zeros(n, np.int8)
        count = winners(data[g], n, win)
        assert np.array_equal(shares[g] > 0, win == 1)
        assert np.allclose(shares[g][win == 1], 1.0 / count)
        assert np.array_equal(ranks[g] == 1, win == 1)
    assert np.array_equal(game_outcome(data, n)[1], shares)


def test_ties_share_the_win_and_the_rank():
    delivered = np.array([[3, 3, 1], [2, 2, 2]])
    cards = np.array([[4, 4, 9], [1, 0, 1]])
    assert np.array_equal(win_shares(delivered, cards), [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]])
    assert np.array_equal(finishing_ranks(delivered, cards), [[1, 1, 3], [1, 3, 1]])


class _Bad:
    observation_mode = "fixed"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def act_batch(self, observations, masks, rng, seats=None):
        if self.kind == "raise":
            raise RuntimeError("boom")
        if self.kind == "shape":
            return np.zeros(len(masks) + 1, np.int64)
        return np.array([int(np.flatnonzero(m == 0)[0]) for m in masks])  # illegal


@pytest.mark.parametrize("kind", ["raised", "shape", "illegal"])
def test_policy_failures_are_named(kind):
    config = Config(num_players=2)
    engine = Engine(config)
    state = engine.reset(seeds=[1, 2, 3])
    bad = _Bad({"raised": "raise", "shape": "shape", "illegal": "illegal"}[kind])
    policies = [UniformRandomPolicy(), bad]
    who = np.array([0, 1, 1])
    with pytest.raises(PolicyFailure) as info:
        policy_actions(
            policies, who, state, engine.legal_masks(state), np.random.default_rng(0),
            observers_for(config, policies),
        )  # fmt: skip
    assert info.value.kind == kind and info.value.policy == 1
    assert list(info.value.rows) == [1, 2]
    assert isinstance(UniformRandomPolicy(), Policy)


def test_learner_options_as_keywords_or_dataclass():
    opts = LearnerOptions(learner_seat=1, normalize=False)
    a = LearnerGames(2, Config(num_players=3), options=opts)
    b = LearnerGames(2, Config(num_players=3), learner_seat=1, normalize=False)
    assert a.options == b.options == opts
    env = MammaMiaGymEnv(options=opts, num_players=3)
    assert env.games.learner_seat == 1 and not env.games.normalize
    with pytest.raises(ValueError, match="not both"):
        MammaMiaGymEnv(options=opts, learner_seat=0, num_players=3)
    with pytest.raises(TypeError, match="unknown keywords"):
        LearnerGames(2, Config(num_players=3), num_players=3)
