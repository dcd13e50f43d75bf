"""One game of ``mamma-mia play`` between a person and agents, apart from any screen.

The terminal game (``cli/play.py``) and the browser game (``cli/serve.py``) drive the
same ``Game``: it holds the engine state and the actions so far, asks the agents for
their moves through the one seat-policy loop, and saves and resumes games. A save file
is data: it never names code to run (``Game.load``).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from mamma_mia_agents import REGISTRY, AgentLoadError, load_agent
from mamma_mia_env import ActionCodec, Config, ConfigError, Engine, GameState, StateError
from mamma_mia_env.game.log import reveal_record
from mamma_mia_env.game.state import OVER
from mamma_mia_env.plumbing.arguments import is_int
from mamma_mia_env.plumbing.files import FileDoorError, read_json, write_atomic
from mamma_mia_env.plumbing.seeding import agent_rng
from mamma_mia_env.policy import PolicyFailure, observers_for, policy_actions
from mamma_mia_env.render.view import table_view

__all__ = ["DEFAULT_SAVE", "SAVE_FORMAT", "AgentFailure", "Game", "SaveError"]

SAVE_FORMAT = "mamma-mia-play/1"
DEFAULT_SAVE = "mamma-mia-save.json"


class SaveError(ValueError):
    """A saved game that cannot be resumed; the message names the file and field."""


class Game:
    """One game between the person (``seat``) and agents, savable at any decision."""

    def __init__(
        self, config: Config, seat: int, specs: list[str], seed: int, actions: list[int]
    ) -> None:
        self.config, self.seat, self.specs, self.seed = config, seat, specs, seed
        n = config.num_players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} in a {n}-player game, got {seat}")
        if not specs:
            raise ValueError("at least one agent is needed for the other seats")
        self.engine = Engine(config)
        self.codec = ActionCodec(self.engine)
        others = [s for s in range(n) if s != seat]
        self.agents = {s: load_agent(specs[i % len(specs)]) for i, s in enumerate(others)}
        self.names = {s: specs[i % len(specs)] for i, s in enumerate(others)}
        for agent in self.agents.values():
            if hasattr(agent, "check_config"):
                agent.check_config(config)
        self.observers = observers_for(config, self.agents.values())
        self.state = self.engine.reset(seeds=[seed])
        self.actions: list[int] = []
        for i, a in enumerate(actions):
            if self.over():
                raise ValueError(f"actions[{i}] comes after the end of the game")
            legal = self.legal()
            ok = isinstance(a, int) and not isinstance(a, bool) and 0 <= a < len(legal)
            if not (ok and legal[a]):
                raise ValueError(f"actions[{i}] ({a!r}) is not legal in its position")
            self.apply(a)

    @property
    def rec(self) -> np.void:
        return self.state.data[0]

    def over(self) -> bool:
        return bool(self.rec["phase"] == OVER)

    def legal(self) -> np.ndarray:
        return self.engine.legal_masks(self.state)[0].astype(bool)

    def apply(self, action: int) -> dict[str, Any]:
        before = self.state.copy()
        self.engine.step(self.state, np.array([action], dtype=np.int64))
        self.actions.append(int(action))
        return reveal_record(self.engine, before, int(action), self.state)

    def bot_action(self) -> int:
        """The action of the agent to move, asked through the one seat-policy loop
        (``mamma_mia_env.policy.policy_actions``), so every agent the tournament takes,
        the search bot included, plays here too. Its generator comes from
        ``agent_rng``: the same on resume, and no route back to the game's seed."""
        s = int(self.rec["seat"])
        if s not in self.agents or self.over():
            raise ValueError("bot_action: no agent is to move")
        policies = [self.agents[s]]
        self.observers = observers_for(self.config, policies, engines=self.observers)
        rng = agent_rng("play", self.seed, len(self.actions))
        mask = self.engine.legal_masks(self.state)
        try:
            action = policy_actions(policies, np.zeros(1, np.int64), self.state, mask, rng,
                                    self.observers)  # fmt: skip
        except PolicyFailure as exc:
            raise AgentFailure(_failure_text(self.names[s], s, exc)) from exc
        return int(action[0])

    def view(self) -> dict[str, Any]:
        n = self.config.num_players
        return table_view(self.rec, n, self.seat, self.config.observation_mode == "recall")

    def save(self, path: str) -> bool:
        """Write the game to ``path`` (atomically); whether an earlier file was replaced."""
        try:
            return write_atomic(path, json.dumps(self.to_dict()), "saved game")
        except FileDoorError as exc:
            raise SaveError(str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SAVE_FORMAT,
            "config": self.config.to_dict(),
            "seat": self.seat,
            "agents": self.specs,
            "seed": str(self.seed),
            "actions": self.actions,
            "state": self.state.to_dict(),  # checked against the replay on load
        }

    @classmethod
    def load(cls, path: str, agents: list[str] | None = None) -> Game:
        """Resume a saved game: every field checked, the actions replayed and compared.

        A save file is data: the agents it names load only if they are bundled agents
        (``agents``, given on the command line, replace them; the person, not the file,
        then chooses what code runs)."""
        try:
            obj = read_json(path, "saved game")
        except FileDoorError as exc:
            raise SaveError(str(exc)) from None
        if not isinstance(obj, dict) or obj.get("format") != SAVE_FORMAT:
            raise SaveError(f"{path}: not a {SAVE_FORMAT} file (field 'format')")
        try:
            config = Config.from_kwargs(**obj["config"])
            seat, specs, actions = obj["seat"], obj["agents"], obj["actions"]
            seed = _saved_seed(obj["seed"])
            if not isinstance(seat, int) or isinstance(seat, bool):
                raise ValueError(f"field 'seat' must be an int, got {seat!r}")
            if not isinstance(specs, list) or not all(isinstance(x, str) for x in specs):
                raise ValueError("field 'agents' must be a list of agent names")
            if not specs and not agents:
                raise ValueError("field 'agents' must name at least one agent")
            if not isinstance(actions, list) or not all(is_int(a) for a in actions):
                raise ValueError("field 'actions' must be a list of integers")
            game = cls(config, seat, agents or _bundled_only(path, specs), seed, actions)
            saved = GameState.from_dict(obj["state"])
        except KeyError as exc:
            raise SaveError(f"{path}: field {exc} is missing") from exc
        except (ConfigError, StateError, AgentLoadError, ValueError, TypeError) as exc:
            raise SaveError(f"{path}: {exc}") from exc
        if not saved.equals(game.state):
            raise SaveError(f"{path}: field 'state' does not match the replayed actions")
        return game


