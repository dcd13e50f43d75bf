"""Batch kernels: the per-game rules of ``rules.py`` looped over a batch of records,
serial (cheap for a batch of one) and parallel (``prange``, for large batches).

The rules' parameters and decks come with one row per player count
(``Engine.params_by_count``) and game b plays by row ``counts[b]``, so one call steps a
batch that mixes 2-, 3-, 4- and 5-player games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numba as nb
import numpy as np

from mamma_mia_env.game.observe import global_state_game, observe_game
from mamma_mia_env.game.record import OVER as OVER_PHASE
from mamma_mia_env.game.reveal import continue_reveal
from mamma_mia_env.game.rng import splitmix_output
from mamma_mia_env.game.rules import is_legal, legal_mask_game, reset_game, step_game
from mamma_mia_env.plumbing.jit_cache import njit


class BatchKernels(NamedTuple):
    reset: Callable
    first_illegal: Callable
    step: Callable
    masks: Callable
    observe: Callable
    global_state: Callable


def _make(parallel: bool) -> BatchKernels:
    loop = nb.prange if parallel else range
    jit = njit(parallel=parallel)

    @jit
    def reset(data, seeds, counts, params, deck_counts):
        for b in loop(data.shape[0]):
            n = counts[b]
            reset_game(data[b], seeds[b], params[n], deck_counts[n])

    @jit
    def first_illegal(data, actions, active, counts, params, play, need):
        """Index of the first active game whose action is illegal, or -1."""
        bad = np.full(data.shape[0], -1, np.int64)
        for b in loop(data.shape[0]):
            if active[b] and not is_legal(data[b], actions[b], params[counts[b]], play, need):
                bad[b] = b
        for b in range(data.shape[0]):
            if bad[b] >= 0:
                return b
        return -1

    @jit
    def step(data, actions, active, counts, params, play, need, delivered):
        for b in loop(data.shape[0]):
            if active[b]:
                step_game(data[b], actions[b], params[counts[b]], play, need, delivered[b])

    @jit
    def masks(data, counts, params, play, need, out):
        for b in loop(data.shape[0]):
            legal_mask_game(data[b], params[counts[b]], play, need, out[b])

    @jit
    def observe(data, seats, counts, mode, out):
        for b in loop(data.shape[0]):
            observe_game(data[b], seats[b], counts[b], mode, out[b])

    @jit
    def global_state(data, n, view_size, out):
        for b in loop(data.shape[0]):
            global_state_game(data[b], n, view_size, out[b])

    return BatchKernels(reset, first_illegal, step, masks, observe, global_state)


SERIAL = _make(False)


@njit()
def begin_reveal(data, params, need, delivered):
    """Start the reveal of every game (for positions built by hand)."""
    for b in range(data.shape[0]):
        data[b].reveal_pos = 0
        continue_reveal(data[b], params, need, delivered[b])


PARALLEL = _make(True)


@njit()
def step_one(data, action, params, play, need, delivered, mask, n, mode, obs):
    """The AEC env's whole step in one call: step game 0, write its mask and observation."""
    r = data[0]
    delivered[:] = 0
    step_game(r, action, params, play, need, delivered)
    legal_mask_game(r, params, play, need, mask)
    observe_game(r, r.seat, n, mode, obs)


@njit()
def observe_one(data, seat, n, mode, out):
    observe_game(data[0], seat, n, mode, out)


@njit()
def first_masked_out(masks, actions, skip):
    """Index of the first game not in ``skip`` whose action is out of range or not in its
    mask, or -1 (``skip``: NEXT_STEP autoreset deals those games again, ignoring their
    actions). One pass reading one mask byte per game: numpy's fancy indexing took a
    tenth of a step at B = 4,096."""
    n_actions = masks.shape[1]
    for b in range(actions.shape[0]):
        if skip[b]:
            continue
        a = actions[b]
        if a < 0 or a >= n_actions or masks[b, a] != 1:
            return b
    return -1


@njit()
def random_pick(mask, u) -> int:
    """The ``floor(u * count)``-th legal action (the uniform random policy), or -1 if none."""
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


