"""Tests of the reference oracle itself (tests/support/oracle.py).

Why: the oracle is the yardstick for the engine, so it must be right on its own terms
first. The scenarios below come from the rule texts' worked examples and from the
edge cases that SPEC.md and rulings.md decide; the random-game tests check the
invariants that no rule may break (every card in exactly one place, games end, a seed
fixes the game).
"""

from __future__ import annotations

import random

import pytest

try:  # tests/ as a plain directory (pytest's default rootdir-relative import)
    from oracle import MAMMA_MIA, MASK64, OracleGame, build_play_table, others, splitmix64_next
except ImportError:  # tests/ as a package
    from oracle import (
        MAMMA_MIA,
        MASK64,
        OracleGame,
        build_play_table,
        others,
        splitmix64_next,
    )

SALAMI, MUSHROOM, PINEAPPLE, PEPPER, OLIVE = range(5)
BOMBASTICA, MONOTONI, MINIMALE = 5, 6, 7
GREEN = 3  # Alberto, the green player of the examples: personal ingredient pepper


# ---------------------------------------------------------------- helpers


def cards(**counts: int) -> list[int]:
    """A 10-entry card-count list from names: salami=2, pineapple_d=1 (a double)..."""
    names = ["salami", "mushroom", "pineapple", "pepper", "olive"]
    out = [0] * 10
    for key, value in counts.items():
        if key.endswith("_d"):
            out[5 + names.index(key[:-2])] = value
        else:
            out[names.index(key)] = value
    return out


def empty_hands(n: int) -> list[list[int]]:
    return [[0] * 10 for _ in range(n)]


def scenario(config: dict, **snap: object) -> OracleGame:
    """A game in the given state; remaining snapshot keys take their empty defaults."""
    return OracleGame.from_snapshot(config, snap)


def expected_ingredients(n: int, doubles: bool) -> list[int]:
    per = 13 - {2: 5, 3: 3, 4: 1, 5: 0}[n]
    d = 2 if doubles else 0
    return [per - d] * 5 + [d] * 5


def check_conservation(game: OracleGame) -> None:
    """Every ingredient card, the Mamma Mia! card and every order is in exactly one place."""
    snap = game.snapshot()
    n = game.num_players
    doubles = bool(game.config["double_ingredients"])
    if snap["phase"] == "reveal":
        first_unrevealed = snap["reveal_pos"]
    elif snap["phase"] == "over" and not game.truncated():
        first_unrevealed = len(snap["oven"])
    else:  # play, or a truncated game: the oven is still closed
        first_unrevealed = 0
    unrevealed = snap["oven"][first_unrevealed:]

    found = [0] * 10
    for hand in snap["hands"]:
        for card in range(10):
            found[card] += hand[card]
    for card in snap["supply"]:
        if card != MAMMA_MIA:
            found[card] += 1
    for entry in unrevealed:
        if entry[1] == "ing":
            _, _, k, s, d = entry
            found[k] += s
            found[5 + k] += d
    for card in range(10):
        found[card] += snap["piles"][card] + snap["used"][card]
    assert found == expected_ingredients(n, doubles), snap

    mm_places = snap["supply"].count(MAMMA_MIA) + (1 if snap["mm_holder"] != -1 else 0)
    assert mm_places == 1, snap

    for seat in range(n):
        orders = list(snap["orders_in_hand"][seat]) + list(snap["stacks"][seat])
        orders += list(snap["delivered"][seat])
        orders += [e[2] for e in unrevealed if e[1] == "order" and e[0] == seat]
        assert sorted(orders) == list(range(8)), (seat, snap)
        hand_size = sum(snap["hands"][seat]) + len(snap["orders_in_hand"][seat])
        assert hand_size <= 7, snap


def play_random(game: OracleGame, rng: random.Random, check: bool = False) -> list[dict]:
    """Play uniformly random legal actions to the end; return every snapshot seen."""
    snaps = [game.snapshot()]
    delivered_total: list[tuple[int, int]] = []
    while not game.is_over():
        legal = game.legal_actions()
        assert legal == sorted(set(legal)) and legal
        if game.phase() == "reveal":
            assert len(legal) >= 2 and min(legal) >= game.n_turn
            assert not game.config["auto_reveal"]
        else:
            assert max(legal) < game.n_turn
        delivered_total += game.apply(rng.choice(legal))
        snaps.append(game.snapshot())
        if check:
            check_conservation(game)
    per_seat = [
        sorted(t for s, t in delivered_total if s == seat) for seat in range(game.num_players)
    ]
    assert per_seat == snaps[-1]["delivered"]
    return snaps


