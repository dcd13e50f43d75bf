"""The heuristic bots as numba kernels: the decisions of ``heuristic.py``, one game at a time.

``heuristic.py`` states the bots' scoring as numpy array code over a batch; this module
computes the very same scores per game inside compiled loops, so that a bot's decision
costs about as much as an engine step (issue 12). ``HeuristicAgent.act_batch`` calls
``decide_batch`` here; the numpy version stays as the reference
(``HeuristicAgent.act_batch_reference``) and tests/test_compiled_bots.py checks that
both choose the same action on a large set of positions, reveal decisions included.

Bit-identical decisions need bit-identical scores, so the kernel repeats numpy's
arithmetic exactly: the same float32 / float64 types at every step (numpy turns a
Python float times a bool array into float64, times a float32 array into float32), the
same summation order (numpy sums five float32 values left to right), and the same ties
(the first maximum wins). One operation cannot be repeated exactly: numpy computes the
float32 power ``gamble ** gap`` with its own vectorised routine, which differs from the
C library's ``powf`` in the last bit for some arguments. Gaps are whole numbers for
every bot but ``forgetful``, and for those the kernel reads a table of numpy's own
powers; a fractional gap (``forgetful`` guessing the oven) is computed with ``powf`` in a
first pass that records the exponents, numpy computes those powers, and a second pass
uses them (``decide`` over a batch; ``play_out`` pauses the game for it).

``play_bots`` (below) plays whole games inside one compiled loop: observe, decide,
step, with a bot (or the random policy) per seat. The search bots roll out with it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from mamma_mia_env.cards import (
    BOMBASTICA,
    HAND_LIMIT,
    MINIMALE,
    MONOTONI,
    N_KINDS,
)
from mamma_mia_env.observe import OBS_HIGH, observe_game
from mamma_mia_env.rules import legal_mask_game, step_game
from mamma_mia_env.state import OVER

K = N_KINDS
T = 8

# The per-game kernels below never allocate: their scratch is sliced out of the
# workspace arrays the batch loops allocate once per work item (``workspace``). Compiled
# without numba's runtime (NRT), a slice is a plain pointer and length; with it, every
# slice and every array passed to a call takes an atomic reference-count increment and
# decrement. Without them (and with the rank sort of ``_oven_slots``) a decision takes
# 0.6-0.8 of the time it took (``experiments/results/ab_bot_kernels_i12.json``).
# ``_nrt`` is numba's target option for this (numba's own tests use it); a kernel that
# allocated under it would fail to compile, so nothing can go wrong silently.
per_game = nb.njit(cache=True, _nrt=False)
F32 = np.float32
BIG32 = np.float32(1.0e9)
BIG64 = 1.0e9

# -- the parameter vector (heuristic.Params as float64) -------------------------------------
(
    I_PROVEN, I_RIVAL_COVER, I_COVER_CREDIT, I_COVER_COST, I_GAMBLE, I_GAMBLE_MAX,
    I_ORDER_FLOOR,
) = range(7)  # fmt: skip
I_TYPE_BONUS = 7  # 8 values
(
    I_CARD_COST, I_BUILD, I_DRAIN, I_DRAIN_TAKE, I_RESERVE_PENALTY, I_KEEP, I_TARGET_ORDERS,
    I_ORDERS_WEIGHT, I_MIN_CARDS, I_CARDS_WEIGHT, I_TEMPO, I_STACK_W, I_FORGET,
) = range(15, 28)  # fmt: skip
N_PRM = 28
N_POW = 9  # gamble ** k for k = 0..8, computed by numpy

# -- the observation layout vector --------------------------------------------------------------
(
    L_N, L_RECALL, L_DOUBLES, L_NTURN, L_NPLAY, L_HAND, L_OH, L_OS, L_SEATS, L_DELIV,
    L_PILES, L_SUPPLY, L_PENDING, L_TOT, L_OO,
) = range(15)  # fmt: skip
N_LAYOUT = 15


@nb.njit(cache=True, inline="always")
def _sum5(a) -> np.float32:
    """numpy's float32 sum of five values: left to right."""
    s = a[0]
    for k in range(1, K):
        s = s + a[k]
    return s


