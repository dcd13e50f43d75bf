"""A gymnasium single-agent view of Mamma Mia!: the learner holds one seat, opponent
policies play the others inside ``step`` (``LearnerGames`` with one game).

    >>> from mamma_mia_agents import load_agent
    >>> env = MammaMiaGymEnv(num_players=2, opponents=load_agent("builder"))
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(
    ...     int(np.flatnonzero(env.action_masks())[0]))
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mamma_mia_env.envs.learner import LearnerGames
from mamma_mia_env.envs.learner_front import LearnerFront
from mamma_mia_env.envs.learner_options import LearnerOptions
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import IllegalActionError
from mamma_mia_env.game.state import StateError, load_state
from mamma_mia_env.plumbing.arguments import (
    as_bool,
    as_float,
    as_int,
    as_seed,
    check_reset_options,
    is_int,
    require_reset,
)
from mamma_mia_env.render.text import render_seat

ILLEGAL_ACTION_MODES = ("terminate", "raise")
RESET_OPTIONS = frozenset({"game_seed", "learner_seat", "state"})


def _action_int(action: Any) -> int:
    """A single action: an int, a numpy integer or a 0-d integer array (not a bool)."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    if not is_int(action):
        raise IllegalActionError(f"action must be an int, got {action!r} ({type(action).__name__})")
    return int(action)


class MammaMiaGymEnv(LearnerFront, gym.Env):
    """Mamma Mia! for one learner against opponent policies (gymnasium ``Env``).

    The reward is what the learner's seat earned from its action up to its next
    decision, opponents' moves included (an order of the learner delivered at a reveal
    an opponent triggered, the end-of-game result), never the reward of whoever moved
    last; without ``opponents`` the other seats play uniformly random legal actions.
    Spaces (the learner's canonical frame and ``obs_scale`` by default), masks,
    ``info["result"]``, reset options and registered ids: docs/TRAINING.md,
    "MammaMiaGymEnv". The game's seed is not in ``info`` (it determines every hidden
    card): the experimenter reads it with ``game_seed()``.

    Arguments: the learner options (``LearnerOptions``) as ``options=LearnerOptions(...)``
    or as keywords. ``illegal_action``: ``"terminate"`` (default, as PettingZoo's
    ``TerminateIllegalWrapper``: the episode ends with ``illegal_reward`` for the learner
    and ``info["illegal_action"]``, so that env checkers sampling unmasked actions run)
    or ``"raise"`` (``IllegalActionError``). ``record_actions``: keep every seat's
    actions (``info["actions"]`` at the end) for replays. Other keywords are fields of
    ``Config`` (``num_players``, ``reward_mode``, rule flags, ...).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        *,
        options: LearnerOptions | None = None,
        record_actions: bool = False,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        config: Config | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        options, self.config = LearnerOptions.with_config(options, config, kwargs)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}")
        self.illegal_action = illegal_action
        self.illegal_reward = as_float(illegal_reward, "illegal_reward")
        self.games = LearnerGames(1, self.config, options=options, autoreset=False)
        self.games.record_history = as_bool(record_actions, "record_actions")
        self.engine = self.games.engine
        self.action_space = spaces.Discrete(self.engine.n_actions)
        self.observation_space = self.games.observation_space()
        self._over = True

    @property
    def learner_seat(self) -> int:
        """The seat the learner holds in the current game."""
        return int(self.games.seat[0])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a game. ``options``: ``game_seed`` (the engine seed of the deal),
        ``learner_seat`` (this game only), ``state`` (a ``GameState`` of one game, or
        its JSON, to start from; its seat to act need not be the learner's)."""
        # everything is checked before anything changes: a refused reset leaves the env as it was
        if seed is not None:
            seed = as_seed(seed, "seed")
        options = check_reset_options(options, RESET_OPTIONS)
        g, n = self.games, self.config.num_players
        start = seeds = seats = None
        if options.get("learner_seat") is not None:
            seats = np.array([as_int(options["learner_seat"], "options['learner_seat']", 0, n - 1)])
        if "state" in options:
            if options.get("game_seed") is not None:
                raise ValueError("give options['game_seed'] or options['state'], not both")
            start = load_state(options["state"])
            same_rules = start.config.replace(
                reward_mode=self.config.reward_mode,
                observation_mode=self.config.observation_mode,
            )  # reward and observation modes are not rules: any state fits
            if same_rules != self.config or start.batch_size != 1:
                raise StateError("options['state'] must be one game made with this env's rules")
            seeds = start.data["seed"].copy()
        elif options.get("game_seed") is not None:
            seeds = np.array([as_seed(options["game_seed"], "options['game_seed']")], np.uint64)
        gen = self._np_random
        before = (gen, self._np_random_seed, None if gen is None else gen.bit_generator.state)
        super().reset(seed=seed)
        try:
            g.reset(
                seed=int(self.np_random.integers(0, 2**63)),
                game_seeds=seeds,
                seats=seats,
                start=None if start is None else start.data,
            )
        except BaseException:  # e.g. an opponent raised, or the position ends at once
            self._np_random, self._np_random_seed, state = before
            if state is not None and self._np_random is not None:
                self._np_random.bit_generator.state = state
            raise
        self._over = False
        return g.observe()[0], self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """One learner action (an int or a 0-d integer array, as ``predict`` returns);
        a float, bool or any other type raises ``IllegalActionError`` in every
        ``illegal_action`` mode (it is a bug in the caller, not a move)."""
        if self._over:
            raise RuntimeError("the game is over: call reset()")
        a = _action_int(action)
        legal = 0 <= a < self.engine.n_actions and self.action_masks()[a]
        if not legal and self.illegal_action == "terminate":
            self._over = True
            info = self._info()
            info["illegal_action"] = a
            return self.games.observe()[0], self.illegal_reward, True, False, info
        # an illegal action raises IllegalActionError here, naming it and why
        obs, rewards, terminated, truncated, infos = self.games.step(np.array([a]))
        info = self._info()
        info.update(infos[0])
        info.pop("terminal_observation", None)
        self._over = bool(terminated[0] or truncated[0])
        return obs[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, ``(n_actions,)`` bool (all False once over): what
        sb3-contrib's ``MaskablePPO`` reads."""
        return self.games.action_masks()[0]

    def _info(self) -> dict[str, Any]:
        g = self.games
        return {"action_mask": self.action_masks().astype(np.int8), "seat": int(g.seat[0])}

    def game_seed(self) -> int:
        """The engine seed of the current (or just finished) game, for the experimenter:
        ``replay(config, seed, actions)`` rebuilds it. Not in ``info``: it determines
        every hidden card, so no policy may see it."""
        if self.games.state is None:
            raise RuntimeError("call reset() first")
        return int(self.games.state.data["seed"][0])

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode")
            return None
        require_reset(self.games.state is not None, "render")
        return render_seat(
            self.games.state.data[0], self.learner_seat, self.config, self.render_mode
        )
