"""A gymnasium ``VectorEnv`` of learner-seat games: the learner's view, opponents inside.

>>> from mamma_mia_agents import load_agent
>>> envs = MammaMiaLearnerVectorEnv(256, num_players=2, opponents=load_agent("builder"))
>>> obs, info = envs.reset(seed=0)                 # obs (256, obs_dim) float32 (scaled)
>>> actions = my_policy(obs, info["action_mask"])  # masks (256, n_actions) int8
>>> obs, rewards, terminated, truncated, info = envs.step(actions)   # rewards (256,)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mamma_mia_env.envs.learner import LearnerGames
from mamma_mia_env.envs.learner_front import LearnerFront
from mamma_mia_env.envs.learner_options import LearnerOptions
from mamma_mia_env.envs.player_counts import PlayerCounts
from mamma_mia_env.envs.vector import turn_info
from mamma_mia_env.game.config import Config
from mamma_mia_env.plumbing.arguments import check_reset_options, is_int

RESET_OPTIONS = frozenset({"game_seeds", "learner_seats"})
#: ``final_info["result"]`` keys and dtypes (the single-game env's ``info["result"]``).
RESULT_FIELDS = (
    ("win", np.float64),
    ("delivered", np.int64),
    ("opp_delivered", np.float64),
    ("seat", np.int64),
    ("truncated", np.bool_),
)


class MammaMiaLearnerVectorEnv(LearnerFront, VectorEnv):
    """B games of Mamma Mia!, one learner seat each, as a gymnasium ``VectorEnv``.

    The batched counterpart of ``MammaMiaGymEnv`` for CleanRL-style training loops
    (``experiments/train/cleanrl_ppo.py``), over ``LearnerGames`` as the SB3 ``VecEnv``:
    the opponents move inside ``step``, one batched ``act_batch`` call per policy and
    engine step, until every game is at the learner's decision again; rewards are
    ``(B,)``, the learner's, opponents' moves included. Spaces, infos, the SAME_STEP
    autoreset with ``final_info["result"]`` and the reset options: docs/TRAINING.md,
    "MammaMiaLearnerVectorEnv". No seed is in any info (it determines every hidden
    card): the experimenter reads them with ``game_seeds()`` / ``final_game_seeds()``.

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

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game and let the opponents move up to the learner's decisions.

        Everything is checked before anything changes; a refused reset leaves the env
        as it was."""
        options = check_reset_options(options, RESET_OPTIONS)
        seats = options.get("learner_seats")  # checked by the games, with ``seed``
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

    def _info(self) -> dict[str, Any]:
        counts = None if self.player_counts is None else self.games.counts.copy()
        masks = self.action_masks().astype(np.int8)
        return turn_info(masks, self.games.seat.copy(), counts, np.ones(self.num_envs, np.bool_))

    def close_extras(self, **kwargs: Any) -> None:
        self.games.state = None  # type: ignore[assignment]
