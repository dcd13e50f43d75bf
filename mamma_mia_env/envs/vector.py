"""Many games at once: a ``gymnasium.vector.VectorEnv`` over the batched engine.

Each of the B games is at its own decision point; one ``step`` takes one action per
game (for whichever seat is to act there) and moves every game on.

    >>> venv = MammaMiaVectorEnv(1024, num_players=4)
    >>> obs, info = venv.reset(seed=0)               # game i is dealt from seed 0 + i
    >>> actions = my_policy(obs, info["action_mask"], info["seat"])
    >>> obs, rewards, terminated, truncated, info = venv.step(actions)
    >>> rewards.shape                                # (1024, 4): per game and seat

Seeds: the k-th game played in slot i is dealt from ``seed + i + k * B`` (mod 2**64).
No seed is in ``info`` (a seed determines every hidden card, and this one every future
deal too); the experimenter reads them with ``game_seeds()`` / ``final_game_seeds()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mamma_mia_env.envs.player_counts import PlayerCounts
from mamma_mia_env.game import kernels
from mamma_mia_env.game.actions import describe_illegal
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import (
    PARALLEL_MIN_BATCH,
    Engine,
    IllegalActionError,
    action_array,
)
from mamma_mia_env.game.observe import OBS_DTYPE, OBS_HIGH
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.arguments import (
    ArgumentTypeError,
    as_bool,
    as_seed,
    as_seed_array,
    check_reset_options,
    is_int,
)


def as_autoreset_mode(mode: Any) -> AutoresetMode:
    """An ``AutoresetMode`` or its value (``"SameStep"``, ``"NextStep"``, ``"Disabled"``)."""
    try:
        return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
    except ValueError:
        raise ValueError(
            "autoreset_mode must be AutoresetMode.SAME_STEP, NEXT_STEP or DISABLED (or "
            f"'SameStep', 'NextStep', 'Disabled'), got {mode!r}"
        ) from None


def as_reset_mask(mask: Any, num_envs: int) -> np.ndarray:
    """``options["reset_mask"]`` as gymnasium's vector envs take it: a numpy bool array
    of one entry per game, at least one True."""
    if not isinstance(mask, np.ndarray):
        raise ArgumentTypeError(
            f"options['reset_mask'] must be a numpy array, got {type(mask).__name__}"
        )
    if mask.shape != (num_envs,):
        raise ValueError(f"options['reset_mask'] must have shape ({num_envs},), got {mask.shape}")
    if mask.dtype != np.bool_:
        raise ArgumentTypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
    if not mask.any():
        raise ValueError("options['reset_mask'] must select at least one game")
    return mask.copy()


def reset_seeds(seed: Any, num_envs: int) -> np.ndarray:
    """The first game seed of every slot from ``reset(seed=...)``: an int s gives
    s, s+1, ...; a sequence gives one seed per slot; None draws a fresh int."""
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    if is_int(seed):
        base = np.uint64(as_seed(seed, "seed"))
        return base + np.arange(num_envs, dtype=np.uint64)  # wraps modulo 2**64
    if isinstance(seed, (str, bytes, float, bool)) or not isinstance(seed, (Sequence, np.ndarray)):
        raise ArgumentTypeError(
            f"seed must be None, an int or one int per game, got {type(seed).__name__}"
        )
    seeds = as_seed_array(seed, "seed")
    if seeds.shape != (num_envs,):
        raise ValueError(f"seed must hold one seed per game ({num_envs}), got {len(seeds)}")
    return seeds


def turn_info(
    mask: np.ndarray, seats: np.ndarray, counts: np.ndarray | None, every: np.ndarray
) -> dict[str, Any]:
    """The info of both vector envs at every step: the masks, the seats to act and
    (mixed player counts only) each game's count, with gymnasium's ``_key`` masks."""
    info = {"action_mask": mask, "_action_mask": every, "seat": seats, "_seat": every}
    if counts is not None:
        info.update(num_players=counts, _num_players=every)
    return info


class MammaMiaVectorEnv(VectorEnv):
    """B games of Mamma Mia! stepped together, each at its own seat to act.

    For self-play and evaluation: one policy (or several, by ``info["seat"]``) answers
    for every game. For one learner against opponents played inside, see
    ``mamma_mia_env.envs.learner_vector.MammaMiaLearnerVectorEnv``. Rewards are
    ``(B, num_players)``, one per seat, not gymnasium's ``(B,)``: a reward may reach a
    seat on another seat's move. ``num_players`` may also be one count per game, or
    ``player_count_probs={count: p}`` draws each game's count at every deal (the
    observation has one size for every count; per-seat arrays then have five columns,
    zero for absent seats, and ``info["num_players"]`` says each game's count). The
    spaces, the info keys, ``autoreset_mode`` (SAME_STEP, NEXT_STEP, DISABLED), the
    partial reset ``reset(options={"reset_mask": mask})`` and ``copy`` are in
    docs/ENV.md, "Infos and episode end". With ``copy=False`` the returned arrays are
    buffers the next step overwrites; the legality check never reads one (it reads a
    private copy of the masks).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        config: Config | None = None,
        copy: bool = True,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        **kwargs: Any,
    ) -> None:
        if not is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.autoreset_mode = as_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        counts, kwargs, config = PlayerCounts.take(dict(kwargs), config, int(num_envs))
        self.engine = Engine(config, **kwargs) if config is not None else Engine(**kwargs)
        self.config = self.engine.config
        self.num_envs = num_envs = int(num_envs)
        #: the player counts (None: every game has ``config.num_players``)
        self.player_counts = counts
        self.num_players = counts.seats if counts is not None else self.config.num_players
        self._counts = (
            counts.counts.copy()
            if counts is not None
            else np.full(num_envs, self.num_players, dtype=np.int64)
        )
        self._cdf = counts.cdf if counts is not None else np.zeros(0)
        self._final_counts = self._counts.copy()
        self.copy = as_bool(copy, "copy")
        self.single_action_space = spaces.Discrete(self.engine.n_actions)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.single_observation_space = spaces.Box(
            0.0, OBS_HIGH, shape=(self.engine.obs_dim,), dtype=OBS_DTYPE
        )
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.state: GameState = None  # type: ignore[assignment]  # set by reset()
        self._obs = np.zeros((num_envs, self.engine.obs_dim), dtype=OBS_DTYPE)
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
        self._slot_seeds = np.zeros(num_envs, dtype=np.uint64)
        self._episode = np.zeros(num_envs, dtype=np.uint64)
        self._pending = np.zeros(num_envs, dtype=np.bool_)  # NEXT_STEP: deal at next step
        # DISABLED runs the kernel as NEXT_STEP: a finished game waits, marked pending;
        # step() refuses to go on until reset(options={"reset_mask": ...}) dealt it
        self._disabled = self.autoreset_mode == AutoresetMode.DISABLED
        self._next_step = self.autoreset_mode == AutoresetMode.NEXT_STEP or self._disabled
        self._all = np.ones(num_envs, dtype=np.bool_)  # the `_key` mask of copy=False

    def reset(
        self,
        seed: int | Sequence[int] | np.ndarray | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game: slot i from ``seed + i`` (``seed`` an int in [0, 2**64)),
        or from ``seed[i]`` (one seed per game). ``options``: None, ``{}`` or
        ``{"reset_mask": mask}`` (deal only the selected games, see the class doc);
        everything is checked before anything changes."""
        options = check_reset_options(options, frozenset({"reset_mask"}))
        if "reset_mask" in options:
            if self.state is None:
                raise RuntimeError("call reset() without a reset_mask first")
            mask = as_reset_mask(options["reset_mask"], self.num_envs)
            seeds = None if seed is None else reset_seeds(seed, self.num_envs)
            self._deal(np.flatnonzero(mask), seeds)
        else:
            seeds = reset_seeds(seed, self.num_envs)
            self.state = None  # type: ignore[assignment]  # _deal makes a new batch
            self._deal(np.arange(self.num_envs), seeds)
        return self._out(self._obs), self._info()

    def _deal(self, index: np.ndarray, seeds: np.ndarray | None) -> None:
        """Deal the games of slots ``index``: from ``seeds`` (restarting their slots'
        seed sequences) or, with None, from each slot's next seed."""
        if seeds is None:
            episode = self._episode[index] + np.uint64(1)
            dealt = self._slot_seeds[index] + episode * np.uint64(self.num_envs)
        else:
            episode = np.zeros(len(index), np.uint64)
            dealt = seeds[index]
        if self.player_counts is not None:
            self._counts[index] = self.player_counts.deal(dealt, index)
        counts = self._counts[index]
        if self.state is None:
            self.state = self.engine.reset(seeds=dealt, counts=counts)
        else:
            self.engine.reset_games(self.state, index, dealt, counts)
        self._episode[index] = episode
        if seeds is not None:
            self._slot_seeds[index] = dealt
        self._pending[index] = False
        for flags in (self._done, self._terminated, self._truncated):
            flags[index] = False
        self._rewards[index] = 0.0
        sub = GameState(self.config, self.state.data[index])
        self._obs[index] = self.engine.observe(sub, counts=counts)
        self._mask[index] = self.engine.legal_masks(sub, counts=counts)
        if not self.copy:
            self._shared_mask[index] = self._mask[index]
        self._seats[index] = sub.data["seat"]
        self._game_seeds[index] = sub.data["seed"]

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per game; all are checked before any game moves (in NEXT_STEP
        mode the action of a game being dealt again is ignored, not checked)."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self._disabled and self._pending.any():
            over = np.flatnonzero(self._pending)
            shown = ", ".join(map(str, over[:10])) + (", ..." if len(over) > 10 else "")
            raise RuntimeError(
                f"games {shown} are over and autoreset_mode is DISABLED: deal them with "
                "reset(options={'reset_mask': terminated | truncated}) before the next step"
            )
        self._run(self._check(actions))
        info = self._info()
        if self._done.any():
            done = self._done.copy()
            delivered = self._out(self._final_delivered)
            info.update(final_delivered=delivered, _final_delivered=done)
            final = {"final_delivered": delivered, "_final_delivered": done}
            if self.player_counts is not None:
                final.update(num_players=self._final_counts.copy(), _num_players=done)
            if not self._next_step:
                info.update(
                    final_obs=self._out(self._final_obs),
                    _final_obs=done,
                    final_info=final,
                    _final_info=done,
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
            self.state.data, acts, self._counts, eng.params_by_count, eng.play, eng.need,
            eng.decks_by_count, eng.obs_mode, self._obs, self._mask, self._rewards, self._done,
            self._terminated, self._truncated, self._final_obs, self._final_delivered,
            self._final_seed, self._episode, self._slot_seeds, self._delivered,
            self._seats, self._game_seeds, self._shared_mask, self._next_step, self._pending,
            self._cdf, self._final_counts,
        )  # fmt: skip

    def _check(self, actions: np.ndarray) -> np.ndarray:
        """Validate every action before any game moves, against the private masks
        (one byte per game): never against a buffer a caller holds and may have
        written to (with ``copy=False`` callers get ``_shared_mask``)."""
        arr = action_array(actions, self.num_envs)
        g = kernels.first_masked_out(self._mask, arr, self._pending)  # none pending: SAME_STEP
        if g >= 0:
            n = int(self._counts[g])
            eng = (
                self.engine
                if n == self.config.num_players
                else Engine(self.config.replace(num_players=n))
            )
            raise IllegalActionError(
                f"game {g}: action {int(arr[g])} is illegal: "
                + describe_illegal(eng, GameState(eng.config, self.state.data), g, int(arr[g]))
            )
        return arr

    def _out(self, arr: np.ndarray) -> np.ndarray:
        return arr.copy() if self.copy else arr

    def _info(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=np.bool_) if self.copy else self._all
        mask = self._mask.copy() if self.copy else self._shared_mask
        counts = None if self.player_counts is None else self._counts.copy()
        return turn_info(mask, self._seats.copy(), counts, every)

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

    def game_counts(self) -> np.ndarray:
        """The player count of the game in progress in each slot."""
        return self._counts.copy()

    def final_game_counts(self) -> np.ndarray:
        """The player count of the game that finished in each slot in the last step
        (valid where that step's ``terminated | truncated``; with one count, it)."""
        return self._final_counts.copy()

    def close_extras(self, **kwargs: Any) -> None:
        self.state = None  # type: ignore[assignment]