@per_game
def _my_demand(ob, lay, personal, need, stack_w, out, ws) -> None:
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
def _reveal_action(ob, mk, personal, lay, need, ws) -> int:
    """``heuristic.reveal_actions`` for one game."""
    n = lay[L_N]
    n_turn = lay[L_NTURN]
    o_p = lay[L_PILES]
    o_pend = lay[L_PENDING]
    t = 0
    best_v = ob[o_pend + n]
    for j in range(1, T):
        if ob[o_pend + n + j] > best_v:
            best_v = ob[o_pend + n + j]
            t = j
    pool = ws[8:13]
    for k in range(K):
        pool[k] = ob[o_p + k] + F32(2.0) * ob[o_p + K + k]
    keep = ws[16:21]
    _my_demand(ob, lay, personal, need, F32(0.5), keep, ws)
    kmax = keep[0]
    for k in range(1, K):
        if keep[k] > kmax:
            kmax = keep[k]
    amount = 6.0 if t == MONOTONI else 3.0
    pool_p = max(F32(1.0) - pool[personal], F32(0.0))
    best = -1
    best_s = 0.0
    for k in range(K):
        if mk[n_turn + 2 + k] > 0:
            cost = float(pool_p) + max(amount - float(pool[k]), 0.0)
            kp = keep[k] / (kmax + F32(1.0))
            s = (-cost - float(F32(0.5) * kp)) - 1e-3 * k
            if best < 0 or s > best_s:
                best = k
                best_s = s
    if mk[n_turn + 1] > 0:
        return n_turn + 1
    if best >= 0:
        return n_turn + 2 + best
    return n_turn


