"""The PettingZoo AEC environment of Mamma Mia!."""

from __future__ import annotations

import warnings
from enum import IntEnum
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mamma_mia_env.envs import wrappers
from mamma_mia_env.game import kernels
from mamma_mia_env.game.actions import ActionCodec, describe_illegal
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine, IllegalActionError
from mamma_mia_env.game.log import replay_events, write_log
from mamma_mia_env.game.observe import OBS_DTYPE, OBS_HIGH
from mamma_mia_env.game.record import OVER, PLAY, REVEAL
from mamma_mia_env.game.state import GameState, StateError, load_state
from mamma_mia_env.plumbing.arguments import (
    ArgumentTypeError,
    as_float,
    as_seed,
    is_int,
    require_reset,
)
from mamma_mia_env.render.text import render_seat


class Decision(IntEnum):
    """``infos[agent]["decision"]``: what the agent is to decide now.

    An ``int`` (TorchRL, Tianshou and replay buffers turn infos into tensors; strings
    they cannot) whose repr names it: ``Decision(code).name.lower()`` is the string
    the infos held up to 0.1.0 (``"none"``, ``"turn"``, ``"reveal"``).
    """

    NONE = 0  # not this agent's move, or the game is over
    TURN = 1  # a play turn: actions below ``n_turn_actions``
    REVEAL = 2  # an owner decision during the reveal: the seven reveal actions


class Phase(IntEnum):
    """``infos[agent]["phase"]``: the game's phase (the engine's codes, ``state.PLAY``...)."""

    PLAY = PLAY
    REVEAL = REVEAL
    OVER = OVER


_PHASES = tuple(Phase)  # indexed by the engine's phase code
_DECISION_OF_PHASE = (Decision.TURN, Decision.REVEAL, Decision.NONE)


