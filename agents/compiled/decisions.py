"""The heuristic bots' decisions, one game at a time: ``decide_one`` and its parts.

These kernels are the bots: ``bots/heuristic.py`` states their scoring in a few lines
and hands them a bot's ``Params``; ``batch.decide`` runs ``decide_one`` over a batch
(``HeuristicAgent.decide``), ``playout.play_out`` inside whole games, and the search
bots read every legal action's score through ``turn_scores_one``. A decision costs
about as much as an engine step.

The same decision on every CPU: the scores are float32 (some steps float64, as marked),
summed in a fixed order (``jit.sum5``: left to right) and compared first-maximum-wins.
Additions, products, minima and maxima are defined to the bit by IEEE 754 on every
CPU; the one power, ``gamble ** gap``, is computed in float64 and rounded once to
float32 (``hope``): that is the correctly rounded value unless the float64 result lies
within one float64 unit of a float32 rounding boundary, a chance of about 2**-29 per
distinct power (a vectorised float32 power, as numpy picks one by the CPU's SIMD level,
differs in the last bit from one CPU to the next). The order of every float32 operation
is part of the bots' definition: changing it changes near-ties, and games.

``turn_action`` (about 250 lines) stays one kernel: its blocks share a dozen scratch
parts (``jit``'s layout); split into calls, each call would pass them again for no gain
(the per-game functions are compiled without numba's runtime, ``jit.per_game``). Turn
actions are built and read through the action codec's compiled helpers
(``mamma_mia_env.game.actions``).

The kernels' short argument names are explained in the package doc (``compiled/__init__``).
"""

from __future__ import annotations

import math

from mamma_mia_agents.compiled.jit import (
    ADD,
    BIG32,
    COVER,
    F32,
    FREE,
    HAND_AFTER,
    HIGH,
    HV,
    KEEP,
    MET,
    NEED_HAND,
    NO_SCORES,
    ORDER_SCORE,
    POOL,
    POOL_C,
    PV,
    RESERVE,
    REVEAL_POOL,
    RIVALS,
    SHORT,
    TAKEN,
    TMP,
    TMP2,
    UNCOVERED,
    WANT,
    K,
    T,
    at,
    part,
    per_game,
    sum5,
    workspace,
)
from mamma_mia_agents.compiled.oven import (
    bound_oven,
    estimate_pool,
    my_demand,
    simulate_oven,
)
from mamma_mia_agents.compiled.tables import (
    I_BUILD,
    I_CARD_COST,
    I_CARDS_WEIGHT,
    I_COVER_COST,
    I_COVER_CREDIT,
    I_DRAIN,
    I_DRAIN_TAKE,
    I_FORGET,
    I_GAMBLE,
    I_GAMBLE_MAX,
    I_KEEP,
    I_MIN_CARDS,
    I_ORDER_FLOOR,
    I_ORDERS_WEIGHT,
    I_PROVEN,
    I_RESERVE_PENALTY,
    I_RIVAL_COVER,
    I_STACK_W,
    I_TARGET_ORDERS,
    I_TEMPO,
    I_TYPE_BONUS,
    L_DELIV,
    L_HAND,
    L_MEMORY,
    L_N,
    L_NPLAY,
    L_NTURN,
    L_OH,
    L_PENDING_TYPE,
    L_PILES,
    L_SEATS,
    SEAT_STACK,
)
from mamma_mia_env.game.actions import (
    ACTIONS_PER_PLAY,
    DRAW_SUPPLY,
    N_DRAWS,
    NO_ORDER,
    ORDER_SLOTS,
    turn_index,
)
from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    DECLINE,
    DELIVER,
    DELIVER_AS,
    HAND_LIMIT,
    MINIMALE,
    MINIMALE_FEWEST,
    MONOTONI,
    MONOTONI_JOKER,
    PERSONAL_NEED,
    SIMPLE_ORDERS,
)
from mamma_mia_env.plumbing.jit_cache import njit

HOPE_GAP_CAP = F32(8.0)  # the exponent of ``hope`` at most
REVEAL_STACK_W = F32(0.5)  # weight of the stack's orders in what a reveal keeps


@per_game
def hope(gamble: float, gap: float) -> F32:
    """``gamble ** gap`` as a float32, the same bits on every CPU (see the module doc):
    the float64 power of the float32 ``gamble`` (the weight as the bot states it),
    rounded once to float32."""
    return F32(math.pow(float(F32(gamble)), float(gap)))


