"""Rule tests: every ruling of docs/RULES.md played out on the engine, position by position.

Each test builds a position with ``build_position`` (docs: ``mamma_mia_env/game/positions.py``),
steps it with ``Engine.step`` and asserts the exact outcome. The worked examples of the
rule texts (the editions listed in docs/RULES.md, "Sources") come first, then the
special pizzas, the Mamma Mia! card, rounds and scoring, every variant, card counts
and the legality of actions.

Seat s plays colour s, so its personal ingredient P is ingredient s (salami 0, mushroom 1,
pineapple 2, pepper 3, olive 4). Order types (docs/SPEC.md): type i < 4 is
4 x others(P)[i] + 1 P; 4 one of each; 5 Bombastica; 6 Monotoni; 7 Minimale.
Alberto of the examples is green, i.e. seat 3 with P = pepper; his others are
[salami, mushroom, pineapple, olive], so "4 salami + 1 pepper" is his type 0 and
"4 pineapple + 1 pepper" his type 2.
"""

from __future__ import annotations

import numpy as np
import pytest

from mamma_mia_env import (
    ActionCodec,
    Config,
    Engine,
    IllegalActionError,
    build_position,
)
from mamma_mia_env.game.cards import INGREDIENTS, MAMMA_MIA, N_KINDS, deck_counts
from mamma_mia_env.game.positions import card_code
from mamma_mia_env.game.record import OVER, PLAY, REVEAL

SALAMI, MUSHROOM, PINEAPPLE, PEPPER, OLIVE = range(5)
BOMBASTICA, MONOTONI, MINIMALE = 5, 6, 7
ALBERTO = 3  # green: personal ingredient pepper
REMOVED = {2: 5, 3: 3, 4: 1, 5: 0}

DELIVER = "reveal: deliver"
DECLINE = "reveal: decline"


def deliver_as(kind: str) -> str:
    return f"reveal: deliver as {kind}"


# ---------------------------------------------------------------------------- helpers


def card_name(code: int) -> str:
    if code == MAMMA_MIA:
        return "mamma_mia"
    return INGREDIENTS[code] if code < N_KINDS else "double " + INGREDIENTS[code - N_KINDS]


def named(counts: np.ndarray) -> dict[str, int]:
    """A card-count row as {name: count}, zero counts left out."""
    return {card_name(c): int(v) for c, v in enumerate(counts) if v}


class Game:
    """One built position, its engine and codec, with readable views of the record."""

    def __init__(self, description: dict, **config: object) -> None:
        self.config = Config(**config)
        self.engine = Engine(self.config)
        self.codec = ActionCodec(self.engine)
        self.state = build_position(description, self.config)

    @property
    def r(self) -> np.void:
        return self.state.data[0]

    def step(self, action: int | str) -> list[int]:
        """Apply one action (an int or a string of ActionCodec.to_str); orders delivered."""
        if isinstance(action, str):
            action = self.codec.from_str(action)
        delivered = self.engine.step(self.state, np.array([action]))[0]
        return delivered[: self.config.num_players].tolist()

    def legal(self) -> set[str]:
        mask = self.engine.legal_masks(self.state)[0]
        return {self.codec.to_str(int(a)) for a in np.flatnonzero(mask)}

    def hand(self, seat: int) -> dict[str, int]:
        return named(self.r["hand"][seat])

    def orders(self, seat: int) -> list[int]:
        return [int(t) for t in np.flatnonzero(self.r["orders_hand"][seat])]

    def delivered(self, seat: int) -> list[int]:
        return [int(t) for t in np.flatnonzero(self.r["delivered"][seat])]

    def stack(self, seat: int) -> list[int]:
        """The order stack, top first."""
        head, length = int(self.r["stack_head"][seat]), int(self.r["stack_len"][seat])
        return [int(self.r["stack"][seat, (head + j) % 8]) for j in range(length)]

    def piles(self) -> dict[str, int]:
        return named(self.r["piles"])

    def used(self) -> dict[str, int]:
        return named(self.r["used"])

    def supply(self) -> list[int]:
        return [int(c) for c in self.r["supply"][self.r["supply_pos"] : self.r["supply_len"]]]

    def oven(self) -> list[tuple[int, str]]:
        out = []
        for i in range(int(self.r["oven_len"])):
            who, what = int(self.r["oven_who"][i]), int(self.r["oven_what"][i])
            s, d = int(self.r["oven_s"][i]), int(self.r["oven_d"][i])
            if what >= N_KINDS:
                out.append((who, f"order {what - N_KINDS}"))
            else:
                text = " + ".join(
                    part
                    for part in (
                        f"{s} {INGREDIENTS[what]}" if s else "",
                        f"{d} double {INGREDIENTS[what]}" if d else "",
                    )
                    if part
                )
                out.append((who, text))
        return out

    def rewards(self) -> list[float]:
        return [float(x) for x in self.r["rewards"][: self.config.num_players]]


def complete(description: dict, num_players: int, doubles: bool = False) -> dict:
    """Add every ingredient card the description places nowhere to the face-up piles.

    For positions that give the whole supply explicitly (so that the supply holds
    exactly the cards a test needs) the rest of the cards must lie somewhere; the
    piles are a place where they do not disturb the turn being tested.
    """
    placed = np.zeros(10, dtype=np.int64)

    def add(spec: dict) -> None:
        for name, count in spec.items():
            placed[card_code(name)] += int(count)

    for spec in description.get("hands", {}).values():
        add(spec)
    add(description.get("piles", {}))
    add(description.get("used", {}))
    for _, text in description.get("oven", []):
        words = text.split()
        if words[0] != "order":
            add({" ".join(words[1:]): int(words[0])})
    for name in description.get("supply", []):
        if card_code(name) != MAMMA_MIA:
            placed[card_code(name)] += 1
    rest = deck_counts(num_players, doubles).astype(np.int64) - placed
    assert (rest >= 0).all(), "the description places more cards than the game has"
    piles = dict(description.get("piles", {}))
    for c, count in enumerate(rest):
        if count:
            piles[card_name(c)] = piles.get(card_name(c), 0) + int(count)
    return {**description, "piles": piles}


# A reference of docs/SPEC.md "Random numbers" and "Set-up", written from the page.
MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self.next() % n

    def shuffle(self, a: list) -> None:
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]


def spec_setup(
    seed: int, n: int, mm_in_deal: bool = False, doubles: bool = False, random_start: bool = False
) -> dict:
    rng = SplitMix64(seed)
    per = 13 - REMOVED[n]
    deck: list[int] = []
    for k in range(N_KINDS):  # per ingredient: singles first, its two doubles last
        deck += [k] * (per - (2 if doubles else 0)) + ([N_KINDS + k] * 2 if doubles else [])
    if mm_in_deal:
        deck.append(MAMMA_MIA)
    rng.shuffle(deck)
    hands = [[0] * 10 for _ in range(n)]
    holder = -1
    for seat in range(n):
        got = 0
        while got < 6:
            c = deck.pop(0)
            if c == MAMMA_MIA:
                holder = seat
            else:
                hands[seat][c] += 1
                got += 1
    supply = deck
    if not mm_in_deal:
        supply.append(MAMMA_MIA)
        rng.shuffle(supply)
    stacks = []
    for _ in range(n):
        stack = list(range(8))
        rng.shuffle(stack)
        stacks.append(stack)
    start = rng.below(n) if random_start else 0
    first_orders = [stack.pop(0) for stack in stacks]
    return {
        "hands": hands,
        "holder": holder,
        "supply": supply,
        "stacks": stacks,
        "start": start,
        "first_orders": first_orders,
    }


def engine_setup(state, game: int) -> dict:
    r = state.data[game]
    n = state.config.num_players
    stacks = []
    for seat in range(n):
        head, length = int(r["stack_head"][seat]), int(r["stack_len"][seat])
        stacks.append([int(r["stack"][seat, (head + j) % 8]) for j in range(length)])
    return {
        "hands": r["hand"][:n].tolist(),
        "holder": int(r["mm_holder"]),
        "supply": [int(c) for c in r["supply"][r["supply_pos"] : r["supply_len"]]],
        "stacks": stacks,
        "start": int(r["seat"]),
        "first_orders": [int(np.flatnonzero(r["orders_hand"][s])[0]) for s in range(n)],
    }


