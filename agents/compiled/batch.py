"""A heuristic bot's decisions over a batch of games: ``decide`` and its kernels.

``decide`` is what ``HeuristicAgent.decide`` calls. The batch kernel runs
``decisions.decide_one`` per game, serially or (from ``PARALLEL_MIN_BATCH`` games) in
parallel, and checks each observation row inside the loop (``check_values`` is the
numpy check it stands for, and names the bad entry).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from mamma_mia_agents.compiled.decisions import decide_one
from mamma_mia_agents.compiled.jit import CHUNKS, F32, per_game, workspace
from mamma_mia_env.game.observe import OBS_HIGH
from mamma_mia_env.plumbing.jit_cache import njit

BAD_OBSERVATION = -2  # ``decide_batch``'s answer for an observation it refuses
#: Every uint8 entry (the envs' observations) is in ``0..OBS_HIGH``: no check needed.
_UINT8_IN_RANGE = np.iinfo(np.uint8).max <= OBS_HIGH


@per_game
def _in_range(ob) -> bool:
    """Every entry in ``0..OBS_HIGH`` (NaN fails both comparisons): the check of
    ``check_values``, one row at a time while the row is in cache."""
    ok = True
    for j in range(ob.shape[0]):
        v = ob[j]
        ok &= (v >= F32(0.0)) & (v <= F32(OBS_HIGH))
    return ok


def _make_batch(parallel: bool):
    loop = nb.prange if parallel else range

    @njit(parallel=parallel)
    def decide_batch(obs, masks, seats, lay, play, need, prm, check, out):
        """``decide_one`` over a batch; with ``check``, a game whose observation has an
        entry outside ``0..OBS_HIGH`` (or NaN) gets ``BAD_OBSERVATION`` instead."""
        b_total = obs.shape[0]
        chunks = min(b_total, CHUNKS)
        for c in loop(chunks):
            ws, wd, wi = workspace()
            for b in range(c * b_total // chunks, (c + 1) * b_total // chunks):
                if check and not _in_range(obs[b]):
                    out[b] = BAD_OBSERVATION
                    continue
                out[b] = decide_one(obs[b], masks[b], seats[b], lay, play, need, prm, ws, wd, wi)

    return decide_batch


DECIDE_SERIAL = _make_batch(False)
DECIDE_PARALLEL = _make_batch(True)
PARALLEL_MIN_BATCH = 256


def check_values(observations: np.ndarray) -> None:
    """Raise a ``ValueError`` naming the first entry of a (B, obs_dim) batch that is not
    a finite number in ``0..OBS_HIGH`` (NaN fails both comparisons)."""
    if observations.size and not (observations.min() >= 0 and observations.max() <= OBS_HIGH):
        with np.errstate(invalid="ignore"):
            ok = (observations >= 0) & (observations <= OBS_HIGH)
        bad = np.flatnonzero(~ok.reshape(-1))
        if len(bad):
            row, col = divmod(int(bad[0]), observations.shape[1])
            raise ValueError(
                f"observations must be finite numbers in 0-{OBS_HIGH:g} (an env's "
                f"observations), got {observations[row, col]!r} at [{row}, {col}]"
            )


def decide(
    obs: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
    lay: np.ndarray,
    play: np.ndarray,
    need: np.ndarray,
    prm: np.ndarray,
    check: bool = False,
) -> np.ndarray:
    """The actions of a heuristic bot in a batch of games (checked shapes and seats).

    ``check``: refuse an observation entry outside ``0..OBS_HIGH`` (NaN included) with
    ``check_values``'s error, checking each row inside the kernel. Only float32
    observations are checked there: another dtype is checked as given, before the
    conversion to float32 could round a bad value into range. The envs' uint8 (every
    value in range) goes to the kernel as it is: it reads the rows in place, and a
    float32 copy of a batch, four times its size, made the decisions wait on memory."""
    obs = np.asarray(obs)
    if check and obs.dtype != np.float32:
        if not (obs.dtype == np.uint8 and _UINT8_IN_RANGE):
            check_values(obs)
        check = False
    obs = np.ascontiguousarray(obs, dtype=np.uint8 if obs.dtype == np.uint8 else np.float32)
    masks = np.ascontiguousarray(masks, dtype=np.int8)
    seats = np.ascontiguousarray(seats, dtype=np.int64)
    out = np.empty(len(obs), np.int64)
    kernel = DECIDE_PARALLEL if len(obs) >= PARALLEL_MIN_BATCH else DECIDE_SERIAL
    kernel(obs, masks, seats, lay, play, need, prm, check, out)
    if check and (out == BAD_OBSERVATION).any():
        check_values(obs)  # raises, naming the entry
        raise AssertionError("the kernel refused an observation check_values accepts")
    return out
