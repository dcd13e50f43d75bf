"""Information-set sampling: full game states a seat cannot tell from the real one.

Search over hidden information (determinized Monte Carlo, ISMCTS) needs worlds drawn
from what one seat knows. ``sample_world(state, seat, rng)`` keeps every fact the seat
has seen and re-deals every card it has not, at random among the places it could be:
docs/AGENTS.md, "Information-set sampling", says what is re-dealt, what is kept (the
record's public memory: ``stack_known``, ``orders_shown``, ``round_supply``, ``drawn``,
``played``, ``played_early``), what is blanked and what is not kept yet. The hidden
cards are put in a canonical order before they are shuffled, so two states the seat
cannot tell apart give the same samples (``tests/game/test_information_set.py``). The
information set is perfect memory's (the ``fixed`` observation's): a ``top_card``
seat's samples keep the real oven.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from mamma_mia_env.game.cards import MAMMA_MIA, N_CARD_TYPES, N_KINDS, N_ORDER_TYPES
from mamma_mia_env.game.rng import below, shuffle
from mamma_mia_env.game.state import GameState, check_layout
from mamma_mia_env.plumbing.arguments import as_array, as_int
from mamma_mia_env.plumbing.jit_cache import njit

_MAX_CARDS = 96  # every ingredient card and the Mamma Mia! card
_ATTEMPTS = 64  # random covers of the cards put out before a two-pool deal gives up


@njit()
def sample_game(r, me: int, n: int, seed: np.uint64) -> None:
    """Re-deal the hidden cards of record ``r`` as seat ``me`` sees it (in place)."""
    r.seed = seed
    r.rng = seed
    if r.round_unseen > 0 or not _deal_pools(r, me, n):
        _deal_ingredients(r, me, n)
    _deal_orders(r, me, n)
    # what is not live holds nothing real: the supply's drawn part (the cards dealt and
    # drawn from it, the Mamma Mia! card's old place) and the oven beyond this round
    r.supply[: r.supply_pos] = 0
    r.oven_who[r.oven_len :] = 0
    r.oven_what[r.oven_len :] = 0
    r.oven_s[r.oven_len :] = 0
    r.oven_d[r.oven_len :] = 0


@njit()
def _deal_ingredients(r, me: int, n: int) -> None:
    """One pool (round 1, or a round whose supply holds cards nobody saw): the other
    seats' hands and the live supply shuffled together, hand sizes kept, draws blanked."""
    cards = np.empty(_MAX_CARDS, np.int8)
    m = 0
    mm_in_supply = False
    for s in range(n):
        if s != me:
            for c in range(N_CARD_TYPES):
                for _ in range(r.hand[s, c]):
                    cards[m] = c
                    m += 1
    for i in range(r.supply_pos, r.supply_len):
        if r.supply[i] == MAMMA_MIA:
            mm_in_supply = True
        else:
            cards[m] = r.supply[i]
            m += 1
    cards[:m].sort()  # canonical: the samples depend on what is hidden, not where it was
    shuffle(r, cards, m)
    j = 0
    for s in range(n):
        if s != me:
            size = 0
            for c in range(N_CARD_TYPES):
                size += r.hand[s, c]
                r.hand[s, c] = 0
            for _ in range(size):
                r.hand[s, cards[j]] += 1
                j += 1
            r.drawn[s, :] = 0
    _fill_supply(r, cards[j:m], mm_in_supply)


@njit()
def _fill_supply(r, cards, mm_in_supply: bool) -> None:
    """The live supply: ``cards`` and the Mamma Mia! card if it is there, shuffled."""
    pos = r.supply_pos
    for i in range(cards.shape[0]):
        r.supply[pos] = cards[i]
        pos += 1
    if mm_in_supply:
        r.supply[pos] = MAMMA_MIA
    seg = r.supply[r.supply_pos : r.supply_len]  # the Mamma Mia! card's place
    shuffle(r, seg, r.supply_len - r.supply_pos)


@njit()
def _pools(r, me: int, n: int, new, old, a, d) -> bool:
    """Round 2 or 3 with a supply of used cards only. ``new``: the round's supply less
    ``me``'s draws; ``old``: the other seats' hands at the round's start; ``a``, ``d``:
    each seat's cards held then and drawn since. False if the record does not add up."""
    live = 0
    for i in range(r.supply_pos, r.supply_len):
        if r.supply[i] != MAMMA_MIA:
            old[r.supply[i]] += 1
            live += 1
    for c in range(N_CARD_TYPES):
        new[c] = r.round_supply[c] - r.drawn[me, c]
        old[c] += r.drawn[me, c] - r.round_supply[c]
    drawn = 0
    for s in range(n):
        if s != me:
            d[s] = r.drawn[s].sum()
            a[s] = r.hand[s].sum() - d[s] + r.played[s].sum()
            drawn += d[s]
            for c in range(N_CARD_TYPES):
                old[c] += r.hand[s, c] + r.played[s, c]
    sizes = new.sum() - drawn == live and old.sum() == a.sum()
    return sizes and (new >= 0).all() and (old >= 0).all() and (a >= 0).all()