@per_game
def reveal_action(ob, mk, personal, lay, need, ws) -> int:
    """The reveal decision: deliver whenever possible; among Monotoni jokers and Minimale
    candidates, the one that takes the fewest cards from the hand, then the one the bot's
    orders need least (``my_demand``), then the lowest ingredient."""
    n_turn = lay[L_NTURN]
    o_p = lay[L_PILES]
    o_type = lay[L_PENDING_TYPE]
    t = 0
    best_v = at(ob, o_type)
    for j in range(1, T):
        if at(ob, o_type + j) > best_v:
            best_v = at(ob, o_type + j)
            t = j
    pool = part(ws, REVEAL_POOL)
    for k in range(K):
        pool[k] = at(ob, o_p + k) + F32(2.0) * at(ob, o_p + K + k)
    keep = part(ws, KEEP)
    my_demand(ob, lay, personal, need, REVEAL_STACK_W, keep, ws)
    kmax = keep[0]
    for k in range(1, K):
        if keep[k] > kmax:
            kmax = keep[k]
    amount = float(MONOTONI_JOKER if t == MONOTONI else MINIMALE_FEWEST)
    pool_p = max(F32(PERSONAL_NEED) - pool[personal], F32(0.0))
    best = -1
    best_s = 0.0
    for k in range(K):
        if mk[n_turn + DELIVER_AS + k] > 0:
            cost = float(pool_p) + max(amount - float(pool[k]), 0.0)
            kp = keep[k] / (kmax + F32(1.0))
            s = (-cost - float(F32(0.5) * kp)) - 1e-3 * k
            if best < 0 or s > best_s:
                best = k
                best_s = s
    if mk[n_turn + DELIVER] > 0:
        return n_turn + DELIVER
    if best >= 0:
        return n_turn + DELIVER_AS + best
    return n_turn + DECLINE


