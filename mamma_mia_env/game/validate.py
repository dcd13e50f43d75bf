"""The gate for states from outside: layout checks, validation and loading.

Every engine call runs ``check_layout`` (cheap); a state from outside (a saved state, a
built position, a ``GameState`` handed to ``reset``) also passes ``check_state``, the full
consistency check (``state.check_state`` over the checks of ``consistency.py``;
``GameState.from_dict`` runs it too), re-exported here.
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.record import state_dtype
from mamma_mia_env.game.state import GameState, StateError, StateTypeError, check_state

_DTYPE = state_dtype()


def check_layout(state: object, where: str = "state", writable: bool = True) -> None:
    """The cheap part: a ``GameState`` whose data has the record layout, one axis, C order
    (and writable, unless the caller only reads it).

    Raises ``StateError`` naming ``where``; every engine call runs this.
    """
    if not isinstance(state, GameState):
        raise StateTypeError(f"{where} must be a GameState, got {type(state).__name__}")
    if not isinstance(state.config, Config):
        raise StateTypeError(f"{where}.config must be a Config, got {type(state.config).__name__}")
    data = state.data
    if not isinstance(data, np.ndarray) or data.dtype != _DTYPE:
        raise StateError(f"{where}.data must be an array of state_dtype() records")
    if data.ndim != 1 or data.shape[0] < 1:
        raise StateError(f"{where}.data must be one-dimensional and non-empty, got {data.shape}")
    if not data.flags.c_contiguous or (writable and not data.flags.writeable):
        raise StateError(f"{where}.data must be C-contiguous and writable")


def validate_state(state: object, where: str = "state") -> GameState:
    """``check_layout`` and ``check_state``; raises ``StateError`` with the problems."""
    check_layout(state, where)
    problems = check_state(state)  # type: ignore[arg-type]
    if problems:
        raise StateError(f"{where} is corrupt: " + "; ".join(problems[:5]))
    return state  # type: ignore[return-value]


def load_state(given: object, where: str = "options['state']") -> GameState:
    """A validated copy of a state given in any form: a ``GameState``, its JSON text or
    its ``to_dict()`` document. What ``reset(options={"state": ...})`` accepts."""
    if isinstance(given, GameState):
        check_layout(given, where)
        state = given.copy()
    elif isinstance(given, (str, bytes, bytearray)):
        state = GameState.from_json(given)
    elif isinstance(given, dict):
        state = GameState.from_dict(given)
    else:
        raise StateError(
            f"{where} must be a GameState, its JSON text or its to_dict() document, "
            f"got {type(given).__name__}"
        )
    return validate_state(state, where)