# ====================================================================== 1. worked examples


def test_example_alberto_turn_draws_only_three_orders_and_keeps_six_cards() -> None:
    """001/004/000: 3 salami, his "4 salami + 1 pepper", waiter holds 3 cards -> 6 cards."""
    g = Game(
        {
            "seat": ALBERTO,
            "hands": {"3": {"salami": 3, "olive": 3}},
            "orders_in_hand": {"3": [0]},
            "stacks": {"3": [5, 6, 7]},
            "delivered": {"3": [1, 2, 3, 4]},
        },
        num_players=4,
    )
    action = g.codec.from_str("play 3 salami, order type 0, draw stack")
    assert g.codec.to_str(action, ALBERTO) == (
        "play 3 salami, order type 0 [4 salami + 1 pepper], draw stack"
    )
    assert action in np.flatnonzero(g.engine.legal_masks(g.state)[0])
    supply_before = g.supply()

    g.step(action)

    assert g.oven() == [(3, "3 salami"), (3, "order 0")]
    assert g.hand(ALBERTO) == {"olive": 3}
    assert g.orders(ALBERTO) == [5, 6, 7]  # all three cards of his waiter
    assert g.stack(ALBERTO) == []
    assert int(g.r["hand"][ALBERTO].sum() + g.r["orders_hand"][ALBERTO].sum()) == 6
    assert g.supply() == supply_before  # nothing made up from the other pile
    assert int(g.r["seat"]) == 0  # his left neighbour's turn
    assert int(g.r["phase"]) == PLAY


def _pineapple_example(hand: dict[str, int]) -> Game:
    """001/000/002/004: piles 1 pepper, 2 salami, 3 pineapple, 4 mushroom; Alberto's
    "4 pineapple + 1 pepper" is revealed (third round, so the used stack stays visible)."""
    return Game(
        {
            "seat": 0,
            "round": 2,
            "piles": {"pepper": 1, "salami": 2, "pineapple": 3, "mushroom": 4},
            "hands": {"3": hand},
            "orders_in_hand": {"3": [7]},
            "delivered": {"3": [0, 1, 3, 4]},
            "stacks": {"3": [5, 6]},
            "oven": [[ALBERTO, "order 2"]],
            "reveal": True,
        },
        num_players=4,
    )


def test_example_pineapple_order_completed_from_hand_or_declined() -> None:
    g = _pineapple_example({"pineapple": 2, "olive": 1})
    assert int(g.r["phase"]) == REVEAL and int(g.r["seat"]) == ALBERTO
    assert g.legal() == {DELIVER, DECLINE}

    delivered = g.step(DELIVER)

    assert delivered == [0, 0, 0, 1]
    assert g.delivered(ALBERTO) == [0, 1, 2, 3, 4]
    assert g.used() == {"pineapple": 4, "pepper": 1}  # the five cards
    assert g.piles() == {"salami": 2, "mushroom": 4}  # the rest stays face up
    assert g.hand(ALBERTO) == {"pineapple": 1, "olive": 1}  # exactly 1 pineapple added
    assert g.stack(ALBERTO) == [5, 6]

    # The same position, but Alberto keeps his pineapple: the order fails.
    g = _pineapple_example({"pineapple": 2, "olive": 1})
    assert g.step(DECLINE) == [0, 0, 0, 0]
    assert g.stack(ALBERTO) == [5, 6, 2]  # to the bottom of his order stack
    assert g.delivered(ALBERTO) == [0, 1, 3, 4]
    assert g.piles() == {"pepper": 1, "salami": 2, "pineapple": 3, "mushroom": 4}
    assert g.used() == {}
    assert g.hand(ALBERTO) == {"pineapple": 2, "olive": 1}

    # Without a pineapple in hand nothing can be added: it fails with no decision.
    g = _pineapple_example({"olive": 3})
    assert int(g.r["phase"]) == OVER
    assert g.stack(ALBERTO) == [5, 6, 2]
    assert g.piles() == {"pepper": 1, "salami": 2, "pineapple": 3, "mushroom": 4}


def _minimale_example(hand: dict[str, int], **config: object) -> Game:
    """000/001: piles 2 salami, 2 mushroom, 2 pepper, 3 pineapple; Alberto's Minimale."""
    return Game(
        {
            "seat": 0,
            "round": 2,
            "piles": {"salami": 2, "mushroom": 2, "pepper": 2, "pineapple": 3},
            "hands": {"3": hand},
            "delivered": {"3": [0, 1]},
            "stacks": {"3": [2, 3, 4, 5, 6]},
            "oven": [[ALBERTO, "order 7"]],
            "reveal": True,
        },
        num_players=4,
        **config,
    )


@pytest.mark.parametrize(
    "hand, expected",
    [
        ({"salami": 1, "mushroom": 1}, {deliver_as("salami"), deliver_as("mushroom"), DECLINE}),
        ({"salami": 1, "olive": 3}, {deliver_as("salami"), DECLINE}),
        ({"mushroom": 2, "pepper": 1}, {deliver_as("mushroom"), DECLINE}),
    ],
)
def test_example_minimale_tie_offers_salami_or_mushroom(hand: dict, expected: set) -> None:
    g = _minimale_example(hand)
    assert int(g.r["phase"]) == REVEAL and int(g.r["seat"]) == ALBERTO
    assert g.legal() == expected  # never pepper (his P), never olive (no face-up card)


def test_example_minimale_tie_delivery_and_failure() -> None:
    g = _minimale_example({"salami": 1, "mushroom": 1})
    assert g.step(deliver_as("mushroom")) == [0, 0, 0, 1]
    assert g.delivered(ALBERTO) == [0, 1, 7]
    assert g.used() == {"mushroom": 3, "pepper": 1}
    assert g.piles() == {"salami": 2, "pepper": 1, "pineapple": 3}
    assert g.hand(ALBERTO) == {"salami": 1}

    # Neither a third salami nor a third mushroom in hand: fails, no decision asked.
    g = _minimale_example({"pineapple": 3, "olive": 3})
    assert int(g.r["phase"]) == OVER
    assert g.stack(ALBERTO) == [2, 3, 4, 5, 6, 7]
    assert g.piles() == {"salami": 2, "mushroom": 2, "pepper": 2, "pineapple": 3}


def _chinese_example(hand: dict[str, int]) -> Game:
    """003 (ZH-b): piles 4 salami, 3 mushroom, 2 of a third kind -> only that kind.
    The third kind is olive here; Alberto's pepper lies face up once."""
    return Game(
        {
            "seat": 0,
            "round": 2,
            "piles": {"salami": 4, "mushroom": 3, "olive": 2, "pepper": 1},
            "hands": {"3": hand},
            "stacks": {"3": [0, 1, 2, 3, 4, 5, 6]},
            "oven": [[ALBERTO, "order 7"]],
            "reveal": True,
        },
        num_players=4,
    )


def test_example_chinese_minimale_only_the_fewest_kind_is_a_candidate() -> None:
    # Three more mushrooms in hand would cover mushroom, but mushroom is no candidate.
    g = _chinese_example({"olive": 1, "mushroom": 3, "salami": 3})
    assert g.legal() == {deliver_as("olive"), DECLINE}
    assert g.step(deliver_as("olive")) == [0, 0, 0, 1]
    assert g.used() == {"olive": 3, "pepper": 1}
    assert g.piles() == {"salami": 4, "mushroom": 3}
    assert g.hand(ALBERTO) == {"mushroom": 3, "salami": 3}

    # "If the player cannot add 1 olive the order cannot be completed."
    g = _chinese_example({"mushroom": 3, "salami": 3})
    assert int(g.r["phase"]) == OVER
    assert g.delivered(ALBERTO) == []
    assert g.stack(ALBERTO) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert g.piles() == {"salami": 4, "mushroom": 3, "olive": 2, "pepper": 1}


