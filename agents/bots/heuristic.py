"""The machinery shared by the heuristic bots, vectorised over a batch of games.

A heuristic bot scores every joint turn action ``(play, order, draw)`` of every game
at once, as a sum of three tables (docs/AGENTS.md explains each term):

    score[b, play, order, draw] = play_score[b, play]
                                + order_score[b, play, order]
                                + draw_score[b, play, order, draw]

then takes the best legal action. The terms are built from

* the **pool**: what the face-up piles will hold when an order played *now* is
  revealed. With the ``recall`` observation this is computed exactly from public
  information by replaying the reveal of the oven so far (``simulate_oven``): every
  order already in the oven takes its cards, in the order played, before ours is
  checked. Ingredients played after our order cannot help it, so the pool plus this
  turn's play is all it will ever see; only the choices of earlier orders' owners
  (adding from hand, the Monotoni joker) are uncertain, and each bot states its
  assumption (``rival_cover``).
* the **shortfall** of each order in hand against that pool (``evaluate_orders``):
  met, coverable from the cards left in hand, or hopeless;
* what the bot wants to keep in hand (cards reserved for its own orders already in the
  oven, which it will add at the reveal) and what it wants in the oven (``demand``).

Reveal decisions (``reveal_actions``) are shared by all heuristic bots: deliver
whenever possible; among Monotoni jokers and Minimale candidates, the one that takes
the fewest cards from the hand, then the one the bot's remaining orders need least.

No per-game Python loops: the only loop runs over the (at most 8 x players) orders in
the oven, each step vectorised over the batch.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache

import numpy as np

from mamma_mia_env.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    CARDS_PER_KIND,
    DECLINE,
    DELIVER,
    HAND_LIMIT,
    MINIMALE,
    MONOTONI,
    N_KINDS,
    N_ORDER_TYPES,
    REMOVED_PER_KIND,
)

from .base import Agent, GameInfo, check_batch

K = N_KINDS
T = N_ORDER_TYPES
SEAT_F = 6  # features per seat in the "seats" section (observe.SEAT_FEATURES)
BIG = 1.0e9


# -- reading the observation ---------------------------------------------------------------
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


# -- what an order needs ---------------------------------------------------------------------
def _take(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``a[..., idx]`` with ``idx`` broadcast over the leading axes."""
    return np.take_along_axis(a, idx[..., None], axis=-1)[..., 0]


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
        out["take"] = take
    return out


