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
import time
from typing import Any

import numpy as np
from rich.console import Console
from rich.prompt import Prompt

from mamma_mia_agents import AgentLoadError
from mamma_mia_agents.cli.options import VARIANT_FLAGS, output_file, positive, real
from mamma_mia_agents.cli.screen import cards_text, table_renderable
from mamma_mia_agents.cli.session import (
    DEFAULT_SAVE,
    SAVE_FORMAT,
    AgentFailure,
    Game,
    SaveError,
)
from mamma_mia_env import Config, ConfigError
from mamma_mia_env.game.actions import RevealAction, TurnAction
from mamma_mia_env.game.cards import INGREDIENTS, order_name
from mamma_mia_env.game.log import final_result
from mamma_mia_env.game.state import REVEAL
from mamma_mia_env.plumbing.files import check_output
from mamma_mia_env.render.text import reveal_lines

__all__ = ["DEFAULT_SAVE", "SAVE_FORMAT", "Game", "Quit", "SaveError", "add_parser", "run"]


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
    p.add_argument(
        "--delay", type=real("--delay", 0, 60), default=1.0, help="seconds to show each bot move"
    )
    p.add_argument(
        "--save", type=output_file("--save"), default=DEFAULT_SAVE, help="where q saves the game"
    )
    p.add_argument("--resume", metavar="FILE", help="continue a game saved with q")
    for flag, field, text in VARIANT_FLAGS:
        p.add_argument(flag, dest=field, action="store_true", help=text)
    p.set_defaults(run=run, subparser=p)


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
            try:
                a = game.bot_action()
            except AgentFailure as exc:
                console.print(f"[red]{exc}[/red]")
                return _save(game, console, save, code=1)
        else:
            try:
                if game.rec["phase"] == REVEAL:
                    a = choose_reveal(console, game, legal)
                else:
                    a = choose_turn(console, game, legal)
            except (Quit, EOFError, KeyboardInterrupt):
                return _save(game, console, save)
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


def _save(game: Game, console: Console, save: str, code: int = 0) -> int:
    try:
        replaced = game.save(save)
    except SaveError as exc:
        console.print(f"[red]The game was not saved: {exc}[/red]")
        return 1
    note = " (replacing the earlier file)" if replaced else ""
    console.print(f"Saved to {save}{note}; continue with: mamma-mia play --resume {save}")
    return code


def run(args: argparse.Namespace) -> int:
    parser = args.subparser
    try:
        specs = None if args.agents is None else [s.strip() for s in args.agents.split(",")]
        if specs is not None and not all(specs):
            parser.error(f"--agents needs a comma-separated list, got {args.agents!r}")
        if args.resume:
            check_output(args.resume, "--resume file (q saves the game back to it)")
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
