"""``mamma-mia play``: a person plays Mamma Mia! in the terminal against agents.

    mamma-mia play --players 3 --agents builder,counter --seat 0 --seed 7
    mamma-mia play --resume mamma-mia-save.json

The screen shows only what the person's seat may know (``render_svg.table_view``).
A turn is chosen in steps (ingredients, then order, then draw pile) from the engine's
legal actions, so an illegal move cannot be entered; ``u`` undoes the last unconfirmed
step, ``q`` saves the game and quits.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.prompt import Prompt

from mamma_mia_agents import REGISTRY, AgentLoadError, load_agent
from mamma_mia_agents.cli.options import VARIANT_FLAGS, positive
from mamma_mia_agents.cli.screen import cards_text, table_renderable
from mamma_mia_env import ActionCodec, Config, ConfigError, Engine, GameState, StateError
from mamma_mia_env.game.actions import RevealAction, TurnAction
from mamma_mia_env.game.cards import INGREDIENTS, order_name
from mamma_mia_env.game.log import final_result, reveal_record
from mamma_mia_env.game.state import OVER, REVEAL
from mamma_mia_env.render.svg import table_view
from mamma_mia_env.render.text import reveal_lines

SAVE_FORMAT = "mamma-mia-play/1"
DEFAULT_SAVE = "mamma-mia-save.json"


class SaveError(ValueError):
    """A saved game that cannot be resumed; the message names the file and field."""


class Quit(Exception):
    """The person asked to save and quit."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal against agents",
        description="Play Mamma Mia! against agents. Keys: numbers choose, u undoes, "
        "q saves and quits.",
    )
    p.add_argument("--players", type=positive("--players", 2, 5), default=3)
    p.add_argument(
        "--agents",
        default=None,
        help="agents for the other seats, comma-separated, cycled (default builder; with "
        "--resume: instead of the saved game's, which must be bundled agents)",
    )
    p.add_argument("--seat", type=positive("--seat", 0, 4), default=0, help="your seat")
    p.add_argument("--seed", type=positive("--seed", 0, 2**63 - 1), default=None)
    p.add_argument(
        "--observation-mode",
        choices=("recall", "top_card"),
        default="recall",
        help="recall: the whole oven history is shown (a memory aid); top_card: only the top",
    )
    p.add_argument("--delay", type=float, default=1.0, help="seconds to show each bot move")
    p.add_argument("--save", default=DEFAULT_SAVE, help="where q saves the game")
    p.add_argument("--resume", metavar="FILE", help="continue a game saved with q")
    for flag, field, text in VARIANT_FLAGS:
        p.add_argument(flag, dest=field, action="store_true", help=text)
    p.set_defaults(run=run, subparser=p)


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
        self.observers = {
            m: Engine(config.replace(observation_mode=m))
            for m in {a.observation_mode for a in self.agents.values()}
        }
        self.state = self.engine.reset(seeds=[seed])
        self.actions: list[int] = []
        for i, a in enumerate(actions):
            if self.over():
                raise ValueError(f"action {i} comes after the end of the game")
            legal = self.legal()
            ok = isinstance(a, int) and not isinstance(a, bool) and 0 <= a < len(legal)
            if not (ok and legal[a]):
                raise ValueError(f"action {i} ({a!r}) is not legal in its position")
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
        s = int(self.rec["seat"])
        agent = self.agents[s]
        obs = self.observers[agent.observation_mode].observe(self.state)
        mask = self.engine.legal_masks(self.state)
        rng = np.random.default_rng([self.seed, len(self.actions)])  # same on resume
        a = int(np.asarray(agent.act_batch(obs, mask, rng, np.array([s])))[0])
        if not mask[0, a]:
            raise RuntimeError(f"agent {self.names[s]!r} chose illegal action {a}")
        return a

    def view(self) -> dict[str, Any]:
        n = self.config.num_players
        return table_view(self.rec, n, self.seat, self.config.observation_mode == "recall")

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
            obj = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
            raise SaveError(f"{path}: cannot read a saved game: {exc}") from exc
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
            if not isinstance(actions, list):
                raise ValueError("field 'actions' must be a list")
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


# -- the person's decisions -----------------------------------------------------------------
def ask(console: Console, prompt: str, options: list[str], can_undo: bool) -> int | None:
    """The index of the chosen option, ``None`` for undo; ``q`` raises ``Quit``."""
    for i, text in enumerate(options, 1):
        console.print(f"  [bold]{i}[/bold]  {text}")
    keys = [str(i) for i in range(1, len(options) + 1)] + (["u"] if can_undo else []) + ["q"]
    hint = f"1-{len(options)}" + (", u = undo" if can_undo else "") + ", q = save and quit"
    while True:
        key = Prompt.ask(f"{prompt} ({hint})", console=console).strip()
        if key in keys:
            break
        console.print(f"[red]'{key}' is not a choice here: type {hint}[/red]")
    if key == "q":
        raise Quit
    return None if key == "u" else int(key) - 1


def _play_label(t: TurnAction) -> str:
    if t.kind is None:
        return "pass (play no ingredients)"
    return f"play {t.singles} {t.kind}" + (f" + {t.doubles} double" if t.doubles else "")


