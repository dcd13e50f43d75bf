"""The engine's per-game player counts: one batch, each game by the parameter row of
its count, equals each count's own engine game by game; bad counts are refused."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine

COUNTS = np.array([2, 3, 4, 5, 3, 2], dtype=np.int64)


@pytest.mark.parametrize("mode", ["fixed", "top_card"])
def test_a_mixed_batch_equals_each_counts_engine(mode: str) -> None:
    """Both observation modes have one size for every count: a mixed batch is observed
    as each count's own engine observes it."""
    mixed = Engine(Config(num_players=5, observation_mode=mode))
    alone = {n: Engine(Config(num_players=n, observation_mode=mode)) for n in (2, 3, 4, 5)}
    seeds = np.arange(40, 46, dtype=np.uint64)
    state = mixed.reset(seeds=seeds, counts=COUNTS)
    states = {n: e.reset(seeds=seeds[n == COUNTS]) for n, e in alone.items()}
    rng = np.random.default_rng(0)
    for _ in range(120):
        masks = mixed.legal_masks(state, counts=COUNTS)
        obs = mixed.observe(state, counts=COUNTS)
        acts = random_legal(masks, rng)
        for n, e in alone.items():
            rows = n == COUNTS
            assert np.array_equal(e.legal_masks(states[n]), masks[rows])
            assert np.array_equal(e.observe(states[n]), obs[rows])
            live = states[n].data["phase"] != 2
            e.step(states[n], acts[rows], active=live)
        mixed.step(state, acts, active=state.data["phase"] != 2, counts=COUNTS)
        for n in alone:
            assert state.data[n == COUNTS].tobytes() == states[n].data.tobytes()


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (np.array([2, 6]), r"player counts must be in 2-5, got \[2, 6\]"),
        (np.array([2]), "counts must be 2 integer player counts"),
        (np.array([2.0, 3.0]), "counts must be 2 integer player counts"),
    ],
)
def test_bad_counts_are_refused(counts, message) -> None:
    eng = Engine(Config(num_players=5, observation_mode="fixed"))
    with pytest.raises(ValueError, match=message):
        eng.reset(seeds=[1, 2], counts=counts)


@pytest.mark.parametrize("mode", ["fixed", "top_card"])
def test_a_seat_beyond_its_games_count_is_refused(mode: str) -> None:
    eng = Engine(Config(num_players=4, observation_mode=mode))
    state = eng.reset(seeds=[1, 2], counts=np.array([4, 2]))
    assert eng.observe(state, counts=np.array([4, 2])).shape == (2, eng.obs_dim)
    with pytest.raises(ValueError, match="each below its game's count"):
        eng.observe(state, seats=np.array([3, 3]), counts=np.array([4, 2]))