@per_game
def _order_need(pool, owner, t, need, out) -> bool:
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
def _oven_slots(ob, lay, slots, keys) -> int:
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
def _simulate_oven(ob, lay, personal, need, rival_cover, pv, hv, pool, reserve, ws, wd, wi) -> None:
    """``heuristic.simulate_oven`` for one game: the pool and the reserved hand value."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    o_tot = lay[L_TOT]
    o_seats = lay[L_SEATS]
    slots = wi
    m = _oven_slots(ob, lay, slots, ws[256:296])
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
        feasible = _order_need(p_pool, owner, t, need, nd)
        bomb = t == BOMBASTICA
        ssum = 0.0
        for k in range(K):
            sv[k] = max(nd[k] - float(p_pool[k]), 0.0)
            ssum += sv[k]
        short = float(max(F32(15.0) - _sum5(p_pool), F32(0.0))) if bomb else ssum
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
def _bound_oven(ob, lay, personal, need, pv, low, high, ws, wi) -> None:
    """``heuristic.bound_oven`` for one game: bounds on the pool whatever anyone decides."""
    n = lay[L_N]
    o_oo = lay[L_OO]
    o_tot = lay[L_TOT]
    doubles = lay[L_DOUBLES] != 0
    over = 1.0 if doubles else 0.0
    max_hand = 2.0 * HAND_LIMIT if doubles else float(HAND_LIMIT)
    slots = wi
    m = _oven_slots(ob, lay, slots, ws[256:296])
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
        bomb_possible = float(_sum5(hi)) + max_hand >= 15
        forced_simple = t < 5
        if t < 5:
            for k in range(K):
                if not lo[k] >= F32(need[owner, t, k]):
                    forced_simple = False
        forced_bomb = bomb and _sum5(lo) >= 15
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
def _estimate_pool(ob, lay, pv, forget, pool, ws) -> None:
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
    tot = max(_sum5(unseen), F32(1.0))
    for k in range(K):
        pool[k] = pv[k] + forget * (oven_cards * (unseen[k] / tot))


@per_game
def _turn_action(ob, mk, personal, lay, play, need, prm, pw, ubuf, umode, ws, wd, wi, sbuf) -> int:
    """``HeuristicAgent.turn_actions`` for one game: the best legal turn action."""
    n = lay[L_N]
    n_play = lay[L_NPLAY]
    recall = lay[L_RECALL] != 0
    o_h = lay[L_HAND]
    o_oh = lay[L_OH]
    o_p = lay[L_PILES]
    o_seats = lay[L_SEATS]
    o_del = lay[L_DELIV]
    p = personal
    proven = prm[I_PROVEN] != 0
    rival_cover = prm[I_RIVAL_COVER]
    cover_credit = prm[I_COVER_CREDIT]
    cover_cost = prm[I_COVER_COST]
    gamble = prm[I_GAMBLE]
    gamble_max = F32(prm[I_GAMBLE_MAX])
    any_bonus = False
    for t in range(T):
        if prm[I_TYPE_BONUS + t] != 0:
            any_bonus = True
    drain_take = prm[I_DRAIN_TAKE]

    hv = ws[64:69]
    pv = ws[72:77]
    ing_cards = F32(0.0)
    hs_sum = ob[o_h]
    hd_sum = ob[o_h + K]
    for k in range(K):
        hv[k] = ob[o_h + k] + F32(2.0) * ob[o_h + K + k]
        pv[k] = ob[o_p + k] + F32(2.0) * ob[o_p + K + k]
        if k > 0:
            hs_sum = hs_sum + ob[o_h + k]
            hd_sum = hd_sum + ob[o_h + K + k]
    ing_cards = hs_sum + hd_sum
    # the pool an order played now meets, the hand value to keep, the proven upper bound
    pool = ws[80:85]
    reserve = ws[88:93]
    reserve[:] = F32(0.0)
    high = ws[96:101]
    if proven:
        _bound_oven(ob, lay, p, need, pv, pool, high, ws, wi)
    elif recall:
        _simulate_oven(ob, lay, p, need, rival_cover, pv, hv, pool, reserve, ws, wd, wi)
    else:
        _estimate_pool(ob, lay, pv, F32(prm[I_FORGET]), pool, ws)
    # rivals' demand: undelivered orders of each rival, by personal ingredient
    rivals = ws[104:109]
    rivals[:] = F32(0.0)
    for rel in range(1, n):
        dl = ob[o_del + rel * T]
        for t in range(1, T):
            dl = dl + ob[o_del + rel * T + t]
        rivals[(p + rel) % n] = rivals[(p + rel) % n] + (F32(T) - dl) / F32(T)
    want = ws[112:117]
    if prm[I_BUILD] != 0:
        _my_demand(ob, lay, p, need, F32(prm[I_STACK_W]), want, ws)
        for k in range(K):
            want[k] = want[k] - pool[k]
    need_hand = ws[120:125]
    if prm[I_KEEP] != 0:
        _my_demand(ob, lay, p, need, F32(0.0), need_hand, ws)
    orders_held = ob[o_oh]
    for t in range(1, T):
        orders_held = orders_held + ob[o_oh + t]
    stack_len = ob[o_seats + 2]

    add = ws[128:133]
    pool_c = ws[136:141]
    hand_after = ws[144:149]
    free = ws[152:157]
    tmp = ws[160:165]
    tmp2 = ws[168:173]
    short = ws[176:184]
    unc = ws[184:192]
    taken = ws[192:200]
    taken[:] = F32(0.0)
    order_score = ws[200:209]
    met = wi[48:56]
    cover = wi[56:64]

    best_a = -1
    best_s = F32(0.0)
    for c in range(n_play):
        row = c * 18
        legal = 0  # no early exit: a fixed-length loop the compiler vectorises
        for j in range(18):
            legal |= mk[row + j] > 0
        if not legal:
            continue
        kind = play[c, 0]
        value = F32(play[c, 1] + 2 * play[c, 2])
        cards = F32(play[c, 1] + play[c, 2])
        for k in range(K):
            add[k] = value if (c > 0 and k == kind) else F32(0.0)
            pool_c[k] = pool[k] + add[k]
            hand_after[k] = hv[k] - add[k]
            free[k] = max(hand_after[k] - reserve[k], F32(0.0))
        # -- evaluate_orders ------------------------------------------------------------
        for t in range(5):
            if ob[o_oh + t] <= 0:
                continue  # not in hand: its score is -BIG whatever it would need
            for k in range(K):
                tmp[k] = max(F32(need[p, t, k]) - pool_c[k], F32(0.0))
                tmp2[k] = max(tmp[k] - free[k], F32(0.0))
            short[t] = _sum5(tmp)
            unc[t] = _sum5(tmp2)
            if drain_take != 0:
                for k in range(K):
                    tmp[k] = min(F32(need[p, t, k]), pool_c[k]) * rivals[k]
                taken[t] = _sum5(tmp)
        hand_total = _sum5(free)
        short_b = max(F32(15.0) - _sum5(pool_c), F32(0.0))
        short[BOMBASTICA] = short_b
        unc[BOMBASTICA] = max(short_b - hand_total, F32(0.0))
        sp = max(F32(1.0) - pool_c[p], F32(0.0))
        gp = max(sp - free[p], F32(0.0))
        min_sj = BIG32
        min_gj = BIG32
        j_best = -1
        j_val = F32(0.0)
        cand = -1
        cand_v = BIG32
        for k in range(K):
            if k != p:
                sj = max(F32(6.0) - pool_c[k], F32(0.0))
                gj = max(sj - free[k], F32(0.0))
            else:
                sj = BIG32
                gj = BIG32
            min_sj = min(min_sj, sj)
            min_gj = min(min_gj, gj)
            jv = sj if gj == 0 else BIG32 + sj
            if j_best < 0 or jv < j_val:
                j_best = k
                j_val = jv
            cvk = pool_c[k] if (k != p and pool_c[k] >= 1) else BIG32
            if cand < 0 or cvk < cand_v:
                cand = k
                cand_v = cvk
        short[MONOTONI] = sp + min_sj
        unc[MONOTONI] = gp + min_gj
        has_cand = cand_v < BIG32
        px = pool_c[cand]
        sx = max(F32(3.0) - px, F32(0.0))
        short[MINIMALE] = sp + sx if has_cand else BIG32
        unc[MINIMALE] = gp + max(sx - free[cand], F32(0.0)) if has_cand else BIG32
        for t in range(T):
            met[t] = 1 if short[t] == 0 else 0
            cover[t] = 1 if unc[t] == 0 else 0
        if proven:  # the Minimale pick is uncertain: met whatever it is
            safe = True
            some = False
            p_ok = True
            for k in range(K):
                lo_k = pool_c[k]
                hi_k = high[k] + add[k]
                is_p = k == p
                if not (is_p or hi_k < 1 or lo_k >= 3):
                    safe = False
                if (not is_p) and lo_k >= 3:
                    some = True
                if is_p and not lo_k >= 1:
                    p_ok = False
            met[MINIMALE] = 1 if (safe and some and p_ok) else 0
        if drain_take != 0:
            # Bombastica takes the pool; Monotoni 1 P + the best joker; Minimale 1 P + cand
            for k in range(K):
                tmp[k] = pool_c[k] * rivals[k]
            taken[BOMBASTICA] = _sum5(tmp)
            one_p = min(pool_c[p], F32(1.0))
            for k in range(K):
                tmp[k] = F32(0.0)
                tmp2[k] = F32(0.0)
            tmp[p] = one_p
            tmp2[p] = one_p if has_cand else F32(0.0)
            tmp[j_best] = min(pool_c[j_best], F32(6.0))
            tmp2[cand] = min(px, F32(3.0)) * (F32(1.0) if has_cand else F32(0.0))
            for k in range(K):
                tmp[k] = tmp[k] * rivals[k]
                tmp2[k] = tmp2[k] * rivals[k]
            taken[MONOTONI] = _sum5(tmp)
            taken[MINIMALE] = _sum5(tmp2)
        # -- the orders' worth ------------------------------------------------------------
        order_score[0] = F32(prm[I_ORDER_FLOOR])
        for t in range(T):
            if ob[o_oh + t] <= 0:
                order_score[1 + t] = -BIG32
                continue
            mt = met[t] != 0
            cv = (not mt) and cover[t] != 0
            worth = (1.0 if mt else 0.0) + (cover_credit if cv else 0.0)
            if gamble != 0 and cover[t] == 0 and unc[t] <= gamble_max:
                u = min(unc[t], F32(8.0))
                ui = int(u)
                if F32(ui) == u:
                    g = pw[ui]
                elif umode == 2:
                    g = ubuf[c * T + t]
                else:
                    g = F32(gamble) ** u
                    if umode == 1:
                        ubuf[c * T + t] = u
                        ubuf[n_play * T] = F32(1.0)  # flag: numpy's powers needed
                worth = worth + float(F32(cover_credit) * g)
            if cover_cost != 0 and cv:
                worth = worth - float(F32(cover_cost) * short[t])
            if any_bonus and worth > 0:
                worth = worth + float(F32(prm[I_TYPE_BONUS + t]))
            if drain_take != 0 and worth > 0:
                worth = worth + float(F32(drain_take) * taken[t])
            order_score[1 + t] = F32(worth)
        # -- the ingredient play ------------------------------------------------------------
        ps = F32(-prm[I_CARD_COST]) * cards
        if prm[I_BUILD] != 0:
            for k in range(K):
                tmp[k] = add[k] * (F32(1.0) if want[k] > 0 else F32(0.0))
            ps = ps + F32(prm[I_BUILD]) * _sum5(tmp)
        if prm[I_DRAIN] != 0:
            for k in range(K):
                tmp[k] = add[k] * rivals[k]
            ps = ps - F32(prm[I_DRAIN]) * _sum5(tmp)
        for k in range(K):
            tmp[k] = max(reserve[k] - hand_after[k], F32(0.0))
        ps = ps - F32(prm[I_RESERVE_PENALTY]) * _sum5(tmp)
        if prm[I_KEEP] != 0:
            for k in range(K):
                tmp[k] = add[k] * (F32(1.0) if need_hand[k] > 0 else F32(0.0))
            ps = ps - F32(prm[I_KEEP]) * _sum5(tmp)
        # -- the draw, and the best legal action ----------------------------------------------
        ing_after = ing_cards - cards
        for o in range(9):
            ord_after = orders_held - (F32(1.0) if o > 0 else F32(0.0))
            sh = max((F32(HAND_LIMIT) - ing_after) - ord_after, F32(0.0))
            got = min(sh, stack_len)
            base = ps + order_score[o]
            for d in range(2):
                a = row + o * 2 + d
                if mk[a] <= 0:
                    continue
                if d == 0:
                    x = ord_after - F32(prm[I_TARGET_ORDERS])
                    ds = F32(-prm[I_ORDERS_WEIGHT]) * (x * x)
                    ds = ds - F32(prm[I_CARDS_WEIGHT]) * max(
                        F32(prm[I_MIN_CARDS]) - (ing_after + sh), F32(0.0)
                    )
                    ds = ds + F32(prm[I_TEMPO]) * sh
                else:
                    x = (ord_after + got) - F32(prm[I_TARGET_ORDERS])
                    ds = F32(-prm[I_ORDERS_WEIGHT]) * (x * x)
                    ds = ds - F32(prm[I_CARDS_WEIGHT]) * max(
                        F32(prm[I_MIN_CARDS]) - ing_after, F32(0.0)
                    )
                s = base + ds
                if sbuf.shape[0] > 1:
                    sbuf[a] = s
                if best_a < 0 or s > best_s:
                    best_a = a
                    best_s = s
    return best_a


@per_game
def decide_one(ob, mk, personal, lay, play, need, prm, pw, ubuf, umode, ws, wd, wi) -> int:
    """The heuristic bot's action in one game (turn or reveal decision).

    ``umode``: 0 computes fractional powers with ``powf``; 1 does so and records their
    exponents in ``ubuf`` (``ubuf[-1]`` = 1 if any); 2 reads numpy's powers from
    ``ubuf`` (the two passes of ``decide``, see the module doc)."""
    n_turn = lay[L_NTURN]
    for j in range(n_turn, mk.shape[0]):
        if mk[j] > 0:
            return _reveal_action(ob, mk, personal, lay, need, ws)
    sbuf = ws[250:251]  # one slot: no scores wanted
    return _turn_action(ob, mk, personal, lay, play, need, prm, pw, ubuf, umode, ws, wd, wi, sbuf)


BAD_OBSERVATION = -2  # ``decide_batch``'s answer for an observation it refuses


@per_game
def _in_range(ob) -> bool:
    """Every entry in ``0..OBS_HIGH`` (NaN fails both comparisons): the check of
    ``base.check_values``, one row at a time while the row is in cache."""
    ok = True
    for j in range(ob.shape[0]):
        v = ob[j]
        ok &= (v >= F32(0.0)) & (v <= F32(OBS_HIGH))
    return ok


CHUNKS = 64  # work items of the parallel loop; each allocates its scratch once


@nb.njit(cache=True)
def workspace():
    """Scratch arrays for ``decide_one`` (float32, float64, int64), reused across games:
    the per-game functions carve fixed slices out of them instead of allocating."""
    return np.empty(296, np.float32), np.empty(16, np.float64), np.empty(104, np.int64)


@nb.njit(cache=True)
def turn_scores_one(ob, mk, personal, lay, play, need, prm, pw, scores) -> int:
    """The bot's score of every legal turn action of one game into ``scores`` (others
    untouched); returns its choice. For the search bots' candidate actions."""
    ws, wd, wi = workspace()
    u = np.zeros(1, np.float32)
    return _turn_action(ob, mk, personal, lay, play, need, prm, pw, u, 0, ws, wd, wi, scores)


