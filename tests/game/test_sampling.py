"""Information-set sampling (mamma_mia_env/game/sampling.py): consistent, complete, conserving."""

from __future__ import annotations

import time

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.game.cards import MAMMA_MIA, N_KINDS
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


CONFIGS = [
    dict(num_players=2),
    dict(num_players=3, double_ingredients=True),
    dict(num_players=4),
    dict(num_players=5, double_ingredients=True, mamma_mia_in_deal=True),
]


@pytest.mark.parametrize("kw", CONFIGS)
def test_observation_kept_and_cards_conserved(kw: dict) -> None:
    """Every seat's view of a sampled world equals its view of the real one, in both
    observation modes, the acting seat's legal moves too; every card is in one place."""
    cfg = Config(**kw)
    engines = {m: Engine(cfg.replace(observation_mode=m)) for m in ("recall", "top_card")}
    rng = np.random.default_rng(0)
    checked = 0
    for snap in _positions(cfg, 30, 7):
        for seat in range(cfg.num_players):
            world = sample_world(snap, seat, rng)
            assert check_state(world) == []
            seats = np.full(snap.batch_size, seat)
            for eng in engines.values():
                assert (eng.observe(world, seats) == eng.observe(snap, seats)).all()
            acting = snap.data["seat"] == seat
            eng = engines["recall"]
            assert (eng.legal_masks(world)[acting] == eng.legal_masks(snap)[acting]).all()
            assert (world.data["seed"] != snap.data["seed"]).all()
            checked += snap.batch_size
    assert checked > 400


def test_every_hidden_card_reaches_every_feasible_place() -> None:
    """Over many samples, each unseen ingredient card type lands in every other seat's
    hand and on top of the supply; each hidden order is in hand and in the stack."""
    cfg = Config(num_players=3)
    snaps = _positions(cfg, 4, 11)
    state = snaps[len(snaps) // 3][[0]]
    me = int(state.data["seat"][0])
    rec = state.data[0]
    n = cfg.num_players
    worlds = sample_worlds(state, me, np.random.default_rng(1), 4000)
    d = worlds.data
    assert (d["hand"][:, me] == rec["hand"][me]).all()
    # the unseen ingredient card types
    unseen = set(np.flatnonzero(sum(rec["hand"][s] for s in range(n) if s != me)))
    live = rec["supply"][rec["supply_pos"] : rec["supply_len"]]
    unseen |= {int(c) for c in live if c != MAMMA_MIA}
    for s in range(n):
        if s == me or rec["hand"][s].sum() == 0:
            continue
        seen_in_hand = set(np.flatnonzero(d["hand"][:, s].sum(0)))
        assert seen_in_hand == unseen, f"seat {s}"
        assert len({d["hand"][i, s].tobytes() for i in range(len(d))}) > 1
    if len(live) > 1:
        tops = {int(d["supply"][i, rec["supply_pos"]]) for i in range(len(d))}
        expected = unseen | ({MAMMA_MIA} if (live == MAMMA_MIA).any() else set())
        assert tops == expected
    # orders of the other seats: each hidden type in hand in some worlds, stack in others
    for s in range(n):
        if s == me:
            continue
        oven = {
            int(rec["oven_what"][i]) - N_KINDS
            for i in range(rec["reveal_pos"], rec["oven_len"])
            if rec["oven_who"][i] == s and rec["oven_what"][i] >= N_KINDS
        }
        hidden = [t for t in range(8) if not rec["delivered"][s, t] and t not in oven]
        in_hand = d["orders_hand"][:, s].astype(bool)
        for t in hidden:
            if rec["orders_hand"][s].sum() > 0:
                assert in_hand[:, t].any(), (s, t)
            if rec["stack_len"][s] > 0:
                assert (~in_hand[:, t]).any(), (s, t)
        if rec["stack_len"][s] > 1:
            tops = {int(d["stack"][i, s, 0]) for i in range(len(d))}
            assert len(tops) > 1
    assert len(set(d["rng"].tolist())) == len(d)


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


def test_samples_depend_only_on_what_the_seat_knows() -> None:
    """Two states that differ only in hidden cards give the same samples."""
    cfg = Config(num_players=3)
    state = _positions(cfg, 2, 21)[8][[0]]
    me = int(state.data["seat"][0])
    other = sample_world(state, me, np.random.default_rng(123))  # same information set
    assert not other.equals(state)
    a = sample_worlds(state, me, np.random.default_rng(5), 50)
    b = sample_worlds(other, me, np.random.default_rng(5), 50)
    assert a.equals(b)
