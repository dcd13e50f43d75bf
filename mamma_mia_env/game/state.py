"""The game state (one numpy structured array with a leading batch axis) and the gate
for states from outside.

A batch of B games is one contiguous array of B records, which the numba kernels read
and write, ``copy()`` clones and ``to_json`` / ``from_json`` round-trip exactly. Every
engine call runs ``check_layout`` (cheap); a state from outside (a saved state, a built
position, a ``GameState`` handed to ``reset``) also passes ``check_state``, the full
consistency check of ``consistency.py``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.consistency import record_problems
from mamma_mia_env.game.record import state_dtype
from mamma_mia_env.plumbing.arguments import as_int
from mamma_mia_env.plumbing.files import FileError, parse_json, read_json


class StateError(ValueError):
    """A saved state is corrupt or does not fit the config; the message names the field."""


class StateTypeError(StateError, TypeError):
    """Not a state at all (a ``GameState`` was expected): also a ``TypeError``."""


#: The most games one batch holds: a record is about 1 KB, so 2**22 games take about
#: 4 GB; a larger ``batch_size`` is refused by name instead of exhausting memory.
MAX_BATCH_SIZE = 2**22


@dataclass
class GameState:
    """A batch of games: the config they follow and their records."""

    config: Config
    data: np.ndarray

    @classmethod
    def empty(cls, config: Config, batch_size: int) -> GameState:
        """A batch of ``batch_size`` (0 too: a batch to fill) all-zero records, not dealt."""
        if not isinstance(config, Config):
            raise StateTypeError(f"config must be a Config, got {type(config).__name__}")
        return cls(
            config,
            np.zeros(as_int(batch_size, "batch_size", 0, MAX_BATCH_SIZE), dtype=state_dtype()),
        )

    @property
    def batch_size(self) -> int:
        return int(self.data.shape[0])

    def copy(self) -> GameState:
        return GameState(self.config, self.data.copy())

    def __getitem__(self, index: Any) -> GameState:
        """A sub-batch (a copy), e.g. ``state[[3]]`` for game 3 alone."""
        return GameState(self.config, np.atleast_1d(self.data[index]).copy())

    def equals(self, other: GameState) -> bool:
        return self.config == other.config and self.data.tobytes() == other.data.tobytes()

    # -- JSON ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        games = []
        for rec in self.data:
            game = {name: rec[name].tolist() for name in self.data.dtype.names or ()}
            for name in ("seed", "rng"):  # 64-bit: kept exact in any JSON reader
                game[name] = str(int(rec[name]))
            games.append(game)
        return {"format": "mamma-mia-state/1", "config": self.config.to_dict(), "games": games}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, obj: Any) -> GameState:
        if not isinstance(obj, dict) or obj.get("format") != "mamma-mia-state/1":
            raise StateError("not a mamma-mia-state/1 document (field 'format')")
        extra = sorted(set(obj) - set(_FIELDS))
        if extra:  # refused as in a game record: a field this reader ignores is a mistake
            raise StateError(f"unknown field(s) {extra}; a saved state has {list(_FIELDS)}")
        if not isinstance(obj.get("config"), dict):
            raise StateError("field 'config' is missing or not an object")
        try:
            config = Config.from_kwargs(**obj["config"])
        except (TypeError, ValueError) as exc:  # ConfigError: name it as the saved state's
            raise StateError(f"field 'config': {exc}") from exc
        games = obj.get("games")
        if not isinstance(games, list) or not games:
            raise StateError("field 'games' must be a non-empty list")
        dtype = state_dtype()
        assert dtype.names is not None and dtype.fields is not None  # a structured dtype
        data = np.zeros(len(games), dtype=dtype)
        for i, game in enumerate(games):
            if not isinstance(game, dict):
                raise StateError(f"games[{i}] is not an object")
            missing = sorted(set(dtype.names) - set(game))
            extra = sorted(set(game) - set(dtype.names))
            if missing or extra:
                raise StateError(f"games[{i}]: missing fields {missing}, unknown fields {extra}")
            for name in dtype.names:
                try:
                    data[i][name] = _field(game[name], name, dtype.fields[name][0])
                except (TypeError, ValueError, OverflowError, RecursionError) as exc:
                    raise StateError(f"games[{i}].{name}: {exc}") from exc
        state = cls(config, data)
        problems = check_state(state)
        if problems:
            raise StateError("corrupt state: " + "; ".join(problems[:5]))
        return state

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> GameState:
        """A state saved to a file (``to_json``), checked by ``from_dict``; every refusal
        is a ``StateError`` starting with the file's name."""
        try:
            return cls.from_dict(read_json(path, "saved state"))
        except FileError as exc:
            raise StateError(str(exc)) from None
        except ValueError as exc:  # StateError, ConfigError
            raise StateError(f"{os.fspath(path)}: {exc}") from None

    @classmethod
    def from_json(cls, text: str | bytes | bytearray) -> GameState:
        if not isinstance(text, (str, bytes, bytearray)):
            raise StateError(f"a saved state must be JSON text, got {type(text).__name__}")
        try:
            obj = parse_json(text, "saved state")
        except ValueError as exc:  # broken JSON, a bad number, a nesting bomb, a surrogate
            raise StateError(str(exc)) from None
        return cls.from_dict(obj)