def _make_batch(parallel: bool):
    loop = nb.prange if parallel else range

    @nb.njit(cache=True, parallel=parallel)
    def decide_batch(obs, masks, seats, lay, play, need, prm, pw, ubuf, umode, check, out):
        """``decide_one`` over a batch; with ``check``, a game whose observation has an
        entry outside ``0..OBS_HIGH`` (or NaN) gets ``BAD_OBSERVATION`` instead."""
        b_total = obs.shape[0]
        chunks = min(b_total, CHUNKS)
        for c in loop(chunks):
            ws, wd, wi = workspace()
            for b in range(c * b_total // chunks, (c + 1) * b_total // chunks):
                u = ubuf[b] if umode > 0 else ubuf[0]
                if umode == 2 and u[u.shape[0] - 1] == 0:
                    continue  # no fractional power in this game: pass 1 was exact
                if check and not _in_range(obs[b]):
                    out[b] = BAD_OBSERVATION
                    continue
                out[b] = decide_one(
                    obs[b], masks[b], seats[b], lay, play, need, prm, pw, u, umode, ws, wd, wi
                )

    return decide_batch


DECIDE_SERIAL = _make_batch(False)
DECIDE_PARALLEL = _make_batch(True)
PARALLEL_MIN_BATCH = 256


# -- the Python side: tables for the kernels ------------------------------------------------------
def params_vector(params: object) -> np.ndarray:
    """A ``heuristic.Params`` as the float64 vector the kernels read (``I_*`` indices)."""
    prm = np.zeros(N_PRM, np.float64)
    prm[I_PROVEN] = float(params.proven)
    prm[I_RIVAL_COVER] = params.rival_cover
    prm[I_COVER_CREDIT] = params.cover_credit
    prm[I_COVER_COST] = params.cover_cost
    prm[I_GAMBLE] = params.gamble
    prm[I_GAMBLE_MAX] = params.gamble_max
    prm[I_ORDER_FLOOR] = params.order_floor
    if len(params.type_bonus) != T:
        raise ValueError(f"Params.type_bonus needs {T} values, got {len(params.type_bonus)}")
    prm[I_TYPE_BONUS : I_TYPE_BONUS + T] = params.type_bonus
    prm[I_CARD_COST] = params.card_cost
    prm[I_BUILD] = params.build
    prm[I_DRAIN] = params.drain
    prm[I_DRAIN_TAKE] = params.drain_take
    prm[I_RESERVE_PENALTY] = params.reserve_penalty
    prm[I_KEEP] = params.keep
    prm[I_TARGET_ORDERS] = params.target_orders
    prm[I_ORDERS_WEIGHT] = params.orders_weight
    prm[I_MIN_CARDS] = params.min_cards
    prm[I_CARDS_WEIGHT] = params.cards_weight
    prm[I_TEMPO] = params.tempo
    prm[I_STACK_W] = params.stack_w
    prm[I_FORGET] = params.forget
    if not np.isfinite(prm).all():
        raise ValueError(f"heuristic parameters must be finite, got {params}")
    return prm


def pow_table(gamble: float) -> np.ndarray:
    """``gamble ** k`` for k = 0..8 as numpy computes it on float32 arrays (see module doc)."""
    return np.float32(gamble) ** np.arange(N_POW, dtype=np.float32)


def layout_vector(num_players: int, mode: str, doubles: bool) -> np.ndarray:
    """Offsets of the observation sections the kernels read (``L_*`` indices)."""
    from mamma_mia_env.cards import play_table
    from mamma_mia_env.observe import observation_slices

    s = observation_slices(num_players, mode)
    recall = mode == "recall"
    n_play = int(play_table(doubles).shape[0])
    lay = np.zeros(N_LAYOUT, np.int64)
    lay[L_N] = num_players
    lay[L_RECALL] = int(recall)
    lay[L_DOUBLES] = int(doubles)
    lay[L_NTURN] = n_play * 18
    lay[L_NPLAY] = n_play
    lay[L_HAND] = s["hand"].start
    lay[L_OH] = s["orders_in_hand"].start
    lay[L_OS] = s["orders_in_stack"].start if recall else -1
    lay[L_SEATS] = s["seats"].start
    lay[L_DELIV] = s["delivered"].start
    lay[L_PILES] = s["piles"].start
    lay[L_SUPPLY] = s["supply_size"].start
    lay[L_PENDING] = s["pending_order"].start
    lay[L_TOT] = s["oven_totals"].start if recall else -1
    lay[L_OO] = s["oven_orders"].start if recall else -1
    return lay


def decide(
    obs: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
    lay: np.ndarray,
    play: np.ndarray,
    need: np.ndarray,
    prm: np.ndarray,
    pw: np.ndarray,
    check: bool = False,
) -> np.ndarray:
    """The actions of a heuristic bot in a batch of games (checked shapes and seats).

    ``check``: refuse an observation entry outside ``0..OBS_HIGH`` (NaN included) with
    ``base.check_values``'s error, checking each row inside the kernel. Only float32
    observations (the envs') are checked there: another dtype is checked as given,
    before the conversion to float32 could round a bad value into range."""
    from .base import check_values

    obs = np.asarray(obs)
    if check and obs.dtype != np.float32:
        check_values(obs)
        check = False
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    masks = np.ascontiguousarray(masks, dtype=np.int8)
    seats = np.ascontiguousarray(seats, dtype=np.int64)
    out = np.empty(len(obs), np.int64)
    kernel = DECIDE_PARALLEL if len(obs) >= PARALLEL_MIN_BATCH else DECIDE_SERIAL
    if prm[I_GAMBLE] == 0 or lay[L_RECALL]:
        # whole-number gaps only (the pool is counted from public cards): one pass
        kernel(obs, masks, seats, lay, play, need, prm, pw, _NO_U, 0, check, out)
    else:
        width = int(lay[L_NPLAY]) * T + 1
        ubuf = np.zeros((len(obs), width), np.float32)
        kernel(obs, masks, seats, lay, play, need, prm, pw, ubuf, 1, check, out)
        if ubuf[:, -1].any():
            u = ubuf[:, :-1]
            ubuf[:, :-1] = np.where(u > 0, np.float32(prm[I_GAMBLE]) ** u, 0)
            kernel(obs, masks, seats, lay, play, need, prm, pw, ubuf, 2, False, out)
    if check and (out == BAD_OBSERVATION).any():
        check_values(obs)  # raises, naming the entry
        raise AssertionError("the kernel refused an observation check_values accepts")
    return out


_NO_U = np.zeros((1, 1), np.float32)


# -- the random agent ------------------------------------------------------------------------------
@nb.njit(cache=True)
def _random_pick(mask, u) -> int:
    """The ``floor(u * count)``-th legal action (``RandomAgent``'s rule), or -1 if none."""
    total = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            total += 1
    if total == 0:
        return -1
    pick = np.int32(u * total)  # numpy: (u * total).astype(int32)
    seen = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if seen == pick:
                return a
            seen += 1
    return -1


@nb.njit(cache=True)
def random_actions(masks, u, out) -> int:
    """``RandomAgent`` over a batch with the uniforms ``u``; returns the first game with
    no legal action, or -1."""
    for b in range(masks.shape[0]):
        out[b] = _random_pick(masks[b], u[b])
        if out[b] < 0:
            return b
    return -1


# -- whole games inside one compiled loop ----------------------------------------------
RANDOM_BOT = -1  # the bot id of the uniform random policy in ``play_bots``

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@nb.njit(cache=True, inline="always")
def _uniform(states, g) -> float:
    """SplitMix64 step of ``states[g]`` (the bots' own stream, not the game's): [0, 1)."""
    s = states[g] + _GAMMA
    states[g] = s
    z = (s ^ (s >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def _make_play(parallel: bool):
    loop = nb.prange if parallel else range

    @nb.njit(cache=True, parallel=parallel)
    def play_bots(
        data, bot_of_seat, params, play, need, n, prms, pws, modes, exact, lays, obs_dims,
        rstates, max_steps, steps_taken, ubuf, paused,
    ):  # fmt: skip
        """Play every game of ``data`` on (until over, or ``max_steps`` actions each).

        ``bot_of_seat[g, s]``: the bot id of seat s in game g (a row of ``prms``,
        ``pws``, ``modes``, ``exact``) or ``RANDOM_BOT``; ``lays[m]`` / ``obs_dims[m]``:
        the layout and size of observation mode m (0 recall, 1 top_card). ``rstates[g]``:
        game g's SplitMix64 state for the random policy. ``steps_taken[g]``: actions
        taken (a game resumes from its count).

        A bot with ``exact[bot]`` may need numpy's powers (see the module doc): its
        decision runs ``decide``'s first pass into ``ubuf[g]``; if a fractional power
        came up, the game stops there with ``paused[g] = 1``, the caller fills
        ``ubuf[g]`` with numpy's powers and calls again, and the game resumes with the
        second pass.
        """
        g_total = data.shape[0]
        chunks = min(g_total, CHUNKS)
        n_actions = play.shape[0] * 18 + 7
        for c in loop(chunks):
            ws, wd, wi = workspace()
            mk = np.empty(n_actions, np.int8)
            ob0 = np.empty(obs_dims[0], np.float32)
            ob1 = np.empty(obs_dims[1], np.float32)
            dl = np.zeros(8, np.int32)
            u0 = np.zeros(1, np.float32)
            for g in range(c * g_total // chunks, (c + 1) * g_total // chunks):
                r = data[g]
                k = steps_taken[g]
                while r.phase != OVER and k < max_steps:
                    seat = r.seat
                    bot = bot_of_seat[g, seat]
                    legal_mask_game(r, params, play, need, mk)
                    if bot < 0:
                        a = _random_pick(mk, _uniform(rstates, g))
                    else:
                        m = modes[bot]
                        ob = ob0 if m == 0 else ob1
                        observe_game(r, seat, n, m, ob)
                        if exact[bot]:
                            u = ubuf[g]
                            if paused[g]:
                                umode = 2
                                paused[g] = 0
                            else:
                                umode = 1
                                u[u.shape[0] - 1] = 0
                        else:
                            u = u0
                            umode = 0
                        a = decide_one(
                            ob, mk, seat, lays[m], play, need, prms[bot], pws[bot], u, umode,
                            ws, wd, wi,
                        )  # fmt: skip
                        if umode == 1 and u[u.shape[0] - 1] != 0:
                            paused[g] = 1  # wait for numpy's powers
                            break
                    step_game(r, a, params, play, need, dl)
                    k += 1
                steps_taken[g] = k

    return play_bots


PLAY_SERIAL = _make_play(False)
PLAY_PARALLEL = _make_play(True)


class CompiledBots:
    """The kernel tables of a list of agents, for ``play_out``.

    Accepts the bundled heuristic bots (and ``HeuristicAgent`` with any ``Params``)
    and ``RandomAgent``; ``compilable(agent)`` says whether an agent can be used.
    The random policy inside the loop draws from its own SplitMix64 stream, not from a
    numpy generator: games it plays differ from ``RandomAgent.act_batch``'s. The
    heuristic bots decide as ``act_batch`` does, numpy's powers included (``exact``).
    """

    def __init__(self, agents: list[object], num_players: int, doubles: bool) -> None:
        self.agents = list(agents)
        self.ids = np.empty(len(self.agents), np.int64)
        prms, pws, modes = [], [], []
        for i, agent in enumerate(self.agents):
            if not compilable(agent):
                raise ValueError(
                    f"agent {agent!r} has no compiled kernel (only the bundled heuristic "
                    "bots, HeuristicAgent and RandomAgent do)"
                )
            if _is_random(agent):
                self.ids[i] = RANDOM_BOT
                continue
            self.ids[i] = len(prms)
            prms.append(params_vector(agent.params))
            pws.append(pow_table(agent.params.gamble))
            modes.append(0 if agent.observation_mode == "recall" else 1)
        if not prms:  # keep the arrays two-dimensional for the kernel
            prms, pws, modes = [np.zeros(N_PRM)], [np.ones(N_POW, np.float32)], [0]
        self.prms = np.array(prms, np.float64)
        self.pws = np.array(pws, np.float32)
        self.modes = np.array(modes, np.int64)
        # as ``decide``: one pass for recall bots and bots that do not gamble
        self.exact = (self.prms[:, I_GAMBLE] != 0) & (self.modes != 0)
        self.lays = np.stack(
            [layout_vector(num_players, m, doubles) for m in ("recall", "top_card")]
        )
        from mamma_mia_env.observe import observation_size

        self.obs_dims = np.array(
            [observation_size(num_players, m) for m in ("recall", "top_card")], np.int64
        )


def _is_random(agent: object) -> bool:
    from .random_agent import RandomAgent

    return type(agent) is RandomAgent


def compilable(agent: object) -> bool:
    """Whether ``play_out`` can run ``agent`` inside its compiled loop."""
    from .heuristic import HeuristicAgent

    if _is_random(agent):
        return True
    return isinstance(agent, HeuristicAgent) and agent._kernel_ok()


def play_out(
    engine: object,
    state: object,
    bots: CompiledBots,
    seat_agents: np.ndarray,
    seed: int = 0,
    max_steps: int = 1 << 30,
    rstates: np.ndarray | None = None,
) -> np.ndarray:
    """Play the games of ``state`` on in place, seat s of game g by agent
    ``seat_agents[g, s]`` (an index into ``bots.agents``); returns the actions taken
    per game. ``max_steps`` cuts every game after that many actions (rollouts);
    ``seed`` (or per-game SplitMix64 states ``rstates``) drives the random agent."""
    g = state.batch_size
    n = engine.num_players
    seat_agents = np.asarray(seat_agents)
    if seat_agents.shape != (g, n) or seat_agents.dtype.kind not in "iu":
        raise ValueError(f"seat_agents must be ({g}, {n}) integers, got {seat_agents.shape}")
    if g and (seat_agents.min() < 0 or seat_agents.max() >= len(bots.agents)):
        raise ValueError(f"seat_agents must index the {len(bots.agents)} agents")
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    if bots.lays[0, L_N] != n or bool(bots.lays[0, L_DOUBLES]) != engine.config.double_ingredients:
        raise ValueError("the CompiledBots were made for another game")
    bot_of_seat = np.zeros((g, 5), np.int64)
    bot_of_seat[:, :n] = bots.ids[seat_agents]
    if rstates is None:
        rstates = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.arange(g, dtype=np.uint64)
    steps = np.zeros(g, np.int64)
    kernel = PLAY_PARALLEL if g >= 64 else PLAY_SERIAL
    exact = bots.exact[np.maximum(bot_of_seat, 0)] & (bot_of_seat >= 0)
    width = int(engine.play.shape[0]) * T + 1
    ubuf = np.zeros((g if exact.any() else 1, width), np.float32)
    paused = np.zeros(g, np.int8)
    play, need = engine.play.astype(np.int64), engine.need.astype(np.int64)
    max_steps = int(min(max_steps, 1 << 62))
    while True:
        kernel(
            state.data, bot_of_seat, engine.params, play, need, n, bots.prms, bots.pws,
            bots.modes, bots.exact, bots.lays, bots.obs_dims, rstates, max_steps, steps, ubuf,
            paused,
        )  # fmt: skip
        rows = np.flatnonzero(paused)
        if not len(rows):
            return steps
        # numpy's powers for the paused decisions, computed as ``decide`` does
        d = state.data[rows]
        bot = bot_of_seat[rows, d["seat"].astype(np.int64)]
        for b in np.unique(bot):
            sel = rows[bot == b]
            ub = ubuf[sel]
            u = ub[:, :-1]
            ub[:, :-1] = np.where(u > 0, np.float32(bots.prms[b, I_GAMBLE]) ** u, 0)
            ubuf[sel] = ub
