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
    pool: np.ndarray, personal: np.ndarray, hand: np.ndarray, need_table: np.ndarray
) -> dict[str, np.ndarray]:
    """Every order type of ``personal`` against ``pool`` (B, C, 5), all at once.

    ``hand`` (B, C, 5) is the hand value that may be added at the reveal. Returns
    arrays of shape (B, C, 8): ``met`` (the pool alone meets it), ``cover`` (pool plus
    hand meet it), ``short`` (value missing from the pool, for the cheapest option) and
    ``take`` (B, C, 8, 5): what the order removes from the pool when delivered.
    """
    b, c, _ = pool.shape
    p = personal[:, None]  # (B, 1)
    kinds = np.arange(K)
    is_p = (kinds == p[..., None])[:, :, None, :]  # (B, 1, 1, 5)
    pool4 = pool[:, :, None, :]  # (B, C, 1, 5)
    hand4 = hand[:, :, None, :]
    # simple orders 0-4
    need_s = need_table[personal][:, None].astype(np.float32)  # (B, 1, 5, 5)
    short_s = np.maximum(need_s - pool4, 0)
    met_s = short_s.sum(-1) == 0
    cover_s = (short_s <= hand4).all(-1)
    take_s = np.minimum(need_s, pool4)
    # Bombastica
    total = pool.sum(-1)
    short_b = np.maximum(BOMBASTICA_MIN - total, 0)
    met_b = short_b == 0
    cover_b = short_b <= hand.sum(-1)
    # Monotoni: one option per joker J != P  (axis -2 = J)
    pool_p = _take(pool, np.broadcast_to(p, (b, c)))  # (B, C)
    hand_p = _take(hand, np.broadcast_to(p, (b, c)))
    sp = np.maximum(1 - pool_p, 0)
    sj = np.maximum(6 - pool, 0)  # (B, C, 5)
    not_p = ~is_p[:, :, 0, :]  # (B, 1, 5)
    tot_j = np.where(not_p, sp[..., None] + sj, BIG)
    met_m = ((tot_j == 0) & not_p).any(-1)
    cov_j = not_p & (sp <= hand_p)[..., None] & (sj <= hand)
    cover_m = cov_j.any(-1)
    short_m = tot_j.min(-1)
    j_best = np.argmin(np.where(cov_j, tot_j, BIG + tot_j), axis=-1)  # cheapest coverable
    take_m = np.zeros((b, c, K), np.float32)
    np.put_along_axis(take_m, j_best[..., None], np.minimum(_take(pool, j_best), 6)[..., None], -1)
    take_m += np.where(is_p[:, :, 0, :], np.minimum(pool, 1), 0)
    # Minimale: the candidate from the pool as it will be at the reveal
    cand_val = np.where(is_p[:, :, 0, :] | (pool < 1), BIG, pool)
    cand = np.argmin(cand_val, axis=-1)
    has_cand = cand_val.min(-1) < BIG
    pool_x = _take(pool, cand)
    hand_x = _take(hand, cand)
    sx = np.maximum(3 - pool_x, 0)
    met_n = has_cand & (sp == 0) & (sx == 0)
    cover_n = has_cand & (sp <= hand_p) & (sx <= hand_x)
    short_n = np.where(has_cand, sp + sx, BIG)
    take_n = np.zeros((b, c, K), np.float32)
    np.put_along_axis(take_n, cand[..., None], np.minimum(pool_x, 3)[..., None], -1)
    take_n += np.where(is_p[:, :, 0, :], np.minimum(pool, 1), 0)
    take_n *= has_cand[..., None]

    met = np.concatenate([met_s, met_b[..., None], met_m[..., None], met_n[..., None]], -1)
    cover = np.concatenate(
        [cover_s, cover_b[..., None], cover_m[..., None], cover_n[..., None]], -1
    )
    short = np.concatenate(
        [short_s.sum(-1), short_b[..., None], short_m[..., None], short_n[..., None]], -1
    )
    take = np.concatenate([take_s, pool[:, :, None, :], take_m[:, :, None], take_n[:, :, None]], 2)
    return {"met": met, "cover": cover, "short": short, "take": take}


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
    assumed delivered with cards from their hand, emptying the short piles.
    """
    n = v.n
    b = len(personal)
    oo = v.oven_orders
    in_oven = oo[:, :, 0] > 0
    order = np.argsort(np.where(in_oven, oo[:, :, 1], BIG), axis=1, kind="stable")
    count = in_oven.sum(1)
    consumed = np.zeros((b, K), np.float32)
    reserve = np.zeros((b, K), np.float32)
    reserve_any = np.zeros(b, np.float32)  # hand value reserved for our Bombastica
    rival_cards = v.seat_f[:, :, 0] - v.seat_f[:, :, 1]
    rows = np.arange(b)
    for j in range(int(count.max(initial=0))):
        valid = j < count
        slot = order[:, j]
        rel = slot // T
        t = slot % T
        owner = (personal + rel) % n
        pool = v.pv + oo[rows, slot, 2:7] - consumed
        need, feasible = order_need(pool, owner, t, need_table)
        bomb = t == BOMBASTICA
        short_vec = np.maximum(need - pool, 0)
        short = np.where(bomb, np.maximum(BOMBASTICA_MIN - pool.sum(1), 0), short_vec.sum(1))
        mine = rel == 0
        free = np.maximum(v.hv - reserve, 0)
        my_cover = np.where(
            bomb,
            short <= free.sum(1) - reserve_any,
            (short_vec <= free).all(1),
        )
        rival_ok = (short <= rival_cover) & (short <= rival_cards[rows, rel])
        delivered = valid & feasible & ((short == 0) | np.where(mine, my_cover, rival_ok))
        take = np.where(bomb[:, None], pool, np.minimum(need, pool))
        consumed += np.where(delivered[:, None], take, 0)
        hold = delivered & mine & (short > 0)
        reserve += np.where((hold & ~bomb)[:, None], short_vec, 0)
        reserve_any += np.where(hold & bomb, short, 0)
    residual = v.pv + v.oven_value - consumed
    return residual, reserve


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
    choice = np.where(
        legal[:, DELIVER], DELIVER, np.where(legal[:, 2:].any(1), best, DECLINE)
    )
    return info.n_turn_actions + choice


# -- the bots' common skeleton --------------------------------------------------------------
@dataclass(frozen=True)
class Params:
    """The weights of a heuristic bot (docs/AGENTS.md, "How the heuristic bots score")."""

    rival_cover: float = 1.0  # rivals' orders short by this much are assumed delivered
    cover_credit: float = 0.0  # worth of an order that needs cards from hand (vs 1 if met)
    cover_cost: float = 0.0  # per unit of value the hand must add
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

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # hooks -------------------------------------------------------------------------------
    def pool_and_reserve(
        self, v: View, personal: np.ndarray, info: GameInfo
    ) -> tuple[np.ndarray, np.ndarray]:
        """The pool an order played now is checked against, and the hand to keep."""
        if info.recall:
            return simulate_oven(v, personal, info.need, self.params.rival_cover)
        est = v.pv + self.params.forget * estimate_pool_without_memory(v, info)
        return est, np.zeros_like(est)

    # acting ------------------------------------------------------------------------------
    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
    ) -> np.ndarray:
        info, seats = check_batch(observations, masks, seats)
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
        v = parse(observations, info)
        out = np.empty(len(masks), dtype=np.int64)
        reveal = masks[:, info.n_turn_actions :].any(1)
        if reveal.any():
            r = np.flatnonzero(reveal)
            out[r] = reveal_actions(
                _rows(v, r), seats[r], masks[r], info, info.need
            )
        if (~reveal).any():
            r = np.flatnonzero(~reveal)
            out[r] = self.turn_actions(_rows(v, r), seats[r], masks[r], info)
        return out

    def turn_actions(
        self, v: View, personal: np.ndarray, masks: np.ndarray, info: GameInfo
    ) -> np.ndarray:
        score = self.turn_scores(v, personal, info)
        legal = masks[:, : info.n_turn_actions].reshape(score.shape) > 0
        flat = np.where(legal, score, -BIG).reshape(len(masks), -1)
        return np.argmax(flat, axis=1).astype(np.int64)

    def turn_scores(self, v: View, personal: np.ndarray, info: GameInfo) -> np.ndarray:
        """Scores of every turn action, (B, n_play, 9, 2)."""
        prm = self.params
        b = len(personal)
        play = info.play
        kind = np.maximum(play[:, 0], 0)
        value = (play[:, 1] + 2 * play[:, 2]).astype(np.float32)
        cards = (play[:, 1] + play[:, 2]).astype(np.float32)
        add = np.zeros((info.n_play, K), np.float32)
        add[np.arange(info.n_play), kind] = value
        add[0] = 0

        pool, reserve = self.pool_and_reserve(v, personal, info)
        pool_c = pool[:, None, :] + add[None]  # (B, P, 5)
        hand_after = v.hv[:, None, :] - add[None]
        free = np.maximum(hand_after - reserve[:, None, :], 0)
        ev = evaluate_orders(pool_c, personal, free, info.need)

        # orders: worth of delivering, by how sure we are
        worth = ev["met"] + (~ev["met"] & ev["cover"]) * prm.cover_credit
        worth = worth - (~ev["met"] & ev["cover"]) * prm.cover_cost * ev["short"]
        worth = worth + (worth > 0) * np.asarray(prm.type_bonus, np.float32)
        rivals = rival_demand(v, personal)
        if prm.drain_take:
            worth = worth + (worth > 0) * prm.drain_take * (ev["take"] * rivals[:, None, None]).sum(
                -1
            )
        order_score = np.empty((b, info.n_play, 9), np.float32)
        order_score[:, :, 0] = prm.order_floor
        order_score[:, :, 1:] = np.where(v.orders_hand[:, None, :] > 0, worth, -BIG)

        # the ingredient play
        want = np.maximum(my_demand(v, personal, info.need, prm.stack_w) - pool, 0)
        want = np.minimum(want, 6.0)
        play_score = -prm.card_cost * cards[None] + np.zeros((b, 1), np.float32)
        play_score += prm.build * (add[None] * (want > 0)[:, None, :]).sum(-1)
        play_score -= prm.drain * (add[None] * rivals[:, None, :]).sum(-1)
        cut = np.maximum(reserve[:, None, :] - hand_after, 0).sum(-1)
        play_score -= prm.reserve_penalty * cut
        if prm.keep:
            need_hand = my_demand(v, personal, info.need, 0.0)
            play_score -= prm.keep * (add[None] * (need_hand > 0)[:, None, :]).sum(-1)

        # the draw: orders and ingredient cards in hand afterwards
        ing_after = v.ingredient_cards[:, None] - cards[None]  # (B, P)
        ord_after = v.orders_hand.sum(1)[:, None, None] - (np.arange(9) > 0)[None, None]
        short = np.maximum(HAND_LIMIT - ing_after[:, :, None] - ord_after, 0)  # (B, P, 9)
        got = np.minimum(short, v.stack_len[:, None, None])
        ords = np.stack([ord_after + 0 * short, ord_after + got], -1)  # (B, P, 9, 2)
        ings = np.stack([ing_after[:, :, None] + short, ing_after[:, :, None] + 0 * short], -1)
        draw_score = -prm.orders_weight * (ords - prm.target_orders) ** 2
        draw_score -= prm.cards_weight * np.maximum(prm.min_cards - ings, 0)
        draw_score[..., 0] += prm.tempo * short
        return play_score[:, :, None, None] + order_score[..., None] + draw_score


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
