"""One game of ``mamma-mia play`` between a person and agents, apart from any screen.

The terminal game (``cli/play.py``) and the browser game (``cli/serve.py``) drive the
same ``Game``: it holds the engine state and the actions so far, asks the agents for
their moves through the one seat-policy loop, and saves and resumes games. A save file
is data: it never names code to run (``Game.load``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from mamma_mia_agents import REGISTRY, load_agent
from mamma_mia_agents.bots.base import player_counts
from mamma_mia_agents.tournament.matches import AgentMismatchError, check_agents
from mamma_mia_env.game.actions import ActionCodec, RevealAction, TurnAction
from mamma_mia_env.game.cards import HAND_LIMIT, order_name
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.log import replay, reveal_record
from mamma_mia_env.game.observe import remembers
from mamma_mia_env.game.record import OVER, REVEAL
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.arguments import as_int, seed_text
from mamma_mia_env.plumbing.files import FileError, read_json, write_atomic
from mamma_mia_env.plumbing.seeding import agent_rng
from mamma_mia_env.policy import PolicyFailure, observers_for, policy_actions
from mamma_mia_env.render.text import cards_text, move_text, reveal_lines
from mamma_mia_env.render.view import seat_label, table_view

SAVE_FORMAT = "mamma-mia-play/1"
DEFAULT_SAVE = "mamma-mia-save.json"


class SaveError(ValueError):
    """A saved game that cannot be resumed; the message names the file and field."""


@dataclass(frozen=True)
class Step:
    """One action as it happened: who, in which round (1-3), what its reveal did
    (``log.reveal_record``), and whether it finished a round's reveal (or the game)."""

    seat: int
    round: int
    action: int
    reveal: dict[str, Any]
    round_end: bool