VARIANTS = [
    {},
    {"mamma_mia_in_deal": True},
    {"pass_may_play_order": True},
    {"strict_minimale": True},
    {"double_ingredients": True},
    {"random_start_player": True},
    {"auto_reveal": True},
    {
        "mamma_mia_in_deal": True,
        "pass_may_play_order": True,
        "strict_minimale": True,
        "double_ingredients": True,
        "random_start_player": True,
    },
]


# ---------------------------------------------------------------- numbers


def test_splitmix64_reference_values() -> None:
    """Published SplitMix64 outputs (seed 0, and Vigna's test seed 1234567)."""
    _, out = splitmix64_next(0)
    assert out == 0xE220A8397B1DCDAF
    state, outs = 1234567, []
    for _ in range(5):
        state, out = splitmix64_next(state)
        outs.append(out)
    assert outs == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_action_numbering() -> None:
    table = build_play_table(False)
    assert len(table) == 36 and table[0] is None
    for k in range(5):
        for s in range(1, 8):
            assert table[1 + 7 * k + (s - 1)] == (k, s, 0)
    assert len(build_play_table(True)) == 101
    assert OracleGame({}, 0).n_actions == 36 * 18 + 7
    assert OracleGame({"double_ingredients": True}, 0).n_actions == 101 * 18 + 7
    g = OracleGame({}, 0)
    assert g.decode(g.encode(35, 8, 1)) == (35, 8, 1)
    assert others(PEPPER) == [SALAMI, MUSHROOM, PINEAPPLE, OLIVE]


def test_seed_range_and_config_keys() -> None:
    OracleGame({}, MASK64)
    with pytest.raises(ValueError):
        OracleGame({}, -1)
    with pytest.raises(ValueError):
        OracleGame({}, 1 << 64)
    with pytest.raises(ValueError):
        OracleGame({"num_player": 3}, 0)
    with pytest.raises(ValueError):
        OracleGame({"num_players": 6}, 0)


# ---------------------------------------------------------------- set-up


@pytest.mark.parametrize(("n", "total"), [(2, 40), (3, 50), (4, 60), (5, 65)])
@pytest.mark.parametrize("mm_in_deal", [False, True])
def test_card_counts(n: int, total: int, mm_in_deal: bool) -> None:
    """40/50/60/65 ingredient cards + 1 Mamma Mia!; six ingredients and one order dealt."""
    for seed in range(5):
        g = OracleGame({"num_players": n, "mamma_mia_in_deal": mm_in_deal}, seed)
        snap = g.snapshot()
        assert (
            sum(sum(h) for h in snap["hands"]) + len(snap["supply"]) - 1 + (snap["mm_holder"] != -1)
            == total
        )
        for seat in range(n):
            assert sum(snap["hands"][seat]) == 6
            assert len(snap["orders_in_hand"][seat]) == 1
            assert len(snap["stacks"][seat]) == 7
        if not mm_in_deal:
            assert snap["mm_holder"] == -1 and snap["supply"].count(MAMMA_MIA) == 1
        assert snap["round"] == 0 and snap["phase"] == "play" and snap["seat"] == 0
        assert snap["oven"] == [] and snap["turns"] == 0
        check_conservation(g)


def test_double_ingredient_composition() -> None:
    for n in (2, 3, 4, 5):
        g = OracleGame({"num_players": n, "double_ingredients": True}, 7)
        check_conservation(g)  # compares against (13 - removed - 2) singles + 2 doubles


def test_mamma_mia_dealt_gets_replacement() -> None:
    """Variant deal: whoever is dealt the card lays it down and is dealt a replacement."""
    dealt = 0
    for seed in range(200):
        g = OracleGame({"num_players": 5, "mamma_mia_in_deal": True}, seed)
        snap = g.snapshot()
        if snap["mm_holder"] != -1:
            dealt += 1
            assert MAMMA_MIA not in snap["supply"]
            assert all(sum(h) == 6 for h in snap["hands"])
    assert dealt > 0  # 30 of 66 cards are dealt, so this happens often


def _reference_shuffle(items: list, state: int) -> int:
    for i in range(len(items) - 1, 0, -1):
        state, out = splitmix64_next(state)
        j = out % (i + 1)
        items[i], items[j] = items[j], items[i]
    return state