_DTYPE = state_dtype()
_FIELDS = ("format", "config", "games")  # the top level of a saved state (to_dict)


def check_layout(state: object, where: str = "state", writable: bool = True) -> None:
    """``StateError`` naming ``where`` unless ``state`` is a ``GameState`` whose data has
    the record layout, one axis, at least one game, C order (and is writable, unless
    the caller only reads it)."""
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
    """A validated copy of a ``GameState``, its JSON text or its ``to_dict()`` document:
    what ``reset(options={"state": ...})`` accepts."""
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


def _field(raw: Any, name: str, dtype: np.dtype) -> np.ndarray:
    """A saved field's value as ``dtype``, or ``ValueError`` saying why not: no boolean
    for a number, no ``1.0``, ``true`` or ``"3"`` for a count, nothing out of range."""
    if name in ("seed", "rng"):  # 64-bit: written as decimal strings
        if isinstance(raw, str) and raw.isascii() and raw.isdigit():
            raw = int(raw)
        elif isinstance(raw, bool) or not isinstance(raw, int):
            raise ValueError(f"expected a decimal string, got {raw!r}")
    base = dtype.base
    if base.kind != "b" and _holds_bool(raw):
        raise ValueError("expected numbers, got a boolean")
    value = np.array(raw)
    if value.shape != dtype.shape:
        raise ValueError(f"shape {value.shape}, expected {dtype.shape}")
    if value.dtype.kind not in {"b": "b", "f": "fiu"}.get(base.kind, "iu"):
        expected = {"b": "booleans", "f": "numbers"}.get(base.kind, "integers")
        raise ValueError(f"expected {expected}, got {value.dtype} values")
    cast = value.astype(base)
    if not np.array_equal(cast, value):
        raise ValueError(f"value out of range for {base}")
    return cast


def _holds_bool(raw: Any) -> bool:
    """Whether a (nested) list holds a boolean: ``np.array([1, True])`` is an integer
    array, so the dtype alone would let ``true`` pass as 1."""
    stack = [raw]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            return True
        if isinstance(item, list):
            stack.extend(item)
    return False


def check_state(state: GameState) -> list[str]:
    """Every problem found (``consistency.record_problems``), each naming the game and
    the field; [] if consistent, as for a batch of no games (``check_layout`` refuses
    that as an engine's input). Not a ``GameState`` of the layout: ``StateError``."""
    if not isinstance(state, GameState) or not isinstance(state.config, Config):
        raise StateTypeError(f"state must be a GameState, got {type(state).__name__}")
    if not isinstance(state.data, np.ndarray) or state.data.dtype != _DTYPE or state.data.ndim != 1:
        raise StateError("state.data must be a one-dimensional array of state_dtype() records")
    return record_problems(state.data, state.config)