@per_game
def turn_action(ob, mk, personal, lay, play, need, prm, ws, wd, wi, sbuf) -> int:
    """The best legal turn action of one game (the scoring: ``bots/heuristic.py``); with
    ``sbuf`` longer than one slot, every legal action's score is written into it."""
    n = lay[L_N]
    n_play = lay[L_NPLAY]
    memory = lay[L_MEMORY] != 0
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

    hv = part(ws, HV)
    pv = part(ws, PV)
    ing_cards = F32(0.0)
    hs_sum = at(ob, o_h)
    hd_sum = at(ob, o_h + K)
    for k in range(K):
        hv[k] = at(ob, o_h + k) + F32(2.0) * at(ob, o_h + K + k)
        pv[k] = at(ob, o_p + k) + F32(2.0) * at(ob, o_p + K + k)
        if k > 0:
            hs_sum = hs_sum + at(ob, o_h + k)
            hd_sum = hd_sum + at(ob, o_h + K + k)
    ing_cards = hs_sum + hd_sum
    # the pool an order played now meets, the hand value to keep, the proven upper bound
    pool = part(ws, POOL)
    reserve = part(ws, RESERVE)
    reserve[:] = F32(0.0)
    high = part(ws, HIGH)
    if proven:
        bound_oven(ob, lay, p, need, pv, pool, high, ws, wi)
    elif memory:
        simulate_oven(ob, lay, p, need, rival_cover, pv, hv, pool, reserve, ws, wd, wi)
    else:
        estimate_pool(ob, lay, pv, F32(prm[I_FORGET]), pool, ws)
    # rivals' demand: undelivered orders of each rival, by personal ingredient
    rivals = part(ws, RIVALS)
    rivals[:] = F32(0.0)
    for rel in range(1, n):
        dl = at(ob, o_del + rel * T)
        for t in range(1, T):
            dl = dl + at(ob, o_del + rel * T + t)
        rivals[(p + rel) % n] = rivals[(p + rel) % n] + (F32(T) - dl) / F32(T)
    want = part(ws, WANT)
    if prm[I_BUILD] != 0:
        my_demand(ob, lay, p, need, F32(prm[I_STACK_W]), want, ws)
        for k in range(K):
            want[k] = want[k] - pool[k]
    need_hand = part(ws, NEED_HAND)
    if prm[I_KEEP] != 0:
        my_demand(ob, lay, p, need, F32(0.0), need_hand, ws)
    orders_held = at(ob, o_oh)
    for t in range(1, T):
        orders_held = orders_held + at(ob, o_oh + t)
    stack_len = at(ob, o_seats + SEAT_STACK)

    add = part(ws, ADD)
    pool_c = part(ws, POOL_C)
    hand_after = part(ws, HAND_AFTER)
    free = part(ws, FREE)
    tmp = part(ws, TMP)
    tmp2 = part(ws, TMP2)
    short = part(ws, SHORT)
    unc = part(ws, UNCOVERED)
    taken = part(ws, TAKEN)
    taken[:] = F32(0.0)
    order_score = part(ws, ORDER_SCORE)
    met = part(wi, MET)
    cover = part(wi, COVER)

    best_a = -1
    best_s = F32(0.0)
    for c in range(n_play):
        row = turn_index(c, NO_ORDER, DRAW_SUPPLY)
        legal = 0  # no early exit: a fixed-length loop the compiler vectorises
        for j in range(ACTIONS_PER_PLAY):
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
        for t in range(SIMPLE_ORDERS):
            if at(ob, o_oh + t) <= 0:
                continue  # not in hand: its score is -BIG whatever it would need
            for k in range(K):
                tmp[k] = max(F32(need[p, t, k]) - pool_c[k], F32(0.0))
                tmp2[k] = max(tmp[k] - free[k], F32(0.0))
            short[t] = sum5(tmp)
            unc[t] = sum5(tmp2)
            if drain_take != 0:
                for k in range(K):
                    tmp[k] = min(F32(need[p, t, k]), pool_c[k]) * rivals[k]
                taken[t] = sum5(tmp)
        hand_total = sum5(free)
        short_b = max(F32(BOMBASTICA_MIN) - sum5(pool_c), F32(0.0))
        short[BOMBASTICA] = short_b
        unc[BOMBASTICA] = max(short_b - hand_total, F32(0.0))
        sp = max(F32(PERSONAL_NEED) - pool_c[p], F32(0.0))
        gp = max(sp - free[p], F32(0.0))
        min_sj = BIG32
        min_gj = BIG32
        j_best = -1
        j_val = F32(0.0)
        cand = -1
        cand_v = BIG32
        for k in range(K):
            if k != p:
                sj = max(F32(MONOTONI_JOKER) - pool_c[k], F32(0.0))
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
        sx = max(F32(MINIMALE_FEWEST) - px, F32(0.0))
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
                if not (is_p or hi_k < 1 or lo_k >= MINIMALE_FEWEST):
                    safe = False
                if (not is_p) and lo_k >= MINIMALE_FEWEST:
                    some = True
                if is_p and not lo_k >= PERSONAL_NEED:
                    p_ok = False
            met[MINIMALE] = 1 if (safe and some and p_ok) else 0
        if drain_take != 0:
            # Bombastica takes the pool; Monotoni 1 P + the best joker; Minimale 1 P + cand
            for k in range(K):
                tmp[k] = pool_c[k] * rivals[k]
            taken[BOMBASTICA] = sum5(tmp)
            one_p = min(pool_c[p], F32(PERSONAL_NEED))
            for k in range(K):
                tmp[k] = F32(0.0)
                tmp2[k] = F32(0.0)
            tmp[p] = one_p
            tmp2[p] = one_p if has_cand else F32(0.0)
            tmp[j_best] = min(pool_c[j_best], F32(MONOTONI_JOKER))
            tmp2[cand] = min(px, F32(MINIMALE_FEWEST)) * (F32(1.0) if has_cand else F32(0.0))
            for k in range(K):
                tmp[k] = tmp[k] * rivals[k]
                tmp2[k] = tmp2[k] * rivals[k]
            taken[MONOTONI] = sum5(tmp)
            taken[MINIMALE] = sum5(tmp2)
        # -- the orders' worth ------------------------------------------------------------
        order_score[0] = F32(prm[I_ORDER_FLOOR])
        for t in range(T):
            if at(ob, o_oh + t) <= 0:
                order_score[1 + t] = -BIG32
                continue
            mt = met[t] != 0
            cv = (not mt) and cover[t] != 0
            worth = (1.0 if mt else 0.0) + (cover_credit if cv else 0.0)
            if gamble != 0 and cover[t] == 0 and unc[t] <= gamble_max:
                g = hope(gamble, min(unc[t], HOPE_GAP_CAP))
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
            ps = ps + F32(prm[I_BUILD]) * sum5(tmp)
        if prm[I_DRAIN] != 0:
            for k in range(K):
                tmp[k] = add[k] * rivals[k]
            ps = ps - F32(prm[I_DRAIN]) * sum5(tmp)
        for k in range(K):
            tmp[k] = max(reserve[k] - hand_after[k], F32(0.0))
        ps = ps - F32(prm[I_RESERVE_PENALTY]) * sum5(tmp)
        if prm[I_KEEP] != 0:
            for k in range(K):
                tmp[k] = add[k] * (F32(1.0) if need_hand[k] > 0 else F32(0.0))
            ps = ps - F32(prm[I_KEEP]) * sum5(tmp)
        # -- the draw, and the best legal action ----------------------------------------------
        ing_after = ing_cards - cards
        for o in range(ORDER_SLOTS):
            ord_after = orders_held - (F32(0.0) if o == NO_ORDER else F32(1.0))
            sh = max((F32(HAND_LIMIT) - ing_after) - ord_after, F32(0.0))
            got = min(sh, stack_len)
            base = ps + order_score[o]
            for d in range(N_DRAWS):
                a = turn_index(c, o, d)
                if mk[a] <= 0:
                    continue
                if d == DRAW_SUPPLY:
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
def decide_one(ob, mk, personal, lay, play, need, prm, ws, wd, wi) -> int:
    """The heuristic bot's action in one game (turn or reveal decision)."""
    n_turn = lay[L_NTURN]
    for j in range(n_turn, mk.shape[0]):
        if mk[j] > 0:
            return reveal_action(ob, mk, personal, lay, need, ws)
    sbuf = part(ws, NO_SCORES)  # one slot: no scores wanted
    return turn_action(ob, mk, personal, lay, play, need, prm, ws, wd, wi, sbuf)


@njit()
def turn_scores_one(ob, mk, personal, lay, play, need, prm, scores) -> int:
    """The bot's score of every legal turn action of one game into ``scores`` (others
    untouched); returns its choice. For the search bots' candidate actions."""
    ws, wd, wi = workspace()
    return turn_action(ob, mk, personal, lay, play, need, prm, ws, wd, wi, scores)