@pytest.mark.parametrize("random_start", [False, True])
def test_setup_consumes_generator_in_spec_order(random_start: bool) -> None:
    """Redo set-up steps 1-7 by hand and compare card for card."""
    seed = 987654321
    g = OracleGame({"num_players": 3, "random_start_player": random_start}, seed)
    snap = g.snapshot()
    deck = [k for k in range(5) for _ in range(10)]
    state = _reference_shuffle(deck, seed)
    for seat in range(3):
        assert snap["hands"][seat] == [deck[6 * seat : 6 * seat + 6].count(c) for c in range(10)]
    supply = deck[18:] + [MAMMA_MIA]
    state = _reference_shuffle(supply, state)
    assert snap["supply"] == supply
    tops = []
    for seat in range(3):
        stack = list(range(8))
        state = _reference_shuffle(stack, state)
        tops.append(stack[0])
        assert snap["stacks"][seat] == stack[1:]
    assert [o for (o,) in snap["orders_in_hand"]] == tops
    if random_start:
        state, out = splitmix64_next(state)
        assert snap["seat"] == out % 3
    else:
        assert snap["seat"] == 0
    assert g.rng_state == state


# ---------------------------------------------------------------- random games


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_random_games_conserve_cards_and_end(n: int, variant: int) -> None:
    config = dict(VARIANTS[variant], num_players=n)
    for seed in range(4):
        g = OracleGame(config, seed * 7919 + n)
        snaps = play_random(g, random.Random(seed), check=True)
        final = snaps[-1]
        assert g.is_over() and not g.truncated()
        assert final["round"] == 2 and final["phase"] == "over" and final["seat"] == -1
        assert g.current_player() is None and g.legal_actions() == []
        assert g.winners() and set(g.winners()) <= set(range(n))
        assert [r["round"] for r in snaps] == sorted(r["round"] for r in snaps)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_games_without_guard_end_or_truncate(n: int) -> None:
    config = {
        "num_players": n,
        "idle_cycle_guard": False,
        "max_turns": 400,
        "pass_may_play_order": True,
    }
    for seed in range(4):
        g = OracleGame(config, seed)
        play_random(g, random.Random(seed), check=True)
        assert g.is_over()
        assert g.snapshot()["turns"] <= 400


def test_seed_determinism() -> None:
    for config in ({}, VARIANTS[-1]):
        a = play_random(OracleGame(config, 42), random.Random(1))
        b = play_random(OracleGame(config, 42), random.Random(1))
        assert a == b
        c = OracleGame(config, 43).snapshot()
        assert c != a[0]


def test_snapshot_round_trip_resumes_identically() -> None:
    """from_snapshot + rng_state + last_seat is the whole state: play on and compare."""
    config = {"num_players": 3, "double_ingredients": True}
    g = OracleGame(config, 5)
    rng = random.Random(5)
    for step in range(400):
        if g.is_over():
            break
        if step % 17 == 0 and g.phase() != "over":
            copy = OracleGame.from_snapshot(config, g.snapshot(), g.rng_state, g.last_seat)
            assert copy.snapshot() == g.snapshot()
            fork = random.Random(step)
            for _ in range(30):
                if g.is_over():
                    break
                action = fork.choice(g.legal_actions())
                assert copy.legal_actions() == g.legal_actions()
                assert copy.apply(action) == g.apply(action)
                assert copy.snapshot() == g.snapshot()
        else:
            g.apply(rng.choice(g.legal_actions()))


def test_auto_reveal_never_stops_in_reveal() -> None:
    for seed in range(10):
        g = OracleGame({"auto_reveal": True, "num_players": 5}, seed)
        snaps = play_random(g, random.Random(seed))
        assert all(s["phase"] != "reveal" for s in snaps)


# ---------------------------------------------------------------- the turn


def test_turn_example_draw_short_from_order_stack() -> None:
    """Alberto plays '3 salami' and his 4-salami order, draws his last 3 orders: 6 cards."""
    hands = empty_hands(4)
    hands[GREEN] = cards(salami=3, olive=3)
    stacks = [[], [], [], [4, 5, 6]]
    g = scenario(
        {},
        seat=GREEN,
        hands=hands,
        orders_in_hand=[[], [], [], [0]],
        stacks=stacks,
        supply=[0, 1, 2],
    )
    action = g.encode(g.play_index(SALAMI, 3), 1 + 0, 1)
    assert action in g.legal_actions()
    assert g.apply(action) == []
    snap = g.snapshot()
    assert snap["oven"] == [[GREEN, "ing", SALAMI, 3, 0], [GREEN, "order", 0]]
    assert snap["orders_in_hand"][GREEN] == [4, 5, 6] and snap["stacks"][GREEN] == []
    assert sum(snap["hands"][GREEN]) + 3 == 6
    assert snap["seat"] == 0 and snap["turns"] == 1 and snap["idle"] == 0
    assert snap["supply"] == [0, 1, 2]