def test_orders_are_checked_against_the_piles_at_the_moment_they_are_revealed() -> None:
    def reveal(oven: list) -> Game:
        return Game(
            {
                "round": 2,
                "piles": {"pineapple": 3, "pepper": 1},
                "hands": {"3": {"olive": 2}},
                "oven": oven,
                "reveal": True,
            },
            num_players=4,
        )

    # The fourth pineapple is played after the order: too late, the order fails.
    g = reveal([[ALBERTO, "order 2"], [0, "1 pineapple"]])
    assert int(g.r["phase"]) == OVER
    assert g.delivered(ALBERTO) == [] and g.stack(ALBERTO)[-1] == 2
    assert g.piles() == {"pineapple": 4, "pepper": 1}

    # Played before it: the piles meet the order, delivered with no decision asked.
    g = reveal([[0, "1 pineapple"], [ALBERTO, "order 2"]])
    assert int(g.r["phase"]) == OVER
    assert g.delivered(ALBERTO) == [2]
    assert g.piles() == {} and g.used() == {"pineapple": 4, "pepper": 1}


# ====================================================================== 2. special pizzas

PILES_14 = {"salami": 3, "mushroom": 3, "pineapple": 3, "pepper": 3, "olive": 2}
PILES_15 = {"salami": 3, "mushroom": 3, "pineapple": 3, "pepper": 3, "olive": 3}
PILES_16 = {"salami": 4, "mushroom": 3, "pineapple": 3, "pepper": 3, "olive": 3}
PILES_23 = {"salami": 5, "mushroom": 5, "pineapple": 5, "pepper": 4, "olive": 4}


def _special(owner: int, order: int, piles: dict, hand: dict, **config: object) -> Game:
    """Round 3, ``owner``'s ``order`` revealed against ``piles``; the owner's other
    orders lie in their stack (in type order), so a failure shows at the bottom."""
    return Game(
        {
            "seat": 0,
            "round": 2,
            "piles": piles,
            "hands": {str(owner): hand},
            "oven": [[owner, f"order {order}"]],
            "reveal": True,
        },
        **{"num_players": 4, **config},
    )


@pytest.mark.parametrize("piles", [PILES_15, PILES_16, PILES_23], ids=["15", "16", "23"])
def test_bombastica_met_by_15_or_more_uses_every_face_up_card(piles: dict) -> None:
    hand = {"salami": 1, "mushroom": 3, "olive": 3}
    g = _special(0, BOMBASTICA, piles, hand)
    assert int(g.r["phase"]) == OVER  # met: no decision
    assert g.delivered(0) == [BOMBASTICA]
    assert g.piles() == {}  # all of them, even beyond 15
    assert g.used() == piles
    assert g.hand(0) == hand  # nothing taken from the hand


def test_bombastica_with_14_face_up_needs_one_hand_card() -> None:
    # No ingredient in hand: cannot reach 15, fails without a decision.
    g = _special(0, BOMBASTICA, PILES_14, {})
    assert int(g.r["phase"]) == OVER
    assert g.delivered(0) == []
    assert g.stack(0) == [0, 1, 2, 3, 4, 6, 7, BOMBASTICA]
    assert g.piles() == PILES_14 and g.used() == {}

    # With cards in hand the owner may complete 14 + 1, or decline.
    g = _special(0, BOMBASTICA, PILES_14, {"salami": 1, "mushroom": 3, "olive": 3})
    assert g.legal() == {DELIVER, DECLINE}
    assert g.step(DELIVER) == [1, 0, 0, 0]
    assert g.piles() == {}
    # SPEC: the largest hand value first, ties to the lowest index: one mushroom
    assert g.hand(0) == {"salami": 1, "mushroom": 2, "olive": 3}
    assert g.used() == {**PILES_14, "mushroom": 4}

    g = _special(0, BOMBASTICA, PILES_14, {"salami": 1, "mushroom": 3, "olive": 3})
    g.step(DECLINE)
    assert g.stack(0) == [0, 1, 2, 3, 4, 6, 7, BOMBASTICA]
    assert g.piles() == PILES_14 and g.hand(0) == {"salami": 1, "mushroom": 3, "olive": 3}


def test_bombastica_shortfall_taken_card_by_card_from_the_largest_hand_value() -> None:
    piles = {"salami": 3, "mushroom": 3, "pineapple": 3, "pepper": 3}  # 12: short 3
    g = _special(0, BOMBASTICA, piles, {"salami": 2, "mushroom": 1, "olive": 2})
    g.step(DELIVER)
    # salami 2 = olive 2 -> salami; then olive 2 is largest -> olive; then all 1 -> salami
    assert g.hand(0) == {"mushroom": 1, "olive": 1}
    assert g.used() == {"salami": 5, "mushroom": 3, "pineapple": 3, "pepper": 3, "olive": 1}
    assert g.piles() == {}


@pytest.mark.parametrize(
    "mushrooms, hand, legal, piles_after, hand_after",
    [
        (5, {}, None, None, None),  # 5 of the joker, nothing to add: fails outright
        (5, {"mushroom": 1}, {deliver_as("mushroom"), DECLINE}, {"pineapple": 2}, {}),
        (6, {}, {deliver_as("mushroom"), DECLINE}, {"pineapple": 2}, {}),
        (7, {}, {deliver_as("mushroom"), DECLINE}, {"mushroom": 1, "pineapple": 2}, {}),
    ],
    ids=["5-fails", "5+1-from-hand", "6", "7-leaves-one"],
)
def test_monotoni_uses_exactly_six_of_the_joker(
    mushrooms: int, hand: dict, legal: set | None, piles_after: dict, hand_after: dict
) -> None:
    piles = {"salami": 1, "mushroom": mushrooms, "pineapple": 2}
    g = _special(0, MONOTONI, piles, hand)
    if legal is None:
        assert int(g.r["phase"]) == OVER
        assert g.delivered(0) == []
        assert g.stack(0) == [0, 1, 2, 3, 4, 5, 7, MONOTONI]
        assert g.piles() == piles
        return
    # Other jokers are unmet, so the owner may also name one of them: DECLINE (X13).
    assert g.legal() == legal
    assert g.step(deliver_as("mushroom")) == [1, 0, 0, 0]
    assert g.delivered(0) == [MONOTONI]
    assert g.used() == {"salami": 1, "mushroom": 6}
    assert g.piles() == piles_after
    assert g.hand(0) == hand_after


def test_monotoni_personal_ingredient_from_hand() -> None:
    g = _special(0, MONOTONI, {"mushroom": 6}, {"salami": 1, "olive": 2})
    assert g.legal() == {deliver_as("mushroom"), DECLINE}
    g.step(deliver_as("mushroom"))
    assert g.hand(0) == {"olive": 2}
    assert g.used() == {"salami": 1, "mushroom": 6}


def test_monotoni_joker_cannot_be_the_personal_ingredient() -> None:
    g = _special(0, MONOTONI, {"salami": 8, "pepper": 6}, {})
    assert g.legal() == {deliver_as("pepper"), DECLINE}
    with pytest.raises(IllegalActionError, match="not one of the owner's legal reveal"):
        g.step(deliver_as("salami"))

    # Seven or more of P alone will not do: no joker is possible, the order fails.
    g = _special(0, MONOTONI, {"salami": 8, "mushroom": 2}, {"mushroom": 3})
    assert int(g.r["phase"]) == OVER
    assert g.delivered(0) == []
    assert g.stack(0)[-1] == MONOTONI
    assert g.piles() == {"salami": 8, "mushroom": 2}


def test_minimale_candidates_exclude_personal_and_empty_piles() -> None:
    # Salami (P) alone has the fewest (1), pepper has none: the candidates are the
    # fewest among the others, pineapple and olive (2 each) - even though the hand
    # could pay 3 pepper.
    piles = {"salami": 1, "mushroom": 3, "pineapple": 2, "olive": 2}
    hand = {"pineapple": 1, "olive": 1, "pepper": 3, "salami": 1}
    g = _special(0, MINIMALE, piles, hand)
    assert g.legal() == {deliver_as("pineapple"), deliver_as("olive"), DECLINE}
    g.step(deliver_as("olive"))
    assert g.used() == {"salami": 1, "olive": 3}
    assert g.piles() == {"mushroom": 3, "pineapple": 2}
    assert g.hand(0) == {"pineapple": 1, "pepper": 3, "salami": 1}

    # Every candidate met by the piles: no DECLINE, but still the owner's pick.
    g = _special(0, MINIMALE, {"salami": 1, "mushroom": 3, "pineapple": 3, "olive": 5}, {})
    assert g.legal() == {deliver_as("mushroom"), deliver_as("pineapple")}

    # A single met candidate: delivered with no decision.
    g = _special(0, MINIMALE, {"salami": 1, "mushroom": 3, "olive": 5}, {})
    assert int(g.r["phase"]) == OVER
    assert g.piles() == {"olive": 5}
    assert g.used() == {"salami": 1, "mushroom": 3}

    # Only P face up: no candidate at all, the order fails.
    g = _special(0, MINIMALE, {"salami": 5}, {"mushroom": 3})
    assert int(g.r["phase"]) == OVER
    assert g.delivered(0) == [] and g.stack(0)[-1] == MINIMALE
    assert g.piles() == {"salami": 5}


