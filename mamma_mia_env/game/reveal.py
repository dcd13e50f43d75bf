"""The reveal and the end of a round (docs/SPEC.md, "The reveal", "End of the round"):
which orders can be delivered and how, what a delivery takes from the hand and the
face-up piles, and the next round's set-up or the game's end. Called from ``rules.py``.
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    DECLINE,
    DELIVER,
    DELIVER_AS,
    MAMMA_MIA,
    MINIMALE_FEWEST,
    MONOTONI,
    MONOTONI_JOKER,
    N_KINDS,
    N_REVEAL_ACTIONS,
    PERSONAL_NEED,
)
from mamma_mia_env.game.outcome import winners
from mamma_mia_env.game.record import OVER, PLAY, REVEAL
from mamma_mia_env.game.rng import shuffle
from mamma_mia_env.game.table import (
    REWARD_DELIVERED,
    REWARD_WIN_LOSS,
    P,
    hand_value,
    pile_value,
    stack_push_bottom,
)
from mamma_mia_env.plumbing.jit_cache import njit

_jit = njit()


# -- The reveal -------------------------------------------------------------------------
@_jit
def order_need(r, owner: int, t: int, x: int, need, out) -> None:
    """The value of each ingredient order ``t`` needs (``x``: joker or Minimale kind)."""
    out[:] = 0
    if t < 5:
        for k in range(N_KINDS):
            out[k] = need[owner, t, k]
    else:  # Monotoni / Minimale
        out[owner] = PERSONAL_NEED
        out[x] = MONOTONI_JOKER if t == MONOTONI else MINIMALE_FEWEST


@_jit
def needs_met(r, owner: int, req, with_hand: bool) -> bool:
    for k in range(N_KINDS):
        have = pile_value(r, k) + (hand_value(r, owner, k) if with_hand else 0)
        if have < req[k]:
            return False
    return True


@_jit
def bombastica_value(r, owner: int, with_hand: bool) -> int:
    v = 0
    for k in range(N_KINDS):
        v += pile_value(r, k) + (hand_value(r, owner, k) if with_hand else 0)
    return v


@_jit
def order_options(r, owner: int, t: int, strict: bool, out) -> None:
    """``out[x] = 1`` for each joker (Monotoni) or Minimale candidate x."""
    out[:] = 0
    if t == MONOTONI:
        for x in range(N_KINDS):
            if x != owner:
                out[x] = 1
        return
    # Minimale: the fewest face-up value among the non-empty piles (docs/RULES.md)
    lowest = 1 << 30
    for x in range(N_KINDS):
        v = pile_value(r, x)
        if v >= 1 and (strict or x != owner) and v < lowest:
            lowest = v
    for x in range(N_KINDS):
        if x != owner and pile_value(r, x) == lowest:
            out[x] = 1


@_jit
def reveal_legal(r, owner: int, t: int, params, need, out) -> int:
    """Legal reveal actions (offsets DECLINE, DELIVER, 2+x) into ``out``; returns count."""
    out[:] = 0
    if t == BOMBASTICA or t < 5:
        if t == BOMBASTICA:
            met = bombastica_value(r, owner, False) >= BOMBASTICA_MIN
            cov = bombastica_value(r, owner, True) >= BOMBASTICA_MIN
        else:
            req = np.zeros(N_KINDS, np.int64)
            order_need(r, owner, t, 0, need, req)
            met = needs_met(r, owner, req, False)
            cov = needs_met(r, owner, req, True)
        if cov:  # met with the piles alone is met with the hand too
            out[DELIVER] = 1
        if not met:
            out[DECLINE] = 1
    else:
        opts = np.zeros(N_KINDS, np.int8)
        order_options(r, owner, t, params[P.strict_minimale] != 0, opts)
        req = np.zeros(N_KINDS, np.int64)
        any_unmet = False
        for x in range(N_KINDS):
            if opts[x]:
                order_need(r, owner, t, x, need, req)
                if needs_met(r, owner, req, True):
                    out[DELIVER_AS + x] = 1
                if not needs_met(r, owner, req, False):
                    any_unmet = True
        if any_unmet or opts.sum() == 0:
            out[DECLINE] = 1
    return int(out.sum())


@_jit
def hand_cost(r, owner: int, t: int, x: int, need) -> int:
    """Value of the cards the owner's hand gives to deliver with choice ``x`` (a double
    taken first counts 2 even when it overpays); used by the automatic policy."""
    req = np.zeros(N_KINDS, np.int64)
    order_need(r, owner, t, x, need, req)
    cost = 0
    for k in range(N_KINDS):
        rest = req[k] - pile_value(r, k)
        if rest > 0:
            d = min(r.hand[owner, N_KINDS + k], (rest + 1) // 2)
            cost += 2 * d + max(rest - 2 * d, 0)
    return cost


@_jit
def auto_choice(r, owner: int, t: int, legal, need) -> int:
    """The automatic policy: the delivery costing the fewest hand value, else DECLINE."""
    if legal[DELIVER]:
        return DELIVER
    best = DECLINE
    best_cost = 1 << 30
    for x in range(N_KINDS):
        if legal[DELIVER_AS + x]:
            c = hand_cost(r, owner, t, x, need)
            if c < best_cost:
                best_cost = c
                best = DELIVER_AS + x
    return best


@_jit
def take_kind(counts, k: int, value: int) -> int:
    """Take ``value`` of ingredient k from ``counts``, doubles first; returns the rest."""
    d = min(counts[N_KINDS + k], (value + 1) // 2)
    counts[N_KINDS + k] -= d
    rest = value - 2 * d
    if rest > 0:
        s = min(counts[k], rest)
        counts[k] -= s
        rest -= s
    return rest


@_jit
def bombastica_from_hand(r, owner: int, short: int) -> None:
    """Cover Bombastica's ``short`` from the owner's hand (docs/RULES.md X17): doubles,
    then singles, one card at a time, of the kind with the largest hand value first."""
    while short > 0:
        best = -1
        for k in range(N_KINDS):
            if r.hand[owner, N_KINDS + k] > 0 and (
                best < 0 or hand_value(r, owner, k) > hand_value(r, owner, best)
            ):
                best = k
        if best >= 0:
            r.hand[owner, N_KINDS + best] -= 1
            short -= 2
            continue
        for k in range(N_KINDS):
            if r.hand[owner, k] > 0 and (
                best < 0 or hand_value(r, owner, k) > hand_value(r, owner, best)
            ):
                best = k
        r.hand[owner, best] -= 1
        short -= 1


@_jit
def deliver(r, owner: int, t: int, x: int, params, need, out_delivered) -> None:
    """Move the needed cards to the used stack and the order to ``delivered``."""
    before_piles = r.piles.copy()
    before_hand = r.hand[owner].copy()
    if t == BOMBASTICA:
        short = BOMBASTICA_MIN - bombastica_value(r, owner, False)
        r.piles[:] = 0
        bombastica_from_hand(r, owner, short)
    else:
        req = np.zeros(N_KINDS, np.int64)
        order_need(r, owner, t, x, need, req)
        for k in range(N_KINDS):
            if req[k] == 0:
                continue
            if pile_value(r, k) >= req[k]:
                take_kind(r.piles, k, req[k])
            else:
                rest = req[k] - pile_value(r, k)
                r.piles[k] = 0
                r.piles[N_KINDS + k] = 0
                take_kind(r.hand[owner], k, rest)
    for c in range(2 * N_KINDS):
        r.used[c] += before_piles[c] - r.piles[c] + before_hand[c] - r.hand[owner, c]
        r.played[owner, c] += before_hand[c] - r.hand[owner, c]
    r.delivered[owner, t] = 1
    out_delivered[owner] += 1
    if params[P.reward_mode] != REWARD_WIN_LOSS:
        r.rewards[owner] += 1.0


@_jit
def resolve(r, choice: int, params, need, out_delivered) -> None:
    """Apply reveal action ``choice`` (an offset) to the order at ``reveal_pos``."""
    i = r.reveal_pos
    owner = r.oven_who[i]
    t = r.oven_what[i] - N_KINDS
    if choice == DECLINE:
        stack_push_bottom(r, owner, t)
    else:
        deliver(r, owner, t, max(choice - DELIVER_AS, 0), params, need, out_delivered)
    r.reveal_pos = i + 1


@_jit
def settled_choice(r, params, need, legal) -> int:
    """Reveal oven entries up to the next order; its reveal choice (an offset) if no one
    must make it (its only legal one, or ``auto_reveal``'s), else -1: its owner must
    decide or the round ended. ``legal`` gets the order's legal choices."""
    while r.reveal_pos < r.oven_len:
        i = r.reveal_pos
        what = r.oven_what[i]
        if what < N_KINDS:
            r.piles[what] += r.oven_s[i]
            r.piles[N_KINDS + what] += r.oven_d[i]
            r.reveal_pos = i + 1
            continue
        owner = r.oven_who[i]
        t = what - N_KINDS
        if reveal_legal(r, owner, t, params, need, legal) == 1:
            return int(np.argmax(legal))
        if params[P.auto_reveal]:
            return auto_choice(r, owner, t, legal, need)
        r.phase = REVEAL
        r.seat = owner
        return -1
    end_round(r, params)
    return -1


@_jit
def continue_reveal(r, params, need, out_delivered) -> None:
    """Reveal oven entries until an owner must decide or the round ends."""
    legal = np.zeros(N_REVEAL_ACTIONS, np.int8)
    choice = settled_choice(r, params, need, legal)
    while choice >= 0:
        resolve(r, choice, params, need, out_delivered)
        choice = settled_choice(r, params, need, legal)


@_jit
def reveal_mask(r, params, need, n_turn: int, out) -> None:
    legal = np.zeros(N_REVEAL_ACTIONS, np.int8)
    i = r.reveal_pos
    reveal_legal(r, r.oven_who[i], r.oven_what[i] - N_KINDS, params, need, legal)
    for j in range(N_REVEAL_ACTIONS):
        out[n_turn + j] = legal[j]


# -- End of round, end of game ----------------------------------------------------------
@_jit
def end_round(r, params) -> None:
    n = params[P.num_players]
    if r.round == 2:
        finish_game(r, params)
        return
    counts = r.used.copy()
    r.round_unseen = 0
    for i in range(r.supply_pos, r.supply_len):
        c = r.supply[i]
        if c != MAMMA_MIA:
            counts[c] += 1
            r.round_unseen += 1  # the idle guard's leftovers: nobody saw them
    for c in range(counts.shape[0]):
        r.round_supply[c] = r.used[c]
    r.drawn[:] = 0
    r.played[:] = 0
    r.played_early[:] = 0
    m = 0
    for c in range(counts.shape[0]):
        for _ in range(counts[c]):
            r.supply[m] = c
            m += 1
    r.supply[m] = MAMMA_MIA
    m += 1
    for i in range(m, r.supply.shape[0]):
        r.supply[i] = 0
    r.supply_pos = 0
    r.supply_len = m
    shuffle(r, r.supply, m)
    r.used[:] = 0
    r.oven_len = 0
    r.reveal_pos = 0
    r.seat = r.mm_holder if r.mm_holder >= 0 else (r.last_seat + 1) % n
    r.mm_holder = -1
    r.round += 1
    r.idle = 0
    r.phase = PLAY


@_jit
def finish_game(r, params) -> None:
    n = params[P.num_players]
    r.phase = OVER
    r.terminated = True
    if params[P.reward_mode] == REWARD_DELIVERED:
        return
    win = np.zeros(n, np.int8)
    count = winners(r, n, win)
    for s in range(n):
        if win[s]:
            r.rewards[s] += 1.0 if count == 1 else 0.0
        else:
            r.rewards[s] -= 1.0
