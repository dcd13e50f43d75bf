"""What the oven will leave in the pool, per game: the numba twins of ``heuristic_oven``.

Each kernel computes, for one game and into caller-given scratch, exactly what its
numpy namesake in ``bots/heuristic_oven.py`` / ``bots/heuristic_orders.py`` computes
for a batch (the module doc of ``compiled/decisions.py`` says how the arithmetic is
kept bit-identical). ``decisions.turn_action`` calls them.
"""

from __future__ import annotations

from mamma_mia_agents.compiled.jit import BIG32, F32, K, T, per_game, sum5
from mamma_mia_agents.compiled.tables import (
    L_DOUBLES,
    L_HAND,
    L_N,
    L_OH,
    L_OO,
    L_OS,
    L_PILES,
    L_RECALL,
    L_SEATS,
    L_SUPPLY,
    L_TOT,
)
from mamma_mia_env.game.cards import BOMBASTICA, HAND_LIMIT, MINIMALE, MONOTONI


@per_game
def my_demand(ob, lay, personal, need, stack_w, out, ws) -> None:
    """``heuristic.my_demand`` for one game (float32, into ``out``)."""
    o_oh = lay[L_OH]
    o_os = lay[L_OS]
    recall = lay[L_RECALL] != 0
    w = ws[0:8]
    for t in range(T):
        w[t] = ob[o_oh + t]
        if recall:
            w[t] = w[t] + stack_w * ob[o_os + t]
    for k in range(K):
        d = w[0] * F32(need[personal, 0, k])
        for t in range(1, 5):
            d = d + w[t] * F32(need[personal, t, k])
        out[k] = d
    out[personal] = out[personal] + (w[MONOTONI] + w[MINIMALE])


@per_game
def order_need(pool, owner, t, need, out) -> bool:
    """``heuristic.order_need`` for one order (float64 need, as numpy's ``np.where``)."""
    if t < 5:
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
        v = F32(-1.0) if k == owner else min(pool[k], F32(6.0))
        if joker < 0 or v > jv:
            joker = k
            jv = v
        c = BIG32 if (k == owner or pool[k] < 1) else pool[k]
        if cand < 0 or c < cv:
            cand = k
            cv = c
    special = joker if t == MONOTONI else cand
    amount = 6.0 if t == MONOTONI else 3.0
    for k in range(K):
        out[k] = (1.0 if k == owner else 0.0) + (amount if k == special else 0.0)
    return t != MINIMALE or cv < BIG32


@per_game
def oven_slots(ob, lay, slots, keys) -> int:
    """The oven's orders in the order played: slot indices (rel * 8 + type) into
    ``slots[:m]``; ``slots[64:104]`` and ``keys[:40]`` are scratch.

    A stable sort by oven index, computed as ranks: an order's place is the number of
    orders before it (a smaller index, or an equal one in an earlier slot). There is no
    branch on the data, and the comparisons vectorise; for at most 40 orders this is
    faster than a bucket pass over the oven's 112 places, and any observation (not only
    the engine's, whose indices are distinct) gets the same order as a stable sort."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    m = 0
    for i in range(n * T):  # the present slots, packed without a branch
        keys[m] = ob[o_oo + i * 7 + 1]
        slots[64 + m] = i
        m += ob[o_oo + i * 7] > 0
    for a in range(m):
        ka = keys[a]
        r = 0
        for b in range(m):
            kb = keys[b]
            r += (kb < ka) | ((kb == ka) & (b < a))
        slots[r] = slots[64 + a]
    return m


@per_game
def simulate_oven(ob, lay, personal, need, rival_cover, pv, hv, pool, reserve, ws, wd, wi) -> None:
    """``heuristic.simulate_oven`` for one game: the pool and the reserved hand value."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    o_tot = lay[L_TOT]
    o_seats = lay[L_SEATS]
    slots = wi
    m = oven_slots(ob, lay, slots, ws[256:296])
    consumed = ws[24:29]
    consumed[:] = F32(0.0)
    for k in range(K):
        reserve[k] = F32(0.0)
    reserve_any = F32(0.0)
    p_pool = ws[32:37]
    nd = wd[0:5]
    sv = wd[8:13]
    for j in range(m):
        i = slots[j]
        rel = i // T
        t = i % T
        owner = (personal + rel) % n
        base = o_oo + i * 7 + 2
        if t < 5 and rel != 0:
            # a rival's simple order (most of the oven): the general case below, with
            # its need read in place; the same operations in the same order
            ssum = 0.0
            for k in range(K):
                pk = (pv[k] + ob[base + k]) - consumed[k]
                p_pool[k] = pk
                ssum += max(float(need[owner, t, k]) - float(pk), 0.0)
            cards = ob[o_seats + rel * 6] - ob[o_seats + rel * 6 + 1]
            if ssum == 0.0 or (ssum <= rival_cover and ssum <= float(cards)):
                for k in range(K):
                    take = min(float(need[owner, t, k]), float(p_pool[k]))
                    consumed[k] = F32(float(consumed[k]) + take)
            continue
        for k in range(K):
            p_pool[k] = (pv[k] + ob[base + k]) - consumed[k]
        feasible = order_need(p_pool, owner, t, need, nd)
        bomb = t == BOMBASTICA
        ssum = 0.0
        for k in range(K):
            sv[k] = max(nd[k] - float(p_pool[k]), 0.0)
            ssum += sv[k]
        short = float(max(F32(15.0) - sum5(p_pool), F32(0.0))) if bomb else ssum
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
            cards = ob[o_seats + rel * 6] - ob[o_seats + rel * 6 + 1]
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
        tot = ob[o_tot + k] + F32(2.0) * ob[o_tot + K + k]
        pool[k] = (pv[k] + tot) - consumed[k]