def test_pass_only_without_ingredients_and_no_order_by_default() -> None:
    hands = empty_hands(2)
    hands[1] = cards(salami=1)
    orders = [[0, 1, 2], []]
    snap = {"hands": hands, "orders_in_hand": orders, "stacks": [[3, 4], []], "supply": [0] * 10}
    g = scenario({"num_players": 2}, **snap)
    # hand 3 orders, no ingredient: pass, no order, draw 4 from supply or stack
    assert g.legal_actions() == [g.encode(0, 0, 0), g.encode(0, 0, 1)]
    g = scenario({"num_players": 2, "pass_may_play_order": True}, **snap)
    legal = g.legal_actions()
    assert all(g.decode(a)[0] == 0 for a in legal)
    assert {g.decode(a)[1] for a in legal} == {0, 1, 2, 3}
    # the other seat holds an ingredient, so it may not pass
    g = scenario({"num_players": 2}, seat=1, **snap)
    assert all(g.decode(a)[0] != 0 for a in g.legal_actions())
    assert {g.decode(a)[2] for a in g.legal_actions()} == {0}  # empty order stack


def test_full_hand_of_orders_draws_nothing() -> None:
    """short = 0: only draw 0 is legal and nothing is drawn; no card moved."""
    hands = empty_hands(2)
    snap = {
        "hands": hands,
        "orders_in_hand": [list(range(7)), []],
        "stacks": [[7], []],
        "supply": [0, 1],
    }
    g = scenario({"num_players": 2}, **snap)
    assert g.legal_actions() == [g.encode(0, 0, 0)]
    g.apply(g.encode(0, 0, 0))
    assert g.snapshot()["idle"] == 1 and g.snapshot()["supply"] == [0, 1]


def test_drawing_mamma_mia_gives_replacement() -> None:
    hands = empty_hands(3)
    hands[0] = cards(olive=2, salami=5)
    g = scenario(
        {"num_players": 3}, hands=hands, supply=[1, MAMMA_MIA, 2, 3], stacks=[[0], [1], [2]]
    )
    g.apply(g.encode(g.play_index(OLIVE, 2), 0, 0))
    snap = g.snapshot()
    assert snap["mm_holder"] == 0
    assert snap["hands"][0] == cards(salami=5, mushroom=1, pineapple=1)
    assert snap["supply"] == [3] and snap["phase"] == "play" and snap["seat"] == 1


def test_last_supply_card_ends_play_and_holder_starts_next_round() -> None:
    """The turn that draws the last card reveals the oven; used + Mamma Mia! reshuffled."""
    hands = empty_hands(4)
    hands[1] = cards(pineapple=1, pepper=6)
    hands[2] = cards(olive=6)
    piles = cards(salami=4, pepper=1)  # left face up from an earlier round
    g = scenario(
        {},
        round=1,
        seat=2,
        hands=hands,
        stacks=[[1], [2], [3], [4]],
        orders_in_hand=[[], [], [], [0]],
        supply=[MUSHROOM],
        piles=piles,
        oven=[[1, "ing", PINEAPPLE, 1, 0], [GREEN, "order", 0]],
        mm_holder=1,
    )
    delivered = g.apply(g.encode(g.play_index(OLIVE, 1), 0, 0))
    assert delivered == [(GREEN, 0)]  # 4 salami + 1 pepper, all face up
    snap = g.snapshot()
    assert snap["round"] == 2 and snap["phase"] == "play"
    assert snap["seat"] == 1 and snap["mm_holder"] == -1  # holder starts, card goes back
    assert sorted(snap["supply"]) == [0, 0, 0, 0, 3, MAMMA_MIA]
    assert snap["used"] == [0] * 10 and snap["oven"] == []
    assert snap["piles"] == cards(pineapple=1, olive=1)  # unused cards stay face up
    assert snap["hands"][2] == cards(olive=5, mushroom=1)  # drew the last card


def test_idle_cycle_guard_ends_play() -> None:
    """A full cycle of turns without a moved card ends play; the next seat starts."""
    snap = {
        "hands": empty_hands(2),
        "orders_in_hand": [list(range(7)), list(range(7))],
        "stacks": [[7], [7]],
        "supply": [0, 1, MAMMA_MIA],
        "seat": 1,
    }
    g = scenario({"num_players": 2}, **snap)
    g.apply(g.encode(0, 0, 0))
    assert g.snapshot()["idle"] == 1 and g.phase() == "play"
    g.apply(g.encode(0, 0, 0))
    after = g.snapshot()
    assert after["round"] == 1 and after["phase"] == "play" and after["idle"] == 0
    assert after["seat"] == 1  # the seat after seat 0, which took the last turn
    assert sorted(after["supply"]) == [0, 1, MAMMA_MIA]
    assert after["turns"] == 2

    g = scenario({"num_players": 2, "idle_cycle_guard": False, "max_turns": 5}, **snap)
    for _ in range(5):
        assert not g.is_over()
        g.apply(g.encode(0, 0, 0))
    assert g.is_over() and g.truncated() and g.winners() == []
    assert g.snapshot()["turns"] == 5 and g.snapshot()["seat"] == -1