def _saved_seed(value: Any) -> int:
    """The save file stores the seed as a string of plain digits (JSON numbers lose
    precision above 2**53): nothing else is read as a seed."""
    if not isinstance(value, str) or not value.isascii() or not value.isdigit():
        raise ValueError(f"field 'seed' must be a string of digits, got {value!r}")
    return int(value)


def _bundled_only(path: str, specs: list[str]) -> list[str]:
    """The saved agents, if every one is a bundled agent; else ``SaveError`` saying how
    to name the agents on the command line instead."""
    for spec in specs:
        if spec not in REGISTRY:
            raise SaveError(
                f"field 'agents' names {spec!r}, which is not a bundled agent "
                f"({', '.join(REGISTRY)}): a saved game never loads code named in the file. "
                f"To resume with your own agents, name them yourself: mamma-mia play "
                f"--resume {path} --agents AGENT[,AGENT...]"
            )
    return specs


class AgentFailure(RuntimeError):
    """An agent failed to move in a played game; the message names the agent and seat."""


def _failure_text(name: str, seat: int, exc: PolicyFailure) -> str:
    if exc.kind == "raised":
        err = exc.error
        return f"agent {name!r} (seat {seat}) raised {type(err).__name__}: {err}"
    if exc.kind == "illegal":
        return f"agent {name!r} (seat {seat}) chose illegal action {exc.action}"
    return f"agent {name!r} (seat {seat}) returned {exc.chosen!r}, not one action"
