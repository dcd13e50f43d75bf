"""Information-set sampling: full game states a seat cannot tell from the real one.

Search over hidden information (determinized Monte Carlo, ISMCTS, OpenSpiel's
``resample_from_infostate``) needs worlds drawn from what one seat knows.
``sample_world(state, seat, rng)`` keeps everything in the seat's observation and
re-deals everything else at random among the places it could be:

* the ingredient cards of the other seats' hands and of the supply (the supply's order
  too, the Mamma Mia! card included when it is still in the supply): one shuffle, the
  other seats keep their hand sizes;
* each other seat's undelivered order cards that are not in the oven: which are in
  hand (as many as it holds) and the order of the rest in its stack;
* the order of the seat's own stack (the observation holds its contents, not its
  order);
* the game's generator: ``seed`` and ``rng`` get fresh values from ``rng``, so nothing
  that was dealt from the real seed survives.

The hidden cards are put in a canonical order before they are shuffled, so a sample
depends only on what the seat knows and on ``rng``: two states the seat cannot tell
apart give the same samples from the same generator (what the search bots' test of
not reading hidden information relies on).

What the seat observes is unchanged: its observation of the sampled state equals the
real one, in both observation modes (tests/game/test_sampling.py).

The sampler works on the **recall** information set (everything a player with perfect
memory of the public play knows): the oven's history is kept. A ``top_card`` seat knows
less (not the oven's history, not its own stack's contents); sampling what only it
forgets is not done: its samples keep the real oven (see docs/AGENTS.md).

Cards a perfect-memory player could place more finely than the observation says (a
failed order goes under its owner's stack, so the owner knows it is at the bottom) are
re-dealt as the observation sees them: uniformly.
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
    # -- ingredient cards: other hands and the supply -----------------------------------
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
    # the supply's order: shuffle its live segment in place
    seg = r.supply[r.supply_pos : r.supply_len]
    shuffle(r, seg, r.supply_len - r.supply_pos)
    # -- order cards ----------------------------------------------------------------------
    in_oven = np.zeros((n, N_ORDER_TYPES), np.bool_)
    for i in range(r.reveal_pos, r.oven_len):
        if r.oven_what[i] >= N_KINDS:
            in_oven[r.oven_who[i], r.oven_what[i] - N_KINDS] = True
    types = np.empty(N_ORDER_TYPES, np.int8)
    for s in range(n):
        k = 0
        if s == me:  # contents known, order not
            for j2 in range(r.stack_len[s]):
                types[k] = r.stack[s, (r.stack_head[s] + j2) % N_ORDER_TYPES]
                k += 1
            types[:k].sort()
            shuffle(r, types, k)
            for j2 in range(k):
                r.stack[s, j2] = types[j2]
        else:
            held = 0
            for t in range(N_ORDER_TYPES):
                held += r.orders_hand[s, t]
                if r.delivered[s, t] == 0 and not in_oven[s, t]:
                    types[k] = t
                    k += 1
                r.orders_hand[s, t] = 0
            shuffle(r, types, k)
            for j2 in range(held):
                r.orders_hand[s, types[j2]] = 1
            for j2 in range(held, k):
                r.stack[s, j2 - held] = types[j2]
        r.stack_head[s] = 0
        for j2 in range(r.stack_len[s], N_ORDER_TYPES):
            r.stack[s, j2] = 0


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
