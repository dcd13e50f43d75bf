"""``mamma-mia play``: a person plays Mamma Mia! in the terminal against agents.

    mamma-mia play --players 3 --agents builder,counter --seat 0 --seed 7
    mamma-mia play --resume mamma-mia-save.json

The game (``session.Game``) is one screen, redrawn in place, that fits an 80x24
terminal and shows only what the person's seat may know. A turn is chosen in steps from
the legal actions (``Game.turn_options``), so an illegal move cannot be entered.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from rich.console import Console
from rich.text import Text

from mamma_mia_agents.cli.options import add_game_flags, rule_config, spec_list
from mamma_mia_agents.cli.screen import (
    HELP,
    events,
    fitted_table,
    option_lines,
    result_lines,
    seat_names,
    status_line,
    summary_lines,
    wrap,
)
from mamma_mia_agents.cli.session import (
    DEFAULT_SAVE,
    AgentFailure,
    Game,
    SaveError,
    fresh_seed,
)
from mamma_mia_agents.cli.terminal import Terminal
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.record import REVEAL
from mamma_mia_env.plumbing.arguments import out_file_flag
from mamma_mia_env.plumbing.files import check_output
from mamma_mia_env.render.text import reveal_choice_text


class Quit(Exception):
    """The person asked to save and quit."""


SUMMARY = "play a game in the terminal against agents"
DESCRIPTION = (
    "Play Mamma Mia! against agents. Keys: a number and Enter chooses, u "
    "undoes (back to your previous decision), h or ? shows the help, q saves and quits."
)


def add_flags(p: argparse.ArgumentParser) -> None:
    """The ``play`` command's flags."""
    add_game_flags(
        p,
        seed_help="the game's seed, 0 to 2**63-1 (default: a fresh one from the operating "
        "system, shown when the game starts)",
        delay=1.0,
    )
    p.add_argument(
        "--save", type=out_file_flag("--save"), default=DEFAULT_SAVE, help="where q saves the game"
    )
    p.add_argument("--resume", metavar="FILE", help="continue a game saved with q")


# -- the screens --------------------------------------------------------------------------
def screen_lines(
    game: Game, names: dict[int, str], width: int, height: int, bottom: list[Text]
) -> tuple[list[Text], int]:
    """The table on top, ``bottom`` (the question) below, the latest moves between
    (those since the person's last decision in full colour): ``height - 1`` lines at
    most, so the prompt row never scrolls the screen; and how many lines of moves fit."""
    old, new = events(game, names)
    body = [line for x in old for line in wrap(x, width, style="dim")]
    fresh = [line for x in new for line in wrap(x, width)]
    rows = height - 1 - len(bottom)  # the table and the moves: the oven gets what they leave
    top = fitted_table(game.view(), names, width, rows, 1 + max(min(len(body + fresh), 4), 1))
    room = rows - len(top)
    box: list[Text] = []
    if room >= 2:
        shown = (body + fresh)[-(room - 1) :] or [Text("(none yet)", style="dim")]
        box = [Text("Moves (newest last):", style="bold underline"), *shown]
    lines = top + box + bottom
    if len(lines) >= height:
        lines = top[: max(height - 1 - len(bottom), 1)] + bottom
    return lines, max(room - 1, 0)


def _hint(n: int, can_undo: bool) -> str:
    keys = f"1-{n}" if n > 1 else "1"
    return f"{keys} + Enter" + (" · u undo" if can_undo else "") + " · h help · q save & quit > "


def ask(
    term: Terminal, game: Game, names: dict[int, str], question: str, options: list[str],
    can_undo: bool,
) -> int | None:  # fmt: skip
    """The index of the chosen option, ``None`` for undo; ``h`` / ``?`` shows the help,
    ``q`` raises ``Quit``. The whole screen is redrawn after every key."""
    message = ""
    while True:
        width, height = term.size
        bottom = [*wrap(question, width, 2, "bold"), *option_lines(options, width)]
        if message:
            bottom.append(Text(message[:width], style="bold red"))
        lines, room = screen_lines(game, names, width, height, bottom)
        _, new = events(game, names, term.seen)
        text = [line for x in new for line in wrap(x, width)]
        if term.unseen and len(text) > room:  # the moves since the last decision, in full
            top = status_line(game.view(), width)
            term.pager(top, "Since your last move", text, "press a key for your move")
        term.unseen = False
        term.draw(lines)
        key = term.line(_hint(len(options), can_undo)).lower()
        if key in ("h", "?"):
            term.pager(status_line(game.view(), width), "Help", [Text(x) for x in HELP],
                       "any key returns to the game")  # fmt: skip
            message = ""
        elif key == "q":
            raise Quit
        elif key == "u" and can_undo:
            return None
        elif key.isdigit() and 1 <= int(key) <= len(options):
            return int(key) - 1
        else:
            message = f"'{key}' is not a choice here: type {_hint(len(options), can_undo)[:-3]}"


#: The questions of a turn, one per part of the action (``Game.turn_options``).
TURN_QUESTIONS = {
    "play": "Your turn: which ingredient cards do you play?",
    "order": "Play an order card too?",
    "draw": "Then refill your hand from?",
}