@njit()
def _cover(r, me: int, n: int, new, old, a, d, got_old, got_new) -> bool:
    """Where each card a seat put out this round came from: its hand at the round's
    start (``old``; surely for those put out before its first draw) or its draws
    (``new``), at random where both can be; False at a dead end."""
    need = np.empty(_MAX_CARDS, np.int8)
    for s in range(n):
        if s == me:
            continue
        for c in range(N_CARD_TYPES):  # put out before its first draw: from the old hand
            if r.played_early[s, c] > min(old[c], a[s] - got_old[s].sum()):
                return False
            got_old[s, c] += r.played_early[s, c]
            old[c] -= r.played_early[s, c]
    for s in range(n):
        if s == me:
            continue
        k = 0
        for c in range(N_CARD_TYPES):
            for _ in range(r.played[s, c] - r.played_early[s, c]):
                need[k] = c
                k += 1
        shuffle(r, need, k)
        for j in range(k):
            c = need[j]
            can_old = got_old[s].sum() < a[s] and old[c] > 0
            can_new = got_new[s].sum() < d[s] and new[c] > 0
            if not (can_old or can_new):
                return False
            if can_old and (not can_new or below(r, old[c] + new[c]) < old[c]):
                got_old[s, c] += 1
                old[c] -= 1
            else:
                got_new[s, c] += 1
                new[c] -= 1
    return True


@njit()
def _deal_pools(r, me: int, n: int) -> bool:
    """Two pools (rounds 2-3, the supply made of used cards everyone saw): each other
    seat holds cards of its hand at the round's start and cards drawn from the round's
    supply, which cover every card it put out since. False (nothing changed) where no
    such deal is found."""
    new = np.zeros(N_CARD_TYPES, np.int64)
    old = np.zeros(N_CARD_TYPES, np.int64)
    a = np.zeros(n, np.int64)
    d = np.zeros(n, np.int64)
    if not _pools(r, me, n, new, old, a, d):
        return False
    got_old = np.zeros((n, N_CARD_TYPES), np.int64)
    got_new = np.zeros((n, N_CARD_TYPES), np.int64)
    covered = False
    for _ in range(_ATTEMPTS):
        o, w = old.copy(), new.copy()
        got_old[:] = 0
        got_new[:] = 0
        covered = _cover(r, me, n, w, o, a, d, got_old, got_new)
        if covered:
            break
    if not covered:
        return False
    _top_up(r, me, n, _spread(o), got_old, a)
    rest = _top_up(r, me, n, _spread(w), got_new, d)
    mm_in_supply = False
    for i in range(r.supply_pos, r.supply_len):
        mm_in_supply |= r.supply[i] == MAMMA_MIA
    _fill_supply(r, rest, mm_in_supply)
    for s in range(n):
        if s != me:
            for c in range(N_CARD_TYPES):
                r.hand[s, c] = got_old[s, c] + got_new[s, c] - r.played[s, c]
                r.drawn[s, c] = got_new[s, c]
    return True


@njit()
def _top_up(r, me: int, n: int, cards, got, size):
    """Deal the shuffled ``cards`` to the other seats until each has ``size[s]``; the
    cards left over."""
    shuffle(r, cards, cards.shape[0])
    j = 0
    for s in range(n):
        if s != me:
            for _ in range(size[s] - got[s].sum()):
                got[s, cards[j]] += 1
                j += 1
    return cards[j:]


@njit()
def _spread(counts):
    """Card codes of ``counts`` per type, in code order (canonical)."""
    cards = np.empty(counts.sum(), np.int8)
    j = 0
    for c in range(counts.shape[0]):
        for _ in range(counts[c]):
            cards[j] = c
            j += 1
    return cards