def test_strict_minimale_variant() -> None:
    # P alone has the fewest: with strict_minimale there is no candidate -> fails.
    piles = {"salami": 1, "mushroom": 3, "pineapple": 2, "olive": 2}
    hand = {"pineapple": 1, "olive": 1}
    g = _special(0, MINIMALE, piles, hand, strict_minimale=True)
    assert int(g.r["phase"]) == OVER
    assert g.delivered(0) == []
    assert g.stack(0) == [0, 1, 2, 3, 4, 5, 6, MINIMALE]
    assert g.piles() == piles and g.hand(0) == hand

    # P tied at the minimum: the other kinds at the minimum are the candidates.
    tied = {"salami": 2, "mushroom": 3, "pineapple": 2, "olive": 2}
    for strict in (False, True):
        g = _special(0, MINIMALE, tied, hand, strict_minimale=strict)
        assert g.legal() == {deliver_as("pineapple"), deliver_as("olive"), DECLINE}

    # The pineapple example of 000/001 (P tied with two others) reads the same strictly.
    g = _minimale_example({"salami": 1, "mushroom": 1}, strict_minimale=True)
    assert g.legal() == {deliver_as("salami"), deliver_as("mushroom"), DECLINE}


# ====================================================================== 3. Mamma Mia! card


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_mamma_mia_dealt_with_mamma_mia_in_deal(n: int) -> None:
    engine = Engine(Config(num_players=n, mamma_mia_in_deal=True))
    state = engine.reset(seeds=list(range(40)))
    holders = 0
    for game in range(40):
        got = engine_setup(state, game)
        assert got == spec_setup(game, n, mm_in_deal=True)
        r = state.data[game]
        for seat in range(n):  # the holder too: 6 ingredient cards + 1 order
            assert int(r["hand"][seat].sum()) == 6
            assert int(r["orders_hand"][seat].sum()) == 1
        in_supply = got["supply"].count(MAMMA_MIA)
        if got["holder"] >= 0:
            holders += 1
            assert in_supply == 0
            assert len(got["supply"]) == 5 * (13 - REMOVED[n]) - 6 * n
        else:
            assert in_supply == 1
    assert holders > 0  # some deal put the card in a hand


def test_mamma_mia_drawn_mid_draw_is_replaced() -> None:
    g = Game(
        complete(
            {
                "seat": 0,
                "hands": {"0": {"salami": 3, "mushroom": 2}},
                "orders_in_hand": {"0": [0, 1]},
                "supply": ["salami", "mamma_mia", "olive", "mushroom", "pepper"],
            },
            3,
        ),
        num_players=3,
    )
    g.step("play 3 salami, no order, draw supply")
    assert int(g.r["mm_holder"]) == 0  # face up before the drawer
    assert g.hand(0) == {"salami": 1, "mushroom": 3, "olive": 1}  # 3 drawn besides it
    assert len(g.orders(0)) == 2  # hand of 7
    assert g.supply() == [PEPPER]
    assert int(g.r["phase"]) == PLAY and int(g.r["seat"]) == 1


def _last_card_position(supply: list[str]) -> dict:
    """3 players, seat 1 to act; seat 0's "1 of each" waits in the oven and the piles
    (every card placed nowhere else) meet it."""
    return complete(
        {
            "seat": 1,
            "hands": {"1": {"olive": 2}},
            "orders_in_hand": {"1": [0]},
            "oven": [[0, "order 4"]],
            "supply": supply,
        },
        3,
    )


def test_mamma_mia_drawn_as_last_supply_card_ends_play() -> None:
    g = Game(_last_card_position(["mamma_mia"]), num_players=3)
    piles_before = g.piles()
    g.step("play 2 olive, no order, draw supply")
    # no replacement left: play ends, the oven is revealed, the round advances
    assert g.delivered(0) == [4]
    assert int(g.r["round"]) == 1 and int(g.r["phase"]) == PLAY
    assert int(g.r["seat"]) == 1  # the holder starts (the seat after him would be 2)
    assert int(g.r["mm_holder"]) == -1  # back in the supply
    assert sorted(g.supply()) == [0, 1, 2, 3, 4, MAMMA_MIA]  # the used cards + the card
    assert g.used() == {}
    assert g.oven() == []
    expected = {k: v - 1 for k, v in piles_before.items()}
    expected["olive"] += 2  # seat 1's two olives went onto the piles
    assert g.piles() == expected
    assert g.hand(1) == {} and g.orders(1) == [0]  # short, and not refilled

    # With one card after it, the replacement is that last card: play ends too.
    g = Game(_last_card_position(["mamma_mia", "pepper"]), num_players=3)
    g.step("play 1 olive, no order, draw supply")
    assert int(g.r["round"]) == 1 and int(g.r["seat"]) == 1
    assert g.hand(1) == {"olive": 1, "pepper": 1}
    assert sorted(g.supply()) == [0, 1, 2, 3, 4, MAMMA_MIA]


# ====================================================================== 4. rounds, scoring


def test_failed_orders_go_to_the_bottom_of_the_stack_in_reveal_order() -> None:
    g = Game(
        {
            "seat": 0,
            "round": 2,
            "piles": {"mushroom": 2},
            "stacks": {"0": [5, 6, 7], "1": [0, 1, 2, 3, 4, 5, 6]},
            "orders_in_hand": {"0": [4]},
            "oven": [[0, "order 3"], [1, "order 7"], [0, "order 0"], [0, "order 2"]],
            "delivered": {"0": [1]},
            "reveal": True,
        },
        num_players=2,
    )
    assert int(g.r["phase"]) == OVER
    assert g.stack(0) == [5, 6, 7, 3, 0, 2]
    assert g.stack(1) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert g.orders(0) == [4] and g.delivered(0) == [1]
    assert g.piles() == {"mushroom": 2}

    # In play: orders drawn from the stack leave its top, failures join its bottom.
    g = Game(
        complete(
            {
                "seat": 0,
                "hands": {"0": {"salami": 1, "olive": 3}, "1": {"olive": 2}},
                "orders_in_hand": {"0": [0]},
                "stacks": {"0": [1, 2, 3, 4, 5, 6, 7]},
                "supply": ["olive", "olive"],
                "mm_holder": 1,
                "used": {"mushroom": 8},  # no mushroom face up: order 0 must fail
            },
            2,
        ),
        num_players=2,
    )
    g.step("play 1 salami, order type 0, draw stack")
    assert g.orders(0) == [1, 2, 3, 4] and g.stack(0) == [5, 6, 7]
    g.step("play 2 olive, no order, draw supply")  # seat 1 takes the last card
    assert int(g.r["round"]) == 1
    assert g.delivered(0) == []
    assert g.stack(0) == [5, 6, 7, 0]


def _handover_position() -> dict:
    """3 players, round 1, seat 2 about to draw the last supply card; seat 0 holds the
    Mamma Mia! card; seat 1's "1 of each" is in the oven and will be delivered."""
    return complete(
        {
            "seat": 2,
            "mm_holder": 0,
            "hands": {"0": {"salami": 1}, "2": {"pineapple": 1}},
            "orders_in_hand": {"0": [1], "1": [], "2": []},
            "delivered": {"2": [0]},
            "oven": [[1, "1 mushroom"], [1, "order 4"]],
            "supply": ["olive"],
        },
        3,
    )