def test_max_turns_truncates_at_once() -> None:
    g = OracleGame({"max_turns": 10}, 3)
    rng = random.Random(0)
    while not g.is_over():
        g.apply(rng.choice(g.legal_actions()))
    assert g.truncated() and g.snapshot()["turns"] == 10 and g.winners() == []
    assert g.phase() == "over" and g.current_player() is None and g.legal_actions() == []
    with pytest.raises(ValueError):
        g.apply(0)


def test_illegal_actions_raise() -> None:
    g = OracleGame({}, 0)
    legal = set(g.legal_actions())
    illegal = [a for a in range(g.n_actions) if a not in legal]
    for action in illegal[:50] + [-1, g.n_actions, g.DELIVER]:
        with pytest.raises(ValueError):
            g.apply(action)
    assert g.snapshot() == OracleGame({}, 0).snapshot()


# ---------------------------------------------------------------- the reveal


def reveal_scenario(
    config: dict, oven: list, hands: list, piles: list | None = None, **kw: object
) -> OracleGame:
    """Last round, play over: the oven is revealed at once (used stays visible at the end)."""
    n = config.get("num_players", 4)
    base = {
        "round": 2,
        "hands": hands,
        "stacks": [[] for _ in range(n)],
        "piles": piles or [0] * 10,
        "oven": oven,
        "supply": [],
        "mm_holder": 0,
    }
    base.update(kw)
    return OracleGame.from_snapshot(config, base)


def rule_example_oven(order: list) -> list:
    """Face up: 1 pepper, 2 salami, 3 pineapple, 4 mushroom; then the order."""
    return [
        [0, "ing", PEPPER, 1, 0],
        [1, "ing", SALAMI, 2, 0],
        [2, "ing", PINEAPPLE, 3, 0],
        [0, "ing", MUSHROOM, 4, 0],
        order,
    ]


def test_example_pineapple_order_completed_from_hand() -> None:
    """Rule example: 4 pineapple + 1 pepper with 3 pineapple face up; Alberto adds 1."""
    hands = empty_hands(4)
    hands[GREEN] = cards(pineapple=2, olive=1)
    g = reveal_scenario({}, rule_example_oven([GREEN, "order", 2]), hands)
    assert g.begin_reveal() == []
    assert g.phase() == "reveal" and g.current_player() == GREEN
    assert g.legal_actions() == [g.DECLINE, g.DELIVER]
    assert g.snapshot()["reveal_pos"] == 4 and g.snapshot()["seat"] == GREEN
    assert g.apply(g.DELIVER) == [(GREEN, 2)]
    snap = g.snapshot()
    assert snap["phase"] == "over" and snap["delivered"][GREEN] == [2]
    assert snap["used"] == cards(pineapple=4, pepper=1)
    assert snap["piles"] == cards(salami=2, mushroom=4)  # all others untouched
    assert snap["hands"][GREEN] == cards(pineapple=1, olive=1)
    assert len(snap["oven"]) == 5 and snap["reveal_pos"] == -1  # the revealed oven stays


def test_example_pineapple_order_declined_or_impossible() -> None:
    hands = empty_hands(4)
    hands[GREEN] = cards(pineapple=1)
    g = reveal_scenario({}, rule_example_oven([GREEN, "order", 2]), hands, stacks=[[], [], [], [5]])
    g.begin_reveal()
    assert g.apply(g.DECLINE) == []
    snap = g.snapshot()
    assert snap["stacks"][GREEN] == [5, 2]  # face down to the bottom, not shuffled
    assert snap["used"] == [0] * 10 and snap["piles"] == cards(
        salami=2, mushroom=4, pineapple=3, pepper=1
    )
    assert snap["hands"][GREEN] == cards(pineapple=1)

    hands[GREEN] = cards(olive=5)  # nothing to add: it fails without a decision
    g = reveal_scenario({}, rule_example_oven([GREEN, "order", 2]), hands)
    assert g.begin_reveal() == [] and g.is_over()
    assert g.snapshot()["stacks"][GREEN] == [2] and g.snapshot()["used"] == [0] * 10


def test_example_order_met_face_up_needs_no_decision() -> None:
    """4 mushroom + 1 pepper is on the table: delivered at once, the rest stays."""
    g = reveal_scenario({}, rule_example_oven([GREEN, "order", 1]), empty_hands(4))
    assert g.begin_reveal() == [(GREEN, 1)]
    snap = g.snapshot()
    assert snap["used"] == cards(mushroom=4, pepper=1)
    assert snap["piles"] == cards(salami=2, pineapple=3)


