"""A batch of observations cut into the named arrays the heuristic bots read.

``parse`` turns the ``(B, obs_dim)`` observation vectors into a ``View`` (hand, orders,
seats, piles, the oven's public history under ``recall``); ``rows_of`` keeps some games.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from mamma_mia_agents.bots.base import GameInfo
from mamma_mia_env.game.cards import N_KINDS, N_ORDER_TYPES

K = N_KINDS
T = N_ORDER_TYPES
SEAT_F = 6  # features per seat in the "seats" section (observe.SEAT_FEATURES)
BIG = 1.0e9


@dataclass
class View:
    """A batch of observations cut into named arrays (values: a double counts 2)."""

    n: int
    hs: np.ndarray  # (B, 5) single cards in hand
    hd: np.ndarray  # (B, 5) double cards in hand
    hv: np.ndarray  # (B, 5) hand value per ingredient
    orders_hand: np.ndarray  # (B, 8) 0/1
    orders_stack: np.ndarray | None  # (B, 8) 0/1, recall only
    seat_f: np.ndarray  # (B, n, 6) relative seats: hand size, orders, stack, ...
    delivered: np.ndarray  # (B, n, 8)
    piles: np.ndarray  # (B, 10)
    pv: np.ndarray  # (B, 5) face-up value per ingredient
    supply: np.ndarray  # (B,)
    pending_type: np.ndarray  # (B,) order type being revealed (reveal phase)
    oven_value: np.ndarray | None  # (B, 5) value of this round's oven, recall only
    oven_orders: np.ndarray | None  # (B, n * 8, 7) recall only

    @property
    def ingredient_cards(self) -> np.ndarray:
        return self.hs.sum(1) + self.hd.sum(1)

    @property
    def stack_len(self) -> np.ndarray:
        return self.seat_f[:, 0, 2]


def parse(obs: np.ndarray, info: GameInfo) -> View:
    s = info.slices
    n = info.num_players
    b = len(obs)
    obs = np.asarray(obs, dtype=np.float32)
    hand = obs[:, s["hand"]]
    hs, hd = hand[:, :K], hand[:, K:]
    piles = obs[:, s["piles"]]
    pending = obs[:, s["pending_order"]]
    recall = info.recall
    if recall:
        tot = obs[:, s["oven_totals"]]
        oven_value = tot[:, :K] + 2 * tot[:, K:]
        oven_orders = obs[:, s["oven_orders"]].reshape(b, n * T, 7)
    else:
        oven_value = oven_orders = None
    return View(
        n=n,
        hs=hs,
        hd=hd,
        hv=hs + 2 * hd,
        orders_hand=obs[:, s["orders_in_hand"]],
        orders_stack=obs[:, s["orders_in_stack"]] if recall else None,
        seat_f=obs[:, s["seats"]].reshape(b, n, SEAT_F),
        delivered=obs[:, s["delivered"]].reshape(b, n, T),
        piles=piles,
        pv=piles[:, :K] + 2 * piles[:, K:],
        supply=obs[:, s["supply_size"]][:, 0],
        pending_type=np.argmax(pending[:, n:], axis=1),
        oven_value=oven_value,
        oven_orders=oven_orders,
    )


def rows_of(v: View, r: np.ndarray) -> View:
    """The games ``r`` of a view."""
    out = {}
    for f in fields(View):
        a = getattr(v, f.name)
        out[f.name] = a[r] if isinstance(a, np.ndarray) else a
    return View(**out)