def test_round_handover_holder_starts_supply_is_used_plus_card_hands_not_refilled() -> None:
    g = Game(_handover_position(), num_players=3)
    assert g.piles() == {"salami": 9, "mushroom": 9, "pineapple": 9, "pepper": 10, "olive": 9}
    g.step("play 1 pineapple, no order, draw supply")

    assert g.delivered(1) == [4]
    assert int(g.r["round"]) == 1 and int(g.r["phase"]) == PLAY
    assert int(g.r["seat"]) == 0  # the holder, not seat 2's neighbour
    assert int(g.r["mm_holder"]) == -1
    # new supply: the five used cards and the Mamma Mia! card, nothing else
    assert sorted(g.supply()) == [SALAMI, MUSHROOM, PINEAPPLE, PEPPER, OLIVE, MAMMA_MIA]
    assert g.used() == {} and g.oven() == []
    # unused face-up cards stay
    assert g.piles() == {"salami": 8, "mushroom": 9, "pineapple": 9, "pepper": 9, "olive": 8}
    # hands are not refilled between rounds
    assert g.hand(0) == {"salami": 1} and g.orders(0) == [1]
    assert g.hand(1) == {} and g.orders(1) == []
    assert g.hand(2) == {"olive": 1} and g.orders(2) == []


def test_carried_piles_count_in_the_next_round() -> None:
    g = Game(_handover_position(), num_players=3)
    g.step("play 1 pineapple, no order, draw supply")  # round 1 -> round 2, seat 0 starts
    assert g.piles()["pineapple"] == 9 and g.piles()["salami"] == 8

    # Round 2: seat 0 plays its last salami and "4 pineapple + 1 salami"; no pineapple
    # is played this round, so only the carried piles can bake it.
    g.step("play 1 salami, order type 1, draw stack")
    assert g.orders(0) == [0, 2, 3, 4, 5, 6, 7]
    assert g.hand(1) == {}  # seat 1 must pass, and takes the whole supply
    assert g.legal() == {"pass, no order, draw supply", "pass, no order, draw stack"}
    delivered = g.step("pass, no order, draw supply")

    assert delivered == [1, 0, 0]
    assert g.delivered(0) == [1]
    assert int(g.r["round"]) == 2
    assert int(g.r["seat"]) == 1  # seat 1 drew the Mamma Mia! card
    assert sorted(g.supply()) == [SALAMI] + [PINEAPPLE] * 4 + [MAMMA_MIA]
    assert g.piles() == {"salami": 8, "mushroom": 9, "pineapple": 5, "pepper": 9, "olive": 8}
    assert g.hand(1) == {"salami": 1, "mushroom": 1, "pineapple": 1, "pepper": 1, "olive": 1}


def test_game_ends_after_the_third_reveal_keeping_oven_used_and_holder() -> None:
    g = Game(
        {
            "round": 2,
            "mm_holder": 1,
            "piles": {"pepper": 1, "pineapple": 4, "olive": 2},
            "oven": [[0, "1 salami"], [ALBERTO, "order 2"]],
            "reveal": True,
        },
        num_players=4,
    )
    assert int(g.r["phase"]) == OVER and bool(g.r["terminated"])
    assert int(g.r["round"]) == 2
    assert g.delivered(ALBERTO) == [2]
    assert g.oven() == [(0, "1 salami"), (ALBERTO, "order 2")]  # not cleared
    assert int(g.r["reveal_pos"]) == 2
    assert g.used() == {"pineapple": 4, "pepper": 1}  # not shuffled into a supply
    assert int(g.r["mm_holder"]) == 1
    assert g.piles() == {"salami": 1, "olive": 2}
    assert g.rewards() == [-1, -1, -1, 1]


def _final(delivered: dict, hands: dict, oven: list | None = None, **config: object) -> Game:
    """The third round's reveal of a 3-player game: the game ends, scores are final."""
    desc = {"round": 2, "delivered": delivered, "hands": hands, "reveal": True}
    if oven:
        desc["oven"] = oven
        desc["piles"] = {"salami": 1, "mushroom": 1, "pineapple": 1, "pepper": 1, "olive": 1}
    return Game(desc, **{"num_players": 3, **config})


@pytest.mark.parametrize(
    "delivered, hands, oven, config, rewards",
    [
        # most delivered orders wins outright, whatever the hands
        ({"0": [0, 1, 2], "1": [0, 1], "2": [0, 1]}, {"1": {"salami": 7}}, None, {}, [1, -1, -1]),
        # tie on orders: most ingredient cards; order cards do not count
        (
            {"0": [0, 1], "1": [0, 1], "2": [0]},
            {"0": {"salami": 2}, "1": {"mushroom": 3}, "2": {"olive": 6}},
            None,
            {},
            [-1, 1, -1],
        ),
        # tie after the tie-break: a shared win, 0 each; the rest -1
        (
            {"0": [0, 1], "1": [0, 1], "2": [0]},
            {"0": {"salami": 3}, "1": {"mushroom": 3}, "2": {"olive": 6}},
            None,
            {},
            [0, 0, -1],
        ),
        # the tie-break counts cards, not value: two doubles (worth 4) lose to 3 singles
        (
            {"0": [0], "1": [0]},
            {"0": {"double salami": 2}, "1": {"mushroom": 3}},
            None,
            {"double_ingredients": True},
            [-1, 1, -1],
        ),
        # the final reveal counts: seat 2's "1 of each" ties it with seat 0, more cards
        (
            {"0": [0]},
            {"0": {"salami": 1}, "2": {"olive": 4}},
            [[2, "order 4"]],
            {},
            [-1, -1, 1],
        ),
    ],
    ids=["most-orders", "tie-break-cards", "shared", "cards-not-value", "last-reveal"],
)
def test_winner_tie_break_and_win_loss_rewards(
    delivered: dict, hands: dict, oven: list | None, config: dict, rewards: list
) -> None:
    g = _final(delivered, hands, oven, **config)
    assert int(g.r["phase"]) == OVER
    assert bool(g.r["terminated"]) and not bool(g.r["truncated"])
    assert g.rewards() == rewards


def test_orders_in_hand_do_not_break_ties() -> None:
    g = Game(
        {
            "round": 2,
            "delivered": {"0": [0], "1": [0]},
            "hands": {"0": {"salami": 2}, "1": {"mushroom": 3}},
            "orders_in_hand": {"0": [1, 2, 3, 4, 5]},
            "reveal": True,
        },
        num_players=2,
    )
    assert g.rewards() == [-1, 1]


@pytest.mark.parametrize(
    "round_, reward_mode, rewards",
    [
        (0, "win_loss", [0, 0, 0]),
        (0, "delivered", [0, 0, 1]),
        (0, "delivered_win_loss", [0, 0, 1]),
        (2, "win_loss", [-1, -1, 1]),
        (2, "delivered", [0, 0, 1]),
        (2, "delivered_win_loss", [-1, -1, 2]),
    ],
)
def test_delivered_reward_goes_to_the_owner_on_another_seats_turn(
    round_: int, reward_mode: str, rewards: list
) -> None:
    g = Game(
        complete(
            {
                "seat": 0,
                "round": round_,
                "hands": {"0": {"salami": 1}},
                "oven": [[2, "order 4"]],
                "supply": ["olive"],
                "mm_holder": 1,
            },
            3,
        ),
        num_players=3,
        reward_mode=reward_mode,
    )
    delivered = g.step("play 1 salami, no order, draw supply")  # seat 0 ends play
    assert delivered == [0, 0, 1]
    assert g.rewards() == rewards


# ====================================================================== 5. variants


def _passing_position(orders: list[int], stack_empty: bool = False) -> dict:
    rest = [t for t in range(8) if t not in orders]
    return {
        "seat": 0,
        "orders_in_hand": {"0": orders},
        "stacks": {"0": [] if stack_empty else rest},
        "delivered": {"0": rest if stack_empty else []},
    }


