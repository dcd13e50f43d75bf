"""What the oven will leave in the pool, per game: the heuristic bots' reading of the oven.

``simulate_oven`` (bots with memory: the reveal replayed with an assumption about rivals),
``bound_oven`` (``proven`` bots: bounds whatever anyone decides), ``estimate_pool``
(``top_card`` bots: a guess from the oven's size) and ``my_demand`` (what the bot's own
orders call for). Each works on one game, in the scratch parts of ``jit``;
``decisions.turn_action`` and ``decisions.reveal_action`` call them. The module doc of
``compiled/decisions.py`` says why the arithmetic is float32 with some float64 steps.
"""

from __future__ import annotations

from mamma_mia_agents.compiled.jit import (
    BIG32,
    CONSUMED,
    DEMAND_W,
    F32,
    HIGH_NOW,
    LOW_NOW,
    NEED_F64,
    OVEN_KEYS,
    OVEN_PACKED,
    OVEN_SLOTS,
    OWNER_POOL,
    REMOVED_BY_PLAYERS,
    SHORT_F64,
    TOOK_HI,
    TOOK_LO,
    UNSEEN,
    K,
    T,
    at,
    part,
    per_game,
    sum5,
)
from mamma_mia_agents.compiled.tables import (
    L_DOUBLES,
    L_HAND,
    L_MEMORY,
    L_N,
    L_OH,
    L_OO,
    L_OS,
    L_PILES,
    L_SEATS,
    L_SUPPLY,
    L_TOT,
    OO_BEFORE,
    OO_INDEX,
    OO_PRESENT,
    OO_WIDTH,
    SEAT_HAND_SIZE,
    SEAT_MM,
    SEAT_ORDERS,
    SEAT_WIDTH,
)
from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    CARDS_PER_KIND,
    HAND_LIMIT,
    MINIMALE,
    MINIMALE_FEWEST,
    MONOTONI,
    MONOTONI_JOKER,
    PERSONAL_NEED,
    SIMPLE_ORDERS,
)
from mamma_mia_env.plumbing.jit_cache import njit


@njit(inline="always")
def seat_cards(ob, o_seats: int, rel: int) -> F32:
    """The ingredient cards in the hand of seat slot ``rel``: its hand size less its
    orders."""
    seat = o_seats + rel * SEAT_WIDTH
    return at(ob, seat + SEAT_HAND_SIZE) - at(ob, seat + SEAT_ORDERS)


@per_game
def my_demand(ob, lay, personal, need, stack_w, out, ws) -> None:
    """Value of each ingredient the bot's undelivered orders call for (float32, into
    ``out``): its orders in hand, and those in its stack weighted by ``stack_w``."""
    o_oh = lay[L_OH]
    o_os = lay[L_OS]
    memory = lay[L_MEMORY] != 0
    w = part(ws, DEMAND_W)
    for t in range(T):
        w[t] = at(ob, o_oh + t)
        if memory:
            w[t] = w[t] + stack_w * at(ob, o_os + t)
    for k in range(K):
        d = w[0] * F32(need[personal, 0, k])
        for t in range(1, SIMPLE_ORDERS):
            d = d + w[t] * F32(need[personal, t, k])
        out[k] = d
    out[personal] = out[personal] + (w[MONOTONI] + w[MINIMALE])


@per_game
def order_need(pool, owner, t, need, out) -> bool:
    """The need of order type ``t`` of ``owner`` against ``pool`` (float64, into ``out``);
    False for a Minimale with no candidate. A Monotoni owner names the joker with the
    most in the pool, a Minimale owner the lowest-indexed candidate (the engine's
    automatic policy); Bombastica's need is zeros (a total, handled apart)."""
    if t < SIMPLE_ORDERS:
        for k in range(K):
            out[k] = float(need[owner, t, k])
        return True
    if t == BOMBASTICA:
        for k in range(K):
            out[k] = 0.0
        return True
    # Monotoni: the joker with the most in the pool; Minimale: the first candidate
    joker = -1
    jv = F32(0.0)
    cand = -1
    cv = BIG32
    for k in range(K):
        v = F32(-1.0) if k == owner else min(pool[k], F32(MONOTONI_JOKER))
        if joker < 0 or v > jv:
            joker = k
            jv = v
        c = BIG32 if (k == owner or pool[k] < 1) else pool[k]
        if cand < 0 or c < cv:
            cand = k
            cv = c
    special = joker if t == MONOTONI else cand
    amount = float(MONOTONI_JOKER if t == MONOTONI else MINIMALE_FEWEST)
    for k in range(K):
        out[k] = (float(PERSONAL_NEED) if k == owner else 0.0) + (amount if k == special else 0.0)
    return t != MINIMALE or bool(cv < BIG32)


