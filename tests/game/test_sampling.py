"""Information-set sampling (game/sampling.py): its arguments, its generator, its speed.

What a sampled world keeps and hides is tested in test_information_set.py.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.sampling import sample_world, sample_worlds
from mamma_mia_env.game.state import check_state


def _positions(cfg: Config, games: int, seed: int) -> list[GameState]:
    """Snapshots of random games at every 7th step (reveal decisions included)."""
    eng = Engine(cfg)
    state = eng.reset(seeds=np.arange(games) + seed)
    rng = np.random.default_rng(seed)
    snaps = []
    step = 0
    while (state.data["phase"] != OVER).any():
        if step % 7 == 3:
            live = np.flatnonzero(state.data["phase"] != OVER)
            snaps.append(state[live])
        eng.step(state, random_legal(eng.legal_masks(state), rng))
        step += 1
    return snaps


def test_same_generator_same_samples_and_input_unchanged() -> None:
    cfg = Config(num_players=4)
    state = _positions(cfg, 2, 3)[5]
    before = state.copy()
    a = sample_world(state, 1, np.random.default_rng(9))
    b = sample_world(state, 1, np.random.default_rng(9))
    assert a.equals(b) and state.equals(before)
    c = sample_world(state, 1, np.random.default_rng(10))
    assert not a.equals(c)


def test_bad_input_is_refused() -> None:
    cfg = Config(num_players=2)
    state = Engine(cfg).reset(seeds=[1, 2])
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="seat must be in 0-1"):
        sample_world(state, 2, rng)
    with pytest.raises(ValueError, match="seat must be one int or 2 seats"):
        sample_world(state, [0, 1, 0], rng)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        sample_world(state, 0, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="samples one game"):
        sample_worlds(state, 0, rng, 10)
    with pytest.raises(ValueError, match="count must be at least 1, got 0"):
        sample_worlds(state[[0]], 0, rng, 0)
    with pytest.raises(TypeError, match="count must be an int"):
        sample_worlds(state[[0]], 0, rng, True)
    with pytest.raises(TypeError, match="seat must be an int"):
        sample_worlds(state[[0]], 1.7, rng, 3)  # was read as seat 1
    with pytest.raises(TypeError, match="seat must be an array"):
        sample_world(state, [0, []], rng)
    with pytest.raises(TypeError, match="state must be a GameState"):
        sample_world("state", 0, rng)  # type: ignore[arg-type]


def test_thousands_of_samples_per_decision() -> None:
    """Fast enough for search: 4,096 worlds of one position well under a second."""
    cfg = Config(num_players=4)
    state = _positions(cfg, 2, 5)[6][[0]]
    rng = np.random.default_rng(0)
    sample_worlds(state, 0, rng, 300)  # compile
    start = time.perf_counter()
    worlds = sample_worlds(state, 0, rng, 4096)
    elapsed = time.perf_counter() - start
    assert worlds.batch_size == 4096 and check_state(worlds) == []
    assert elapsed < 1.0, f"{elapsed:.3f} s for 4,096 samples"