def test_pass_may_play_order_variant_masks() -> None:
    # Default: a passing player plays no order, but draws from either pile.
    g = Game(_passing_position([0, 3]), num_players=4)
    assert g.legal() == {"pass, no order, draw supply", "pass, no order, draw stack"}
    with pytest.raises(IllegalActionError, match="a passing player plays no order"):
        g.step("pass, order type 0, draw supply")
    g.step("pass, no order, draw supply")  # the pass still draws up to 7
    assert g.oven() == [] and g.orders(0) == [0, 3]
    assert g.hand(0) == {"salami": 5} and int(g.r["idle"]) == 0

    g = Game(_passing_position([0, 3]), num_players=4, pass_may_play_order=True)
    assert g.legal() == {
        f"pass, {order}, draw {pile}"
        for order in ("no order", "order type 0", "order type 3")
        for pile in ("supply", "stack")
    }
    g.step("pass, order type 3, draw stack")
    assert g.oven() == [(0, "order 3")]  # the order alone, no ingredient
    assert g.orders(0) == [0, 1, 2, 4, 5, 6, 7]

    # The stuck player of X8 (7 orders, no ingredient) can move with the variant.
    g = Game(_passing_position(list(range(7))), num_players=4)
    assert g.legal() == {"pass, no order, draw supply"}
    g = Game(_passing_position(list(range(7))), num_players=4, pass_may_play_order=True)
    assert g.legal() == {"pass, no order, draw supply"} | {
        f"pass, order type {t}, draw {pile}" for t in range(7) for pile in ("supply", "stack")
    }


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_double_ingredients_deck_has_two_doubles_per_ingredient(n: int) -> None:
    engine = Engine(Config(num_players=n, double_ingredients=True))
    assert engine.n_play == 101 and engine.n_actions == 101 * 18 + 7
    state = engine.reset(seeds=0, batch_size=20)
    per = 13 - REMOVED[n]
    for game in range(20):
        r = state.data[game]
        counts = r["hand"].sum(axis=0).astype(np.int64)
        supply = r["supply"][r["supply_pos"] : r["supply_len"]]
        for c in range(10):
            counts[c] += int((supply == c).sum())
        assert counts.tolist() == [per - 2] * 5 + [2] * 5  # deck size unchanged
        assert int((supply == MAMMA_MIA).sum()) == 1


def test_double_ingredients_deal_follows_spec_deck_order() -> None:
    """SPEC set-up step 1: per ingredient its singles, then its two doubles (a deck laid
    out by card code, all singles before all doubles, deals other hands)."""
    engine = Engine(Config(num_players=4, double_ingredients=True))
    state = engine.reset(seeds=list(range(10)))
    for game in range(10):
        assert engine_setup(state, game) == spec_setup(game, 4, doubles=True)


def _doubles(owner: int, order: int, piles: dict, hand: dict, **config: object) -> Game:
    return _special(owner, order, piles, hand, double_ingredients=True, **config)


def test_double_counts_two_in_piles_and_is_used_first() -> None:
    # Alberto's "4 pineapple + 1 pepper": two face-up doubles are the 4 pineapple.
    g = _doubles(ALBERTO, 2, {"double pineapple": 2, "pineapple": 3, "pepper": 1}, {})
    assert int(g.r["phase"]) == OVER and g.delivered(ALBERTO) == [2]
    assert g.used() == {"double pineapple": 2, "pepper": 1}  # doubles first
    assert g.piles() == {"pineapple": 3}

    # One double and three singles (value 5) for 4: the double, then two singles.
    g = _doubles(ALBERTO, 2, {"double pineapple": 1, "pineapple": 3, "pepper": 1}, {})
    assert g.used() == {"double pineapple": 1, "pineapple": 2, "pepper": 1}
    assert g.piles() == {"pineapple": 1}

    # RULES D3: need 3, piles one double + two singles -> the double and one single.
    piles = {"salami": 1, "double pineapple": 1, "pineapple": 2, "mushroom": 6}
    g = _doubles(SALAMI, MINIMALE, piles, {})
    assert g.used() == {"salami": 1, "double pineapple": 1, "pineapple": 1}
    assert g.piles() == {"pineapple": 1, "mushroom": 6}


def test_double_overpays_from_piles() -> None:
    # Minimale needs 3 pineapple; face up two doubles and a single (value 5, fewest):
    # both doubles are taken (value 4, one overpaid), the single stays.
    piles = {"salami": 1, "double pineapple": 2, "pineapple": 1, "mushroom": 6}
    g = _doubles(SALAMI, MINIMALE, piles, {})
    assert int(g.r["phase"]) == OVER and g.delivered(SALAMI) == [MINIMALE]
    assert g.used() == {"salami": 1, "double pineapple": 2}
    assert g.piles() == {"pineapple": 1, "mushroom": 6}


def test_double_overpays_from_hand() -> None:
    # Face up one double pineapple (value 2) for a need of 3: the missing 1 comes from
    # the hand, a double before a single, overpaying by one.
    piles = {"salami": 1, "double pineapple": 1, "mushroom": 4}
    g = _doubles(SALAMI, MINIMALE, piles, {"double pineapple": 1, "pineapple": 1})
    assert g.legal() == {deliver_as("pineapple"), DECLINE}
    g.step(deliver_as("pineapple"))
    assert g.used() == {"salami": 1, "double pineapple": 2}
    assert g.hand(SALAMI) == {"pineapple": 1}
    assert g.piles() == {"mushroom": 4}

    # Simple order, 4 pineapple: piles worth 3 are all taken, the double pays the 1.
    piles = {"double pineapple": 1, "pineapple": 1, "pepper": 1}
    g = _doubles(ALBERTO, 2, piles, {"double pineapple": 1, "pineapple": 2})
    g.step(DELIVER)
    assert g.used() == {"double pineapple": 2, "pineapple": 1, "pepper": 1}
    assert g.hand(ALBERTO) == {"pineapple": 2}

    # Bombastica, 14 face up: the hand's double olive (doubles first) pays 1.
    piles = {"salami": 3, "mushroom": 3, "pineapple": 3, "pepper": 3, "double olive": 1}
    g = _doubles(SALAMI, BOMBASTICA, piles, {"double olive": 1, "salami": 1})
    g.step(DELIVER)
    assert g.hand(SALAMI) == {"salami": 1}
    assert g.used() == {**piles, "double olive": 2}


def test_double_bombastica_hand_takes_doubles_first_across_ingredients() -> None:
    # 13 face up (2 missing); 1 double olive and 3 single salami in hand. The
    # double olive covers the 2 (doubles first, of any ingredient): 1 card, not 2.
    piles = {"salami": 3, "mushroom": 3, "pineapple": 3, "pepper": 2, "olive": 2}
    g = _doubles(SALAMI, BOMBASTICA, piles, {"double olive": 1, "salami": 3})
    assert g.legal() == {DELIVER, DECLINE}
    g.step(DELIVER)
    assert g.hand(SALAMI) == {"salami": 3}
    assert g.used() == {**piles, "double olive": 1}
    assert g.piles() == {}


@pytest.mark.parametrize(
    "hand, left",
    [
        # short 3: two doubles (the larger hand value first: pepper 2+2 > mushroom 2),
        # 4 value for 3, 2 cards; the singles stay
        (
            {"double mushroom": 1, "double pepper": 1, "pepper": 2, "salami": 3},
            {"pepper": 2, "salami": 3},
        ),
        # short 3, one double: the double, then one single (salami 3 > pepper 1)
        ({"double olive": 1, "salami": 3, "pepper": 1}, {"salami": 2, "pepper": 1}),
        # short 3, doubles tied in hand value: the lowest index first
        (
            {"double olive": 2, "double mushroom": 2, "salami": 1},
            {"double olive": 1, "double mushroom": 1, "salami": 1},
        ),
    ],
)
def test_double_bombastica_hand_order(hand: dict, left: dict) -> None:
    piles = {"salami": 3, "mushroom": 3, "pineapple": 3, "pepper": 3}  # 12: short 3
    g = _doubles(SALAMI, BOMBASTICA, piles, hand)
    g.step(DELIVER)
    assert g.hand(SALAMI) == left
    assert g.piles() == {}


def test_double_minimale_fewest_compares_value() -> None:
    # mushroom: 1 double (1 card, value 2); olive: 2 singles (value 2) -> tied by value
    piles = {"salami": 1, "double mushroom": 1, "olive": 2, "pineapple": 3}
    g = _doubles(SALAMI, MINIMALE, piles, {"mushroom": 1, "olive": 1})
    assert g.legal() == {deliver_as("mushroom"), deliver_as("olive"), DECLINE}


