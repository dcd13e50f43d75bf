"""Observations: no hidden information, the documented layout, relative seats, the
memory-free ``top_card`` mode and the perfect-memory ``fixed`` mode (both uint8, one size
for 2-5 players).

Hidden information (docs/ENV.md, RULES.md I2): another seat's hand, the order of the
supply, the order of every order stack (the owner knows its contents, not their order),
and the generator state (the future). The leak tests change exactly those things in
many random mid-game positions and require the observation not to move."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine, GameState, build_position
from mamma_mia_env.game.cards import MAMMA_MIA, N_CARD_TYPES, N_KINDS, N_ORDER_TYPES
from mamma_mia_env.game.observe import (
    OBS_DTYPE,
    observation_layout,
    observation_size,
    observation_slices,
)
from mamma_mia_env.game.record import MAX_SEATS, OVER, PLAY, REVEAL
from mamma_mia_env.game.state import check_state

CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=3, double_ingredients=True),
    dict(num_players=4, double_ingredients=True, mamma_mia_in_deal=True),
]
MODES = ["fixed", "top_card"]
DOC_SIZES = {"fixed": 462, "top_card": 147}


def _ids(cfg: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in cfg.items())


def random_positions(config: Config, n_games: int, seed: int) -> tuple[Engine, GameState]:
    """``n_games`` games, each played with random legal actions to its own random step."""
    eng = Engine(config)
    state = eng.reset(seeds=seed, batch_size=n_games)
    rng = np.random.default_rng(seed)
    target = rng.integers(0, 20 * config.num_players + 20, n_games)  # about a game
    target[: n_games // 10] = 0  # some fresh deals too
    steps = np.zeros(n_games, dtype=np.int64)
    while True:
        active = (state.data["phase"] != OVER) & (steps < target)
        if not active.any():
            return eng, state
        eng.step(state, random_legal(eng.legal_masks(state), rng), active)
        steps += active


def _view(eng: Engine, game: GameState, seat: int) -> np.ndarray:
    return eng.observe(game, seats=[seat])[0].copy()


# -- perturbations of what a seat may not know ------------------------------------------
def permute_supply(game: GameState, rng: np.random.Generator) -> GameState:
    g = game.copy()
    d = g.data
    pos, end = int(d["supply_pos"][0]), int(d["supply_len"][0])
    d["supply"][0, pos:end] = rng.permutation(d["supply"][0, pos:end])
    return g


def permute_stacks(game: GameState, rng: np.random.Generator) -> GameState:
    """Shuffle every order stack (its contents stay) and move its circular-buffer head."""
    g = game.copy()
    d = g.data
    for s in range(g.config.num_players):
        head, length = int(d["stack_head"][0, s]), int(d["stack_len"][0, s])
        entries = [int(d["stack"][0, s, (head + j) % N_ORDER_TYPES]) for j in range(length)]
        entries = rng.permutation(entries) if entries else entries
        new_head = int(rng.integers(N_ORDER_TYPES))
        d["stack"][0, s] = 0
        for j, t in enumerate(entries):
            d["stack"][0, s, (new_head + j) % N_ORDER_TYPES] = t
        d["stack_head"][0, s] = new_head
    return g


def reseed(game: GameState, rng: np.random.Generator) -> GameState:
    g = game.copy()
    g.data["rng"][0] = np.uint64(rng.integers(2**63)) * np.uint64(2) + np.uint64(1)
    g.data["seed"][0] = np.uint64(rng.integers(2**63))
    return g


def swap_hand_with_supply(
    game: GameState, seat: int, rng: np.random.Generator, swaps: int = 3
) -> GameState:
    """Swap ingredient cards of ``seat``'s hand with different cards of the supply."""
    g = game.copy()
    d = g.data
    pos, end = int(d["supply_pos"][0]), int(d["supply_len"][0])
    for _ in range(swaps):
        held = np.flatnonzero(d["hand"][0, seat] > 0)
        if held.size == 0:
            break
        c1 = int(rng.choice(held))
        idx = [i for i in range(pos, end) if d["supply"][0, i] not in (MAMMA_MIA, c1)]
        if not idx:
            continue
        i = int(rng.choice(idx))
        c2 = int(d["supply"][0, i])
        d["hand"][0, seat, c1] -= 1
        d["hand"][0, seat, c2] += 1
        d["supply"][0, i] = c1
    return g


