"""Information-set sampling: full game states a seat cannot tell from the real one.

Search over hidden information (determinized Monte Carlo, ISMCTS, OpenSpiel's
``resample_from_infostate``) needs worlds drawn from what one seat knows.
``sample_world(state, seat, rng)`` keeps every fact the seat has seen and re-deals
every card it has not, at random among the places it could be:

* the ingredient cards of the other seats' hands and of the supply (the supply's order
  too, and the Mamma Mia! card's place while it is still in the supply): one shuffle,
  the other seats keep their hand sizes;
* each other seat's orders whose place nobody has seen: which are in hand (as many as
  it holds, less those shown) and the order of the rest above the stack's known bottom;
* the order of the seat's own stack above its known bottom (it knows the contents);
* the game's generator: ``seed`` and ``rng`` get fresh values from ``rng``.

Kept, besides everything in the seat's observation: the failed orders under each stack,
in the order they went under (everyone saw them go: ``stack_known``), and those of them
drawn back into hand (``orders_shown``). Blanked (zeros), so the array holds nothing
real: the supply's drawn part (the cards dealt and drawn from it, other seats' among
them, and the Mamma Mia! card's old place) and the oven's entries from past rounds.

The hidden cards are put in a canonical order before they are shuffled, so a sample
depends only on what the seat knows and on ``rng``: two states the seat cannot tell
apart give the same samples (what the search bots' test of not reading hidden
information relies on). ``tests/game/test_information_set.py`` proves both halves over
reachable positions of 2-5 players, every seat.

The sampler works on the **recall** information set (everything a player with perfect
memory of the public play knows): the oven's history is kept. A ``top_card`` seat knows
less (not the oven's history, not its own stack's contents); sampling what only it
forgets is not done: its samples keep the real oven (see docs/AGENTS.md).

Not modelled (docs/AGENTS.md, "Information-set sampling"): what the public play tells
about *which* ingredient cards a hand holds beyond their number. From round 2 on the
supply is made of the used cards everyone saw, so a recall seat knows what it can still
hold; and a reveal tells whether an owner's hand could make up an order. The sampler
deals the other hands and the supply from one pool of the unseen cards.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from mamma_mia_env.game.cards import MAMMA_MIA, N_CARD_TYPES, N_KINDS, N_ORDER_TYPES
from mamma_mia_env.game.rng import shuffle
from mamma_mia_env.game.state import GameState
from mamma_mia_env.game.validate import check_layout
from mamma_mia_env.plumbing.arguments import as_array, as_int
from mamma_mia_env.plumbing.jit_cache import njit

_MAX_CARDS = 96  # every ingredient card and the Mamma Mia! card


@njit()
def sample_game(r, me: int, n: int, seed: np.uint64) -> None:
    """Re-deal the hidden cards of record ``r`` as seat ``me`` sees it (in place)."""
    r.seed = seed
    r.rng = seed
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
    """The other seats' hands and the live supply: one shuffle of their cards in a
    canonical order, hand sizes kept; the Mamma Mia! card, if still in the supply, at a
    uniform place in it."""
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
    pos = r.supply_pos
    for i in range(j, m):
        r.supply[pos] = cards[i]
        pos += 1
    if mm_in_supply:
        r.supply[pos] = MAMMA_MIA
        pos += 1
    seg = r.supply[r.supply_pos : r.supply_len]  # the Mamma Mia! card's place
    shuffle(r, seg, r.supply_len - r.supply_pos)


@njit()
def _deal_orders(r, me: int, n: int) -> None:
    """Each seat's orders that nobody has seen where they are: for ``me`` the order of
    its stack's unknown part (it knows the contents), for the others which of their
    unseen orders are in hand and the order of the rest. Public facts stay: delivered
    orders, orders in the oven, the failed orders under each stack (``stack_known``, in
    the order they went) and those drawn back into hand (``orders_shown``)."""
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


def _seeds(rng: np.random.Generator, count: int) -> np.ndarray:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng.integers(0, 2**63, size=count, dtype=np.uint64, endpoint=False)


def _check(state: GameState, seats: np.ndarray) -> None:
    check_layout(state, writable=False)  # the kernels index by the layout; contents are trusted
    n = state.config.num_players
    if seats.shape != (state.batch_size,):
        raise ValueError(f"seat must be one int or {state.batch_size} seats, got {seats.shape}")
    if (seats < 0).any() or (seats >= n).any():
        raise ValueError(f"seat must be in 0-{n - 1}, got {seats.tolist()[:5]}")


def sample_world(state: GameState, seat: int | np.ndarray, rng: np.random.Generator) -> GameState:
    """A copy of ``state`` with what ``seat`` cannot see re-dealt (see module doc).

    ``state`` may hold a batch; ``seat`` is one seat for every game or one per game.
    The input is not changed.
    """
    check_layout(state, writable=False)
    seats = as_array(seat, "seat")
    if seats.dtype.kind not in "iu":
        raise ValueError(f"seat must be integers, got {seats.dtype}")
    if seats.ndim == 0:
        seats = np.full(state.batch_size, int(seats), dtype=np.int64)
    seats = seats.astype(np.int64)
    _check(state, seats)
    out = state.copy()
    seeds = _seeds(rng, out.batch_size)
    kernel = _sample_batch_parallel if out.batch_size >= 256 else _sample_batch
    kernel(out.data, seats, state.config.num_players, seeds)
    return out


def sample_worlds(state: GameState, seat: int, rng: np.random.Generator, count: int) -> GameState:
    """``count`` independent samples of game 0 of ``state`` seen by ``seat``: a batch."""
    count = as_int(count, "count", 1)
    check_layout(state, writable=False)
    if state.batch_size != 1:
        raise ValueError(f"sample_worlds samples one game; got a batch of {state.batch_size}")
    seat = as_int(seat, "seat")  # not np.full's silent int(1.7)
    many = GameState(state.config, np.repeat(state.data, int(count)))
    seats = np.full(int(count), seat, dtype=np.int64)
    _check(many, seats)
    seeds = _seeds(rng, int(count))
    kernel = _sample_batch_parallel if count >= 256 else _sample_batch
    kernel(many.data, seats, state.config.num_players, seeds)
    return many


__all__ = ["sample_game", "sample_world", "sample_worlds"]