def test_double_ingredients_mixed_play_in_a_turn() -> None:
    g = Game(
        {"seat": 0, "hands": {"0": {"pineapple": 2, "double pineapple": 1, "olive": 1}}},
        num_players=4,
        double_ingredients=True,
    )
    plays = {text.split(", ")[0] for text in g.legal()}
    assert plays == {
        "play 1 pineapple",
        "play 2 pineapple",
        "play 1 double pineapple",
        "play 1 pineapple + 1 double pineapple",
        "play 2 pineapple + 1 double pineapple",
        "play 1 olive",
    }
    g.step("play 2 pineapple + 1 double pineapple, no order, draw supply")
    assert g.oven() == [(0, "2 pineapple + 1 double pineapple")]
    assert g.hand(0)["olive"] == 1 and "double pineapple" not in g.hand(0)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_start_player_draws_the_start_seat_from_the_seed(n: int) -> None:
    seeds = list(range(60))
    plain = Engine(Config(num_players=n)).reset(seeds=seeds)
    engine = Engine(Config(num_players=n, random_start_player=True))
    state = engine.reset(seeds=seeds)
    starts = set()
    for game in seeds:
        got = engine_setup(state, game)
        assert got == spec_setup(game, n, random_start=True)
        starts.add(got["start"])
        # the deal is the same as without the flag: only the start seat is drawn after it
        base = engine_setup(plain, game)
        assert base["start"] == 0
        assert {**got, "start": 0} == base
    assert starts == set(range(n))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_follows_spec(n: int) -> None:
    state = Engine(Config(num_players=n)).reset(seeds=list(range(20)))
    for game in range(20):
        assert engine_setup(state, game) == spec_setup(game, n)


def test_auto_reveal_applies_the_documented_policy() -> None:
    # A coverable simple order is delivered (any delivery beats declining).
    g = Game(
        {
            "round": 2,
            "piles": {"pepper": 1, "salami": 2, "pineapple": 3, "mushroom": 4},
            "hands": {"3": {"pineapple": 2}},
            "oven": [[ALBERTO, "order 2"]],
            "reveal": True,
        },
        num_players=4,
        auto_reveal=True,
    )
    assert int(g.r["phase"]) == OVER
    assert g.delivered(ALBERTO) == [2] and g.hand(ALBERTO) == {"pineapple": 1}

    # Minimale tie, both coverable at equal cost: the lowest index (salami).
    g = _minimale_example({"salami": 1, "mushroom": 1}, auto_reveal=True)
    assert int(g.r["phase"]) == OVER
    assert g.used() == {"salami": 3, "pepper": 1}
    assert g.hand(ALBERTO) == {"mushroom": 1}

    # Monotoni: olive costs 1 hand card, salami 2 -> olive, though its index is higher.
    piles = {"pepper": 1, "salami": 4, "olive": 5}
    g = _special(ALBERTO, MONOTONI, piles, {"salami": 2, "olive": 1}, auto_reveal=True)
    assert int(g.r["phase"]) == OVER
    assert g.used() == {"pepper": 1, "olive": 6}
    assert g.hand(ALBERTO) == {"salami": 2}
    assert g.piles() == {"salami": 4}

    # Equal cost: the lowest index.
    piles = {"pepper": 1, "salami": 5, "olive": 5}
    g = _special(ALBERTO, MONOTONI, piles, {"salami": 1, "olive": 1}, auto_reveal=True)
    assert g.used() == {"pepper": 1, "salami": 6}

    # Nothing coverable: declined (to the bottom of the stack).
    g = _special(ALBERTO, MONOTONI, {"salami": 2}, {}, auto_reveal=True)
    assert g.delivered(ALBERTO) == [] and g.stack(ALBERTO)[-1] == MONOTONI


def test_auto_reveal_counts_value_actually_taken_with_doubles() -> None:
    """SPEC: the policy counts what the hand actually gives; a double covering a
    shortfall of 1 gives 2."""
    # Minimale tie mushroom/olive (value 2 each): mushroom would take the hand's double
    # (value 2), olive a single (value 1) -> the policy must pick olive.
    piles = {"salami": 1, "mushroom": 2, "double olive": 1, "pineapple": 4}
    g = _doubles(SALAMI, MINIMALE, piles, {"double mushroom": 1, "olive": 1}, auto_reveal=True)
    assert int(g.r["phase"]) == OVER
    assert g.used() == {"salami": 1, "double olive": 1, "olive": 1}
    assert g.hand(SALAMI) == {"double mushroom": 1}

    # Monotoni: pineapple short 2 (two singles, value 2), olive short 1 (the double,
    # value 2): equal value given -> the lowest index, pineapple.
    piles = {"salami": 1, "pineapple": 4, "olive": 5}
    g = _doubles(SALAMI, MONOTONI, piles, {"pineapple": 2, "double olive": 1}, auto_reveal=True)
    assert g.used() == {"salami": 1, "pineapple": 6}
    assert g.hand(SALAMI) == {"double olive": 1}


def test_auto_reveal_never_asks_in_random_games() -> None:
    engine = Engine(Config(num_players=4, auto_reveal=True, double_ingredients=True))
    state = engine.reset(seeds=2024, batch_size=200)
    rng = np.random.default_rng(5)
    n_turn = engine.n_turn_actions
    steps = 0
    delivered = np.zeros(4, dtype=np.int64)
    while (state.data["phase"] != OVER).any():
        masks = engine.legal_masks(state)
        assert not masks[:, n_turn:].any()  # no reveal action is ever legal
        weights = masks * rng.random(masks.shape)
        delivered += engine.step(state, np.argmax(weights, axis=1)).sum(axis=0)
        assert not (state.data["phase"] == REVEAL).any()
        steps += 1
        assert steps < 3000
    assert state.data["terminated"].all() and (state.data["round"] == 2).all()
    assert delivered.sum() > 0  # reveals did resolve orders


def _stuck_position(**extra: object) -> dict:
    """3 players, every seat holds 7 orders and no ingredient: nobody can move a card."""
    return {
        "seat": 1,
        "orders_in_hand": {str(s): list(range(7)) for s in range(3)},
        **extra,
    }


def test_idle_cycle_guard_passes_with_no_draw_and_ends_play_after_n_idle_turns() -> None:
    # A stuck seat passes and draws nothing; a seat that moves a card resets the count.
    g = Game(
        {
            "seat": 0,
            "orders_in_hand": {"0": list(range(7))},
            "hands": {"1": {"salami": 2}},
        },
        num_players=3,
    )
    assert g.legal() == {"pass, no order, draw supply"}
    g.step("pass, no order, draw supply")
    assert int(g.r["idle"]) == 1
    assert g.hand(0) == {} and len(g.orders(0)) == 7 and int(g.r["supply_pos"]) == 0
    g.step("play 1 salami, no order, draw supply")
    assert int(g.r["idle"]) == 0

    # N = 3 idle turns in a row: play ends and the (empty) oven is revealed.
    g = Game(_stuck_position(idle=1), num_players=3)
    g.step("pass, no order, draw supply")  # seat 1
    assert int(g.r["idle"]) == 2 and int(g.r["round"]) == 0
    g.step("pass, no order, draw supply")  # seat 2: the third idle turn
    assert int(g.r["round"]) == 1 and int(g.r["phase"]) == PLAY
    assert int(g.r["idle"]) == 0
    assert int(g.r["seat"]) == 0  # nobody holds the card: the seat after the last turn
    # the cards left in the old supply join the new one, with the Mamma Mia! card
    assert sorted(g.supply()) == sorted([k for k in range(5) for _ in range(10)] + [MAMMA_MIA])

    # If someone holds the Mamma Mia! card, that seat starts the next round.
    g = Game(_stuck_position(idle=1, mm_holder=1), num_players=3)
    g.step("pass, no order, draw supply")
    g.step("pass, no order, draw supply")
    assert int(g.r["round"]) == 1 and int(g.r["seat"]) == 1
    assert int(g.r["mm_holder"]) == -1
    assert len(g.supply()) == 51 and g.supply().count(MAMMA_MIA) == 1


def test_without_guard_stuck_play_runs_to_max_turns() -> None:
    g = Game(_stuck_position(), num_players=3, idle_cycle_guard=False, max_turns=7)
    for _ in range(6):
        g.step("pass, no order, draw supply")
        assert int(g.r["phase"]) == PLAY and int(g.r["round"]) == 0
    g.step("pass, no order, draw supply")
    assert int(g.r["phase"]) == OVER
    assert bool(g.r["truncated"]) and not bool(g.r["terminated"])


