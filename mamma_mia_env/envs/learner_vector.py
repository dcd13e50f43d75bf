"""A gymnasium ``VectorEnv`` of learner-seat games: the learner's view, opponents inside.

    >>> from mamma_mia_agents import load_agent
    >>> envs = MammaMiaLearnerVectorEnv(256, num_players=2, opponents=load_agent("builder"))
    >>> obs, info = envs.reset(seed=0)                 # obs (256, obs_dim) float32 (scaled)
    >>> actions = my_policy(obs, info["action_mask"])  # masks (256, n_actions) int8
    >>> obs, rewards, terminated, truncated, info = envs.step(actions)   # rewards (256,)

The same engine core as the stable-baselines3 ``VecEnv``
(``mamma_mia_env.integrations.sb3``) and the single-game gym env: ``LearnerGames``
(``mamma_mia_env.envs.learner``). This module only speaks gymnasium's vector API:
batched spaces, ``reset(seed=, options=)``, dict-of-arrays infos with ``_key`` masks,
SAME_STEP autoreset with ``final_obs`` / ``final_info``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mamma_mia_env.envs.learner import LearnerGames
from mamma_mia_env.envs.learner_options import LearnerOptions
from mamma_mia_env.envs.player_counts import PlayerCounts
from mamma_mia_env.game.config import Config
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_seed, check_reset_options, is_int

RESET_OPTIONS = frozenset({"game_seeds", "learner_seats"})
#: ``final_info["result"]`` keys and dtypes (the single-game env's ``info["result"]``).
RESULT_FIELDS = (
    ("win", np.float64),
    ("delivered", np.int64),
    ("opp_delivered", np.float64),
    ("seat", np.int64),
    ("truncated", np.bool_),
)


class MammaMiaLearnerVectorEnv(VectorEnv):
    """B games of Mamma Mia!, one learner seat each, as a gymnasium ``VectorEnv``.

    The batched counterpart of ``MammaMiaGymEnv`` for CleanRL-style training loops
    (``experiments/train/cleanrl_ppo.py``): the opponents move inside ``step``, one
    batched ``act_batch`` call per policy and engine step, until every game is at the
    learner's decision again; rewards are ``(B,)``, the learner's, opponents' moves
    included. Spaces, infos, the SAME_STEP autoreset with ``final_info["result"]`` and
    the reset options: docs/TRAINING.md, "MammaMiaLearnerVectorEnv". No seed is in any
    info (it determines every hidden card): the experimenter reads them with
    ``game_seeds()`` / ``final_game_seeds()``.

    Arguments: ``num_envs``; the learner options (``LearnerOptions``) as
    ``options=LearnerOptions(...)`` or as keywords; ``config=Config(...)`` or its fields
    as keywords; ``num_players`` one count or one per game, or ``player_count_probs``
    (``{count: probability}``: each game's count drawn at every deal; docs/TRAINING.md).
    ``reset(seed=s)`` seeds the generator that draws every game seed, learner seat and
    opponent (``reset()`` continues it).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        *,
        options: LearnerOptions | None = None,
        config: Config | None = None,
        **kwargs: Any,
    ) -> None:
        if not is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        counts, kwargs, config = PlayerCounts.take(dict(kwargs), config, int(num_envs))
        options, self.config = LearnerOptions.with_config(options, config, kwargs)
        self.num_envs = int(num_envs)
        self.games = LearnerGames(self.num_envs, self.config, options=options, player_counts=counts)
        #: the player counts (None: every game has ``config.num_players``)
        self.player_counts = counts
        self.num_players = self.games.num_players
        self._result_fields = RESULT_FIELDS + ((("num_players", np.int64),) if counts else ())
        self.single_action_space = spaces.Discrete(self.games.n_actions)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.single_observation_space = self.games.observation_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._masks: np.ndarray | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game and let the opponents move up to the learner's decisions.

        Everything is checked before anything changes; a refused reset leaves the env
        as it was."""
        options = check_reset_options(options, RESET_OPTIONS)
        if seed is not None and not is_int(seed):
            raise ArgumentTypeError(f"seed must be None or an int, got {type(seed).__name__}")
        if seed is not None:
            seed = as_seed(seed, "seed")
        seats = options.get("learner_seats")
        obs = self.games.reset(seed=seed, game_seeds=options.get("game_seeds"), seats=seats)
        self._masks = None
        return obs, self._info()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner action per game (integers, in the canonical frame if
        ``canonical``); all are checked before any game moves."""
        obs, rewards, terminated, truncated, infos = self.games.step(actions)
        self._masks = None
        info = self._info()
        done = terminated | truncated
        if done.any():
            rows = np.flatnonzero(done)
            final_obs = np.zeros_like(obs)
            result: dict[str, Any] = {}
            for key, dtype in self._result_fields:
                col = np.zeros(self.num_envs, dtype=dtype)
                col[rows] = [infos[i]["result"][key] for i in rows]
                result[key], result[f"_{key}"] = col, done
            for i in rows:
                final_obs[i] = infos[i]["terminal_observation"]
            info.update(
                final_obs=final_obs,
                _final_obs=done,
                final_info={"result": result, "_result": done},
                _final_info=done,
            )
        return obs, rewards.astype(np.float32), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """``(B, n_actions)`` bool: each game's legal learner actions."""
        if self.games.state is None:
            raise RuntimeError("call reset() first")
        if self._masks is None:
            self._masks = self.games.action_masks()
        return self._masks

    def _info(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=np.bool_)
        info = {
            "action_mask": self.action_masks().astype(np.int8),
            "_action_mask": every,
            "seat": self.games.seat.copy(),
            "_seat": every,
        }
        if self.player_counts is not None:
            info.update(num_players=self.games.counts.copy(), _num_players=every)
        return info

    def set_opponents(self, opponents: Any, probs: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (games dealt from now on draw from it): self-play."""
        self.games.set_opponents(opponents, probs)

    # -- for the experimenter (never in info: a seed determines every hidden card) ------
    def game_seeds(self) -> np.ndarray:
        """The engine seed of the game in progress in each slot."""
        return self.games.game_seeds()

    def final_game_seeds(self) -> np.ndarray:
        """The engine seed of the last game that finished in each slot (0: none yet)."""
        return self.games.final_seeds.copy()

    def game_counts(self) -> np.ndarray:
        """The player count of the game in progress in each slot (also in
        ``info["num_players"]`` when the counts are per game)."""
        return self.games.counts.copy()

    def final_game_counts(self) -> np.ndarray:
        """The player count of the last game that finished in each slot."""
        return self.games.final_counts.copy()

    def close_extras(self, **kwargs: Any) -> None:
        self.games.state = None  # type: ignore[assignment]
