"""The ``fixed`` observation: one uint8 layout for 2-5 players that holds what ``recall``
holds, seat slots padded to five; its writes never wrap."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine
from mamma_mia_env.game.observe import observation_size, observation_slices
from mamma_mia_env.game.record import MAX_SEATS, OVER

#: per-seat sections: entries per seat slot
PER_SEAT = {"seats": 6, "delivered": 8, "oven_by_seat": 5, "oven_orders": 56}


def padded(recall: np.ndarray, n: int) -> np.ndarray:
    """Recall views ``(B, size(n))`` as fixed views: the same sections, each per-seat
    section padded with empty slots to ``MAX_SEATS``, a ``seat_present`` flag per slot."""
    rs = observation_slices(n, "recall")
    parts = [np.broadcast_to((np.arange(MAX_SEATS) < n).astype(np.float32), (len(recall), 5))]
    for name, sl in rs.items():
        part = recall[:, sl]
        if name in PER_SEAT:
            k = PER_SEAT[name]
            pad = np.zeros((len(recall), (MAX_SEATS - n) * k), np.float32)
            part = np.concatenate([part, pad], axis=1)
        elif name == "pending_order":
            pad = np.zeros((len(recall), MAX_SEATS - n), np.float32)
            part = np.concatenate([part[:, :n], pad, part[:, n:]], axis=1)
        parts.append(part)
    return np.concatenate(parts, axis=1)


def test_one_size_for_every_table() -> None:
    sizes = {observation_size(n, "fixed") for n in range(2, 6)}
    assert sizes == {Engine(Config(num_players=2, observation_mode="fixed")).obs_dim}
    assert observation_slices(2, "fixed") == observation_slices(5, "fixed")


@pytest.mark.parametrize("doubles", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fixed_is_the_recall_view_padded_in_every_position_of_whole_games(
    n: int, doubles: bool
) -> None:
    """Every position of 48 random whole games, seen by every seat: the uint8 view equals
    the float32 recall view (which cannot wrap) padded, so no uint8 write wrapped, and no
    value exceeds 255."""
    cfg = Config(num_players=n, double_ingredients=doubles)
    fixed = Engine(cfg.replace(observation_mode="fixed"))
    recall = Engine(cfg)
    state = fixed.reset(seeds=1000 * n + doubles, batch_size=48)
    rng = np.random.default_rng(n)
    positions, largest = 0, 0.0
    while True:
        live = state.data["phase"] != OVER
        for s in range(n):
            seats = np.full(state.batch_size, s)
            want = recall.observe(state, seats=seats)
            got = fixed.observe(state, seats=seats)
            assert got.dtype == np.uint8
            assert np.array_equal(got, padded(want, n))
            largest = max(largest, float(want.max()))
        positions += int(live.sum())
        if not live.any():
            break
        fixed.step(state, random_legal(fixed.legal_masks(state), rng))
    assert positions > 48 * 20 and 20 <= largest <= 255


def test_out_buffers_must_be_uint8() -> None:
    """``Engine.observe(out=...)`` takes the mode's dtype only: a float32 buffer would be
    written as uint8 bytes past its meaning, so it is refused with a message."""
    eng = Engine(Config(num_players=3, observation_mode="fixed"))
    state = eng.reset(seeds=[4, 5])
    with pytest.raises(ValueError, match="dtype uint8"):
        eng.observe(state, out=np.zeros((2, eng.obs_dim), np.float32))
    out = np.full((2, eng.obs_dim), 7, np.uint8)
    assert eng.observe(state, out=out) is out
    assert np.array_equal(out, eng.observe(state))
