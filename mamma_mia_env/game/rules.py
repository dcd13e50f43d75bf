"""The rules of Mamma Mia!, one game record at a time, compiled with numba.

Each function reads or writes one record ``r`` of the batched state (``state.py``)
and follows one paragraph of docs/SPEC.md, whose headings it names. The batch
kernels in ``kernels.py`` loop these over the games. The rules live here once: the
AEC env, the batched engine and the vector env all call them.

``params`` is the config as an int64 array (indices ``P_*`` below); ``play`` is the
play table of ``cards.play_table``; ``need`` is ``cards.order_need_table()``.
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    DECLINE,
    DELIVER,
    HAND_LIMIT,
    MAMMA_MIA,
    MONOTONI,
    N_KINDS,
    N_ORDER_TYPES,
    N_REVEAL_ACTIONS,
)
from mamma_mia_env.game.outcome import ingredient_cards, winners
from mamma_mia_env.game.rng import below, shuffle
from mamma_mia_env.game.state import OVER, PLAY, REVEAL
from mamma_mia_env.plumbing.jit_cache import njit

P_N, P_MM_IN_DEAL, P_PASS_ORDER, P_STRICT, P_DOUBLES = 0, 1, 2, 3, 4
P_RANDOM_START, P_AUTO, P_GUARD, P_MAX_TURNS, P_NPLAY, P_REWARD = 5, 6, 7, 8, 9, 10
N_PARAMS = 11
REWARD_WIN_LOSS, REWARD_DELIVERED, REWARD_BOTH = 0, 1, 2

_jit = njit()


# -- small helpers ----------------------------------------------------------------------
@_jit
def hand_size(r, seat: int) -> int:
    return int(r.hand[seat].sum() + r.orders_hand[seat].sum())


@_jit
def pile_value(r, k: int) -> int:
    return int(r.piles[k] + 2 * r.piles[N_KINDS + k])


@_jit
def hand_value(r, seat: int, k: int) -> int:
    return int(r.hand[seat, k] + 2 * r.hand[seat, N_KINDS + k])


@_jit
def oven_push(r, who: int, what: int, s: int, d: int) -> None:
    i = r.oven_len
    if i < 0 or i >= r.oven_who.shape[0]:  # only a corrupt state gets here: never write past
        raise IndexError("oven_push: the oven is full (oven_len out of range; corrupt state)")
    r.oven_who[i] = who
    r.oven_what[i] = what
    r.oven_s[i] = s
    r.oven_d[i] = d
    r.oven_len = i + 1


@_jit
def stack_pop(r, seat: int) -> int:
    t = r.stack[seat, r.stack_head[seat]]
    r.stack_head[seat] = (r.stack_head[seat] + 1) % N_ORDER_TYPES
    r.stack_len[seat] -= 1
    return t


@_jit
def stack_push_bottom(r, seat: int, t: int) -> None:
    r.stack[seat, (r.stack_head[seat] + r.stack_len[seat]) % N_ORDER_TYPES] = t
    r.stack_len[seat] += 1


@_jit
def draw_supply_card(r, seat: int) -> bool:
    """Draw one ingredient card (skipping over the Mamma Mia! card); False if none left."""
    while r.supply_pos < r.supply_len:
        c = r.supply[r.supply_pos]
        r.supply_pos += 1
        if c == MAMMA_MIA:
            r.mm_holder = seat  # placed face up; the drawer at once draws a replacement
        else:
            r.hand[seat, c] += 1
            return True
    return False


# -- Set-up -----------------------------------------------------------------------------
@_jit
def reset_game(r, seed: np.uint64, params, deck_counts) -> None:
    """Deal a new game from ``seed`` (docs/SPEC.md, Set-up)."""
    n = params[P_N]
    r.seed = seed
    r.rng = seed
    r.hand[:] = 0
    r.orders_hand[:] = 0
    r.delivered[:] = 0
    r.piles[:] = 0
    r.used[:] = 0
    r.oven_len = 0
    r.reveal_pos = 0
    r.oven_who[:] = 0
    r.oven_what[:] = 0
    r.oven_s[:] = 0
    r.oven_d[:] = 0
    r.mm_holder = -1
    r.round = 0
    r.phase = PLAY
    r.idle = 0
    r.turns = 0
    r.terminated = False
    r.truncated = False
    r.rewards[:] = 0.0
    r.supply[:] = 0
    # 1-2. the canonical deck, shuffled (the supply array serves as the deck)
    m = 0
    for k in range(N_KINDS):  # per ingredient: its singles, then its doubles
        for c in (k, N_KINDS + k):
            for _ in range(deck_counts[c]):
                r.supply[m] = c
                m += 1
    if params[P_MM_IN_DEAL]:
        r.supply[m] = MAMMA_MIA
        m += 1
    r.supply_len = m
    r.supply_pos = 0
    shuffle(r, r.supply, m)
    # 3. deal six ingredient cards to each seat in turn
    for seat in range(n):
        for _ in range(6):
            draw_supply_card(r, seat)
    # 4. default: shuffle the Mamma Mia! card into the rest
    if not params[P_MM_IN_DEAL]:
        rest = m - r.supply_pos
        for i in range(rest):
            r.supply[i] = r.supply[r.supply_pos + i]
        r.supply[rest] = MAMMA_MIA
        for i in range(rest + 1, r.supply.shape[0]):
            r.supply[i] = 0
        r.supply_pos = 0
        r.supply_len = rest + 1
        shuffle(r, r.supply, rest + 1)
    # 5. order stacks
    for seat in range(n):
        for t in range(N_ORDER_TYPES):
            r.stack[seat, t] = t
        shuffle(r, r.stack[seat], N_ORDER_TYPES)
        r.stack_head[seat] = 0
        r.stack_len[seat] = N_ORDER_TYPES
    # 6. start player
    r.seat = below(r, n) if params[P_RANDOM_START] else 0
    r.last_seat = (r.seat + n - 1) % n
    # 7. each seat takes the top order into its hand
    for seat in range(n):
        r.orders_hand[seat, stack_pop(r, seat)] = 1


# -- The turn ---------------------------------------------------------------------------
@_jit
def turn_is_legal(r, a: int, params, play) -> bool:
    """Whether turn action ``a`` is legal for the acting seat (docs/SPEC.md, The turn)."""
    n_turn = params[P_NPLAY] * 18
    if a < 0 or a >= n_turn:
        return False
    seat = r.seat
    draw = a % 2
    order = (a // 2) % 9
    p = a // 18
    cards = 0
    if p == 0:
        if ingredient_cards(r, seat) > 0:
            return False
    else:
        k = play[p, 0]
        s = play[p, 1]
        d = play[p, 2]
        if r.hand[seat, k] < s or r.hand[seat, N_KINDS + k] < d:
            return False
        cards = s + d
    if order > 0:
        if r.orders_hand[seat, order - 1] == 0:
            return False
        if p == 0 and not params[P_PASS_ORDER]:
            return False
        cards += 1
    short = HAND_LIMIT - (hand_size(r, seat) - cards)
    if draw == 1:
        return short > 0 and r.stack_len[seat] > 0
    return True


@_jit
def turn_mask(r, params, play, out) -> None:
    """Set ``out[a] = 1`` for every legal turn action (``out`` zeroed by the caller).

    Walks only the plays the hand allows (the play table lists, per ingredient, the
    doubles counts in order and within each the singles counts in order).
    """
    seat = r.seat
    n_play = params[P_NPLAY]
    size = hand_size(r, seat)
    stack_ok = r.stack_len[seat] > 0
    held = 0  # the order types in hand, as bits: read once, not once per play
    for t in range(N_ORDER_TYPES):
        if r.orders_hand[seat, t] != 0:
            held |= 1 << t
    if ingredient_cards(r, seat) == 0:
        if params[P_PASS_ORDER] == 0:
            held = 0
        _mask_orders(0, 0, size, stack_ok, held, out)
        return
    p = 1
    while p < n_play:
        k = play[p, 0]
        s = play[p, 1]
        d = play[p, 2]
        if r.hand[seat, k] >= s and r.hand[seat, N_KINDS + k] >= d:
            _mask_orders(p, s + d, size, stack_ok, held, out)
        p += 1


@_jit
def _mask_orders(p, cards, size, stack_ok, held, out) -> None:
    """The order and draw parts of the legal turn actions with play ``p``; ``held``:
    the order types that may go with it, as bits."""
    base = p * 18
    out[base] = 1  # no order
    if stack_ok and HAND_LIMIT - (size - cards) > 0:
        out[base + 1] = 1
    if held == 0:
        return
    draw = stack_ok and HAND_LIMIT - (size - cards - 1) > 0
    for t in range(N_ORDER_TYPES):
        if (held >> t) & 1:
            out[base + 2 + 2 * t] = 1
            if draw:
                out[base + 3 + 2 * t] = 1


@_jit
def play_turn(r, a: int, params, play, need, out_delivered) -> None:
    """Apply a legal turn action, then end play or pass the turn (docs/SPEC.md)."""
    seat = r.seat
    n = params[P_N]
    draw = a % 2
    order = (a // 2) % 9
    p = a // 18
    moved = False
    if p > 0:
        k = play[p, 0]
        s = play[p, 1]
        d = play[p, 2]
        r.hand[seat, k] -= s
        r.hand[seat, N_KINDS + k] -= d
        oven_push(r, seat, k, s, d)
        moved = True
    if order > 0:
        r.orders_hand[seat, order - 1] = 0
        oven_push(r, seat, N_KINDS + order - 1, 0, 0)
        moved = True
    short = HAND_LIMIT - hand_size(r, seat)
    if draw == 1:
        while short > 0 and r.stack_len[seat] > 0:
            r.orders_hand[seat, stack_pop(r, seat)] = 1
            short -= 1
            moved = True
    else:
        start = r.supply_pos
        while short > 0 and draw_supply_card(r, seat):
            short -= 1
        moved = moved or r.supply_pos != start  # drawing the Mamma Mia! card moves a card
    r.turns += 1
    if moved:
        r.idle = 0
    elif r.idle < 127:  # int8; saturates (only idle >= N is ever asked, with the guard)
        r.idle += 1
    r.last_seat = seat
    if params[P_MAX_TURNS] > 0 and r.turns >= params[P_MAX_TURNS]:
        r.truncated = True
        r.phase = OVER
        return
    if r.supply_pos >= r.supply_len or (params[P_GUARD] and r.idle >= n):
        r.reveal_pos = 0
        continue_reveal(r, params, need, out_delivered)
    else:
        r.seat = (seat + 1) % n


# -- The reveal -------------------------------------------------------------------------
@_jit
def order_need(r, owner: int, t: int, x: int, need, out) -> None:
    """The value of each ingredient order ``t`` needs (``x``: joker or Minimale kind)."""
    out[:] = 0
    if t < 5:
        for k in range(N_KINDS):
            out[k] = need[owner, t, k]
    else:  # Monotoni / Minimale
        out[owner] = 1
        out[x] = 6 if t == MONOTONI else 3


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
        if met:
            out[DELIVER] = 1
        elif cov:
            out[DELIVER] = 1
            out[DECLINE] = 1
        else:
            out[DECLINE] = 1
    else:
        opts = np.zeros(N_KINDS, np.int8)
        order_options(r, owner, t, params[P_STRICT] != 0, opts)
        req = np.zeros(N_KINDS, np.int64)
        any_unmet = False
        for x in range(N_KINDS):
            if opts[x]:
                order_need(r, owner, t, x, need, req)
                if needs_met(r, owner, req, True):
                    out[2 + x] = 1
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
        if legal[2 + x]:
            c = hand_cost(r, owner, t, x, need)
            if c < best_cost:
                best_cost = c
                best = 2 + x
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
def deliver(r, owner: int, t: int, x: int, params, need, out_delivered) -> None:
    """Move the needed cards to the used stack and the order to ``delivered``."""
    before_piles = r.piles.copy()
    before_hand = r.hand[owner].copy()
    if t == BOMBASTICA:
        short = BOMBASTICA_MIN - bombastica_value(r, owner, False)
        r.piles[:] = 0
        while short > 0:
            best = 0
            for k in range(1, N_KINDS):
                if hand_value(r, owner, k) > hand_value(r, owner, best):
                    best = k
            if r.hand[owner, N_KINDS + best] > 0:
                r.hand[owner, N_KINDS + best] -= 1
                short -= 2
            else:
                r.hand[owner, best] -= 1
                short -= 1
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
    r.delivered[owner, t] = 1
    out_delivered[owner] += 1
    if params[P_REWARD] != REWARD_WIN_LOSS:
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
        deliver(r, owner, t, max(choice - 2, 0), params, need, out_delivered)
    r.reveal_pos = i + 1


@_jit
def continue_reveal(r, params, need, out_delivered) -> None:
    """Reveal oven entries until an owner must decide or the round ends."""
    legal = np.zeros(N_REVEAL_ACTIONS, np.int8)
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
        count = reveal_legal(r, owner, t, params, need, legal)
        if count == 1:
            resolve(r, int(np.argmax(legal)), params, need, out_delivered)
        elif params[P_AUTO]:
            resolve(r, auto_choice(r, owner, t, legal, need), params, need, out_delivered)
        else:
            r.phase = REVEAL
            r.seat = owner
            return
    end_round(r, params)


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
    n = params[P_N]
    if r.round == 2:
        finish_game(r, params)
        return
    counts = r.used.copy()
    for i in range(r.supply_pos, r.supply_len):
        c = r.supply[i]
        if c != MAMMA_MIA:
            counts[c] += 1
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
    n = params[P_N]
    r.phase = OVER
    r.terminated = True
    if params[P_REWARD] == REWARD_DELIVERED:
        return
    win = np.zeros(n, np.int8)
    count = winners(r, n, win)
    for s in range(n):
        if win[s]:
            r.rewards[s] += 1.0 if count == 1 else 0.0
        else:
            r.rewards[s] -= 1.0


# -- One step ---------------------------------------------------------------------------
@_jit
def is_legal(r, a: int, params, play, need) -> bool:
    if r.phase == PLAY:
        return turn_is_legal(r, a, params, play)
    if r.phase == REVEAL:
        n_turn = params[P_NPLAY] * 18
        j = a - n_turn
        if j < 0 or j >= N_REVEAL_ACTIONS:
            return False
        legal = np.zeros(N_REVEAL_ACTIONS, np.int8)
        i = r.reveal_pos
        reveal_legal(r, r.oven_who[i], r.oven_what[i] - N_KINDS, params, need, legal)
        return legal[j] == 1
    return False


@_jit
def step_game(r, a: int, params, play, need, out_delivered) -> None:
    """Apply one legal action; ``out_delivered[s]`` counts orders delivered to seat s."""
    r.rewards[:] = 0.0
    if r.phase == PLAY:
        play_turn(r, a, params, play, need, out_delivered)
    elif r.phase == REVEAL:
        r.phase = PLAY  # a decision can only end the reveal or reach the next one
        resolve(r, a - params[P_NPLAY] * 18, params, need, out_delivered)
        continue_reveal(r, params, need, out_delivered)


@_jit
def legal_mask_game(r, params, play, need, out) -> None:
    out[:] = 0
    if r.phase == PLAY:
        turn_mask(r, params, play, out)
    elif r.phase == REVEAL:
        reveal_mask(r, params, need, params[P_NPLAY] * 18, out)