def test_max_turns_truncates_at_once() -> None:
    g = Game(
        {"seat": 0, "turns": 3, "hands": {"0": {"salami": 2}}},
        num_players=2,
        max_turns=5,
    )
    g.step("play 1 salami, no order, draw supply")
    assert int(g.r["phase"]) == PLAY and int(g.r["turns"]) == 4
    g.step("pass, no order, draw supply")  # seat 1: the fifth turn
    assert int(g.r["phase"]) == OVER and int(g.r["turns"]) == 5
    assert bool(g.r["truncated"]) and not bool(g.r["terminated"])
    assert g.rewards() == [0, 0]
    with pytest.raises(IllegalActionError, match="the game is over"):
        g.engine.check_actions(g.state, np.array([0]), active=np.array([True]))

    # Even the turn that draws the last supply card: no reveal, no scores.
    desc = complete(
        {
            "seat": 0,
            "hands": {"0": {"salami": 1}},
            "oven": [[1, "order 4"]],
            "supply": ["olive"],
            "mm_holder": 1,
        },
        2,
    )
    g = Game(desc, num_players=2, max_turns=1)
    piles = g.piles()
    g.step("play 1 salami, no order, draw supply")
    assert bool(g.r["truncated"]) and int(g.r["phase"]) == OVER
    assert g.oven() == [(1, "order 4"), (0, "1 salami")]  # not revealed
    assert g.piles() == piles and g.delivered(1) == []
    assert g.rewards() == [0, 0]

    # Reveal decisions are not turns.
    g = Game(
        {
            "piles": {"pepper": 1, "pineapple": 3},
            "hands": {"3": {"pineapple": 1}},
            "oven": [[ALBERTO, "order 2"]],
            "reveal": True,
        },
        num_players=4,
        max_turns=1,
    )
    assert int(g.r["phase"]) == REVEAL
    g.step(DELIVER)
    assert int(g.r["turns"]) == 0 and not bool(g.r["truncated"])
    assert int(g.r["phase"]) == PLAY and int(g.r["round"]) == 1


# ====================================================================== 6. card counts


@pytest.mark.parametrize("n, total", [(2, 40), (3, 50), (4, 60), (5, 65)])
def test_card_counts_after_setup(n: int, total: int) -> None:
    engine = Engine(Config(num_players=n))
    assert int(engine.deck_counts.sum()) == total
    state = engine.reset(seeds=100, batch_size=25)
    for game in range(25):
        r = state.data[game]
        supply = r["supply"][r["supply_pos"] : r["supply_len"]]
        assert len(supply) == total - 6 * n + 1
        assert int((supply == MAMMA_MIA).sum()) == 1 and int(r["mm_holder"]) == -1
        counts = r["hand"].sum(axis=0).astype(np.int64)
        for c in range(10):
            counts[c] += int((supply == c).sum())
        assert counts.tolist() == [total // 5] * 5 + [0] * 5
        for seat in range(n):
            assert int(r["hand"][seat].sum()) == 6  # 6 ingredient cards
            assert int(r["orders_hand"][seat].sum()) == 1  # + 1 order
            head, length = int(r["stack_head"][seat]), int(r["stack_len"][seat])
            assert length == 7
            stack = [int(r["stack"][seat, (head + j) % 8]) for j in range(length)]
            in_hand = [int(t) for t in np.flatnonzero(r["orders_hand"][seat])]
            assert sorted(stack + in_hand) == list(range(8))  # 8 orders per player
        assert not r["delivered"].any() and not r["piles"].any() and int(r["oven_len"]) == 0


# ====================================================================== 7. legality


def test_must_play_at_least_one_ingredient_card_when_holding_any() -> None:
    g = Game(
        {"seat": 0, "hands": {"0": {"salami": 2, "olive": 1}}, "orders_in_hand": {"0": [4]}},
        num_players=4,
    )
    assert g.legal() == {
        f"{play}, {order}, draw {pile}"
        for play in ("play 1 salami", "play 2 salami", "play 1 olive")
        for order in ("no order", "order type 4")
        for pile in ("supply", "stack")
    }
    with pytest.raises(IllegalActionError, match="must play at least one"):
        g.step("pass, no order, draw supply")
    with pytest.raises(IllegalActionError, match="holds only 2 single and 0 double salami"):
        g.step("play 3 salami, no order, draw supply")


def test_one_play_is_cards_of_one_ingredient() -> None:
    # The action space has no mixed play: each play is (one kind, singles, doubles).
    engine = Engine(Config())
    assert engine.n_play == 1 + 5 * 7
    assert [tuple(int(v) for v in row) for row in engine.play[1:]] == [
        (k, s, 0) for k in range(5) for s in range(1, 8)
    ]
    codec = ActionCodec(Engine(Config(double_ingredients=True)))
    with pytest.raises(ValueError, match="one play holds one ingredient"):
        codec.from_str("play 1 salami + 1 double olive, no order, draw supply")
    g = Game(
        {"seat": 0, "hands": {"0": {"salami": 2, "olive": 1}}},
        num_players=4,
    )
    g.step("play 2 salami, no order, draw supply")
    assert g.oven() == [(0, "2 salami")]
    # refilled to 7 from the supply, whose unplaced cards lie in canonical order
    assert g.hand(0) == {"olive": 1, "salami": 6}


def test_at_most_one_order_per_turn() -> None:
    g = Game(
        {"seat": 0, "hands": {"0": {"salami": 2}}, "orders_in_hand": {"0": [0, 3]}},
        num_players=4,
    )
    orders = {text.split(", ")[1] for text in g.legal()}
    assert orders == {"no order", "order type 0", "order type 3"}
    with pytest.raises(IllegalActionError, match="order type 5 is not in seat 0's hand"):
        g.step("play 1 salami, order type 5, draw supply")
    g.step("play 1 salami, order type 0, draw stack")
    assert g.oven() == [(0, "1 salami"), (0, "order 0")]
    assert 3 in g.orders(0)


def test_empty_order_stack_cannot_be_drawn_while_short() -> None:
    g = Game(
        {
            "seat": 0,
            "hands": {"0": {"salami": 2}},
            "orders_in_hand": {"0": [0]},
            "stacks": {"0": []},
            "delivered": {"0": [1, 2, 3, 4, 5, 6, 7]},
        },
        num_players=4,
    )
    assert all(text.endswith("draw supply") for text in g.legal())
    with pytest.raises(IllegalActionError, match="seat 0's order stack is empty"):
        g.step("play 1 salami, no order, draw stack")

    # Passing with an empty stack and a short hand: only the supply.
    g = Game(_passing_position([0, 3], stack_empty=True), num_players=4)
    assert g.legal() == {"pass, no order, draw supply"}


def test_full_hand_draws_nothing_and_only_draw_supply_is_legal() -> None:
    g = Game(_passing_position(list(range(7))), num_players=4)
    assert g.legal() == {"pass, no order, draw supply"}
    with pytest.raises(IllegalActionError, match="the hand is full after this play"):
        g.step("pass, no order, draw stack")
    g.step("pass, no order, draw supply")
    assert int(g.r["supply_pos"]) == 0 and g.hand(0) == {}
    assert g.orders(0) == list(range(7)) and g.stack(0) == [7]
    assert int(g.r["mm_holder"]) == -1 and int(g.r["seat"]) == 1


def test_illegal_actions_raise_naming_the_game_and_the_reason() -> None:
    engine = Engine(Config(num_players=3))
    codec = ActionCodec(engine)
    state = engine.reset(seeds=[11, 12])
    before = state.data.tobytes()
    good = int(np.flatnonzero(engine.legal_masks(state)[0])[0])
    bad = codec.encode_turn(None, draw="supply")  # a pass while holding ingredients
    with pytest.raises(IllegalActionError) as err:
        engine.step(state, np.array([good, bad]))
    assert str(err.value).startswith(f"game 1: action {bad} is illegal: ")
    assert "seat 0 holds ingredient cards and must play at least one" in str(err.value)
    assert state.data.tobytes() == before  # no game moved

    with pytest.raises(IllegalActionError, match="game 0: .* is a reveal decision"):
        engine.step(state, np.array([codec.encode_reveal("deliver"), good]))
    with pytest.raises(IllegalActionError, match="outside the action space"):
        engine.step(state, np.array([engine.n_actions, good]))

    g = _pineapple_example({"pineapple": 2})
    with pytest.raises(IllegalActionError, match="must make a reveal decision"):
        g.step("play 1 pineapple, no order, draw supply")
    with pytest.raises(IllegalActionError, match="not one of the owner's legal reveal"):
        g.step(deliver_as("olive"))
