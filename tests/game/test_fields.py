"""``observation_fields`` and ``decode``: every named field of the ``fixed`` and
``top_card`` observations, decoded from what the kernel wrote, equals the same fact read
from the game record, at 2-5 players; every value stays within its documented bound
(all below 256)."""

from __future__ import annotations

import numpy as np
import pytest
from test_observation import random_positions

from mamma_mia_env import Config
from mamma_mia_env.game.cards import N_KINDS, N_ORDER_TYPES
from mamma_mia_env.game.fields import SIZE, decode, observation_fields
from mamma_mia_env.game.observe import observation_size
from mamma_mia_env.game.record import MAX_SEATS, REVEAL
from mamma_mia_env.plumbing.arguments import ArgumentTypeError

S, K, T = MAX_SEATS, N_KINDS, N_ORDER_TYPES
MODES = ["fixed", "top_card"]


def _cards(counts: np.ndarray) -> np.ndarray:
    return np.asarray(counts, np.int64).reshape(2, K)  # singles, doubles


def from_record(rec, seat: int, n: int) -> dict[str, np.ndarray]:
    """Every field as the game record says it, seen by ``seat`` (plain Python ints)."""
    slot_of = lambda t: (t - seat) % n  # noqa: E731
    f: dict[str, np.ndarray] = {"seat_present": (np.arange(S) < n).astype(np.int64)}
    f["hand"] = _cards(rec["hand"][seat])
    f["orders_in_hand"] = rec["orders_hand"][seat].astype(np.int64)
    stack = np.zeros(T, np.int64)
    for j in range(int(rec["stack_len"][seat])):
        stack[rec["stack"][seat, (int(rec["stack_head"][seat]) + j) % T]] = 1
    f["orders_in_stack"] = stack
    per_seat = {k: np.zeros(S, np.int64) for k in ("hand_size", "orders_in_hand", "stack_size")}
    per_seat |= {k: np.zeros(S, np.int64) for k in ("delivered", "mm_holder", "to_act")}
    delivered = np.zeros((S, T), np.int64)
    for t in range(n):
        j = slot_of(t)
        per_seat["hand_size"][j] = int(rec["hand"][t].sum()) + int(rec["orders_hand"][t].sum())
        per_seat["orders_in_hand"][j] = rec["orders_hand"][t].sum()
        per_seat["stack_size"][j] = rec["stack_len"][t]
        per_seat["delivered"][j] = rec["delivered"][t].sum()
        per_seat["mm_holder"][j] = rec["mm_holder"] == t
        per_seat["to_act"][j] = rec["seat"] == t
        delivered[j] = rec["delivered"][t]
    f |= {f"seat_{k}": v for k, v in per_seat.items()}
    f["delivered"] = delivered
    f["piles"], f["used"] = _cards(rec["piles"]), _cards(rec["used"])
    f["supply_size"] = np.int64(int(rec["supply_len"]) - int(rec["supply_pos"]))
    f["round"] = np.eye(3, dtype=np.int64)[int(rec["round"])]
    reveal = int(rec["phase"]) == REVEAL
    f["phase"] = np.eye(2, dtype=np.int64)[int(reveal)]
    f["pending_owner"], f["pending_type"] = np.zeros(S, np.int64), np.zeros(T, np.int64)
    if reveal:
        i = int(rec["reveal_pos"])
        f["pending_owner"][slot_of(int(rec["oven_who"][i]))] = 1
        f["pending_type"][int(rec["oven_what"][i]) - K] = 1
    totals = np.zeros((2, K), np.int64)
    by_seat = np.zeros((S, K), np.int64)
    played, index = np.zeros((S, T), np.int64), np.zeros((S, T), np.int64)
    before = np.zeros((S, T, K), np.int64)
    for i in range(int(rec["oven_len"])):
        who, what = slot_of(int(rec["oven_who"][i])), int(rec["oven_what"][i])
        singles, doubles = int(rec["oven_s"][i]), int(rec["oven_d"][i])
        if what < K:
            totals[:, what] += (singles, doubles)
            by_seat[who, what] += singles + 2 * doubles
        else:
            played[who, what - K], index[who, what - K] = 1, i
            before[who, what - K] = totals[0] + 2 * totals[1]
    f |= {"oven_totals": totals, "oven_by_seat": by_seat, "oven_order_played": played}
    f |= {"oven_order_index": index, "oven_value_before": before}
    f["oven_len"], f["reveal_pos"] = np.int64(rec["oven_len"]), np.int64(rec["reveal_pos"])
    f["personal"] = np.eye(K, dtype=np.int64)[seat]
    top = {k: np.zeros(size, np.int64) for k, size in (("owner", S), ("ingredient", K),
                                                       ("order", T))}  # fmt: skip
    top["singles"], top["doubles"] = np.int64(0), np.int64(0)
    if int(rec["oven_len"]) and not reveal:  # the top card; none shown during a reveal
        i = int(rec["oven_len"]) - 1
        top["owner"][slot_of(int(rec["oven_who"][i]))] = 1
        what = int(rec["oven_what"][i])
        top["ingredient" if what < K else "order"][what if what < K else what - K] = 1
        top["singles"], top["doubles"] = np.int64(rec["oven_s"][i]), np.int64(rec["oven_d"][i])
    f |= {f"top_card_{k}": v for k, v in top.items()}
    return f


