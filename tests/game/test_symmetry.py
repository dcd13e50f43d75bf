"""The seat canonicalizer's gathers: by seat groups, the same rows as the reference
gather with a whole index array (``take_along_axis``), for every player count, mode and
mix of seats, a batch of one seat, and an empty batch."""

from __future__ import annotations

import numpy as np
import pytest

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.symmetry import SeatCanonicalizer


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("mode", ["fixed", "top_card"])
def test_gathers_equal_the_whole_index_gather(n: int, mode: str) -> None:
    can = SeatCanonicalizer(Config(num_players=n, observation_mode=mode))
    rng = np.random.default_rng(n)
    for seats in (rng.integers(0, n, 64), np.full(7, n - 1), np.arange(n), np.zeros(0, int)):
        b = len(seats)
        masks = (rng.random((b, can.n_actions)) < 0.1).astype(np.int8)
        obs = rng.integers(0, 5, (b, can.obs_dim)).astype(np.float32)
        want = np.take_along_axis(masks, can._c2e[seats], axis=1)
        got = can.masks(masks, seats)
        assert got.dtype == masks.dtype and np.array_equal(got, want)
        if mode != "top_card":  # top_card's obs also moves the top card's order types
            want_obs = np.take_along_axis(obs, can._obs_src[seats], axis=1)
            assert np.array_equal(can.obs(obs, seats), want_obs)


def test_seats_that_do_not_give_one_seat_per_row_are_refused() -> None:
    """A seat list too short or too long, nested, or with a seat the game does not have is
    refused with a message, never gathered into rows left unfilled or wrapped around."""
    can = SeatCanonicalizer(Config(num_players=2))
    masks = np.ones((4, can.n_actions), np.int8)
    obs = np.zeros((4, can.obs_dim), np.float32)
    for seats, message in (
        ([0, 1], "one seat per row"),
        ([0, 1, 0, 1, 0], "one seat per row"),
        ([[0, 1], [1, 0]], "one seat per row"),
        ([0, 1, 0, 2], "in 0..1"),
        ([0, -1, 0, 1], "in 0..1"),
    ):
        with pytest.raises(ValueError, match=message):
            can.masks(masks, np.array(seats))
        with pytest.raises(ValueError, match=message):
            can.obs(obs, np.array(seats))
