"""Many games at once: a vector environment over the batched engine.

Each of the B games is at its own decision point; one ``step`` takes one action per
game (for whichever seat is to act there) and moves every game on. Finished games are
dealt again at once (gymnasium's SAME_STEP autoreset): the returned observation is
the new game's, and the last one of the finished game is in ``info["final_obs"]``.

    >>> venv = MammaMiaVectorEnv(1024, num_players=4)
    >>> obs, info = venv.reset(seed=0)               # game i is dealt from seed 0 + i
    >>> actions = my_policy(obs, info["action_mask"], info["seat"])
    >>> obs, rewards, terminated, truncated, info = venv.step(actions)
    >>> rewards.shape                                # (1024, 4): per game and seat

Seeds: the k-th game played in slot i (k = 0, 1, ...) is dealt from
``seed + i + k * B`` (mod 2**64). No seed is in ``info`` (a seed determines every
hidden card, and this one every future deal too); the experimenter reads them with
``game_seeds()`` / ``final_game_seeds()`` to replay any game alone with the AEC env or
``mamma_mia_env.replay``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from . import kernels
from .actions import describe_illegal
from .arguments import as_array, as_bool, as_seed, is_int
from .config import Config
from .engine import PARALLEL_MIN_BATCH, Engine, IllegalActionError
from .observe import OBS_HIGH
from .state import GameState


class MammaMiaVectorEnv:
    """B games of Mamma Mia! stepped together, each at its own seat to act.

    ## Spaces
    ``single_action_space``: ``Discrete(n_actions)`` as in the AEC env;
    ``single_observation_space``: the acting seat's observation (docs/ENV.md). Masks
    come in ``info["action_mask"]`` ``(B, n_actions)`` int8, the acting seats in
    ``info["seat"]``.

    ## Rewards
    ``(B, num_players)`` float32: what each seat of each game earned in this step
    (``reward_mode`` as in the AEC env).

    ## Episode end
    ``terminated`` / ``truncated`` per game; the game is then dealt again at once. In
    ``info`` (only in steps where a game finished): ``final_obs`` ``(B, obs_dim)``
    (the finished game seen by the seat that took the last action; rows valid where
    ``_final_obs``) and ``final_delivered`` ``(B, N)`` (orders each seat delivered).

    ## Arguments
    ``num_envs`` and the fields of ``Config`` (or ``config=Config(...)``). ``copy``
    (default True): return fresh arrays each step; with False the arrays are reused
    buffers, overwritten by the next step (faster). Either way the legality check
    never reads a buffer handed out: it reads a private copy of the masks.
    """

    metadata = {"autoreset_mode": "SameStep"}

    def __init__(
        self, num_envs: int, config: Config | None = None, copy: bool = True, **kwargs: Any
    ) -> None:
        if not is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.engine = Engine(config, **kwargs) if config is not None else Engine(**kwargs)
        self.config = self.engine.config
        self.num_envs = num_envs = int(num_envs)
        self.num_players = self.config.num_players
        self.copy = as_bool(copy, "copy")
        self.single_action_space = spaces.Discrete(self.engine.n_actions)
        self.single_observation_space = spaces.Box(
            0.0, OBS_HIGH, shape=(self.engine.obs_dim,), dtype=np.float32
        )
        self.state: GameState = None  # type: ignore[assignment]  # set by reset()
        self._obs = np.zeros((num_envs, self.engine.obs_dim), dtype=np.float32)
        self._mask = np.zeros((num_envs, self.engine.n_actions), dtype=np.int8)  # private
        # copy=False hands out this buffer instead, written by the same kernel; the
        # legality check reads only the private one, which no caller ever holds
        rows = num_envs if not copy else 0
        self._shared_mask = np.zeros((rows, self.engine.n_actions), dtype=np.int8)
        self._final_obs = np.zeros_like(self._obs)
        self._rewards = np.zeros((num_envs, self.num_players), dtype=np.float32)
        self._done = np.zeros(num_envs, dtype=np.bool_)
        self._terminated = np.zeros(num_envs, dtype=np.bool_)
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._final_delivered = np.zeros((num_envs, self.num_players), dtype=np.int64)
        self._final_seed = np.zeros(num_envs, dtype=np.uint64)
        self._delivered = np.zeros((num_envs, self.num_players), dtype=np.int32)
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._game_seeds = np.zeros(num_envs, dtype=np.uint64)
        self._base_seed = 0
        self._episode = np.zeros(num_envs, dtype=np.uint64)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game; slot i from ``seed + i`` (``seed``: an int in [0, 2**64))."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
        seed = as_seed(seed, "seed")  # checked before anything changes
        index = np.arange(self.num_envs)
        seeds = np.uint64(seed) + index.astype(np.uint64)  # wraps modulo 2**64
        self.state = self.engine.reset(seeds=seeds)
        self._base_seed = seed
        self._episode[:] = 0
        self.engine.observe(self.state, out=self._obs)
        self.engine.legal_masks(self.state, out=self._mask)
        if not self.copy:
            self._shared_mask[:] = self._mask
        self._seats[:] = self.state.data["seat"]
        self._game_seeds[:] = self.state.data["seed"]
        return self._out(self._obs), self._info()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per game; all are checked before any game moves."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        self._run(self._check(actions))
        info = self._info()
        if self._done.any():
            info.update(
                final_obs=self._out(self._final_obs),
                _final_obs=self._done.copy(),
                final_delivered=self._out(self._final_delivered),
            )
        return (
            self._out(self._obs),
            self._out(self._rewards),
            self._out(self._terminated),
            self._out(self._truncated),
            info,
        )

    def _run(self, acts: np.ndarray) -> None:
        """The fused numba step over checked actions (the whole step but the check)."""
        eng = self.engine
        kernel = (
            kernels.VECTOR_STEP_PARALLEL
            if self.num_envs >= PARALLEL_MIN_BATCH
            else kernels.VECTOR_STEP_SERIAL
        )
        kernel(
            self.state.data, acts, eng.params, eng.play, eng.need, eng.deck_counts,
            self.num_players, eng.obs_mode, self._obs, self._mask, self._rewards, self._done,
            self._terminated, self._truncated, self._final_obs, self._final_delivered,
            self._final_seed, self._episode, np.uint64(self._base_seed), self._delivered,
            self._seats, self._game_seeds, self._shared_mask,
        )  # fmt: skip

    def _check(self, actions: np.ndarray) -> np.ndarray:
        """Validate every action before any game moves, against the private masks
        (one byte per game): never against a buffer a caller holds and may have
        written to (with ``copy=False`` callers get ``_shared_mask``)."""
        b = self.num_envs
        arr = as_array(actions, "actions", IllegalActionError)
        if arr.shape != (b,):
            raise IllegalActionError(f"actions must have shape ({b},), got {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be integers, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        g = kernels.first_masked_out(self._mask, arr)
        if g >= 0:
            raise IllegalActionError(
                f"game {g}: action {int(arr[g])} is illegal: "
                + describe_illegal(self.engine, self.state, g, int(arr[g]))
            )
        return arr

    def _out(self, arr: np.ndarray) -> np.ndarray:
        return arr.copy() if self.copy else arr

    def _info(self) -> dict[str, Any]:
        mask = self._mask.copy() if self.copy else self._shared_mask
        return {"action_mask": mask, "seat": self._seats.copy()}

    # -- for the experimenter (never in info) -----------------------------------------
    def game_seeds(self) -> np.ndarray:
        """The engine seed of the game in progress in each slot."""
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self._game_seeds.copy()

    def final_game_seeds(self) -> np.ndarray:
        """The seed of the game that finished in each slot in the last step (valid
        where that step's ``terminated | truncated``)."""
        return self._final_seed.copy()

    def close(self) -> None:
        self.state = None  # type: ignore[assignment]
