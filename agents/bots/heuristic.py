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

This module holds the bots' skeleton (``Params``, ``HeuristicAgent``); the blocks it
scores with live beside it: ``heuristic_view`` (the observation as named arrays),
``heuristic_oven`` (the pool) and ``heuristic_orders`` (orders, demand, reveals). The
compiled kernels (``mamma_mia_agents.compiled``) compute the same scores per game and
are what ``act_batch`` runs; this numpy code is their reference.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache

import numpy as np

from mamma_mia_agents.bots.base import Agent, GameInfo, check_batch
from mamma_mia_agents.bots.heuristic_orders import (
    evaluate_orders,
    my_demand,
    order_need,
    proven_minimale,
    reveal_actions,
    rival_demand,
)
from mamma_mia_agents.bots.heuristic_oven import (
    bound_oven,
    estimate_pool_without_memory,
    simulate_oven,
)
from mamma_mia_agents.bots.heuristic_view import BIG, K, T, View, parse, rows_of
from mamma_mia_agents.compiled.batch import decide
from mamma_mia_agents.compiled.tables import (
    KernelBot,
    heuristic_bot,
    layout_vector,
    params_vector,
)
from mamma_mia_env.game.cards import HAND_LIMIT, MINIMALE


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
        """The bot's actions; compiled kernels (``mamma_mia_agents.compiled``) by default,
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
        lay, play, need, prm = self._kernel_tables(info)
        return decide(observations, masks, seats, lay, play, need, prm, check=True)

    def _kernel_tables(self, info: GameInfo) -> tuple[np.ndarray, ...]:
        """The kernel's arguments for games of ``info``'s shape (kept per shape while
        ``params`` stays the same)."""
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
            )
            self._compiled[key] = tables
        return tables

    def kernel_bot(self) -> KernelBot | None:
        """This bot as the compiled game loop plays it (``compiled.play_out``): its
        weights as plain arrays; None for a subclass that scores with its own code."""
        if not self._kernel_ok():
            return None
        return heuristic_bot(self.params, self.observation_mode)

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
        kernels (``mamma_mia_agents.compiled``) are tested against."""
        return self.act_batch(observations, masks, rng, seats, reference=True)

    def _act_numpy(
        self, observations: np.ndarray, masks: np.ndarray, info: GameInfo, seats: np.ndarray
    ) -> np.ndarray:
        v = parse(observations, info)
        out = np.empty(len(masks), dtype=np.int64)
        reveal = masks[:, info.n_turn_actions :].any(1)
        if reveal.any():
            r = np.flatnonzero(reveal)
            out[r] = reveal_actions(rows_of(v, r), seats[r], masks[r], info, info.need)
        if (~reveal).any():
            r = np.flatnonzero(~reveal)
            out[r] = self.turn_actions(rows_of(v, r), seats[r], masks[r], info)
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

        rivals = rival_demand(v, personal)
        order_score = _order_scores(prm, v, ev, rivals, b, c)
        play_score = _play_scores(
            prm, v, personal, info, pool, reserve, hand_after, add, cards, rivals
        )
        draw_score = _draw_scores(prm, v, cards, b, c)
        return play_score[:, :, None, None] + order_score[..., None] + draw_score


def _hope(gamble: float, gap: np.ndarray) -> np.ndarray:
    """``gamble ** gap`` as float32, the same bits on every CPU: the float64 power of the
    float32 ``gamble``, rounded once (``compiled.decisions.hope``; numpy's float32 power
    is a vectorised routine whose last bit depends on the CPU's SIMD level)."""
    base = np.float64(np.float32(gamble))
    return (base ** gap.astype(np.float64)).astype(np.float32)


def _order_scores(
    prm: Params, v: View, ev: dict[str, np.ndarray], rivals: np.ndarray, b: int, c: int
) -> np.ndarray:
    """The worth of playing each order (or none): (B, C, 9), by how sure it is met."""
    met, cover = ev["met"], ev["cover"]
    worth = met + (~met & cover) * prm.cover_credit
    if prm.gamble:
        unc = ev["uncovered"]
        hope = (~cover) & (unc <= prm.gamble_max)
        worth = worth + hope * (prm.cover_credit * _hope(prm.gamble, np.minimum(unc, 8)))
    if prm.cover_cost:
        worth = worth - (~met & cover) * (prm.cover_cost * ev["short"])
    if any(prm.type_bonus):
        worth = worth + (worth > 0) * np.asarray(prm.type_bonus, np.float32)
    if prm.drain_take:
        taken = (ev["take"] * rivals[:, None, None, :]).sum(-1)
        worth = worth + (worth > 0) * (prm.drain_take * taken)
    order_score = np.empty((b, c, 9), np.float32)
    order_score[:, :, 0] = prm.order_floor
    order_score[:, :, 1:] = np.where(v.orders_hand[:, None, :] > 0, worth, -BIG)
    return order_score


def _play_scores(
    prm: Params,
    v: View,
    personal: np.ndarray,
    info: GameInfo,
    pool: np.ndarray,
    reserve: np.ndarray,
    hand_after: np.ndarray,
    add: np.ndarray,
    cards: np.ndarray,
    rivals: np.ndarray,
) -> np.ndarray:
    """The score of each ingredient play: (B, C)."""
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
    return play_score


def _draw_scores(prm: Params, v: View, cards: np.ndarray, b: int, c: int) -> np.ndarray:
    """The draw: orders and ingredient cards in hand afterwards, (B, C, 9, 2)."""
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
    draw_score[..., 1] -= prm.cards_weight * np.maximum(prm.min_cards - ing_after, 0)[:, :, None]
    return draw_score


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


__all__ = [
    "HeuristicAgent",
    "Params",
    "View",
    "bound_oven",
    "estimate_pool_without_memory",
    "evaluate_orders",
    "my_demand",
    "order_need",
    "parse",
    "proven_minimale",
    "reveal_actions",
    "rival_demand",
    "simulate_oven",
]