def swap_between_hands(game: GameState, a: int, b: int, rng: np.random.Generator) -> GameState:
    """Swap one card of seat a's hand with a different card of seat b's hand."""
    g = game.copy()
    hand = g.data["hand"][0]
    for _ in range(3):
        ha, hb = np.flatnonzero(hand[a] > 0), np.flatnonzero(hand[b] > 0)
        pairs = [(x, y) for x in ha for y in hb if x != y]
        if not pairs:
            break
        x, y = pairs[int(rng.integers(len(pairs)))]
        hand[a, x] -= 1
        hand[a, y] += 1
        hand[b, y] -= 1
        hand[b, x] += 1
    return g


def _consistent(games: list[GameState]) -> None:
    """The perturbed games are real positions (every card once), checked as one batch."""
    batch = GameState(games[0].config, np.concatenate([g.data for g in games]))
    problems = check_state(batch)
    assert not problems, problems


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_hidden_information_never_reaches_the_observation(cfg: dict, mode: str) -> None:
    config = Config(observation_mode=mode, **cfg)
    n = config.num_players
    eng, batch = random_positions(config, 120, seed=17 * n + len(cfg))
    rng = np.random.default_rng(n)
    changed = {"supply": 0, "stacks": 0, "other_hand": 0, "between_hands": 0}
    own_hand_tested = own_hand_moved = 0
    phases = set()
    perturbed = []
    for b in range(batch.batch_size):
        game = batch[[b]]
        phases.add(int(game.data["phase"][0]))
        base = [_view(eng, game, s) for s in range(n)]
        sup, stk, rs = permute_supply(game, rng), permute_stacks(game, rng), reseed(game, rng)
        everything = reseed(permute_stacks(permute_supply(game, rng), rng), rng)
        changed["supply"] += not sup.equals(game)
        changed["stacks"] += not stk.equals(game)
        for g in (sup, stk, rs, everything):
            perturbed.append(g)
            for s in range(n):
                assert np.array_equal(_view(eng, g, s), base[s]), (b, s)
        for other in range(n):
            g = swap_hand_with_supply(game, other, rng)
            perturbed.append(g)
            changed["other_hand"] += not g.equals(game)
            for s in range(n):
                if s != other:
                    assert np.array_equal(_view(eng, g, s), base[s]), (b, s, other)
            if not np.array_equal(g.data["hand"], game.data["hand"]):  # its owner sees it
                own_hand_tested += 1
                own_hand_moved += not np.array_equal(_view(eng, g, other), base[other])
        if n >= 3:
            a, c = rng.choice(n, size=2, replace=False)
            g = swap_between_hands(game, int(a), int(c), rng)
            perturbed.append(g)
            changed["between_hands"] += not g.equals(game)
            for s in set(range(n)) - {int(a), int(c)}:
                assert np.array_equal(_view(eng, g, s), base[s]), (b, s, a, c)
    _consistent(perturbed)
    # the perturbations really changed the games, so the test is not vacuous
    assert changed["supply"] >= 60 and changed["stacks"] >= 90, changed
    assert changed["other_hand"] >= 60 * n, changed
    assert n < 3 or changed["between_hands"] >= 60, changed
    assert own_hand_tested >= 60 * n and own_hand_moved == own_hand_tested
    assert {PLAY, REVEAL} <= phases, "reveal decisions are among the positions"


# -- sizes, layout and section contents --------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_sizes_and_layout(num_players: int, mode: str) -> None:
    eng = Engine(Config(num_players=num_players, observation_mode=mode))
    layout = observation_layout(mode)
    slices = observation_slices(mode)
    size = observation_size(mode)
    assert size == DOC_SIZES[mode] == eng.obs_dim
    assert eng.obs_layout == layout and eng.obs_slices == slices
    assert [name for name, _ in layout] == list(slices)
    o = 0
    for name, length in layout:
        assert slices[name] == slice(o, o + length), name
        o += length
    assert o == size
    state = eng.reset(seeds=[1, 2])
    assert eng.observe(state).shape == (2, size)
    assert eng.observe(state).dtype == OBS_DTYPE == np.uint8
    with pytest.raises(ValueError, match="seats"):
        eng.observe(state, seats=[0, num_players])


#: docs/ENV.md's entries of each section (first, last), the same at every player count
DOC_OFFSETS = {
    "fixed": {
        "seat_present": (0, 4),
        "hand": (5, 14),
        "orders_in_hand": (15, 22),
        "orders_in_stack": (23, 30),
        "seats": (31, 60),
        "delivered": (61, 100),
        "piles": (101, 110),
        "used": (111, 120),
        "supply_size": (121, 121),
        "round": (122, 124),
        "phase": (125, 126),
        "pending_order": (127, 139),
        "oven_totals": (140, 149),
        "oven_by_seat": (150, 174),
        "oven_orders": (175, 454),
        "oven_progress": (455, 456),
        "personal": (457, 461),
    },
    "top_card": {
        "seat_present": (0, 4),
        "hand": (5, 14),
        "orders_in_hand": (15, 22),
        "seats": (23, 52),
        "delivered": (53, 92),
        "piles": (93, 102),
        "supply_size": (103, 103),
        "round": (104, 106),
        "phase": (107, 108),
        "pending_order": (109, 121),
        "top_card": (122, 141),
        "personal": (142, 146),
    },
}


