"""``mamma-mia replay LOG.json``: watch a recorded game, in the terminal or as HTML.

mamma-mia replay game.json                 # step with keys, all hands shown
mamma-mia replay game.json --seat 1        # what seat 1 could see
mamma-mia replay game.json --html out.html # one offline page that animates it
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from mamma_mia_agents.cli.options import run_error
from mamma_mia_agents.cli.screen import fitted_table, wrap
from mamma_mia_agents.cli.terminal import Terminal
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.log import LogError, load_log
from mamma_mia_env.game.observe import remembers
from mamma_mia_env.plumbing.arguments import add_int_flag, out_file_flag
from mamma_mia_env.plumbing.files import FileError, write_file
from mamma_mia_env.render.html import replay_html, result_text, reveal_starts, step_caption
from mamma_mia_env.render.view import seat_label, table_view

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


SUMMARY = "watch a recorded game (event log JSON) in the terminal or as an HTML page"
DESCRIPTION = (
    "Watch a game recorded as an event log (mamma-mia-log JSON, written by "
    "env.write_event_log or `mamma-mia tournament --save-logs`)."
)


def add_flags(p: argparse.ArgumentParser) -> None:
    """The ``replay`` command's flags."""
    p.add_argument("log", help="the event log JSON file")
    p.add_argument(
        "--html",
        metavar="OUT",
        type=out_file_flag("--html"),
        help="write a self-contained HTML viewer here (checked before the log is read)",
    )
    add_int_flag(
        p, "--seat", 0, 4, default=None, help="start in this seat's view (default: all hands)"
    )


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
        except FileError as exc:
            return run_error("replay", f"--html: {exc}")
        print(f"wrote {args.html}")
        return 0
    return terminal_replay(log, args.seat, Terminal(Console(highlight=False)))


def terminal_replay(log: dict[str, Any], seat: int | None, term: Terminal) -> int:
    """Step through ``log`` one key at a time (see ``KEYS``), the whole screen redrawn in
    place for every step (on a terminal: the alternate screen, so nothing scrolls)."""
    n = Config.from_kwargs(**log["config"]).num_players
    reveals, last = reveal_starts(log), len(log["_states"]) - 1
    pos, viewer, message = 0, seat, ""
    with term:
        while True:
            term.draw(replay_lines(log, pos, viewer, *term.size, message))
            message = ""
            try:
                key = term.key("key> ").strip()
            except (EOFError, KeyboardInterrupt):  # input closed or Ctrl-C: quit, no traceback
                return 0
            if key not in KEYS:  # said on the next screen, not wiped by it
                message = f"unknown key {key!r}: use one of {' '.join(KEYS)}"
            elif key == "q":
                return 0
            elif key == "v":
                order = [None, *range(n)]
                viewer = order[(order.index(viewer) + 1) % len(order)]
            else:
                pos = _move(key, pos, last, reveals)


def _move(key: str, pos: int, last: int, reveals: list[int]) -> int:
    """The position a moving key goes to (it stays at either end)."""
    return {
        "n": min(last, pos + 1),
        "b": max(0, pos - 1),
        "s": 0,
        "e": last,
        "r": next((i for i in reveals if i > pos), pos),
        "R": next((i for i in reversed(reveals) if i < pos), pos),
    }[key]


def replay_lines(
    log: dict[str, Any], pos: int, viewer: int | None, width: int, height: int, message: str = ""
) -> list[Text]:
    """The screen of step ``pos`` as ``viewer`` (None: every hand) sees it: the table (the
    play screen's, ``screen.table_lines``), what led to this step, the step counter and
    the keys; at most ``height - 1`` lines of at most ``width`` cells, the last row left
    for the prompt."""
    cfg = Config.from_kwargs(**log["config"])
    view = table_view(log["_states"][pos], cfg.num_players, viewer, remembers(cfg.observation_mode))
    raw = log.get("agents")  # the agents by seat, if the log records them
    names = {s: seat_label(s, raw, you=viewer) for s in range(cfg.num_players)}
    last = len(log["_states"]) - 1
    who = "every hand" if viewer is None else f"what seat {viewer} knows"
    bottom = [Text(f"step {pos}/{last} · showing {who}"[:width], style="bold")]
    if pos == last:
        bottom += wrap(result_text(log), width, 2)
    bottom += wrap(" · ".join(f"{k} {v}" for k, v in KEYS.items()), width, 2, "dim")
    if message:
        bottom.append(Text(message[:width], style="bold red"))
    said = [x for line in step_caption(log, pos).split("\n") for x in wrap(line, width)]
    top = fitted_table(view, names, width, height - 1 - len(bottom), max(len(said), 1))
    room = height - 1 - len(top) - len(bottom)
    if len(said) > max(room, 0):  # a long reveal: its first lines, and where the rest is
        said = said[: max(room - 1, 0)] + [Text("(more: mamma-mia replay --html)", style="dim")]
    lines = top + said[: max(room, 0)] + bottom
    if len(lines) >= height:
        lines = top[: max(height - 1 - len(bottom), 1)] + bottom
    return lines[: max(height - 1, 1)]