@per_game
def bound_oven(ob, lay, personal, need, pv, low, high, ws, wi) -> None:
    """``heuristic.bound_oven`` for one game: bounds on the pool whatever anyone decides."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    o_tot = lay[L_TOT]
    doubles = lay[L_DOUBLES] != 0
    over = 1.0 if doubles else 0.0
    max_hand = 2.0 * HAND_LIMIT if doubles else float(HAND_LIMIT)
    slots = wi
    m = oven_slots(ob, lay, slots, ws[256:296])
    took_lo = ws[24:29]
    took_hi = ws[32:37]
    took_lo[:] = F32(0.0)
    took_hi[:] = F32(0.0)
    lo = ws[40:45]
    hi = ws[48:53]
    for j in range(m):
        i = slots[j]
        t = i % T
        owner = (personal + i // T) % n
        for k in range(K):
            base = pv[k] + ob[o_oo + i * 7 + 2 + k]
            lo[k] = base - took_hi[k]
            hi[k] = base - took_lo[k]
        bomb = t == BOMBASTICA
        bomb_possible = float(sum5(hi)) + max_hand >= 15
        forced_simple = t < 5
        if t < 5:
            for k in range(K):
                if not lo[k] >= F32(need[owner, t, k]):
                    forced_simple = False
        forced_bomb = bomb and sum5(lo) >= 15
        for k in range(K):
            if t < 5:
                nk = F32(need[owner, t, k])
                most = float(nk + F32(over)) if nk > 0 else 0.0
            else:
                special = 1.0 if k == owner else (6.0 if t == MONOTONI else 3.0)
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
        tot = pv[k] + (ob[o_tot + k] + F32(2.0) * ob[o_tot + K + k])
        low[k] = tot - took_hi[k]
        high[k] = tot - took_lo[k]


@per_game
def estimate_pool(ob, lay, pv, forget, pool, ws) -> None:
    """``pv + forget * heuristic.estimate_pool_without_memory`` for one game."""
    n = lay[L_N]
    o_seats = lay[L_SEATS]
    o_p = lay[L_PILES]
    o_h = lay[L_HAND]
    per_kind = 13 - (5 if n == 2 else (3 if n == 3 else (1 if n == 4 else 0)))
    mm = F32(0.0)
    hand_cards = F32(0.0)
    for j in range(n):
        mm = mm + ob[o_seats + j * 6 + 4]
        hand_cards = hand_cards + (ob[o_seats + j * 6] - ob[o_seats + j * 6 + 1])
    supply_cards = ob[lay[L_SUPPLY]] - (F32(1.0) if mm == 0 else F32(0.0))
    piles_total = F32(0.0)
    unseen = ws[24:29]
    for k in range(K):
        pile_k = ob[o_p + k] + ob[o_p + K + k]
        piles_total = piles_total + pile_k
        unseen[k] = max((F32(per_kind) - (ob[o_h + k] + ob[o_h + K + k])) - pile_k, F32(0.0))
    oven_cards = max(((F32(per_kind * K) - supply_cards) - hand_cards) - piles_total, F32(0.0))
    tot = max(sum5(unseen), F32(1.0))
    for k in range(K):
        pool[k] = pv[k] + forget * (oven_cards * (unseen[k] / tot))
