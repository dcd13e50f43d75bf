"""``mamma-mia replay LOG.json``: watch a recorded game, in the terminal or as HTML.

mamma-mia replay game.json                 # step with keys, all hands shown
mamma-mia replay game.json --seat 1        # what seat 1 could see
mamma-mia replay game.json --html out.html # one offline page that animates it
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.prompt import Prompt

from mamma_mia_agents.cli.options import output_file, positive, run_error
from mamma_mia_agents.cli.screen import table_renderable
from mamma_mia_env import Config
from mamma_mia_env.plumbing.files import FileDoorError, write_file
from mamma_mia_env.render.html import LogError, load_log, replay_html, reveal_starts, step_caption
from mamma_mia_env.render.svg import table_view

KEYS = {
    "n": "next step",
    "b": "back a step",
    "r": "next reveal",
    "R": "previous reveal",
    "s": "start",
    "e": "end",
    "v": "change view (all hands / a seat)",
    "q": "quit",
}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="watch a recorded game (event log JSON) in the terminal or as an HTML page",
        description="Watch a game recorded as an event log (mamma-mia-log JSON, written by "
        "env.write_event_log or `mamma-mia tournament --save-logs`).",
    )
    p.add_argument("log", help="the event log JSON file")
    p.add_argument(
        "--html",
        metavar="OUT",
        type=output_file("--html"),
        help="write a self-contained HTML viewer here (checked before the log is read)",
    )
    p.add_argument(
        "--seat",
        type=positive("--seat", 0, 4),
        default=None,
        help="start in this seat's view (default: all hands)",
    )
    p.set_defaults(run=run, subparser=p)


def run(args: argparse.Namespace) -> int:
    try:
        log = load_log(args.log)
    except LogError as exc:
        args.subparser.error(str(exc))
    n = Config.from_kwargs(**log["config"]).num_players
    if args.seat is not None and not 0 <= args.seat < n:
        args.subparser.error(f"--seat must be 0..{n - 1} for this {n}-player game")
    if args.html:
        page = replay_html(log, source=Path(args.log).name, seat=args.seat)
        try:
            write_file(args.html, page, "replay page")  # says so if it replaces one
        except FileDoorError as exc:
            return run_error("replay", f"--html: {exc}")
        print(f"wrote {args.html}")
        return 0
    return terminal_replay(log, args.seat, Console(highlight=False))


def terminal_replay(log: dict[str, Any], seat: int | None, console: Console) -> int:
    """Step through ``log`` with single-letter commands (see ``KEYS``)."""
    cfg = Config.from_kwargs(**log["config"])
    n, recall = cfg.num_players, cfg.observation_mode == "recall"
    states, reveals = log["_states"], reveal_starts(log)
    pos, viewer = 0, seat
    last = len(states) - 1
    help_line = "  ".join(f"{k}={v}" for k, v in KEYS.items())
    while True:
        console.clear()
        view = table_view(states[pos], n, viewer, recall)
        console.print(table_renderable(view, step_caption(log, pos)))
        console.print(f"step {pos}/{last}   {help_line}", style="dim")
        if pos == last:
            r = log["result"]
            won = ", ".join(f"seat {s}" for s in r["winners"]) or "-"
            console.print(f"Game over: delivered {r['delivered']}, winners {won}", style="bold")
        try:
            key = Prompt.ask("key", console=console, default="n", show_default=False).strip()
        except (EOFError, KeyboardInterrupt):  # input closed or Ctrl-C: quit, no traceback
            return 0
        if key not in KEYS:
            console.print(f"unknown key {key!r}: use one of {', '.join(KEYS)}", style="red")
            continue
        if key == "q":
            return 0
        if key == "n":
            pos = min(last, pos + 1)
        elif key == "b":
            pos = max(0, pos - 1)
        elif key == "s":
            pos = 0
        elif key == "e":
            pos = last
        elif key == "r":
            pos = next((i for i in reveals if i > pos), pos)
        elif key == "R":
            pos = next((i for i in reversed(reveals) if i < pos), pos)
        elif key == "v":
            order = [None, *range(n)]
            viewer = order[(order.index(viewer) + 1) % len(order)]


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - via mamma_mia_agents.cli
    parser = argparse.ArgumentParser(prog="mamma-mia")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