def test_order_checked_against_piles_at_that_moment() -> None:
    """An order revealed before its ingredients fails, even though they follow."""
    oven = [
        [GREEN, "order", 1],
        [0, "ing", MUSHROOM, 4, 0],
        [0, "ing", PEPPER, 1, 0],
        [GREEN, "order", 1],
    ]
    g = reveal_scenario({}, oven, empty_hands(4))
    # the same order type twice is not possible in a real game, but the check is per card
    assert g.begin_reveal() == [(GREEN, 1)]
    assert g.snapshot()["stacks"][GREEN] == [1]


def test_simple_order_one_of_each() -> None:
    piles = cards(salami=1, mushroom=1, pineapple=1, pepper=1)
    hands = empty_hands(4)
    hands[0] = cards(olive=2)
    g = reveal_scenario({}, [[0, "order", 4]], hands, piles)
    g.begin_reveal()
    g.apply(g.DELIVER)
    assert g.snapshot()["used"] == cards(salami=1, mushroom=1, pineapple=1, pepper=1, olive=1)
    assert g.snapshot()["hands"][0] == cards(olive=1)


MINIMALE_EXAMPLE = cards(salami=2, mushroom=2, pepper=2, pineapple=3)


def test_example_minimale_tie() -> None:
    """Rule example: salami, mushroom, pepper tie at 2; green may pick salami or mushroom."""
    hands = empty_hands(4)
    hands[GREEN] = cards(salami=1, mushroom=1)
    g = reveal_scenario({}, [[GREEN, "order", MINIMALE]], hands, MINIMALE_EXAMPLE)
    g.begin_reveal()
    assert g.minimale_candidates(GREEN) == [SALAMI, MUSHROOM]  # no pepper, no olive
    as_ = g.n_turn + 2
    assert g.legal_actions() == [g.DECLINE, as_ + SALAMI, as_ + MUSHROOM]
    assert g.apply(as_ + MUSHROOM) == [(GREEN, MINIMALE)]
    snap = g.snapshot()
    assert snap["used"] == cards(mushroom=3, pepper=1)
    assert snap["piles"] == cards(salami=2, pineapple=3, pepper=1)
    assert snap["hands"][GREEN] == cards(salami=1)


def test_example_minimale_tie_hand_decides_options() -> None:
    hands = empty_hands(4)
    hands[GREEN] = cards(salami=1, olive=3)
    g = reveal_scenario({}, [[GREEN, "order", MINIMALE]], hands, MINIMALE_EXAMPLE)
    g.begin_reveal()
    assert g.legal_actions() == [g.DECLINE, g.n_turn + 2 + SALAMI]
    hands[GREEN] = cards(olive=3)  # olive is not a candidate: it fails
    g = reveal_scenario({}, [[GREEN, "order", MINIMALE]], hands, MINIMALE_EXAMPLE)
    assert g.begin_reveal() == [] and g.snapshot()["stacks"][GREEN] == [MINIMALE]


def test_minimale_auto_and_strict_variant() -> None:
    piles = cards(pepper=1, salami=3, mushroom=4)
    hands = empty_hands(4)
    # default: pepper (P) is ignored, salami is the only candidate, and it is met
    g = reveal_scenario({}, [[GREEN, "order", MINIMALE]], hands, piles)
    assert g.begin_reveal() == [(GREEN, MINIMALE)]
    assert g.snapshot()["used"] == cards(salami=3, pepper=1)
    # strict: pepper alone is fewest, so the order cannot be met
    g = reveal_scenario({"strict_minimale": True}, [[GREEN, "order", MINIMALE]], hands, piles)
    assert g.minimale_candidates(GREEN) == []
    assert g.begin_reveal() == [] and g.snapshot()["stacks"][GREEN] == [MINIMALE]
    # strict with a tie between P and salami: salami stays a candidate
    piles = cards(pepper=3, salami=3, mushroom=4)
    g = reveal_scenario({"strict_minimale": True}, [[GREEN, "order", MINIMALE]], hands, piles)
    assert g.minimale_candidates(GREEN) == [SALAMI]
    assert g.begin_reveal() == [(GREEN, MINIMALE)]


def test_minimale_without_candidates_fails() -> None:
    g = reveal_scenario({}, [[GREEN, "order", MINIMALE]], empty_hands(4), cards(pepper=5))
    assert g.begin_reveal() == [] and g.snapshot()["stacks"][GREEN] == [MINIMALE]


def test_bombastica_uses_every_face_up_card() -> None:
    piles = cards(salami=5, mushroom=4, pineapple=3, pepper=3, olive=2)  # 17
    g = reveal_scenario({}, [[0, "order", BOMBASTICA]], empty_hands(4), piles)
    assert g.begin_reveal() == [(0, BOMBASTICA)]
    assert g.snapshot()["piles"] == [0] * 10 and g.snapshot()["used"] == piles


