"""One uint8 layout per mode for 2-5 players: its size does not depend on the count,
and its writes never wrap."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine
from mamma_mia_env.game import kernels
from mamma_mia_env.game.observe import MODE_CODES, observation_size, observation_slices
from mamma_mia_env.game.record import OVER

MODES = ["fixed", "top_card"]


@pytest.mark.parametrize("mode", MODES)
def test_one_size_for_every_table(mode: str) -> None:
    dims = {Engine(Config(num_players=n, observation_mode=mode)).obs_dim for n in range(2, 6)}
    assert dims == {observation_size(mode)}
    for n in range(2, 6):
        assert Engine(Config(num_players=n, observation_mode=mode)).obs_slices == (
            observation_slices(mode)
        )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("doubles", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_no_write_wraps_in_every_position_of_whole_games(n: int, doubles: bool, mode: str) -> None:
    """Every position of 48 random whole games, seen by every seat: the uint8 view equals
    the same kernel's write into float32 (which cannot wrap), so no uint8 write wrapped,
    and no value exceeds 255."""
    eng = Engine(Config(num_players=n, double_ingredients=doubles, observation_mode=mode))
    state = eng.reset(seeds=1000 * n + doubles, batch_size=48)
    rng = np.random.default_rng(n)
    counts = np.full(state.batch_size, n, np.int64)
    wide = np.empty((state.batch_size, eng.obs_dim), np.float32)
    positions, largest = 0, 0.0
    while True:
        live = state.data["phase"] != OVER
        for s in range(n):
            seats = np.full(state.batch_size, s, np.int64)
            kernels.SERIAL.observe(state.data, seats, counts, MODE_CODES[mode], wide)
            got = eng.observe(state, seats=seats)
            assert got.dtype == np.uint8
            assert np.array_equal(got, wide)
            largest = max(largest, float(wide.max()))
        positions += int(live.sum())
        if not live.any():
            break
        eng.step(state, random_legal(eng.legal_masks(state), rng))
    assert positions > 48 * 20 and 20 <= largest <= 255


@pytest.mark.parametrize("mode", MODES)
def test_out_buffers_must_be_uint8(mode: str) -> None:
    """``Engine.observe(out=...)`` takes uint8 only: a float32 buffer would be written as
    uint8 bytes past its meaning, so it is refused with a message."""
    eng = Engine(Config(num_players=3, observation_mode=mode))
    state = eng.reset(seeds=[4, 5])
    with pytest.raises(ValueError, match="dtype uint8"):
        eng.observe(state, out=np.zeros((2, eng.obs_dim), np.float32))
    out = np.full((2, eng.obs_dim), 7, np.uint8)
    assert eng.observe(state, out=out) is out
    assert np.array_equal(out, eng.observe(state))