def choose_turn(console: Console, game: Game, legal: list[int]) -> int:
    """Ingredients, then order, then draw pile; only legal combinations are offered."""
    decoded = {a: game.codec.decode(a) for a in legal}
    step, picks = 0, [None, None]
    while True:
        if step == 0:
            plays = sorted({(t.kind or "", t.singles, t.doubles) for t in decoded.values()})
            labels = [_play_label(next(t for t in decoded.values() if (t.kind or "", t.singles,
                      t.doubles) == p)) for p in plays]  # fmt: skip
            i = ask(console, "Your turn: which ingredients?", labels, can_undo=False)
            picks[0], step = plays[i], 1
            continue
        rest = {
            a: t for a, t in decoded.items() if (t.kind or "", t.singles, t.doubles) == picks[0]
        }
        if step == 1:
            orders = sorted({-1 if t.order is None else t.order for t in rest.values()})
            labels = ["no order" if o < 0 else order_name(o, game.seat) for o in orders]
            i = ask(console, "Play an order card?", labels, can_undo=True)
            if i is None:
                step = 0
            else:
                picks[1], step = orders[i], 2
            continue
        rest = {a: t for a, t in rest.items() if (-1 if t.order is None else t.order) == picks[1]}
        draws = sorted(rest, key=lambda a: rest[a].draw != "supply")
        labels = [
            "draw from the supply" if rest[a].draw == "supply" else "take your order stack"
            for a in draws
        ]
        i = ask(console, "Then draw from?", labels, can_undo=True)
        if i is None:
            step = 1
            continue
        return draws[i]


def choose_reveal(console: Console, game: Game, legal: list[int]) -> int:
    rec = game.rec
    i = int(rec["reveal_pos"])
    order = order_name(int(rec["oven_what"][i]) - 5, game.seat)
    console.print(f"[bold]Reveal: your order {order} is turned over.[/bold]")
    console.print("Face-up piles: ", cards_text(game.view()["piles"]))
    console.print("Your hand: ", cards_text(game.view()["seats"][game.seat]["hand"] or []))
    labels = []
    for a in legal:
        r: RevealAction = game.codec.decode(a)  # type: ignore[assignment]
        labels.append(
            {
                "decline": "decline (the order goes back to your hand)",
                "deliver": "deliver it (add the cards it needs)",
            }.get(r.choice)  # fmt: skip
            or f"deliver it, counting the joker / ? as {r.kind}"
        )
    j = ask(console, "Your decision", labels, can_undo=False)
    return legal[j]


def _describe(game: Game, seat: int, action: int, reveal: dict[str, Any]) -> list[str]:
    who = "you" if seat == game.seat else f"seat {seat} ({game.names[seat]})"
    lines = [f"{who}: {game.codec.to_str(action, seat)}"]
    return lines + reveal_lines(reveal.get("outcomes", []), reveal.get("cards_taken"))


def play_game(game: Game, console: Console, delay: float, save: str) -> int:
    log: list[str] = []
    while not game.over():
        console.clear()
        console.print(table_renderable(game.view(), "\n".join(log[-8:])))
        seat = int(game.rec["seat"])
        legal = [int(a) for a in np.flatnonzero(game.legal())]
        if seat != game.seat:
            time.sleep(max(delay, 0.0))
            a = game.bot_action()
        else:
            try:
                if game.rec["phase"] == REVEAL:
                    a = choose_reveal(console, game, legal)
                else:
                    a = choose_turn(console, game, legal)
            except (Quit, EOFError, KeyboardInterrupt):
                Path(save).write_text(json.dumps(game.to_dict()))
                console.print(f"Saved to {save}; continue with: mamma-mia play --resume {save}")
                return 0
        log += _describe(game, seat, a, game.apply(a))
    console.clear()
    view = game.view()
    console.print(table_renderable(view, "\n".join(log[-8:])))
    res = final_result(game.state)
    won = ", ".join("you" if s == game.seat else f"seat {s}" for s in res["winners"]) or "-"
    console.print(
        f"[bold]Game over.[/bold] Delivered orders by seat: {res['delivered']}. Winner(s): {won}."
    )
    return 0


def run(args: argparse.Namespace) -> int:
    parser = args.subparser
    try:
        specs = None if args.agents is None else [s.strip() for s in args.agents.split(",")]
        if specs is not None and not all(specs):
            parser.error(f"--agents needs a comma-separated list, got {args.agents!r}")
        if args.resume:
            game = Game.load(args.resume, specs)
        else:
            fields = ("mamma_mia_in_deal", "pass_may_play_order", "strict_minimale",
                      "double_ingredients", "random_start_player", "auto_reveal")  # fmt: skip
            config = Config.from_kwargs(
                num_players=args.players,
                observation_mode=args.observation_mode,
                **{f: getattr(args, f) for f in fields},
            )
            seed = args.seed
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
            game = Game(config, args.seat, specs or ["builder"], seed, [])
    except (SaveError, ConfigError, AgentLoadError, ValueError) as exc:
        parser.error(str(exc))
    if args.delay < 0:
        parser.error("--delay must be >= 0")
    console = Console(highlight=False)
    console.print(
        f"Mamma Mia! {game.config.num_players} players, you are seat {game.seat} "
        f"({INGREDIENTS[game.seat]}), seed {game.seed}"
    )
    return play_game(game, console, args.delay, args.resume or args.save)