@pytest.mark.parametrize("mode", MODES)
def test_documented_offsets(mode: str) -> None:
    """docs/ENV.md's tables of the sections' entries."""
    s = observation_slices(mode)
    assert {k: (v.start, v.stop - 1) for k, v in s.items()} == DOC_OFFSETS[mode]


def reference_sections(rec, seat: int, n: int, mode: str) -> dict[str, np.ndarray]:
    """The observation of ``seat`` written again from docs/ENV.md, section by section
    (``MAX_SEATS`` seat slots, the last N to 4 empty)."""
    rel = lambda t: (t - seat) % n  # noqa: E731
    slots = MAX_SEATS
    out: dict[str, np.ndarray] = {}
    out["seat_present"] = (np.arange(slots) < n).astype(np.float32)
    out["hand"] = rec["hand"][seat].astype(np.float32)
    out["orders_in_hand"] = rec["orders_hand"][seat].astype(np.float32)
    if mode != "top_card":
        stack = np.zeros(N_ORDER_TYPES, np.float32)
        head = int(rec["stack_head"][seat])
        for j in range(int(rec["stack_len"][seat])):
            stack[rec["stack"][seat, (head + j) % N_ORDER_TYPES]] = 1
        out["orders_in_stack"] = stack
    seats = np.zeros((slots, 6), np.float32)
    delivered = np.zeros((slots, N_ORDER_TYPES), np.float32)
    for t in range(n):
        j = rel(t)
        seats[j] = [
            rec["hand"][t].sum() + rec["orders_hand"][t].sum(),
            rec["orders_hand"][t].sum(),
            rec["stack_len"][t],
            rec["delivered"][t].sum(),
            rec["mm_holder"] == t,
            rec["seat"] == t,
        ]
        delivered[j] = rec["delivered"][t]
    out["seats"] = seats.ravel()
    out["delivered"] = delivered.ravel()
    out["piles"] = rec["piles"].astype(np.float32)
    if mode != "top_card":
        out["used"] = rec["used"].astype(np.float32)
    out["supply_size"] = np.array([rec["supply_len"] - rec["supply_pos"]], np.float32)
    out["round"] = np.eye(3, dtype=np.float32)[int(rec["round"])]
    in_reveal = int(rec["phase"]) == REVEAL
    out["phase"] = np.eye(2, dtype=np.float32)[int(in_reveal)]
    pending = np.zeros(slots + N_ORDER_TYPES, np.float32)
    if in_reveal:
        i = int(rec["reveal_pos"])
        pending[rel(int(rec["oven_who"][i]))] = 1
        pending[slots + int(rec["oven_what"][i]) - N_KINDS] = 1
    out["pending_order"] = pending
    oven_len = int(rec["oven_len"])
    who, what = rec["oven_who"][:oven_len], rec["oven_what"][:oven_len]
    s_, d_ = rec["oven_s"][:oven_len].tolist(), rec["oven_d"][:oven_len].tolist()
    entries = list(zip(who.tolist(), what.tolist(), s_, d_, strict=True))
    if mode != "top_card":
        totals = np.zeros(N_CARD_TYPES, np.float32)
        by_seat = np.zeros((slots, N_KINDS), np.float32)
        orders = np.zeros((slots, N_ORDER_TYPES, 7), np.float32)
        for i, (who, what, s, d) in enumerate(entries):
            if what < N_KINDS:
                totals[what] += s
                totals[N_KINDS + what] += d
                by_seat[rel(who), what] += s + 2 * d
            else:
                value_before = totals[:N_KINDS] + 2 * totals[N_KINDS:]
                orders[rel(who), what - N_KINDS] = [1, i, *value_before]
        out["oven_totals"] = totals
        out["oven_by_seat"] = by_seat.ravel()
        out["oven_orders"] = orders.ravel()
        out["oven_progress"] = np.array([oven_len, rec["reveal_pos"]], np.float32)
    else:
        top = np.zeros(slots + N_KINDS + N_ORDER_TYPES + 2, np.float32)
        if entries and not in_reveal:
            who, what, s, d = entries[-1]
            top[rel(who)] = 1
            top[slots + what] = 1
            top[slots + N_KINDS + N_ORDER_TYPES :] = [s, d]
        out["top_card"] = top
    out["personal"] = np.eye(5, dtype=np.float32)[seat]
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_every_section_holds_what_the_docs_say(cfg: dict, mode: str) -> None:
    config = Config(observation_mode=mode, **cfg)
    n = config.num_players
    eng, batch = random_positions(config, 80, seed=3 * n + 1)
    slices = observation_slices(mode)
    for s in range(n):
        obs = eng.observe(batch, seats=np.full(batch.batch_size, s))
        for b in range(batch.batch_size):
            expected = reference_sections(batch.data[b], s, n, mode)
            assert set(expected) == set(slices)
            for name, value in expected.items():
                assert np.array_equal(obs[b, slices[name]], value), (b, s, name)
    # the default observer is the seat to act
    acting = eng.observe(batch)
    assert np.array_equal(acting, eng.observe(batch, seats=batch.data["seat"]))