def env(render_mode: str | None = None, illegal_reward: float = -1.0, **config: Any):
    """The wrapped env, PettingZoo's convention for classic games.

    An illegal action does not raise here: ``TerminateIllegalWrapper`` ends the game,
    gives ``illegal_reward`` to the offender and 0 to the others, and warns. Use
    ``raw_env`` to get an ``IllegalActionError`` instead. The three wrappers are
    PettingZoo's own, subclassed to read the turn's attributes without a lookup per
    layer (``wrappers.py``).
    """
    illegal_reward = as_float(illegal_reward, "illegal_reward")
    e = raw_env(render_mode=render_mode, **config)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped env
    """Mamma Mia! (Uwe Rosenberg, 1999) for 2-5 players, as a PettingZoo AEC env.

    Players bake pizzas by playing ingredient cards and order cards onto a shared
    face-down oven, trusting their memory of what went in; the rules, with every variant
    as a config flag, are in docs/RULES.md. Actions (a whole turn is one joint action,
    read and written by ``ActionCodec``), observations (only what the observing player
    may know), rewards, infos (``Decision``, ``Phase``, ``round`` as ints, so libraries
    that make tensors of infos take them as they are) and episode end: docs/ENV.md.

    Arguments: ``render_mode`` ("ansi", "human" or "rgb_array": a ``(720, 960, 3)``
    uint8 picture of what "ansi" shows) and the fields of ``Config``.
    ``reset(options={"state": GameState | JSON text | dict})`` starts from a saved or
    built position (``mamma_mia_env.game.positions.build_position``), validated first.
    ``infos`` hold no seed (a seed determines every hidden card); the experimenter reads
    ``seed_used``, ``event_log()`` or ``save_state()`` on the env object.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "mamma_mia_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.config = Config.from_kwargs(**config)
        self.engine = eng = Engine(self.config)
        self.codec = ActionCodec(eng)
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        box = spaces.Box(0.0, OBS_HIGH, (eng.obs_dim,), OBS_DTYPE)
        mask = spaces.Box(0, 1, (eng.n_actions,), np.int8)
        obs_space = spaces.Dict({"observation": box, "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(eng.n_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, OBS_HIGH, (eng.state_dim,), np.float32)
        self.game: GameState = None  # type: ignore[assignment]  # set by reset()
        self._seed_stream: np.random.Generator | None = None  # draws unseeded resets' games
        self.actions_taken: list[int] = []
        self._mask = np.zeros((1, eng.n_actions), dtype=np.int8)
        self._acting_obs = np.zeros(eng.obs_dim, dtype=OBS_DTYPE)
        self._acting_obs_seat = -1  # seat whose view _acting_obs holds
        self._delivered = np.zeros((1, n), dtype=np.int32)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode --------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a game: from engine seed ``seed``, or else the next seed of the stream.

        As in gymnasium, ``reset(seed=s)`` also seeds the stream that later resets
        without a seed draw their games from, so a run of resets is reproducible from
        its first seed; a stream never seeded starts from fresh entropy.
        ``options={"state": GameState | JSON text | dict}`` starts from a position
        (validated: a corrupt or inconsistent state raises ``StateError`` and leaves the
        env as it was).
        """
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ArgumentTypeError(f"options must be a dict or None, got {type(options).__name__}")
        unknown = sorted(set(options) - {"state"}, key=str)
        if unknown:  # PettingZoo's api_test passes made-up options and expects no error
            warnings.warn(
                f"reset ignores unknown options {unknown}; known: ['state']", stacklevel=2
            )
        if seed is not None:
            seed = as_seed(seed, "seed")
        if "state" in options:
            if seed is not None:
                raise ValueError("give seed or options['state'], not both")
            game = load_state(options["state"])
            if game.config != self.config or game.batch_size != 1:
                raise StateError("options['state'] must be one game made with this env's config")
            self.game = game
            self._start: GameState | None = game.copy()
        else:
            self.game = self.engine.reset(seeds=[self._next_seed() if seed is None else seed])
            self._start = None
        if seed is not None:  # once the seed was accepted
            self._seed_stream = np.random.default_rng(seed)
        self.seed_used = int(self.game.data["seed"][0])
        self._acting_obs_seat = -1  # seat whose view _acting_obs holds
        self.actions_taken = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._sync()

    def _next_seed(self) -> int:
        if self._seed_stream is None:
            self._seed_stream = np.random.default_rng()
        return int(self._seed_stream.integers(0, 2**63))

    def _sync(self, mask_ready: bool = False) -> None:
        """Copy the engine's view of the game into PettingZoo's dicts."""
        data = self.game.data
        if not mask_ready:
            self.engine.legal_masks(self.game, out=self._mask)
        phase = int(data["phase"][0])
        seat = int(data["seat"][0])
        if phase == OVER:
            if data["truncated"][0]:
                self.truncations = dict.fromkeys(self.agents, True)
            else:
                self.terminations = dict.fromkeys(self.agents, True)
        # every agent, every step: the same keys, int values (see Decision)
        code, rnd = _PHASES[phase], int(data["round"][0])
        acting = self.possible_agents[seat]
        none, decision = Decision.NONE, _DECISION_OF_PHASE[phase]
        self.infos: dict[str, dict[str, Any]] = {
            a: {"decision": decision if a == acting else none, "phase": code, "round": rnd}
            for a in self.agents
        }
        self.agent_selection = self.possible_agents[seat]

    def step(self, action: int | None) -> None:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the game is over and every agent has left: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if not is_int(action):
            raise IllegalActionError(
                f"{agent}: action must be an int, got {action!r} ({type(action).__name__})"
            )
        a = int(action)  # type: ignore[arg-type]  # is_int checked it
        if not (0 <= a < self.engine.n_actions and self._mask[0, a]):
            raise IllegalActionError(
                f"{agent}: action {a} is illegal: " + describe_illegal(self.engine, self.game, 0, a)
            )
        eng = self.engine
        kernels.step_one(
            self.game.data, a, eng.params, eng.play, eng.need, self._delivered[0],
            self._mask[0], eng.num_players, eng.obs_mode, self._acting_obs,
        )  # fmt: skip
        self._acting_obs_seat = int(self.game.data["seat"][0])
        self.actions_taken.append(a)
        self.rewards = dict(
            zip(
                self.possible_agents,
                self.game.data["rewards"][0, : self.config.num_players].tolist(),
                strict=True,
            )
        )
        self._cumulative_rewards[agent] = 0.0
        self._sync(mask_ready=True)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- views ----------------------------------------------------------------------
    def last(self, observe: bool = True) -> Any:
        require_reset(self.game is not None, "last")
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        require_reset(self.game is not None, "observe")
        acting = agent == self.agent_selection
        if self._seat[agent] == self._acting_obs_seat:
            obs = self._acting_obs.copy()  # computed by the step, in the same kernel call
        else:
            eng = self.engine
            obs = np.empty(eng.obs_dim, dtype=OBS_DTYPE)
            kernels.observe_one(
                self.game.data, self._seat[agent], eng.num_players, eng.obs_mode, obs
            )
        if acting and not (self.terminations[agent] or self.truncations[agent]):
            mask = self._mask[0].copy()
        else:
            mask = np.zeros(self.engine.n_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full game (all hands, stacks, supply contents) for centralised critics."""
        require_reset(self.game is not None, "state")
        return self.engine.global_state(self.game)[0]

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        require_reset(self.game is not None, "render")
        seat = self._seat[self.agent_selection]
        out = render_seat(self.game.data[0], seat, self.config, self.render_mode)
        if self.render_mode == "human":
            print(f"{out}\n")
            return None
        return out

    # -- saving and replaying -------------------------------------------------------
    def save_state(self) -> str:
        """The exact game state as JSON (``reset(options={"state": ...})`` restores it)."""
        require_reset(self.game is not None, "save_state")
        return self.game.to_json()

    def event_log(self) -> dict[str, Any]:
        """The game so far as a JSON-ready log: config, seed, and every action in words."""
        require_reset(self.game is not None, "event_log")
        return replay_events(self.config, self.seed_used, self.actions_taken, self._start)

    def write_event_log(self, path: str) -> bool:
        """The event log to ``path``, atomically (``game.log.write_log``); whether an
        earlier file was replaced."""
        return write_log(path, self.event_log())