def choose_turn(term: Terminal, game: Game, names: dict[int, str], legal: list[int]) -> int | None:
    """Ingredients, then order, then draw pile; only legal combinations are offered.
    ``u`` steps back a question; at the first one it undoes back to the person's
    previous decision (``Game.undo``) and ``None`` is returned."""
    options = game.turn_options(legal)
    picked: dict[str, str] = {}
    while True:
        part = list(TURN_QUESTIONS)[len(picked)]
        rest = [o for o in options if all(o[k] == v for k, v in picked.items())]
        labels = list(dict.fromkeys(o[part] for o in rest))
        i = ask(term, game, names, TURN_QUESTIONS[part], labels, bool(picked) or game.can_undo())
        if i is None and not picked:
            game.undo()
            return None
        if i is None:
            picked.popitem()
        elif part == "draw":
            return next(o["action"] for o in rest if o[part] == labels[i])
        else:
            picked[part] = labels[i]


def choose_reveal(term: Terminal, game: Game, names: dict[int, str]) -> int | None:
    """The person's reveal decision; each choice says which hand cards it adds
    (``Game.reveal_choices``). ``u`` undoes back to the previous decision."""
    choices = game.reveal_choices()
    question = f"Reveal: your order [{choices[0]['order']}] is turned over. What do you do?"
    labels = [reveal_choice_text(c) for c in choices]
    i = ask(term, game, names, question, labels, game.can_undo())
    if i is None:
        game.undo()
        return None
    return choices[i]["action"]


def _after(term: Terminal, game: Game, names: dict[int, str]) -> None:
    """After a step that finished a round's reveal: the round's summary, until a key."""
    step = game.steps[-1]
    if step.round_end:
        width, _ = term.size
        title = f"Round {step.round} is over: every order it turned over"
        text = summary_lines(game, names, step.round, width)
        term.pager(status_line(game.view(), width), title, text, "press a key to go on")
        term.seen = len(game.steps)


def _decide(term: Terminal, game: Game, names: dict[int, str]) -> int | None:
    """The person's next decision (``None``: it was undone)."""
    term.unseen = True
    if game.rec["phase"] == REVEAL:
        return choose_reveal(term, game, names)
    return choose_turn(term, game, names, [int(a) for a in np.flatnonzero(game.legal())])


def play_game(game: Game, term: Terminal, delay: float, save: str) -> int:
    """Play to the end (0), or until the person saves and quits (0: ``q``, Ctrl-C or
    the end of the input, at any moment) or an agent fails (1, the game saved)."""
    names = seat_names(game.seat, game.names)
    try:
        while not game.over():
            if int(game.rec["seat"]) == game.seat:
                a = _decide(term, game, names)
                if a is None:
                    continue  # undone
                game.apply(a)
            else:
                game.apply(game.bot_action())
                if delay > 0:
                    width, height = term.size
                    moved = Text(f"{names[game.steps[-1].seat]} moved.", style="bold")
                    term.draw(screen_lines(game, names, width, height, [moved])[0])
                    time.sleep(delay)
            _after(term, game, names)
        width, height = term.size
        term.draw(screen_lines(game, names, width, height, end_lines(game, names, width))[0])
        term.key("The game is over: press any key to leave. ")
    except AgentFailure as exc:
        code = _save(game, term, save, code=1)
        term.message = f"{exc}\n{term.message}"
        return code
    except (Quit, EOFError, KeyboardInterrupt):
        return 0 if game.over() else _save(game, term, save)
    return 0


def end_lines(game: Game, names: dict[int, str], width: int) -> list[Text]:
    """The result under the table, wrapped: five seats' names and scores never cut."""
    return [line for x in result_lines(game, names) for line in wrap(x, width, 2, "bold")]


def _save(game: Game, term: Terminal, save: str, code: int = 0) -> int:
    try:
        term.message = f"{game.save(save)}; continue with: mamma-mia play --resume {save}"
    except SaveError as exc:
        term.message = f"The game was not saved: {exc}"
        return 1
    return code


def run(args: argparse.Namespace) -> int:
    parser = args.subparser
    try:
        specs = None if args.agents is None else spec_list(parser, "--agents", args.agents)
        if args.resume:
            check_output(args.resume, "--resume file (q saves the game back to it)")
            game = Game.load(args.resume, specs)
        else:
            config = Config.from_kwargs(
                num_players=args.players,
                observation_mode=args.observation_mode,
                **rule_config(args),
            )
            seed = fresh_seed() if args.seed is None else args.seed
            game = Game(config, args.seat, specs or ["builder"], seed, [])
    except ValueError as exc:  # SaveError, ConfigError and AgentLoadError among them
        parser.error(str(exc))
    console = Console(highlight=False)
    start = (
        f"Mamma Mia! {game.config.num_players} players, you are seat {game.seat} "
        f"({game.view()['seats'][game.seat]['personal']}), seed {game.seed}"
    )
    console.print(start)
    term = Terminal(console)
    with term:
        code = play_game(game, term, args.delay, args.resume or args.save)
    # after the alternate screen: the outcome stays in the terminal's scrollback
    if game.over():
        for line in result_lines(game, seat_names(game.seat, game.names)):
            console.print(line)
    if term.message:
        console.print(term.message, style="red" if code else "")
    return code