class Game:
    """One game between the person (``seat``) and agents, savable at any decision."""

    def __init__(
        self, config: Config, seat: int, specs: list[str], seed: int, actions: list[int]
    ) -> None:
        n = config.num_players
        seat = as_int(seat, "seat", 0, n - 1)
        self.config, self.seat, self.specs, self.seed = config, seat, specs, seed
        if not specs:
            raise ValueError("at least one agent is needed for the other seats")
        self.engine = Engine(config)
        self.codec = ActionCodec(self.engine)
        others = [s for s in range(n) if s != seat]
        self.agents = {s: load_agent(specs[i % len(specs)]) for i, s in enumerate(others)}
        for spec in specs[len(others) :]:  # given but not seated: still refused if bad
            load_agent(spec)
        self.names = {s: specs[i % len(specs)] for i, s in enumerate(others)}
        try:
            check_agents(list(self.agents.values()), config)
        except AgentMismatchError as exc:  # said with the agents that would play
            rules = {k: v for k, v in config.to_dict().items() if k != "num_players"}
            able = [a for a, counts in bundled_counts(rules).items() if counts[n] is None]
            raise ValueError(f"{exc}. The bundled agents that play {n} players: "
                             f"{', '.join(able)}") from exc  # fmt: skip
        self.observers = observers_for(config, self.agents.values())
        replay(config, seed, actions)  # each action checked first, named by its index
        self._replay(actions)

    def _replay(self, actions: list[int]) -> None:
        """Deal the game from its seed again and play ``actions`` (checked: ``__init__``
        proved them with ``log.replay``, in the action space, legal, not after the end;
        ``undo`` replays a prefix of them)."""
        self.state = self.engine.reset(seeds=[self.seed])
        self.actions: list[int] = []
        self.steps: list[Step] = []
        for a in actions:
            self.apply(a)

    @property
    def rec(self) -> np.void:
        return self.state.data[0]

    def over(self) -> bool:
        return bool(self.rec["phase"] == OVER)

    def legal(self) -> np.ndarray:
        return self.engine.legal_masks(self.state)[0].astype(bool)

    def is_legal(self, action: Any) -> bool:
        """Whether ``action`` (from a save file or a request: anything) is a legal move now."""
        legal = self.legal()
        ok = isinstance(action, int) and not isinstance(action, bool)
        return ok and 0 <= action < len(legal) and bool(legal[action])

    def apply(self, action: int) -> dict[str, Any]:
        before = self.state.copy()
        self.engine.step(self.state, np.array([action], dtype=np.int64))
        self.actions.append(int(action))
        reveal = reveal_record(self.engine, before, int(action), self.state)
        old, new = before.data[0], self.rec
        end = bool(new["round"] != old["round"] or new["phase"] == OVER)
        self.steps.append(Step(int(old["seat"]), int(old["round"]) + 1, int(action), reveal, end))
        return reveal

    # -- undo, reveal previews, round summaries: the same for every screen ---------------
    def can_undo(self) -> bool:
        """Whether the person has a decision to go back to."""
        return any(step.seat == self.seat for step in self.steps)

    def undo(self) -> int:
        """Go back to the person's previous decision, replaying the actions before it
        from the seed (the agents then move as before: each move's generator is
        ``agent_rng("play", seed, len(actions))``); how many actions were taken back."""
        last = [i for i, step in enumerate(self.steps) if step.seat == self.seat]
        if not last:
            return 0
        cut = last[-1]
        undone = len(self.actions) - cut
        self._replay(self.actions[:cut])
        return undone

    def reveal_choices(self) -> list[dict[str, Any]]:
        """What each legal choice of the reveal at hand would do (``{"action", "choice",
        "kind", "order", "from_hand", "from_piles"}``), found by playing it on a copy
        through the engine's own reveal, so what is announced is what happens."""
        if self.over() or self.rec["phase"] != REVEAL:
            raise ValueError("reveal_choices: no reveal decision is at hand")
        out = []
        for a in np.flatnonzero(self.legal()):
            choice = self.codec.decode(int(a))
            if not isinstance(choice, RevealAction):  # at a reveal, every legal action is one
                raise ValueError(f"reveal_choices: action {a} is a turn, not a reveal choice")
            after = self.state.copy()
            self.engine.step(after, np.array([a], dtype=np.int64))
            first = reveal_record(self.engine, self.state, int(a), after)["outcomes"][0]
            said = {k: first[k] for k in ("order", "from_hand", "from_piles")}
            out.append({"action": int(a), "choice": choice.choice, "kind": choice.kind, **said})
        return out

    def turn_options(self, actions: list[int] | None = None) -> list[dict[str, Any]]:
        """The turn ``actions`` (default: the legal ones, in action order) worded as the
        person is asked them, one step at a time on every screen: ``{"action", "play",
        "order", "draw"}``, the draw saying how many cards refill the hand."""
        hand = self.view()["seats"][self.seat]["hand_size"]
        out = []
        for a in np.flatnonzero(self.legal()) if actions is None else actions:
            t = self.codec.decode(int(a))
            if not isinstance(t, TurnAction):
                raise ValueError(f"turn_options: action {a} is a reveal choice, not a turn")
            short = HAND_LIMIT - (hand - t.singles - t.doubles - (t.order is not None))
            if short == 0:
                draw = "end the turn (your hand is full: nothing to draw)"
            elif t.draw == "supply":
                draw = f"draw {short} from the supply"
            else:
                draw = f"take up to {short} from your order stack"
            out.append({
                "action": int(a),
                "play": "pass (you hold no ingredient card)" if t.kind is None
                else "play " + cards_text(t.kind, t.singles, t.doubles),
                "order": "no order card" if t.order is None else order_name(t.order, self.seat),
                "draw": draw,
            })  # fmt: skip
        return out

    def round_summary(self, rnd: int) -> dict[str, Any]:
        """Round ``rnd`` (1-3) from the reveal records: every order turned over, the
        orders each seat delivered in it and in all, and whether its reveal is over."""
        n = self.config.num_players
        outcomes: list[dict[str, Any]] = []
        totals, this_round = [0] * n, [0] * n
        for step in self.steps:
            if step.round > rnd:
                break
            for o in step.reveal.get("outcomes", []):
                totals[o["seat"]] += bool(o["delivered"])
                if step.round == rnd:
                    outcomes.append(o)
                    this_round[o["seat"]] += bool(o["delivered"])
        done = any(s.round == rnd and s.round_end for s in self.steps)
        return {
            "round": rnd,
            "outcomes": outcomes,
            "delivered": this_round,
            "totals": totals,
            "finished": done,
        }

    def step_lines(self, step: Step) -> list[str]:
        """A step as the person reads it on every screen: who did what (the others'
        order cards unnamed), every order it turned over and the end of the round."""
        raw = [name[:24] for name in self.seat_names()]
        who = seat_label(step.seat, raw, you=self.seat)
        act = self.codec.decode(step.action)
        head = move_text(act, who, step.seat if step.seat == self.seat else None)
        rev = step.reveal
        said = reveal_lines(rev.get("outcomes", []), rev.get("cards_taken"), raw, self.seat)
        lines = [head, *said]
        return lines + ([f"Round {step.round} is over."] if step.round_end else [])

    def bot_action(self) -> int:
        """The action of the agent to move, through the one seat-policy loop (every
        agent the tournament takes plays here too); its generator, from ``agent_rng``,
        is the same on resume and has no route back to the game's seed."""
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

    def seat_names(self) -> list[str]:
        """One name per seat: the agent's spec, ``"you"`` at the person's seat."""
        return [self.names.get(s, "you") for s in range(self.config.num_players)]

    def view(self) -> dict[str, Any]:
        n = self.config.num_players
        return table_view(self.rec, n, self.seat, remembers(self.config.observation_mode))

    def save(self, path: str) -> str:
        """Write the game to ``path`` (atomically); the words saying so, for the person."""
        try:
            replaced = write_atomic(path, json.dumps(self.to_dict()), "saved game")
        except FileError as exc:
            raise SaveError(str(exc)) from None
        return f"Saved to {path}" + (" (replacing the earlier file)" if replaced else "")

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
        (``agents``, given on the command line, replace them)."""
        try:
            obj = read_json(path, "saved game")
        except FileError as exc:
            raise SaveError(str(exc)) from None
        if not isinstance(obj, dict) or obj.get("format") != SAVE_FORMAT:
            raise SaveError(f"{path}: not a {SAVE_FORMAT} file (field 'format')")
        try:
            config = Config.from_kwargs(**obj["config"])
            seat, specs, actions = obj["seat"], obj["agents"], obj["actions"]
            seed = seed_text(obj["seed"], "field 'seed'")
            if not isinstance(specs, list) or not all(isinstance(x, str) for x in specs):
                raise ValueError("field 'agents' must be a list of agent names")
            if not isinstance(actions, list):  # each is checked as it is replayed
                raise ValueError("field 'actions' must be a list of integers")
            game = cls(config, seat, agents or _bundled_only(path, specs), seed, actions)
            saved = GameState.from_dict(obj["state"])
        except KeyError as exc:
            raise SaveError(f"{path}: field {exc} is missing") from exc
        except (ValueError, TypeError) as exc:  # ConfigError, StateError, AgentLoadError too
            raise SaveError(f"{path}: {exc}") from exc
        if not saved.equals(game.state):
            raise SaveError(f"{path}: field 'state' does not match the replayed actions")
        return game


def bundled_counts(rules: dict[str, Any] | None = None) -> dict[str, dict[int, str | None]]:
    """Each bundled agent's player counts under ``rules`` (``bots.base.player_counts``)."""
    return {name: player_counts(load_agent(name), rules) for name in REGISTRY}


def fresh_seed() -> int:
    """A new game's seed from the operating system's entropy, 0 to 2**63-1."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)


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