# -- replaying the reveal of the oven so far -------------------------------------------------
def simulate_oven(
    v: View, personal: np.ndarray, need_table: np.ndarray, rival_cover: float
) -> tuple[np.ndarray, np.ndarray]:
    """The pool after the oven so far is revealed, and the hand value to keep.

    Orders are resolved in the order played, each against the piles plus the
    ingredients played before it, less what earlier orders took. Our own orders
    count as delivered if the current hand can make up their shortfall (and that hand
    value is *reserved*, returned as the second array). A rival's order short by at
    most ``rival_cover`` (and by no more than the ingredient cards they hold) is
    assumed delivered with cards from their hand, emptying the short piles. A
    Monotoni owner names the joker with the most in the pool, a Minimale owner the
    lowest-indexed candidate (the engine's automatic policy).
    """
    n = v.n
    b = len(personal)
    oo = v.oven_orders
    in_oven = oo[:, :, 0] > 0
    count = in_oven.sum(1)
    # games with more orders first: the games still resolving at step j are a prefix
    perm = np.argsort(-count, kind="stable")
    count = count[perm]
    steps = int(count[0]) if b else 0
    consumed = np.zeros((b, K), np.float32)
    reserve = np.zeros((b, K), np.float32)
    if steps == 0:
        return v.pv + v.oven_value, reserve
    oo = oo[perm]
    order = np.argsort(np.where(in_oven[perm], oo[:, :, 1], BIG), axis=1, kind="stable")
    order = order[:, :steps]
    rows = np.arange(b)[:, None]
    slot_info = oo[rows, order]  # (B, steps, 7), oven order
    before = slot_info[:, :, 2:7]
    rel = order // T
    t = order % T
    p_me = personal[perm]
    owner = (p_me[:, None] + rel) % n
    simple_need = need_table[owner, np.minimum(t, 4)].astype(np.float32)  # (B, steps, 5)
    is_p = owner[:, :, None] == np.arange(K)
    rival_cards = (v.seat_f[:, :, 0] - v.seat_f[:, :, 1])[perm]
    cards_of_owner = np.take_along_axis(rival_cards, rel, 1)
    pv = v.pv[perm]
    hv = v.hv[perm]
    reserve_any = np.zeros(b, np.float32)  # hand value reserved for our Bombastica
    alive = np.searchsorted(-count, -np.arange(steps), side="left")  # rows with count > j
    for j in range(steps):
        m = int(alive[j])
        tj = t[:m, j]
        pool = pv[:m] + before[:m, j] - consumed[:m]
        ip = is_p[:m, j]
        # Monotoni: the joker with the most in the pool; Minimale: the first candidate
        joker = np.argmax(np.where(ip, -1.0, np.minimum(pool, 6.0)), axis=1)
        cand_val = np.where(ip | (pool < 1), BIG, pool)
        cand = np.argmin(cand_val, axis=1)
        has_cand = cand_val.min(axis=1) < BIG
        special = np.where(tj == MONOTONI, joker, cand)
        amount = np.where(tj == MONOTONI, 6.0, 3.0)
        spec = ip + (np.arange(K) == special[:, None]) * amount[:, None]
        need = np.where((tj < 5)[:, None], simple_need[:m, j], spec)
        bomb = tj == BOMBASTICA
        short_vec = np.maximum(need - pool, 0)
        short = np.where(bomb, np.maximum(BOMBASTICA_MIN - pool.sum(1), 0), short_vec.sum(1))
        mine = rel[:m, j] == 0
        free = np.maximum(hv[:m] - reserve[:m], 0)
        my_cover = np.where(
            bomb, short <= free.sum(1) - reserve_any[:m], (short_vec <= free).all(1)
        )
        rival_ok = (short <= rival_cover) & (short <= cards_of_owner[:m, j])
        feasible = (tj != MINIMALE) | has_cand
        delivered = feasible & ((short == 0) | np.where(mine, my_cover, rival_ok))
        take = np.where(bomb[:, None], pool, np.minimum(need, pool))
        consumed[:m] += np.where(delivered[:, None], take, 0)
        hold = delivered & mine & (short > 0)
        reserve[:m] += np.where((hold & ~bomb)[:, None], short_vec, 0)
        reserve_any[:m] += np.where(hold & bomb, short, 0)
    inv = np.empty_like(perm)
    inv[perm] = np.arange(b)
    return v.pv + v.oven_value - consumed[inv], reserve[inv]


