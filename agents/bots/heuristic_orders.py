"""What an order needs, how short of it a pool leaves a bot, and who wants what.

The numpy scoring blocks of the heuristic bots, each over a batch of games:
``order_need`` and ``evaluate_orders`` (every order type against a pool),
``proven_minimale`` (a Minimale met whatever the pool turns out), ``my_demand`` and
``rival_demand`` (what the bot's and its rivals' undelivered orders call for) and
``reveal_actions``, the reveal decisions every heuristic bot shares.
"""

from __future__ import annotations

import numpy as np

from mamma_mia_agents.bots.base import GameInfo
from mamma_mia_agents.bots.heuristic_view import BIG, K, T, View
from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    DECLINE,
    DELIVER,
    MINIMALE,
    MONOTONI,
)


def order_need(
    pool: np.ndarray, owner: np.ndarray, t: np.ndarray, need_table: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Need vector of order type ``t`` of ``owner`` against ``pool``, (..., 5).

    Monotoni takes the joker with the most in the pool (the automatic policy's
    choice), Minimale the lowest-indexed candidate. Bombastica's need is returned as
    zeros (it is a total, handled apart). Also returns ``feasible`` (False for a
    Minimale with no candidate).
    """
    kinds = np.arange(K)
    is_p = kinds == owner[..., None]
    simple = need_table[np.clip(owner, 0, K - 1), np.clip(t, 0, 4)].astype(np.float32)
    joker = np.argmax(np.where(is_p, -1.0, np.minimum(pool, 6.0)), axis=-1)
    cand_val = np.where(is_p | (pool < 1), BIG, pool)
    cand = np.argmin(cand_val, axis=-1)
    has_cand = cand_val.min(axis=-1) < BIG
    special = np.where(t == MONOTONI, joker, cand)
    amount = np.where(t == MONOTONI, 6.0, 3.0)
    spec = is_p.astype(np.float32) + (kinds == special[..., None]) * amount[..., None]
    need = np.where((t < 5)[..., None], simple, np.where((t == BOMBASTICA)[..., None], 0, spec))
    feasible = (t != MINIMALE) | has_cand
    return need, feasible


def evaluate_orders(
    pool: np.ndarray,
    personal: np.ndarray,
    hand: np.ndarray,
    need_table: np.ndarray,
    with_take: bool = False,
) -> dict[str, np.ndarray]:
    """Every order type of ``personal`` against ``pool`` (B, C, 5), all at once.

    ``hand`` (B, C, 5) is the hand value that may be added at the reveal. Returns
    arrays of shape (B, C, 8): ``met`` (the pool alone meets it), ``cover`` (pool plus
    hand meet it), ``short`` (value missing from the pool, for the cheapest option),
    ``uncovered`` (value missing from pool and hand together) and, with
    ``with_take``, ``take`` (B, C, 8, 5): what the order removes from the pool.
    """
    b, c, _ = pool.shape
    rows = np.arange(b)
    is_p = np.zeros((b, 1, K), bool)
    is_p[rows, 0, personal] = True
    not_p = ~is_p
    met = np.empty((b, c, T), bool)
    cover = np.empty((b, c, T), bool)
    short = np.empty((b, c, T), np.float32)
    unc = np.empty((b, c, T), np.float32)
    # simple orders 0-4: need (B, 1, 5 types, 5 kinds)
    need_s = need_table[personal][:, None].astype(np.float32)
    short_s = np.maximum(need_s - pool[:, :, None, :], 0)
    gap_s = np.maximum(short_s - hand[:, :, None, :], 0)
    short[..., :5] = short_s.sum(-1)
    unc[..., :5] = gap_s.sum(-1)
    met[..., :5] = short[..., :5] == 0
    cover[..., :5] = unc[..., :5] == 0
    # Bombastica
    hand_total = hand.sum(-1)
    short_b = np.maximum(BOMBASTICA_MIN - pool.sum(-1), 0)
    short[..., BOMBASTICA] = short_b
    unc[..., BOMBASTICA] = np.maximum(short_b - hand_total, 0)
    # Monotoni: one option per joker J != P (last axis = J)
    pool_p = pool[rows, :, personal]  # (B, C)
    hand_p = hand[rows, :, personal]
    sp = np.maximum(1 - pool_p, 0)
    gp = np.maximum(sp - hand_p, 0)
    sj = np.maximum(6 - pool, 0)
    short_j = np.where(not_p, sj, BIG)
    gap_j = np.where(not_p, np.maximum(sj - hand, 0), BIG)
    short[..., MONOTONI] = sp + short_j.min(-1)
    unc[..., MONOTONI] = gp + gap_j.min(-1)
    # Minimale: the candidate from the pool as it will be at the reveal
    cand_val = np.where(not_p & (pool >= 1), pool, BIG)
    cand = np.argmin(cand_val, axis=-1)  # (B, C)
    has_cand = np.take_along_axis(cand_val, cand[..., None], -1)[..., 0] < BIG
    pool_x = np.take_along_axis(pool, cand[..., None], -1)[..., 0]
    hand_x = np.take_along_axis(hand, cand[..., None], -1)[..., 0]
    sx = np.maximum(3 - pool_x, 0)
    short[..., MINIMALE] = np.where(has_cand, sp + sx, BIG)
    unc[..., MINIMALE] = np.where(has_cand, gp + np.maximum(sx - hand_x, 0), BIG)
    met[..., 5:] = short[..., 5:] == 0
    cover[..., 5:] = unc[..., 5:] == 0
    out = {"met": met, "cover": cover, "short": short, "uncovered": unc}
    if with_take:
        out["take"] = _takes(pool, is_p, need_s, short_j, gap_j, cand, has_cand, pool_x)
    return out


def _takes(
    pool: np.ndarray,
    is_p: np.ndarray,
    need_s: np.ndarray,
    short_j: np.ndarray,
    gap_j: np.ndarray,
    cand: np.ndarray,
    has_cand: np.ndarray,
    pool_x: np.ndarray,
) -> np.ndarray:
    """What each order type would remove from the pool, (B, C, 8, 5) (``evaluate_orders``'
    ``take``, from its intermediate arrays)."""
    b, c, _ = pool.shape
    take = np.zeros((b, c, T, K), np.float32)
    take[:, :, :5] = np.minimum(need_s, pool[:, :, None, :])
    take[:, :, BOMBASTICA] = pool
    # Monotoni: the cheapest coverable joker (else the cheapest); Minimale: cand
    j_best = np.argmin(np.where(gap_j == 0, short_j, BIG + short_j), axis=-1)
    one_p = np.where(is_p, np.minimum(pool, 1), 0)
    take[:, :, MONOTONI] = one_p
    take[:, :, MINIMALE] = one_p * has_cand[..., None]
    bi, ci = np.indices((b, c))
    take[bi, ci, MONOTONI, j_best] = np.minimum(pool[bi, ci, j_best], 6)
    take[bi, ci, MINIMALE, cand] = np.minimum(pool_x, 3) * has_cand
    return take


def proven_minimale(low: np.ndarray, high: np.ndarray, personal: np.ndarray) -> np.ndarray:
    """Whether a Minimale is met for sure when the pool lies between ``low`` and ``high``.

    ``low``, ``high``: (B, ..., 5); ``personal``: (B,). Whatever ingredient turns out the
    fewest, it must hold 3: every ingredient other than P that could be face up at all
    holds at least 3 for sure, at least one does, and P holds at least 1.
    """
    p = np.expand_dims(personal, tuple(range(1, low.ndim)))
    is_p = np.arange(K) == p
    safe = is_p | (high < 1) | (low >= 3)
    some = (~is_p & (low >= 3)).any(-1)
    p_ok = (~is_p | (low >= 1)).all(-1)
    return safe.all(-1) & some & p_ok


# -- demand: what the bot and its rivals will want from the oven --------------------------
def my_demand(v: View, personal: np.ndarray, need_table: np.ndarray, stack_w: float) -> np.ndarray:
    """Value of each ingredient the bot's undelivered orders call for, (B, 5)."""
    w = v.orders_hand.copy()
    if v.orders_stack is not None:
        w += stack_w * v.orders_stack
    need = need_table[personal].astype(np.float32)  # (B, 5, 5)
    d = (w[:, :5, None] * need).sum(1)
    p_onehot = np.arange(K) == personal[:, None]
    d += p_onehot * (w[:, MONOTONI] + w[:, MINIMALE])[:, None]
    return d


def rival_demand(v: View, personal: np.ndarray) -> np.ndarray:
    """How many rival orders still need each ingredient as their personal one, (B, 5)."""
    n = v.n
    d = np.zeros((len(personal), K), np.float32)
    left = T - v.delivered.sum(2)  # (B, n) undelivered orders per relative seat
    for rel in range(1, n):
        p = (personal + rel) % n
        d[np.arange(len(p)), p] += left[:, rel] / T
    return d


# -- the reveal decisions ----------------------------------------------------------------------
def reveal_actions(
    v: View, personal: np.ndarray, masks: np.ndarray, info: GameInfo, need_table: np.ndarray
) -> np.ndarray:
    """Deliver whenever possible; among options, fewest hand cards, then least needed."""
    legal = masks[:, info.n_turn_actions :] > 0  # (B, 7)
    t = v.pending_type
    p = personal
    pool = v.pv
    kinds = np.arange(K)
    pool_p = pool[np.arange(len(p)), p]
    amount = np.where(t == MONOTONI, 6.0, 3.0)[:, None]
    cost = np.maximum(1 - pool_p, 0)[:, None] + np.maximum(amount - pool, 0)  # (B, 5)
    keep = my_demand(v, personal, need_table, 0.5)
    keep = keep / (keep.max(1, keepdims=True) + 1.0)  # < 1: only breaks ties in cost
    score = np.where(legal[:, 2:], -cost - 0.5 * keep - 1e-3 * kinds, -BIG)
    best = 2 + np.argmax(score, axis=1)
    choice = np.where(legal[:, DELIVER], DELIVER, np.where(legal[:, 2:].any(1), best, DECLINE))
    return info.n_turn_actions + choice
