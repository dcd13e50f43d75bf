"""Replaying the reveal of the oven so far: the pool an order played now will meet.

``simulate_oven`` (recall bots: the reveal replayed with an assumption about rivals),
``bound_oven`` (``proven`` bots: bounds whatever anyone decides) and
``estimate_pool_without_memory`` (``top_card`` bots: a guess from the oven's size).
No per-game Python loops: the only loop runs over the (at most 8 x players) orders in
the oven, each step vectorised over the batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mamma_mia_agents.bots.base import GameInfo
from mamma_mia_agents.bots.heuristic_view import BIG, K, T, View
from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    CARDS_PER_KIND,
    HAND_LIMIT,
    MINIMALE,
    MONOTONI,
    REMOVED_PER_KIND,
)


@dataclass
class OvenReplay:
    """The orders in the oven in the order played, games with more orders first.

    The games still resolving at step ``j`` are a prefix (``alive[j]`` rows); every
    array is in that game order (``perm``; ``undo`` restores the caller's).
    """

    perm: np.ndarray  # (B,) game order: most orders in the oven first
    steps: int  # the most orders any game has in the oven
    alive: np.ndarray  # (steps,) games with more than j orders
    before: np.ndarray  # (B, steps, 5) ingredients played before each order
    rel: np.ndarray  # (B, steps) the owner's seat, relative to the bot
    t: np.ndarray  # (B, steps) order type
    owner: np.ndarray  # (B, steps) owner's personal ingredient
    simple_need: np.ndarray  # (B, steps, 5) float32, the need of types 0-4
    is_p: np.ndarray  # (B, steps, 5) the owner's personal ingredient

    @classmethod
    def of(cls, v: View, personal: np.ndarray, need_table: np.ndarray) -> OvenReplay | None:
        """The replay of ``v``'s oven; None if no game has an order in it."""
        n = v.n
        b = len(personal)
        oo = v.oven_orders
        in_oven = oo[:, :, 0] > 0
        count = in_oven.sum(1)
        # games with more orders first: the games still resolving at step j are a prefix
        perm = np.argsort(-count, kind="stable")
        count = count[perm]
        steps = int(count[0]) if b else 0
        if steps == 0:
            return None
        oo = oo[perm]
        order = np.argsort(np.where(in_oven[perm], oo[:, :, 1], BIG), axis=1, kind="stable")
        order = order[:, :steps]
        rows = np.arange(b)[:, None]
        slot_info = oo[rows, order]  # (B, steps, 7), oven order
        rel = order // T
        t = order % T
        owner = (personal[perm][:, None] + rel) % n
        return cls(
            perm=perm,
            steps=steps,
            alive=np.searchsorted(-count, -np.arange(steps), side="left"),
            before=slot_info[:, :, 2:7],
            rel=rel,
            t=t,
            owner=owner,
            simple_need=need_table[owner, np.minimum(t, 4)].astype(np.float32),
            is_p=owner[:, :, None] == np.arange(K),
        )

    def undo(self) -> np.ndarray:
        """The index that puts rows in ``perm`` order back in the caller's order."""
        inv = np.empty_like(self.perm)
        inv[self.perm] = np.arange(len(self.perm))
        return inv


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
    b = len(personal)
    reserve = np.zeros((b, K), np.float32)
    replay = OvenReplay.of(v, personal, need_table)
    if replay is None:
        return v.pv + v.oven_value, reserve
    consumed = np.zeros((b, K), np.float32)
    rel, t, perm = replay.rel, replay.t, replay.perm
    rival_cards = (v.seat_f[:, :, 0] - v.seat_f[:, :, 1])[perm]
    cards_of_owner = np.take_along_axis(rival_cards, rel, 1)
    pv = v.pv[perm]
    hv = v.hv[perm]
    reserve_any = np.zeros(b, np.float32)  # hand value reserved for our Bombastica
    for j in range(replay.steps):
        m = int(replay.alive[j])
        tj = t[:m, j]
        pool = pv[:m] + replay.before[:m, j] - consumed[:m]
        ip = replay.is_p[:m, j]
        # Monotoni: the joker with the most in the pool; Minimale: the first candidate
        joker = np.argmax(np.where(ip, -1.0, np.minimum(pool, 6.0)), axis=1)
        cand_val = np.where(ip | (pool < 1), BIG, pool)
        cand = np.argmin(cand_val, axis=1)
        has_cand = cand_val.min(axis=1) < BIG
        special = np.where(tj == MONOTONI, joker, cand)
        amount = np.where(tj == MONOTONI, 6.0, 3.0)
        spec = ip + (np.arange(K) == special[:, None]) * amount[:, None]
        need = np.where((tj < 5)[:, None], replay.simple_need[:m, j], spec)
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
    inv = replay.undo()
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
    b = len(personal)
    total = v.pv + v.oven_value
    replay = OvenReplay.of(v, personal, need_table)
    if replay is None:
        return total, total.copy()
    t = replay.t
    over = 1.0 if doubles else 0.0
    max_hand = 2.0 * HAND_LIMIT if doubles else float(HAND_LIMIT)
    pv = v.pv[replay.perm]
    took_lo = np.zeros((b, K), np.float32)  # the least taken so far
    took_hi = np.zeros((b, K), np.float32)  # the most taken so far
    for j in range(replay.steps):
        m = int(replay.alive[j])
        tj = t[:m, j]
        base = pv[:m] + replay.before[:m, j]
        lo = base - took_hi[:m]
        hi = base - took_lo[:m]
        ip = replay.is_p[:m, j]
        simple = (tj < 5)[:, None]
        need = replay.simple_need[:m, j]
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
    inv = replay.undo()
    return (total - took_hi[inv], total - took_lo[inv])


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
