"""The rules of Mamma Mia!, one game record at a time, compiled with numba.

Each function reads or writes one record ``r`` and follows the paragraph of
docs/SPEC.md whose heading it names: the deal, a turn and one step; the reveal and the
end of a round are in ``reveal.py``, the card-moving helpers in ``table.py``, the
scoring in ``outcome.py``. Every env and the engine call these, through ``kernels.py``.

``params`` is the config as an int64 array (slots ``table.P`` by name); ``play``
is the play table of ``cards.play_table``; ``need`` is ``cards.order_need_table()``.
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.actions import (
    DRAW_STACK,
    DRAW_SUPPLY,
    NO_ORDER,
    draw_of,
    n_turn_actions,
    order_slot_of,
    play_of,
    turn_index,
)
from mamma_mia_env.game.cards import (
    HAND_LIMIT,
    MAMMA_MIA,
    N_KINDS,
    N_ORDER_TYPES,
    N_REVEAL_ACTIONS,
)
from mamma_mia_env.game.outcome import ingredient_cards
from mamma_mia_env.game.record import OVER, PLAY, REVEAL
from mamma_mia_env.game.reveal import (
    continue_reveal,
    resolve,
    reveal_legal,
    reveal_mask,
)
from mamma_mia_env.game.rng import below, shuffle
from mamma_mia_env.game.table import (
    P,
    draw_supply_card,
    hand_size,
    oven_push,
    stack_pop,
)
from mamma_mia_env.plumbing.jit_cache import njit

_jit = njit()


# -- Set-up -----------------------------------------------------------------------------
@_jit
def reset_game(r, seed: np.uint64, params, deck_counts) -> None:
    """Deal a new game from ``seed`` (docs/SPEC.md, Set-up)."""
    n = params[P.num_players]
    r.seed = seed
    r.rng = seed
    r.hand[:] = 0
    r.orders_hand[:] = 0
    r.stack[:] = 0  # every seat's: the record may have held a game of more players
    r.stack_head[:] = 0
    r.stack_len[:] = 0
    r.orders_shown[:] = 0
    r.stack_known[:] = 0
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
    if params[P.mamma_mia_in_deal]:
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
    if not params[P.mamma_mia_in_deal]:
        rest = m - r.supply_pos
        for i in range(rest):
            r.supply[i] = r.supply[r.supply_pos + i]
        r.supply[rest] = MAMMA_MIA
        for i in range(rest + 1, r.supply.shape[0]):
            r.supply[i] = 0
        r.supply_pos = 0
        r.supply_len = rest + 1
        shuffle(r, r.supply, rest + 1)
    r.round_supply[:] = 0  # round 1: the supply is the deck's unseen rest
    r.round_unseen = r.supply_len - r.supply_pos - (1 if r.mm_holder < 0 else 0)
    r.drawn[:] = 0
    r.played[:] = 0
    r.played_early[:] = 0
    # 5. order stacks
    for seat in range(n):
        for t in range(N_ORDER_TYPES):
            r.stack[seat, t] = t
        shuffle(r, r.stack[seat], N_ORDER_TYPES)
        r.stack_head[seat] = 0
        r.stack_len[seat] = N_ORDER_TYPES
    # 6. start player
    r.seat = below(r, n) if params[P.random_start_player] else 0
    r.last_seat = (r.seat + n - 1) % n
    # 7. each seat takes the top order into its hand
    for seat in range(n):
        r.orders_hand[seat, stack_pop(r, seat)] = 1


# -- The turn ---------------------------------------------------------------------------
@_jit
def turn_is_legal(r, a: int, params, play) -> bool:
    """Whether turn action ``a`` is legal for the acting seat (docs/SPEC.md, The turn)."""
    if a < 0 or a >= n_turn_actions(params[P.n_play]):
        return False
    seat = r.seat
    draw = draw_of(a)
    order = order_slot_of(a)
    p = play_of(a)
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
    if order != NO_ORDER:
        if r.orders_hand[seat, order - 1] == 0:
            return False
        if p == 0 and not params[P.pass_may_play_order]:
            return False
        cards += 1
    short = HAND_LIMIT - (hand_size(r, seat) - cards)
    if draw == DRAW_STACK:
        return short > 0 and r.stack_len[seat] > 0
    return True


@_jit
def turn_mask(r, params, play, out) -> None:
    """Set ``out[a] = 1`` for every legal turn action (``out`` zeroed by the caller)."""
    seat = r.seat
    n_play = params[P.n_play]
    size = hand_size(r, seat)
    stack_ok = r.stack_len[seat] > 0
    held = 0  # the order types in hand, as bits: read once, not once per play
    for t in range(N_ORDER_TYPES):
        if r.orders_hand[seat, t] != 0:
            held |= 1 << t
    if ingredient_cards(r, seat) == 0:
        if params[P.pass_may_play_order] == 0:
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
    out[turn_index(p, NO_ORDER, DRAW_SUPPLY)] = 1
    if stack_ok and HAND_LIMIT - (size - cards) > 0:
        out[turn_index(p, NO_ORDER, DRAW_STACK)] = 1
    if held == 0:
        return
    draw = stack_ok and HAND_LIMIT - (size - cards - 1) > 0
    for t in range(N_ORDER_TYPES):
        if (held >> t) & 1:
            out[turn_index(p, 1 + t, DRAW_SUPPLY)] = 1
            if draw:
                out[turn_index(p, 1 + t, DRAW_STACK)] = 1


@_jit
def play_turn(r, a: int, params, play, need, out_delivered) -> None:
    """Apply a legal turn action, then end play or pass the turn (docs/SPEC.md)."""
    if take_turn(r, a, params, play):
        r.reveal_pos = 0
        continue_reveal(r, params, need, out_delivered)


@_jit
def take_turn(r, a: int, params, play) -> bool:
    """The turn itself: play, order, draw; True when play ends and the reveal begins.
    Apart from ``play_turn`` so that the traced step (``trace.py``) shares it."""
    seat = r.seat
    n = params[P.num_players]
    draw = draw_of(a)
    order = order_slot_of(a)
    p = play_of(a)
    moved = False
    if p > 0:
        k = play[p, 0]
        s = play[p, 1]
        d = play[p, 2]
        r.hand[seat, k] -= s
        r.hand[seat, N_KINDS + k] -= d
        r.played[seat, k] += s
        r.played[seat, N_KINDS + k] += d
        if r.drawn[seat].sum() == 0:
            r.played_early[seat, k] += s
            r.played_early[seat, N_KINDS + k] += d
        oven_push(r, seat, k, s, d)
        moved = True
    if order != NO_ORDER:
        r.orders_hand[seat, order - 1] = 0
        r.orders_shown[seat, order - 1] = 0
        oven_push(r, seat, N_KINDS + order - 1, 0, 0)
        moved = True
    short = HAND_LIMIT - hand_size(r, seat)
    if draw == DRAW_STACK:
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
    if params[P.max_turns] > 0 and r.turns >= params[P.max_turns]:
        r.truncated = True
        r.phase = OVER
        return False
    if r.supply_pos >= r.supply_len or (params[P.idle_cycle_guard] and r.idle >= n):
        return True
    r.seat = (seat + 1) % n
    return False


# -- One step ---------------------------------------------------------------------------
@_jit
def is_legal(r, a: int, params, play, need) -> bool:
    if r.phase == PLAY:
        return turn_is_legal(r, a, params, play)
    if r.phase == REVEAL:
        j = a - n_turn_actions(params[P.n_play])
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
        resolve(r, a - n_turn_actions(params[P.n_play]), params, need, out_delivered)
        continue_reveal(r, params, need, out_delivered)


@_jit
def legal_mask_game(r, params, play, need, out) -> None:
    out[:] = 0
    if r.phase == PLAY:
        turn_mask(r, params, play, out)
    elif r.phase == REVEAL:
        reveal_mask(r, params, need, n_turn_actions(params[P.n_play]), out)