@per_game
def oven_slots(ob, lay, slots, packed, keys) -> int:
    """The oven's orders in the order played: slot indices (rel * 8 + type) into
    ``slots[:m]``; ``packed`` and ``keys`` (``MAX_OVEN_ORDERS`` each) are scratch.

    A stable sort by oven index, computed as ranks: an order's place is the number of
    orders before it (a smaller index, or an equal one in an earlier slot). There is no
    branch on the data, and the comparisons vectorise; for at most 40 orders this is
    faster than a bucket pass over the oven's 112 places, and any observation (not only
    the engine's, whose indices are distinct) gets the same order as a stable sort."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    m = 0
    for i in range(n * T):  # the present slots, packed without a branch
        keys[m] = at(ob, o_oo + i * OO_WIDTH + OO_INDEX)
        packed[m] = i
        m += at(ob, o_oo + i * OO_WIDTH + OO_PRESENT) > 0
    for a in range(m):
        ka = keys[a]
        r = 0
        for b in range(m):
            kb = keys[b]
            r += (kb < ka) | ((kb == ka) & (b < a))
        slots[r] = packed[a]
    return m


@per_game
def simulate_oven(ob, lay, personal, need, rival_cover, pv, hv, pool, reserve, ws, wd, wi) -> None:
    """The pool after the oven so far is revealed (``pool``) and the hand value to keep
    (``reserve``), for a bot with memory.

    Orders are resolved in the order played, each against the piles plus the ingredients
    played before it, less what earlier orders took. The bot's own orders count as
    delivered if the current hand can make up their shortfall (and that hand value is
    reserved). A rival's order short by at most ``rival_cover`` (and by no more than the
    ingredient cards they hold) is assumed delivered from their hand. Jokers and
    Minimale picks as ``order_need``."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    o_tot = lay[L_TOT]
    o_seats = lay[L_SEATS]
    slots = part(wi, OVEN_SLOTS)
    m = oven_slots(ob, lay, slots, part(wi, OVEN_PACKED), part(ws, OVEN_KEYS))
    consumed = part(ws, CONSUMED)
    consumed[:] = F32(0.0)
    for k in range(K):
        reserve[k] = F32(0.0)
    reserve_any = F32(0.0)
    p_pool = part(ws, OWNER_POOL)
    nd = part(wd, NEED_F64)
    sv = part(wd, SHORT_F64)
    for j in range(m):
        i = slots[j]
        rel = i // T
        t = i % T
        owner = (personal + rel) % n
        base = o_oo + i * OO_WIDTH + OO_BEFORE
        if t < SIMPLE_ORDERS and rel != 0:
            # a rival's simple order (most of the oven): the general case below, with
            # its need read in place; the same operations in the same order
            ssum = 0.0
            for k in range(K):
                pk = (pv[k] + at(ob, base + k)) - consumed[k]
                p_pool[k] = pk
                ssum += max(float(need[owner, t, k]) - float(pk), 0.0)
            cards = seat_cards(ob, o_seats, rel)
            if ssum == 0.0 or (ssum <= rival_cover and ssum <= float(cards)):
                for k in range(K):
                    take = min(float(need[owner, t, k]), float(p_pool[k]))
                    consumed[k] = F32(float(consumed[k]) + take)
            continue
        for k in range(K):
            p_pool[k] = (pv[k] + at(ob, base + k)) - consumed[k]
        feasible = order_need(p_pool, owner, t, need, nd)
        bomb = t == BOMBASTICA
        ssum = 0.0
        for k in range(K):
            sv[k] = max(nd[k] - float(p_pool[k]), 0.0)
            ssum += sv[k]
        short = float(max(F32(BOMBASTICA_MIN) - sum5(p_pool), F32(0.0))) if bomb else ssum
        mine = rel == 0
        if mine:
            if bomb:
                fs = F32(0.0)
                free_sum = max(hv[0] - reserve[0], F32(0.0))
                for k in range(1, K):
                    free_sum = free_sum + max(hv[k] - reserve[k], F32(0.0))
                fs = free_sum - reserve_any
                covered = short <= float(fs)
            else:
                covered = True
                for k in range(K):
                    if not sv[k] <= float(max(hv[k] - reserve[k], F32(0.0))):
                        covered = False
        else:
            cards = seat_cards(ob, o_seats, rel)
            covered = short <= rival_cover and short <= float(cards)
        delivered = feasible and (short == 0.0 or covered)
        if delivered:
            for k in range(K):
                take = float(p_pool[k]) if bomb else min(nd[k], float(p_pool[k]))
                consumed[k] = F32(float(consumed[k]) + take)
            if mine and short > 0:
                if bomb:
                    reserve_any = F32(float(reserve_any) + short)
                else:
                    for k in range(K):
                        reserve[k] = F32(float(reserve[k]) + sv[k])
    for k in range(K):
        tot = at(ob, o_tot + k) + F32(2.0) * at(ob, o_tot + K + k)
        pool[k] = (pv[k] + tot) - consumed[k]