@njit()
def random_actions(masks, u, out) -> int:
    """``random_pick`` over a batch with the uniforms ``u``; returns the first game with
    no legal action, or -1."""
    for b in range(masks.shape[0]):
        out[b] = random_pick(masks[b], u[b])
        if out[b] < 0:
            return b
    return -1


#: mixed into a game's seed to draw its player count, so that draw is not the deal's first
COUNT_SALT = np.uint64(0x6D616D6D612D6D69)


def count_cdf(probs: np.ndarray) -> np.ndarray:
    """``seed_count``'s table: ``probs`` (a weight per player count 0-5) summed up, exactly
    1.0 from the last count with weight."""
    cdf = np.cumsum(np.asarray(probs, dtype=np.float64))
    cdf[int(np.flatnonzero(probs)[-1]) :] = 1.0
    return cdf


@njit(inline="always")
def seed_count(seed, cdf) -> np.int64:
    """The player count of the game dealt from ``seed``: the first n with u < ``cdf[n]``,
    u uniform in [0, 1) from the seed."""
    u = (splitmix_output(seed ^ COUNT_SALT) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    for n in range(cdf.shape[0]):
        if u < cdf[n]:
            return np.int64(n)
    return np.int64(cdf.shape[0] - 1)


@njit()
def seed_counts(seeds, cdf, out) -> None:
    """``seed_count`` of every seed, into ``out``."""
    for b in range(seeds.shape[0]):
        out[b] = seed_count(seeds[b], cdf)


def _make_vector_step(parallel: bool):
    loop = nb.prange if parallel else range

    @njit(parallel=parallel)
    def vector_step(
        data, actions, counts, params, play, need, deck_counts, mode,
        obs, masks, rewards, done, terminated, truncated,
        final_obs, final_delivered, final_seed, episode, slot_seeds, delivered, seats, seeds,
        shared_masks, next_step, pending, cdf, final_counts,
    ):  # fmt: skip
        """Step every (validated) game, deal finished ones again, write observations and
        masks: one pass, so each record is touched while in cache.

        ``masks`` is the env's private copy; ``shared_masks``, unless empty, gets the
        same rows for the caller. The k-th game of slot b is dealt from
        ``slot_seeds[b] + k * B``, with its count drawn from its seed if ``cdf`` is not
        empty. SAME_STEP (``next_step`` False) deals a finished game again at once and
        writes its last observation to ``final_obs``; NEXT_STEP marks it ``pending`` and
        deals it in the next call, ignoring that call's action for it.
        """
        b_total = data.shape[0]
        share = shared_masks.shape[0] == b_total
        width = rewards.shape[1]  # the largest count's seats: absent seats get 0
        for b in loop(b_total):
            r = data[b]
            n = counts[b]
            deal = pending[b]  # NEXT_STEP: a game that ended in the last call
            if deal:
                pending[b] = False
                for s in range(width):
                    rewards[b, s] = 0.0
                done[b] = False
                terminated[b] = False
                truncated[b] = False
            else:
                step_game(r, actions[b], params[n], play, need, delivered[b])
                for s in range(width):
                    rewards[b, s] = r.rewards[s]
                done[b] = r.phase == OVER_PHASE
                terminated[b] = r.terminated
                truncated[b] = r.truncated
                if done[b]:
                    for s in range(width):
                        final_delivered[b, s] = r.delivered[s].sum()
                    final_seed[b] = r.seed
                    final_counts[b] = n
                    if next_step:
                        pending[b] = True
                    else:
                        observe_game(r, r.seat, n, mode, final_obs[b])
                        deal = True
            if deal:
                episode[b] += np.uint64(1)
                seed = slot_seeds[b] + episode[b] * np.uint64(b_total)
                if cdf.shape[0]:
                    n = seed_count(seed, cdf)
                    counts[b] = n
                reset_game(r, seed, params[n], deck_counts[n])
            observe_game(r, r.seat, n, mode, obs[b])
            legal_mask_game(r, params[n], play, need, masks[b])
            if share:
                shared_masks[b, :] = masks[b, :]
            seats[b] = r.seat
            seeds[b] = r.seed

    return vector_step


VECTOR_STEP_SERIAL = _make_vector_step(False)
VECTOR_STEP_PARALLEL = _make_vector_step(True)