@njit()
def _deal_orders(r, me: int, n: int) -> None:
    """Each seat's orders that nobody has seen where they are: for ``me`` the order of
    its stack's unknown part, for the others which unseen orders are in hand and the
    order of the rest. Public facts (delivered, in the oven, ``stack_known``,
    ``orders_shown``) stay."""
    in_oven = np.zeros((n, N_ORDER_TYPES), np.bool_)
    for i in range(r.reveal_pos, r.oven_len):
        if r.oven_what[i] >= N_KINDS:
            in_oven[r.oven_who[i], r.oven_what[i] - N_KINDS] = True
    types = np.empty(N_ORDER_TYPES, np.int8)
    known = np.empty(N_ORDER_TYPES, np.int8)
    for s in range(n):
        top = r.stack_len[s] - r.stack_known[s]  # the entries nobody else has seen
        for j in range(r.stack_known[s]):
            known[j] = r.stack[s, (r.stack_head[s] + top + j) % N_ORDER_TYPES]
        k = 0
        if s == me:  # contents known, order not
            for j in range(top):
                types[k] = r.stack[s, (r.stack_head[s] + j) % N_ORDER_TYPES]
                k += 1
            types[:k].sort()
            shuffle(r, types, k)
            held = 0
        else:
            held = 0
            for t in range(N_ORDER_TYPES):
                if r.orders_hand[s, t] and not r.orders_shown[s, t]:
                    held += 1
                    r.orders_hand[s, t] = 0
            for t in range(N_ORDER_TYPES):
                if not (r.delivered[s, t] or in_oven[s, t] or r.orders_hand[s, t]):
                    types[k] = t  # neither delivered, in the oven nor shown in hand
                    k += 1
            for j in range(r.stack_known[s]):  # nor under the stack in sight
                for i in range(k):
                    if types[i] == known[j]:
                        types[i] = types[k - 1]
                        k -= 1
                        break
            types[:k].sort()
            shuffle(r, types, k)
            for j in range(held):
                r.orders_hand[s, types[j]] = 1
        for j in range(held, k):
            r.stack[s, j - held] = types[j]
        for j in range(r.stack_known[s]):
            r.stack[s, top + j] = known[j]
        r.stack_head[s] = 0
        for j in range(r.stack_len[s], N_ORDER_TYPES):
            r.stack[s, j] = 0


@njit()
def _sample_batch(data, seats, n, seeds) -> None:
    for b in range(data.shape[0]):
        sample_game(data[b], seats[b], n, seeds[b])


@njit(parallel=True)
def _sample_batch_parallel(data, seats, n, seeds) -> None:
    for b in nb.prange(data.shape[0]):
        sample_game(data[b], seats[b], n, seeds[b])


def _sample(out: GameState, seats: np.ndarray, rng: np.random.Generator) -> GameState:
    """Re-deal every game of ``out`` (a copy) in place, game b as ``seats[b]`` sees it."""
    n = out.config.num_players
    if seats.shape != (out.batch_size,):
        raise ValueError(f"seat must be one int or {out.batch_size} seats, got {seats.shape}")
    if (seats < 0).any() or (seats >= n).any():
        raise ValueError(f"seat must be in 0-{n - 1}, got {seats.tolist()[:5]}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    seeds = rng.integers(0, 2**63, size=out.batch_size, dtype=np.uint64, endpoint=False)
    kernel = _sample_batch_parallel if out.batch_size >= 256 else _sample_batch
    kernel(out.data, seats, n, seeds)
    return out


def sample_world(state: GameState, seat: int | np.ndarray, rng: np.random.Generator) -> GameState:
    """A copy of ``state`` (a batch) with what ``seat`` (one, or one per game) cannot see
    re-dealt (see module doc)."""
    check_layout(state, writable=False)  # the kernels index by the layout; contents are trusted
    seats = as_array(seat, "seat")
    if seats.dtype.kind not in "iu":
        raise ValueError(f"seat must be integers, got {seats.dtype}")
    if seats.ndim == 0:
        seats = np.full(state.batch_size, int(seats), dtype=np.int64)
    return _sample(state.copy(), seats.astype(np.int64), rng)


def sample_worlds(state: GameState, seat: int, rng: np.random.Generator, count: int) -> GameState:
    """``count`` independent samples of game 0 of ``state`` seen by ``seat``: a batch."""
    count = as_int(count, "count", 1)
    check_layout(state, writable=False)
    if state.batch_size != 1:
        raise ValueError(f"sample_worlds samples one game; got a batch of {state.batch_size}")
    seats = np.full(count, as_int(seat, "seat"), dtype=np.int64)  # not np.full's int(1.7)
    return _sample(GameState(state.config, np.repeat(state.data, count)), seats, rng)


__all__ = ["sample_game", "sample_world", "sample_worlds"]