def bound_oven(
    v: View, personal: np.ndarray, need_table: np.ndarray, doubles: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the pool after the oven so far is revealed, whatever anyone decides.

    Returns ``(low, high)`` (B, 5): every reveal outcome consistent with the public
    information leaves between ``low`` and ``high`` of each ingredient. The replay
    tracks, per ingredient, the least and the most the orders so far can take. An order
    met by the lowest possible pool must be delivered (the owner cannot decline it) and
    takes exactly its need; any other order may be delivered (from the owner's hand) or
    not, so it may take anything from nothing to its largest possible take: its need,
    every joker a Monotoni owner could name, every ingredient that could be the Minimale
    pick, all piles for a Bombastica. With doubles a take may overpay by one.
    """
    n = v.n
    b = len(personal)
    oo = v.oven_orders
    in_oven = oo[:, :, 0] > 0
    count = in_oven.sum(1)
    perm = np.argsort(-count, kind="stable")
    count = count[perm]
    steps = int(count[0]) if b else 0
    total = v.pv + v.oven_value
    if steps == 0:
        return total, total.copy()
    oo = oo[perm]
    order = np.argsort(np.where(in_oven[perm], oo[:, :, 1], BIG), axis=1, kind="stable")
    order = order[:, :steps]
    rows = np.arange(b)[:, None]
    before = oo[rows, order][:, :, 2:7]
    t = order % T
    owner = ((personal[perm])[:, None] + order // T) % n
    simple_need = need_table[owner, np.minimum(t, 4)].astype(np.float32)
    is_p = owner[:, :, None] == np.arange(K)
    over = 1.0 if doubles else 0.0
    max_hand = 2.0 * HAND_LIMIT if doubles else float(HAND_LIMIT)
    pv = v.pv[perm]
    took_lo = np.zeros((b, K), np.float32)  # the least taken so far
    took_hi = np.zeros((b, K), np.float32)  # the most taken so far
    alive = np.searchsorted(-count, -np.arange(steps), side="left")
    for j in range(steps):
        m = int(alive[j])
        tj = t[:m, j]
        base = pv[:m] + before[:m, j]
        lo = base - took_hi[:m]
        hi = base - took_lo[:m]
        ip = is_p[:m, j]
        simple = (tj < 5)[:, None]
        need = simple_need[:m, j]
        # the most the order can take of each ingredient
        special = np.where(ip, 1.0, np.where(tj[:, None] == MONOTONI, 6.0, 3.0))
        most = np.where(simple, np.where(need > 0, need + over, 0), special + over)
        most = np.where((tj == BOMBASTICA)[:, None], hi, np.minimum(most, hi))
        bomb_possible = hi.sum(1) + max_hand >= BOMBASTICA_MIN
        most = np.where(((tj == BOMBASTICA) & ~bomb_possible)[:, None], 0, most)
        # orders that must be delivered, taking a known amount
        forced_simple = (tj < 5) & (lo >= need).all(1)
        forced_bomb = (tj == BOMBASTICA) & (lo.sum(1) >= BOMBASTICA_MIN)
        least = np.where(forced_simple[:, None], need, 0)
        least = np.where(forced_bomb[:, None], lo, least)
        took_lo[:m] += least
        took_hi[:m] += most
    inv = np.empty_like(perm)
    inv[perm] = np.arange(b)
    return (total - took_hi[inv], total - took_lo[inv])


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


def estimate_pool_without_memory(v: View, info: GameInfo) -> np.ndarray:
    """What a player who remembers nothing can guess the oven holds, (B, 5).

    The oven's thickness is public (every card not in the supply, a hand or the
    piles is in it); its make-up is guessed as the mix of the cards the player has
    not seen (not in their hand, not face up).
    """
    n = v.n
    per_kind = CARDS_PER_KIND - REMOVED_PER_KIND[n]
    mm_in_supply = v.seat_f[:, :, 4].sum(1) == 0
    supply_cards = v.supply - mm_in_supply
    hand_cards = (v.seat_f[:, :, 0] - v.seat_f[:, :, 1]).sum(1)
    pile_cards = v.piles.reshape(-1, 2, K).sum(1)  # per kind
    oven_cards = np.maximum(per_kind * K - supply_cards - hand_cards - pile_cards.sum(1), 0)
    unseen = np.maximum(per_kind - (v.hs + v.hd) - pile_cards, 0)
    share = unseen / np.maximum(unseen.sum(1, keepdims=True), 1)
    return oven_cards[:, None] * share


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


# -- the bots' common skeleton --------------------------------------------------------------
@dataclass(frozen=True)
class Params:
    """The weights of a heuristic bot (docs/AGENTS.md, "How the heuristic bots score")."""

    proven: bool = False  # count only on what the oven holds whatever anyone decides
    rival_cover: float = 1.0  # rivals' orders short by this much are assumed delivered
    cover_credit: float = 0.0  # worth of an order that needs cards from hand (vs 1 if met)
    cover_cost: float = 0.0  # per unit of value the hand must add
    gamble: float = 0.0  # an order the hand cannot cover yet: cover_credit * gamble**gap
    gamble_max: float = 3.0  # ... only if the gap is at most this
    order_floor: float = 0.5  # worth of playing no order (an order must beat it)
    type_bonus: tuple[float, ...] = (0.0,) * T  # per order type, added when playable
    card_cost: float = 0.0  # per ingredient card played
    build: float = 0.0  # per unit played of an ingredient our orders still need
    drain: float = 0.0  # per unit played of an ingredient rivals need (as a penalty)
    drain_take: float = 0.0  # per unit our order takes of what rivals need (a bonus)
    reserve_penalty: float = 2.0  # per unit of reserved hand value played away
    keep: float = 0.0  # per unit played of what our orders in hand need
    target_orders: float = 2.0  # orders wanted in hand after drawing
    orders_weight: float = 0.1  # squared distance from target_orders
    min_cards: float = 3.0  # ingredient cards wanted in hand after drawing
    cards_weight: float = 0.3  # per card below min_cards
    tempo: float = 0.0  # per supply card drawn (> 0: hurry the round's end)
    stack_w: float = 0.5  # weight of orders in the stack in our demand
    forget: float = 0.5  # (no memory) share of the guessed oven counted on


class HeuristicAgent(Agent):
    """A bot defined by ``Params``; subclasses set ``params`` and may override hooks."""

    params = Params()

    def __init__(self, **overrides: float) -> None:
        if overrides:
            known = {f.name for f in fields(Params)}
            unknown = sorted(set(overrides) - known)
            if unknown:
                raise TypeError(f"unknown parameter(s) {unknown} of {type(self).__name__}")
            self.params = Params(**{**self.params.__dict__, **overrides})
        self._compiled: dict[tuple, tuple] = {}  # kernel tables per game shape
        self._compiled_for: Params | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # hooks -------------------------------------------------------------------------------
    def pool_and_reserve(
        self, v: View, personal: np.ndarray, info: GameInfo
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The pool an order played now is checked against, the hand value to keep, and
        (for ``proven`` bots) the pool's upper bound."""
        if self.params.proven:
            low, high = bound_oven(v, personal, info.need, info.double_ingredients)
            return low, np.zeros_like(low), high
        if info.recall:
            pool, reserve = simulate_oven(v, personal, info.need, self.params.rival_cover)
            return pool, reserve, None
        est = v.pv + self.params.forget * estimate_pool_without_memory(v, info)
        return est, np.zeros_like(est), None

    # acting ------------------------------------------------------------------------------
    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
        reference: bool = False,
    ) -> np.ndarray:
        """The bot's actions; compiled kernels (``agents/compiled.py``) by default,
        the numpy code of this module with ``reference=True`` (same actions)."""
        kernel = not reference and self._kernel_ok()
        # the kernel checks the observations' values itself, row by row (``decide``)
        info, seats = check_batch(observations, masks, seats, values=not kernel)
        if seats is None:
            raise ValueError(
                f"{type(self).__name__} needs the acting seats (act_batch(..., seats=...)): "
                "the observation does not say which personal ingredient is the bot's"
            )
        if info.observation_mode != self.observation_mode:
            raise ValueError(
                f"{type(self).__name__} reads '{self.observation_mode}' observations, "
                f"got '{info.observation_mode}'"
            )
        masks = np.asarray(masks)
        if not kernel:
            return self._act_numpy(observations, masks, info, seats)
        from .compiled import decide, layout_vector, params_vector, pow_table

        key = (info.num_players, info.observation_mode, info.double_ingredients)
        tables = self._compiled.get(key) if self._compiled_for == self.params else None
        if tables is None:
            if self._compiled_for != self.params:
                self._compiled, self._compiled_for = {}, self.params
            tables = (
                layout_vector(*key),
                info.play.astype(np.int64),
                info.need.astype(np.int64),
                params_vector(self.params),
                pow_table(self.params.gamble),
            )
            self._compiled[key] = tables
        lay, play, need, prm, pw = tables
        return decide(observations, masks, seats, lay, play, need, prm, pw, check=True)

    def _kernel_ok(self) -> bool:
        """The kernels compute the scoring of this class: a subclass that overrides a
        scoring hook runs its own (numpy) code."""
        cls = type(self)
        return all(
            getattr(cls, hook) is getattr(HeuristicAgent, hook)
            for hook in ("pool_and_reserve", "turn_actions", "turn_scores", "_act_numpy")
        )

    def act_batch_reference(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
    ) -> np.ndarray:
        """``act_batch`` by the numpy code of this module: the reference the compiled
        kernels (``agents/compiled.py``) are tested against."""
        return self.act_batch(observations, masks, rng, seats, reference=True)

    def _act_numpy(
        self, observations: np.ndarray, masks: np.ndarray, info: GameInfo, seats: np.ndarray
    ) -> np.ndarray:
        v = parse(observations, info)
        out = np.empty(len(masks), dtype=np.int64)
        reveal = masks[:, info.n_turn_actions :].any(1)
        if reveal.any():
            r = np.flatnonzero(reveal)
            out[r] = reveal_actions(_rows(v, r), seats[r], masks[r], info, info.need)
        if (~reveal).any():
            r = np.flatnonzero(~reveal)
            out[r] = self.turn_actions(_rows(v, r), seats[r], masks[r], info)
        return out

    def turn_actions(
        self, v: View, personal: np.ndarray, masks: np.ndarray, info: GameInfo
    ) -> np.ndarray:
        b = len(masks)
        by_play = masks[:, : info.n_turn_actions].reshape(b, info.n_play, 18) > 0
        legal_play = by_play.any(2)
        # the legal plays of each game first: at most 7 without doubles
        count = legal_play.sum(1)
        c = int(count.max())
        cand = np.argsort(~legal_play, axis=1, kind="stable")[:, :c]
        legal = np.take_along_axis(by_play, cand[:, :, None], 1)
        legal &= (np.arange(c)[None, :] < count[:, None])[:, :, None]
        score = self.turn_scores(v, personal, info, cand).reshape(b, c, 18)
        flat = np.where(legal, score, -BIG).reshape(b, -1)
        best = np.argmax(flat, axis=1)
        play = cand[np.arange(b), best // 18]
        return (play * 18 + best % 18).astype(np.int64)

    def turn_scores(
        self, v: View, personal: np.ndarray, info: GameInfo, cand: np.ndarray
    ) -> np.ndarray:
        """Scores of the turn actions with plays ``cand`` (B, C): (B, C, 9, 2)."""
        prm = self.params
        b, c = cand.shape
        add_t, cards_t = _play_tables(info)
        add = add_t[cand]  # (B, C, 5)
        cards = cards_t[cand]  # (B, C)

        pool, reserve, high = self.pool_and_reserve(v, personal, info)
        pool_c = pool[:, None, :] + add
        hand_after = v.hv[:, None, :] - add
        free = np.maximum(hand_after - reserve[:, None, :], 0)
        ev = evaluate_orders(pool_c, personal, free, info.need, with_take=prm.drain_take != 0)
        if high is not None:  # the Minimale pick is uncertain: met whatever it is
            ev["met"][..., MINIMALE] = proven_minimale(pool_c, high[:, None, :] + add, personal)

        # orders: worth of delivering, by how sure we are
        met, cover = ev["met"], ev["cover"]
        worth = met + (~met & cover) * prm.cover_credit
        if prm.gamble:
            unc = ev["uncovered"]
            hope = (~cover) & (unc <= prm.gamble_max)
            worth = worth + hope * (prm.cover_credit * prm.gamble ** np.minimum(unc, 8))
        if prm.cover_cost:
            worth = worth - (~met & cover) * (prm.cover_cost * ev["short"])
        if any(prm.type_bonus):
            worth = worth + (worth > 0) * np.asarray(prm.type_bonus, np.float32)
        rivals = rival_demand(v, personal)
        if prm.drain_take:
            taken = (ev["take"] * rivals[:, None, None, :]).sum(-1)
            worth = worth + (worth > 0) * (prm.drain_take * taken)
        order_score = np.empty((b, c, 9), np.float32)
        order_score[:, :, 0] = prm.order_floor
        order_score[:, :, 1:] = np.where(v.orders_hand[:, None, :] > 0, worth, -BIG)

        # the ingredient play
        play_score = -prm.card_cost * cards
        if prm.build:
            want = my_demand(v, personal, info.need, prm.stack_w) - pool
            play_score += prm.build * (add * (want > 0)[:, None, :]).sum(-1)
        if prm.drain:
            play_score -= prm.drain * (add * rivals[:, None, :]).sum(-1)
        cut = np.maximum(reserve[:, None, :] - hand_after, 0).sum(-1)
        play_score -= prm.reserve_penalty * cut
        if prm.keep:
            need_hand = my_demand(v, personal, info.need, 0.0)
            play_score -= prm.keep * (add * (need_hand > 0)[:, None, :]).sum(-1)

        # the draw: orders and ingredient cards in hand afterwards
        ing_after = v.ingredient_cards[:, None] - cards  # (B, C)
        ord_after = v.orders_hand.sum(1)[:, None, None] - (np.arange(9) > 0)[None, None]
        short = np.maximum(HAND_LIMIT - ing_after[:, :, None] - ord_after, 0)  # (B, C, 9)
        got = np.minimum(short, v.stack_len[:, None, None])
        draw_score = np.empty((b, c, 9, 2), np.float32)
        ing_supply = ing_after[:, :, None] + short
        draw_score[..., 0] = -prm.orders_weight * (ord_after - prm.target_orders) ** 2
        draw_score[..., 0] -= prm.cards_weight * np.maximum(prm.min_cards - ing_supply, 0)
        draw_score[..., 0] += prm.tempo * short
        draw_score[..., 1] = -prm.orders_weight * (ord_after + got - prm.target_orders) ** 2
        draw_score[..., 1] -= (
            prm.cards_weight * np.maximum(prm.min_cards - ing_after, 0)[:, :, None]
        )
        return play_score[:, :, None, None] + order_score[..., None] + draw_score


@lru_cache(maxsize=8)
def _play_tables(info: GameInfo) -> tuple[np.ndarray, np.ndarray]:
    """Per play: value added to each ingredient (n_play, 5) and cards played (n_play,)."""
    play = info.play
    kind = np.maximum(play[:, 0], 0)
    value = (play[:, 1] + 2 * play[:, 2]).astype(np.float32)
    add = np.zeros((info.n_play, K), np.float32)
    add[np.arange(info.n_play), kind] = value
    add[0] = 0
    return add, (play[:, 1] + play[:, 2]).astype(np.float32)


def _rows(v: View, r: np.ndarray) -> View:
    """The games ``r`` of a view."""
    out = {}
    for f in fields(View):
        a = getattr(v, f.name)
        out[f.name] = a[r] if isinstance(a, np.ndarray) else a
    return View(**out)


__all__ = [
    "HeuristicAgent",
    "Params",
    "View",
    "evaluate_orders",
    "parse",
    "reveal_actions",
    "simulate_oven",
]
