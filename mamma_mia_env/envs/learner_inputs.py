"""The checks at the learner core's two entry points, ``reset`` and ``step``: what a caller
hands in (seeds, seats, start positions, actions) is checked here, before the engine or
any opponent sees it, and a bad value is refused with a message naming it."""

from __future__ import annotations

from typing import Any

import numpy as np

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import IllegalActionError
from mamma_mia_env.game.state import GameState, validate_state
from mamma_mia_env.plumbing.arguments import (
    ArgumentTypeError,
    as_array,
    as_seed,
    as_seed_array,
)

__all__ = ["ResetInputs", "checked_actions", "checked_reset"]

#: ``reset``'s inputs, checked: the generator's seed, the game seeds, the learner
#: seats and the start positions (each None when not given)
ResetInputs = tuple[int | None, np.ndarray | None, np.ndarray | None, GameState | None]


def checked_reset(
    config: Config, batch: int, seed: Any, game_seeds: Any, seats: Any, start: Any
) -> ResetInputs:
    """``reset``'s arguments for ``batch`` games of ``config``, checked."""
    if seed is not None:
        seed = as_seed(seed, "seed")
    if game_seeds is not None:
        game_seeds = as_seed_array(game_seeds, "game_seeds")
        if game_seeds.shape != (batch,):
            raise ValueError(f"game_seeds must hold {batch} seeds, got {len(game_seeds)}")
    if seats is not None:
        seats = as_array(seats, "seats")
        n = config.num_players
        if seats.shape != (batch,) or seats.dtype.kind not in "iu":
            raise ValueError(f"seats must be {batch} integer seats, got {seats!r}")
        if ((seats < 0) | (seats >= n)).any():
            raise ValueError(f"learner seats must be in 0-{n - 1}, got {seats}")
    start_state = None
    if start is not None:  # records of the engine's layout, validated as a state
        if not isinstance(start, (np.ndarray, np.void)):
            raise ArgumentTypeError(
                "start must be a numpy array of state_dtype() records (GameState.data), "
                f"got {type(start).__name__}"
            )
        start_state = validate_state(GameState(config, np.array(start, ndmin=1)), "start")
        if start_state.batch_size != batch:
            raise ValueError(f"start must hold {batch} games, got {start_state.batch_size}")
    return seed, game_seeds, seats, start_state


def checked_actions(actions: Any, batch: int, n_actions: int) -> np.ndarray:
    """``step``'s learner actions: ``batch`` integers in ``0 .. n_actions - 1`` (int64)."""
    acts = as_array(actions, "actions", IllegalActionError)
    if acts.shape != (batch,) or acts.dtype.kind not in "iu":
        raise IllegalActionError(
            f"actions must be an integer array of shape ({batch},), got {acts.dtype} "
            f"of shape {acts.shape}"
        )
    acts = acts.astype(np.int64)
    if (acts < 0).any() or (acts >= n_actions).any():
        raise IllegalActionError(f"actions must be in 0-{n_actions - 1}, got {acts}")
    return acts