def test_bombastica_shortfall_from_hand() -> None:
    piles = cards(salami=5, mushroom=4, pineapple=4)  # 13
    hands = empty_hands(4)
    hands[0] = cards(olive=3, salami=1, pepper=1)
    g = reveal_scenario({}, [[0, "order", BOMBASTICA]], hands, piles)
    g.begin_reveal()
    assert g.legal_actions() == [g.DECLINE, g.DELIVER]
    g.apply(g.DELIVER)
    snap = g.snapshot()
    assert snap["hands"][0] == cards(olive=1, salami=1, pepper=1)  # from the largest first
    assert snap["used"] == cards(salami=5, mushroom=4, pineapple=4, olive=2)
    # 13 face up + 1 in hand is not enough: fails, nothing moves
    hands[0] = cards(olive=1)
    g = reveal_scenario({}, [[0, "order", BOMBASTICA]], hands, piles)
    assert g.begin_reveal() == [] and g.snapshot()["piles"] == piles


def test_monotoni_not_with_seven_of_personal() -> None:
    g = reveal_scenario({}, [[GREEN, "order", MONOTONI]], empty_hands(4), cards(pepper=7))
    assert g.begin_reveal() == [] and g.snapshot()["stacks"][GREEN] == [MONOTONI]


def test_monotoni_joker_choice_uses_exactly_six() -> None:
    piles = cards(salami=1, mushroom=8, pineapple=5)
    hands = empty_hands(4)
    hands[0] = cards(pineapple=1)
    g = reveal_scenario({}, [[0, "order", MONOTONI]], hands, piles)
    g.begin_reveal()
    as_ = g.n_turn + 2
    # mushroom is met, pineapple coverable; pepper/olive are not met, so declining is legal
    assert g.legal_actions() == [g.DECLINE, as_ + MUSHROOM, as_ + PINEAPPLE]
    g.apply(as_ + MUSHROOM)
    assert g.snapshot()["used"] == cards(salami=1, mushroom=6)
    assert g.snapshot()["piles"] == cards(mushroom=2, pineapple=5)

    g = reveal_scenario({"auto_reveal": True}, [[0, "order", MONOTONI]], hands, piles)
    assert g.begin_reveal() == [(0, MONOTONI)]  # policy: takes nothing from the hand
    assert g.snapshot()["used"] == cards(salami=1, mushroom=6)


def test_auto_policy_takes_least_from_hand() -> None:
    hands = empty_hands(4)
    hands[GREEN] = cards(salami=2, mushroom=2)
    piles = cards(salami=1, mushroom=1, pepper=1, pineapple=4)  # candidates salami, mushroom
    g = reveal_scenario({"auto_reveal": True}, [[GREEN, "order", MINIMALE]], hands, piles)
    assert g.begin_reveal() == [(GREEN, MINIMALE)]  # both take 2 from hand: lowest index
    assert g.snapshot()["hands"][GREEN] == cards(mushroom=2)
    # Monotoni of salami: mushroom needs 2 from the hand, pineapple only 1
    hands[0] = cards(mushroom=2, pineapple=1)
    piles = cards(salami=1, mushroom=4, pineapple=5)
    g = reveal_scenario({"auto_reveal": True}, [[0, "order", MONOTONI]], hands, piles)
    assert g.begin_reveal() == [(0, MONOTONI)]
    assert g.snapshot()["used"] == cards(salami=1, pineapple=6)
    assert g.snapshot()["hands"][0] == cards(mushroom=2)
    # no delivery possible: the policy declines
    hands[GREEN] = cards(olive=2)
    g = reveal_scenario({"auto_reveal": True}, [[GREEN, "order", 2]], hands, MINIMALE_EXAMPLE)
    assert g.begin_reveal() == [] and g.snapshot()["stacks"][GREEN] == [2]