@per_game
def bound_oven(ob, lay, personal, need, pv, low, high, ws, wi) -> None:
    """Bounds on the pool after the oven so far is revealed, whatever anyone decides:
    every reveal consistent with the public information leaves between ``low`` and
    ``high`` of each ingredient (a ``proven`` bot).

    The replay tracks the least and the most the orders so far can take. An order met by
    the lowest possible pool must be delivered and takes exactly its need; any other may
    take anything from nothing to its largest possible take: its need, every joker a
    Monotoni owner could name, every ingredient that could be the Minimale pick, all
    piles for a Bombastica. With doubles a take may overpay by one."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    o_tot = lay[L_TOT]
    doubles = lay[L_DOUBLES] != 0
    over = 1.0 if doubles else 0.0
    max_hand = 2.0 * HAND_LIMIT if doubles else float(HAND_LIMIT)
    slots = part(wi, OVEN_SLOTS)
    m = oven_slots(ob, lay, slots, part(wi, OVEN_PACKED), part(ws, OVEN_KEYS))
    took_lo = part(ws, TOOK_LO)
    took_hi = part(ws, TOOK_HI)
    took_lo[:] = F32(0.0)
    took_hi[:] = F32(0.0)
    lo = part(ws, LOW_NOW)
    hi = part(ws, HIGH_NOW)
    for j in range(m):
        i = slots[j]
        t = i % T
        owner = (personal + i // T) % n
        for k in range(K):
            base = pv[k] + at(ob, o_oo + i * OO_WIDTH + OO_BEFORE + k)
            lo[k] = base - took_hi[k]
            hi[k] = base - took_lo[k]
        bomb = t == BOMBASTICA
        bomb_possible = float(sum5(hi)) + max_hand >= BOMBASTICA_MIN
        forced_simple = t < SIMPLE_ORDERS
        if t < SIMPLE_ORDERS:
            for k in range(K):
                if not lo[k] >= F32(need[owner, t, k]):
                    forced_simple = False
        forced_bomb = bomb and sum5(lo) >= BOMBASTICA_MIN
        for k in range(K):
            if t < SIMPLE_ORDERS:
                nk = F32(need[owner, t, k])
                most = float(nk + F32(over)) if nk > 0 else 0.0
            else:
                special = float(
                    PERSONAL_NEED
                    if k == owner
                    else (MONOTONI_JOKER if t == MONOTONI else MINIMALE_FEWEST)
                )
                most = special + over
            most = float(hi[k]) if bomb else min(most, float(hi[k]))
            if bomb and not bomb_possible:
                most = 0.0
            least = F32(0.0)
            if forced_simple:
                least = F32(need[owner, t, k])
            if forced_bomb:
                least = lo[k]
            took_lo[k] = took_lo[k] + least
            took_hi[k] = F32(float(took_hi[k]) + most)
    for k in range(K):
        tot = pv[k] + (at(ob, o_tot + k) + F32(2.0) * at(ob, o_tot + K + k))
        low[k] = tot - took_hi[k]
        high[k] = tot - took_lo[k]


@per_game
def estimate_pool(ob, lay, pv, forget, pool, ws) -> None:
    """``pv`` plus ``forget`` times what a player who remembers nothing can guess the oven
    holds: its thickness is public (every card not in the supply, a hand or the piles is
    in it), its make-up is guessed as the mix of the cards the player has not seen."""
    n = lay[L_N]
    o_seats = lay[L_SEATS]
    o_p = lay[L_PILES]
    o_h = lay[L_HAND]
    per_kind = CARDS_PER_KIND - REMOVED_BY_PLAYERS[n]
    mm = F32(0.0)
    hand_cards = F32(0.0)
    for j in range(n):
        mm = mm + at(ob, o_seats + j * SEAT_WIDTH + SEAT_MM)
        hand_cards = hand_cards + seat_cards(ob, o_seats, j)
    supply_cards = at(ob, lay[L_SUPPLY]) - (F32(1.0) if mm == 0 else F32(0.0))
    piles_total = F32(0.0)
    unseen = part(ws, UNSEEN)
    for k in range(K):
        pile_k = at(ob, o_p + k) + at(ob, o_p + K + k)
        piles_total = piles_total + pile_k
        hand_k = at(ob, o_h + k) + at(ob, o_h + K + k)
        unseen[k] = max((F32(per_kind) - hand_k) - pile_k, F32(0.0))
    oven_cards = max(((F32(per_kind * K) - supply_cards) - hand_cards) - piles_total, F32(0.0))
    tot = max(sum5(unseen), F32(1.0))
    for k in range(K):
        pool[k] = pv[k] + forget * (oven_cards * (unseen[k] / tot))
