"""The batched engine: reset, step, legal masks and observations over B games at once.

``Engine`` is the game (as in OpenSpiel: rules and sizes fixed by a config);
``GameState`` is the state of a batch of games. The engine's functions change the
state in place (copy it first with ``state.copy()`` to branch), so that stepping
thousands of games allocates nothing.

    >>> from mamma_mia_env import Config, Engine
    >>> eng = Engine(Config(num_players=3))
    >>> state = eng.reset(seeds=[1, 2, 3])
    >>> masks = eng.legal_masks(state)            # (3, n_actions) int8
    >>> obs = eng.observe(state)                  # (3, obs_dim) uint8, acting seats
    >>> # (one size for 2-5 players)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mamma_mia_env.game import kernels
from mamma_mia_env.game.actions import describe_illegal, n_turn_actions
from mamma_mia_env.game.cards import N_REVEAL_ACTIONS, deck_counts, order_need_table, play_table
from mamma_mia_env.game.config import PARAMETERS, Config
from mamma_mia_env.game.observe import (
    MODE_CODES,
    OBS_DTYPE,
    global_state_layout,
    observation_layout,
    observation_slices,
)
from mamma_mia_env.game.record import MAX_SEATS, OVER
from mamma_mia_env.game.state import MAX_BATCH_SIZE, GameState, StateError, check_layout
from mamma_mia_env.game.table import parameter_vector
from mamma_mia_env.plumbing.arguments import (
    ArgumentTypeError,
    as_array,
    as_int,
    as_seed,
    as_seed_array,
    is_int,
    out_array,
)

PARALLEL_MIN_BATCH = 256
#: the player counts the game is played with
PLAYER_COUNTS = tuple(range(2, MAX_SEATS + 1))


class IllegalActionError(ValueError):
    """An action that is not legal in the position it was given for."""


def action_array(actions: Any, batch_size: int) -> np.ndarray:
    """One integer action per game as int64 (legality is the caller's check), or
    ``IllegalActionError`` naming the shape or dtype."""
    arr = as_array(actions, "actions", IllegalActionError)
    if arr.shape != (batch_size,):
        raise IllegalActionError(f"actions must have shape ({batch_size},), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise IllegalActionError(f"actions must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def seeds_array(seeds: int | Sequence[int] | np.ndarray, batch_size: int | None) -> np.ndarray:
    """Game seeds as uint64: an int seed s gives games s, s+1, ... (modulo 2**64); only
    ints are read, and a batch holds at least one game."""
    if is_int(seeds):
        if batch_size is None:
            raise ValueError("batch_size is needed with a single int seed")
        base = as_seed(seeds, "seeds")
        return np.array([(base + i) % 2**64 for i in range(batch_size)], dtype=np.uint64)
    arr = as_seed_array(seeds, "seeds")
    if len(arr) == 0:
        raise ValueError("seeds must hold at least one seed (a batch has at least one game)")
    if batch_size is not None and len(arr) != batch_size:
        raise ValueError(f"seeds: got {len(arr)} seeds for a batch of {batch_size}")
    return arr


def _rules(config: Config) -> tuple:
    """A config's rules: every field but the options (an observer of another observation
    mode may read a state)."""
    if not isinstance(config, Config):
        raise StateError(f"state.config must be a Config, got {type(config).__name__}")
    return tuple(getattr(config, name) for name in _RULE_FIELDS)


_RULE_FIELDS = tuple(p.name for p in PARAMETERS if p.kind != "option")


class Engine:
    """Mamma Mia! for one config: sizes, tables and the batched rule functions."""

    def __init__(self, config: Config | None = None, **kwargs: object) -> None:
        if config is not None and not isinstance(config, Config):
            raise ArgumentTypeError(f"config must be a Config, got {type(config).__name__}")
        if config is not None and kwargs:
            raise ValueError("give either a Config or keyword arguments, not both")
        self.config = config if config is not None else Config.from_kwargs(**kwargs)
        cfg = self.config
        self._rules = _rules(cfg)
        self.num_players = cfg.num_players
        self.play = play_table(cfg.double_ingredients)
        self.need = order_need_table()
        self.deck_counts = deck_counts(cfg.num_players, cfg.double_ingredients)
        self.n_play = int(self.play.shape[0])
        self.n_turn_actions = int(n_turn_actions(self.n_play))
        self.n_actions = self.n_turn_actions + N_REVEAL_ACTIONS
        self.params = parameter_vector(cfg, self.n_play)
        # the rules' parameters and deck of every count, row n for n players (rows 0-1
        # repeat this config's): the kernels read row ``counts[b]`` for game b
        rows = [cfg.num_players] * 2 + list(PLAYER_COUNTS)
        self.params_by_count = np.stack(
            [parameter_vector(cfg.replace(num_players=n), self.n_play) for n in rows]
        )
        self.decks_by_count = np.stack([deck_counts(n, cfg.double_ingredients) for n in rows])
        self.obs_mode = MODE_CODES[cfg.observation_mode]
        self.obs_layout = observation_layout(cfg.observation_mode)
        self.obs_dim = sum(size for _, size in self.obs_layout)
        self.obs_slices = observation_slices(cfg.observation_mode)
        self.state_layout = global_state_layout(cfg.num_players)
        self.state_dim = sum(size for _, size in self.state_layout)

    @staticmethod
    def _k(batch: int) -> kernels.BatchKernels:
        return kernels.PARALLEL if batch >= PARALLEL_MIN_BATCH else kernels.SERIAL

    def _counts(self, counts: np.ndarray | None, batch: int) -> np.ndarray:
        """Each game's player count as int64: ``counts`` (checked), or this config's."""
        if counts is None:
            return np.full(batch, self.num_players, dtype=np.int64)
        arr = as_array(counts, "counts")
        if arr.shape != (batch,) or arr.dtype.kind not in "iu":
            raise ValueError(f"counts must be {batch} integer player counts, got {arr!r:.80}")
        if ((arr < PLAYER_COUNTS[0]) | (arr > PLAYER_COUNTS[-1])).any():
            raise ValueError(f"player counts must be in 2-5, got {np.unique(arr).tolist()}")
        return arr.astype(np.int64, copy=False)

    # -- state ----------------------------------------------------------------------
    def reset(
        self,
        seeds: int | Sequence[int] | np.ndarray = 0,
        batch_size: int | None = None,
        state: GameState | None = None,
        counts: np.ndarray | None = None,
    ) -> GameState:
        """Deal new games. With ``state`` given, deal into it (all of its games);
        ``counts``: each game's player count (default: the config's)."""
        if state is not None:
            self._check_state(state)
            batch_size = state.batch_size
        elif batch_size is not None:
            batch_size = as_int(batch_size, "batch_size", 1, MAX_BATCH_SIZE)
        elif not is_int(seeds):
            batch_size = len(seeds_array(seeds, None))
        else:
            batch_size = 1
        s = seeds_array(seeds, batch_size)
        if state is None:
            state = GameState.empty(self.config, batch_size)
        n = self._counts(counts, batch_size)
        self._k(batch_size).reset(state.data, s, n, self.params_by_count, self.decks_by_count)
        return state

    def reset_games(
        self,
        state: GameState,
        index: np.ndarray,
        seeds: np.ndarray,
        counts: np.ndarray | None = None,
    ) -> None:
        """Deal new games into the games ``index`` (distinct indices or a bool mask) of
        ``state``, with ``seeds`` and ``counts`` as in ``reset`` (used by autoreset)."""
        self._check_state(state)
        index = self._game_index(index, state.batch_size)
        if len(index) == 0:  # nothing to deal (an empty seed list is no error here)
            if not is_int(seeds) and len(as_seed_array(seeds, "seeds")):
                raise ValueError("seeds: got seeds for no games (index selects none)")
            return
        sub = state.data[index]
        n = self._counts(counts, len(sub))
        self._k(len(sub)).reset(
            sub, seeds_array(seeds, len(sub)), n, self.params_by_count, self.decks_by_count
        )
        state.data[index] = sub

    @staticmethod
    def _game_index(index: object, batch: int) -> np.ndarray:
        """``index`` (indices or a bool mask) as distinct int64 game indices."""
        arr = as_array(index, "index")
        if arr.dtype == np.bool_:
            if arr.shape != (batch,):
                raise ValueError(f"index: a bool mask must have shape ({batch},), got {arr.shape}")
            return np.flatnonzero(arr)
        if arr.ndim != 1 or (arr.dtype.kind not in "iu" and arr.size):
            raise ArgumentTypeError(
                f"index must be a 1-d array of game indices, got {arr.dtype} of shape {arr.shape}"
            )
        arr = arr.astype(np.int64)
        if ((arr < 0) | (arr >= batch)).any():
            raise ValueError(f"index: game indices must be in 0-{batch - 1}, got {arr}")
        if len(np.unique(arr)) != len(arr):
            raise ValueError(f"index: a game is given twice in {arr}")
        return arr

    def _check_state(self, state: GameState) -> None:
        """The cheap checks every call makes: the layout and the config. The contents are
        trusted (checking them would cost more than a step): a state from outside goes
        through ``state.validate_state`` first, as the envs' ``reset`` do."""
        check_layout(state)
        cfg = state.config
        if cfg is not self.config and _rules(cfg) != self._rules:
            raise ValueError(
                "the state was made for other rules (its config differs in more than the "
                "observation and reward modes)"
            )

    # -- stepping -------------------------------------------------------------------
    def check_actions(
        self,
        state: GameState,
        actions: np.ndarray,
        active: np.ndarray | None = None,
        counts: np.ndarray | None = None,
    ) -> np.ndarray:
        """The actions as int64, or ``IllegalActionError`` naming the first bad game, its
        action and why; ``active`` and ``counts`` as in ``step``."""
        self._check_state(state)
        b = state.batch_size
        arr = action_array(actions, b)
        if active is None:
            active = np.ones(b, dtype=bool)
        n = self._counts(counts, b)
        bad = self._k(b).first_illegal(
            state.data, arr, active, n, self.params_by_count, self.play, self.need
        )
        if bad >= 0:
            eng, game = self, state
            if counts is not None:  # described by the rules of that game's count
                eng = Engine(self.config.replace(num_players=int(n[bad])))
                game = GameState(eng.config, state.data)
            raise IllegalActionError(
                f"game {bad}: action {int(arr[bad])} is illegal: "
                + describe_illegal(eng, game, bad, int(arr[bad]))
            )
        return arr

    def step(
        self,
        state: GameState,
        actions: np.ndarray,
        active: np.ndarray | None = None,
        counts: np.ndarray | None = None,
    ) -> np.ndarray:
        """Apply one action per game (all validated before any game moves) to the games
        ``active`` (default: not over); ``counts``: each game's player count (default: the
        config's). Returns the orders delivered to each seat, ``(B, N)`` (N: the largest
        count); rewards are in ``state.data["rewards"]``."""
        self._check_state(state)
        b = state.batch_size
        if active is None:
            active = state.data["phase"] != OVER
        else:
            active = as_array(active, "active")
            if active.shape != (b,) or active.dtype != np.bool_:
                raise ValueError(
                    f"active must be a bool array of shape ({b},), got {active.dtype} "
                    f"of shape {active.shape}"
                )
        arr = self.check_actions(state, actions, active, counts)
        n = self._counts(counts, b)
        width = self.num_players if counts is None else int(n.max())
        delivered = np.zeros((b, width), dtype=np.int32)
        self._k(b).step(
            state.data, arr, active, n, self.params_by_count, self.play, self.need, delivered
        )
        return delivered

    # -- views ----------------------------------------------------------------------
    def legal_masks(
        self, state: GameState, out: np.ndarray | None = None, counts: np.ndarray | None = None
    ) -> np.ndarray:
        """Each game's legal actions, ``(B, n_actions)`` int8 (into ``out`` if given)."""
        self._check_state(state)
        b = state.batch_size
        n = self._counts(counts, b)
        out = out_array(out, (b, self.n_actions), np.int8, {"state.data": state.data})
        self._k(b).masks(state.data, n, self.params_by_count, self.play, self.need, out)
        return out

    def observe(
        self,
        state: GameState,
        seats: np.ndarray | None = None,
        out: np.ndarray | None = None,
        counts: np.ndarray | None = None,
    ) -> np.ndarray:
        """Each game seen by ``seats`` (default: the seat to act), ``(B, obs_dim)`` of
        uint8 (``OBS_DTYPE``: an ``out`` buffer must have that dtype); ``counts``: each
        game's player count (default: the config's; every count has the one size)."""
        self._check_state(state)
        b = state.batch_size
        if seats is None:
            seats = state.data["seat"]
        seats = as_array(seats, "seats")
        if seats.shape != (b,) or seats.dtype.kind not in "iu":
            raise ValueError(f"seats must be {b} integer seat indices, got {seats!r}")
        seats = seats.astype(np.int64)
        n = self._counts(counts, b)
        if (seats < 0).any() or (seats >= n).any():
            if counts is None:
                raise ValueError(f"seats must be {b} seat indices in 0-{self.num_players - 1}")
            raise ValueError(f"seats must be {b} seat indices, each below its game's count")
        inputs = {"state.data": state.data, "seats": seats}
        out = out_array(out, (b, self.obs_dim), OBS_DTYPE, inputs)
        self._k(b).observe(state.data, seats, n, self.obs_mode, out)
        return out

    def global_state(self, state: GameState, out: np.ndarray | None = None) -> np.ndarray:
        self._check_state(state)
        b = state.batch_size
        out = out_array(out, (b, self.state_dim), np.float32, {"state.data": state.data})
        view = self.state_layout[0][1]
        self._k(b).global_state(state.data, self.num_players, view, out)
        return out