# -- relative seats ----------------------------------------------------------------------
def test_own_data_is_in_slot_zero() -> None:
    """Seats with distinct hand sizes, stacks, deliveries and oven plays."""
    n = 4
    state = build_position(
        {
            "config": {"num_players": n},
            "seat": 3,
            "mm_holder": 2,
            "hands": {
                "0": {"salami": 1},
                "1": {"mushroom": 2},
                "2": {"pepper": 3},
                "3": {"olive": 4},
            },
            "delivered": {"1": [0], "2": [0, 1], "3": [0, 1, 2]},
            "orders_in_hand": {"0": [7]},
            "oven": [[0, "1 pineapple"], [1, "2 pineapple"], [2, "3 pineapple"], [2, "order 5"]],
        }
    )
    eng = Engine(state.config)
    sl = observation_slices("fixed")
    for s in range(n):
        obs = _view(eng, state, s)
        seats = obs[sl["seats"]].reshape(MAX_SEATS, 6)[:n]
        own = [s + 1 + (s == 0), int(s == 0), 8 - s - (s == 0) - (s == 2), s, s == 2, s == 3]
        assert seats[0].tolist() == own, s
        for j in range(n):
            t = (s + j) % n
            assert obs[sl["delivered"]].reshape(MAX_SEATS, 8)[j].sum() == t
            assert seats[j, 4] == (t == 2) and seats[j, 5] == (t == 3)
            assert obs[sl["oven_by_seat"]].reshape(MAX_SEATS, 5)[j, 2] == [1, 2, 3, 0][t]
        orders = obs[sl["oven_orders"]].reshape(MAX_SEATS, 8, 7)
        assert orders[(2 - s) % n, 5, 0] == 1 and orders[(2 - s) % n, 5, 1] == 3
        assert orders[:, :, 0].sum() == 1
        assert obs[sl["hand"]].sum() == s + 1


# -- top_card: no memory -----------------------------------------------------------------
def _history_position(early_oven: list, used: dict) -> dict:
    return {
        "config": {"num_players": 3},
        "seat": 1,
        "hands": {"0": {"salami": 2}, "1": {"mushroom": 3, "olive": 1}, "2": {"pepper": 1}},
        "piles": {"pineapple": 2, "olive": 1},
        "used": used,
        "oven": [*early_oven, [0, "1 pepper"]],
    }


def test_top_card_mode_holds_no_oven_history() -> None:
    """Same top card, piles, hands and counts; different earlier oven cards, orders and
    used stack: the top_card views agree, the fixed (perfect memory) views do not."""
    a = _history_position([[1, "order 3"], [2, "2 olive"], [1, "1 mushroom"]], {"salami": 2})
    b = _history_position([[1, "order 4"], [2, "1 salami"], [1, "2 mushroom"]], {"pepper": 2})
    for mode, same in (("top_card", True), ("fixed", False)):
        config = Config(num_players=3, observation_mode=mode)
        eng = Engine(config)
        ga, gb = build_position(a, config), build_position(b, config)
        assert not ga.equals(gb)
        for s in range(3):
            va, vb = _view(eng, ga, s), _view(eng, gb, s)
            assert np.array_equal(va, vb) == same, (mode, s)
        if mode == "top_card":
            top = _view(eng, ga, 1)[observation_slices(mode)["top_card"]]
            # seat 0 is slot 2 for seat 1 (slots 3-4 empty); pepper is ingredient 3; 1
            # single, 0 doubles
            assert top.tolist() == [0, 0, 1, 0, 0] + [0, 0, 0, 1, 0] + [0] * 8 + [1, 0]