def test_doubles_used_first_and_may_overpay() -> None:
    config = {"double_ingredients": True}
    # face up: pineapple 1 double + 2 singles (value 4), pepper 1 double
    piles = cards(pineapple_d=1, pineapple=2, pepper_d=1, pepper=1)
    g = reveal_scenario(config, [[GREEN, "order", 2]], empty_hands(4), piles)
    assert g.begin_reveal() == [(GREEN, 2)]
    assert g.snapshot()["used"] == cards(pineapple_d=1, pineapple=2, pepper_d=1)  # overpaid
    assert g.snapshot()["piles"] == cards(pepper=1)
    # doubles first: two doubles make the 4 pineapple, the single stays face up
    piles = cards(pineapple_d=2, pineapple=1, pepper=1)
    g = reveal_scenario(config, [[GREEN, "order", 2]], empty_hands(4), piles)
    assert g.begin_reveal() == [(GREEN, 2)]
    assert g.snapshot()["piles"] == cards(pineapple=1)
    # from the hand, too: 1 pineapple missing is paid with a double
    hands = empty_hands(4)
    hands[GREEN] = cards(pineapple_d=1, pineapple=1)
    piles = cards(pineapple=3, pepper=1)
    g = reveal_scenario(config, [[GREEN, "order", 2]], hands, piles)
    g.begin_reveal()
    g.apply(g.DELIVER)
    assert g.snapshot()["hands"][GREEN] == cards(pineapple=1)
    assert g.snapshot()["used"] == cards(pineapple=3, pineapple_d=1, pepper=1)


def test_double_play_in_turn() -> None:
    hands = empty_hands(2)
    hands[0] = cards(salami_d=2, salami=1, olive=1)
    g = scenario(
        {"num_players": 2, "double_ingredients": True},
        hands=hands,
        supply=[0] * 10 + [MAMMA_MIA],
        stacks=[[0], [1]],
    )
    plays = {g.decode(a)[0] for a in g.legal_actions()}
    expected = {g.play_index(SALAMI, s, d) for s in (0, 1) for d in (0, 1, 2) if s + d} | {
        g.play_index(OLIVE, 1)
    }
    assert plays == expected
    g.apply(g.encode(g.play_index(SALAMI, 1, 2), 0, 0))
    assert g.snapshot()["oven"] == [[0, "ing", SALAMI, 1, 2]]
    assert g.snapshot()["hands"][0] == cards(olive=1, salami=6)


# ---------------------------------------------------------------- end of game


def test_winners_tie_break_on_cards_not_value() -> None:
    config = {"num_players": 3, "double_ingredients": True}
    hands = [cards(salami_d=2), cards(salami=3), cards(olive=5)]
    over = {"phase": "over", "round": 2, "hands": hands, "mm_holder": 0}
    g = scenario(config, delivered=[[0, 1], [2, 3], [4]], **over)
    assert g.winners() == [1] and g.scores() == [2, 2, 1]
    hands = [cards(salami=3), cards(olive=3), cards()]
    g = scenario(config, **dict(over, hands=hands), delivered=[[0, 1], [2, 3], [4]])
    assert g.winners() == [0, 1]
    g = OracleGame.from_snapshot(config, dict(over, delivered=[[0], [1], [2]]), truncated=True)
    assert g.winners() == []


def test_game_ends_after_third_reveal_keeping_state() -> None:
    for seed in range(5):
        g = OracleGame({"num_players": 2}, seed)
        snaps = play_random(g, random.Random(seed))
        final = snaps[-1]
        before = [s for s in snaps if s["round"] == 2]
        assert before and final["round"] == 2
        # the oven of the last round stays revealed, so no entry is pending
        assert final["reveal_pos"] == -1 and final["oven"]


def test_bombastica_hand_order_ties_and_doubles() -> None:
    """Shortfall: largest hand value first, ties to the lowest index, a double if there."""
    piles = cards(salami=5, mushroom=5, pineapple=4)  # 14: one short
    hands = empty_hands(4)
    hands[0] = cards(salami=1, olive=1)
    g = reveal_scenario({}, [[0, "order", BOMBASTICA]], hands, piles)
    g.begin_reveal()
    g.apply(g.DELIVER)
    assert g.snapshot()["hands"][0] == cards(olive=1)
    config = {"double_ingredients": True}
    hands[0] = cards(mushroom=1, pineapple_d=1)
    g = reveal_scenario(config, [[0, "order", BOMBASTICA]], hands, piles)
    g.begin_reveal()
    g.apply(g.DELIVER)
    assert g.snapshot()["hands"][0] == cards(mushroom=1)  # the double, overpaying by one
    assert g.snapshot()["used"] == cards(salami=5, mushroom=5, pineapple=4, pineapple_d=1)


def test_bombastica_doubles_first_across_ingredients() -> None:
    """13 face up; a double olive and 3 single salami in hand: the double."""
    piles = cards(salami=3, mushroom=3, pineapple=3, pepper=2, olive=2)
    hands = empty_hands(4)
    hands[0] = cards(salami=3, olive_d=1)
    g = reveal_scenario({"double_ingredients": True}, [[0, "order", BOMBASTICA]], hands, piles)
    g.begin_reveal()
    g.apply(g.DELIVER)
    assert g.snapshot()["hands"][0] == cards(salami=3)
    used = cards(salami=3, mushroom=3, pineapple=3, pepper=2, olive=2, olive_d=1)
    assert g.snapshot()["used"] == used
