"""The cards of Mamma Mia!: ingredients, card codes, orders and the play table.

Everything here is plain data derived from the rule texts (see docs/RULES.md and
docs/SPEC.md); the numba kernels receive it as small integer arrays.
"""

from __future__ import annotations

import numpy as np

INGREDIENTS: tuple[str, ...] = ("salami", "mushroom", "pineapple", "pepper", "olive")
N_KINDS = 5
#: Card types: ``k`` single card of ingredient k, ``5 + k`` double card of ingredient k.
N_CARD_TYPES = 10
MAMMA_MIA = 10
N_ORDER_TYPES = 8
HAND_LIMIT = 7
CARDS_PER_KIND = 13
DOUBLES_PER_KIND = 2
#: Ingredient cards removed per ingredient, by player count (rulings: Components).
REMOVED_PER_KIND = {2: 5, 3: 3, 4: 1, 5: 0}
BOMBASTICA_MIN = 15  # ingredient value a Pizza Bombastica needs in all
MONOTONI_JOKER = 6  # value of the joker ingredient a Pizza Monotoni needs
MINIMALE_FEWEST = 3  # value a Pizza Minimale needs of the ingredient with the fewest
PERSONAL_NEED = 1  # value of the personal ingredient every order but Bombastica needs
SIMPLE_MAIN = 4  # value of the other ingredient orders 0-3 need
#: Oven capacity per round: each entry holds at least one card and a card enters the
#: oven at most once per round, so a round has at most 65 ingredient entries and 40
#: order entries.
OVEN_CAPACITY = 112
SUPPLY_CAPACITY = 66

SIMPLE_ORDERS = 5
BOMBASTICA, MONOTONI, MINIMALE = 5, 6, 7

# Reveal actions, as offsets after the turn actions.
DECLINE, DELIVER = 0, 1
DELIVER_AS = 2  # DELIVER_AS + k: deliver, naming ingredient k (the joker / Minimale pick)
N_REVEAL_ACTIONS = DELIVER_AS + N_KINDS


def others(personal: int) -> list[int]:
    """The four ingredients other than ``personal``, in increasing index."""
    return [k for k in range(N_KINDS) if k != personal]


def card_name(code: int) -> str:
    """The name of an ingredient card type: ``"pepper"``, ``"double pepper"``."""
    return ("double " if code >= N_KINDS else "") + INGREDIENTS[code % N_KINDS]


def order_name(order_type: int, personal: int) -> str:
    """A readable name of an order of the colour whose personal ingredient is given."""
    p = INGREDIENTS[personal]
    if order_type < 4:
        return f"4 {INGREDIENTS[others(personal)[order_type]]} + 1 {p}"
    return {
        4: "1 of each",
        BOMBASTICA: "Pizza Bombastica (15+)",
        MONOTONI: f"Pizza Monotoni (1 {p} + 6 J)",
        MINIMALE: f"Pizza Minimale (1 {p} + 3 ?)",
    }[order_type]


def order_need_table() -> np.ndarray:
    """``need[personal, type, kind]`` for the five simple orders (value of each kind)."""
    need = np.zeros((N_KINDS, SIMPLE_ORDERS, N_KINDS), dtype=np.int16)
    for p in range(N_KINDS):
        for t, k in enumerate(others(p)):
            need[p, t, k] = SIMPLE_MAIN
            need[p, t, p] = PERSONAL_NEED
        need[p, 4, :] = 1  # one of each, the personal ingredient included
    return need


def play_table(double_ingredients: bool) -> np.ndarray:
    """Rows ``(kind, singles, doubles)``; row 0 is the pass (see docs/SPEC.md)."""
    rows = [(-1, 0, 0)]
    max_d = DOUBLES_PER_KIND if double_ingredients else 0
    for k in range(N_KINDS):
        for d in range(max_d + 1):
            for s in range(1 if d == 0 else 0, HAND_LIMIT - d + 1):
                rows.append((k, s, d))
    return np.array(rows, dtype=np.int16)


def deck_counts(num_players: int, double_ingredients: bool) -> np.ndarray:
    """Ingredient cards in the game per card type."""
    counts = np.zeros(N_CARD_TYPES, dtype=np.int16)
    per_kind = CARDS_PER_KIND - REMOVED_PER_KIND[num_players]
    for k in range(N_KINDS):
        if double_ingredients:
            counts[k] = per_kind - DOUBLES_PER_KIND
            counts[N_KINDS + k] = DOUBLES_PER_KIND
        else:
            counts[k] = per_kind
    return counts