@pytest.mark.parametrize("mode", MODES)
def test_fields_tile_the_layout(mode: str) -> None:
    fields = observation_fields(mode)
    size = observation_size(mode)
    assert len({f.name for f in fields}) == len(fields)
    covered = np.zeros(size, np.int64)
    decoded = decode(np.arange(size) % 256)  # each entry names its own position (mod 256)
    for f in fields:
        assert decoded[f.name].shape == f.shape and 1 <= f.high <= 255 and f.meaning
        positions = decode(np.arange(size, dtype=np.int64))[f.name]
        covered[np.ravel(positions)] += 1
    assert (covered == 1).all()  # every entry belongs to exactly one field
    assert observation_size("fixed") == SIZE
    with pytest.raises(ValueError, match="mode must be one of"):
        observation_fields("recall")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("doubles", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_field_round_trips_from_the_record(n: int, doubles: bool, mode: str) -> None:
    config = Config(num_players=n, double_ingredients=doubles, observation_mode=mode)
    eng, batch = random_positions(config, 60, seed=50 * n + doubles)
    fields = observation_fields(mode)
    reveals = 0
    for s in range(n):
        obs = eng.observe(batch, seats=np.full(batch.batch_size, s))
        parts = decode(obs)
        assert list(parts) == [f.name for f in fields]
        for b in range(batch.batch_size):
            want = from_record(batch.data[b], s, n)
            one = decode(obs[b])
            reveals += int(batch.data["phase"][b] == REVEAL)
            for f in fields:
                assert parts[f.name].shape == (batch.batch_size, *f.shape)
                assert np.array_equal(parts[f.name][b], want[f.name]), (b, s, f.name)
                assert np.array_equal(one[f.name], want[f.name]), (b, s, f.name)
                assert int(np.max(want[f.name], initial=0)) <= f.high, (f.name, b)
    assert reveals > 0


def test_decode_refuses_what_is_no_observation() -> None:
    retired_recall = np.zeros(229, np.float32)  # the retired float32 layout, 2 players
    with pytest.raises(ValueError, match=r"462 \(fixed\) or 147 \(top_card\) values"):
        decode(retired_recall)
    for bad in (np.zeros(()), np.zeros((2, 461)), [[1, 2]]):
        with pytest.raises(ValueError, match="must be observations of"):
            decode(bad)
    for bad in (np.array(["a"] * SIZE), np.zeros(SIZE, bool), None):
        with pytest.raises((ArgumentTypeError, TypeError), match="obs"):
            decode(bad)
