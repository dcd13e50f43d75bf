"""The ``mamma-mia`` command line: one parser, a subcommand per module of this package.

    mamma-mia tournament --players 4 --games 2000 --agents random,counter,builder,hoarder
    mamma-mia play --players 3 --agents builder,counter
    mamma-mia replay runs/t1/tournament.game-0.json
    mamma-mia evaluate runs/ppo_2p/policy.npz --players 2 --out scorecard.json
    mamma-mia agents                      # list the bundled agents

``python -m mamma_mia_agents ...`` is the same command through the interpreter (in a
checkout after ``pip install -e .``, which maps the folder ``agents/`` to the package).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from mamma_mia_agents import REGISTRY, load_agent
from mamma_mia_agents.bots.base import player_counts
from mamma_mia_agents.cli import evaluate, play, replay, serve, tournament
from mamma_mia_agents.cli.options import PROG, counts_text
from mamma_mia_env.plumbing.arguments import ArgumentParser
from mamma_mia_interrupts import run_command

DESCRIPTION = """\
Mamma Mia! from the command line: play a game against the bundled bots, run
tournaments between agents, score an agent against the reference ladder, watch
recorded games. `mamma-mia COMMAND --help`
describes each command and shows its defaults.
"""

EPILOG = """\
examples:
  mamma-mia play --players 3 --agents builder,search      play in the terminal
  mamma-mia tournament --players 4 --games 2000 --agents random,builder,ppo,search
  mamma-mia replay runs/t/tournament.game-0.json --html game.html
  mamma-mia evaluate builder --out scorecard.json        an agent's scorecard
  mamma-mia agents                                       list the bundled agents

docs: README.md, docs/PLAY.md (playing and replays), docs/AGENTS.md (agents,
tournaments, scorecards), docs/RULES.md (the rules and their variants).
"""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written, and every option's default shown: ``(default: X)`` is
    added to an option's help unless it already speaks of its default or has none
    worth showing (``None``, ``False``: a flag that is off)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text, default = action.help or "", action.default
        unset = default is None or default is False or default == argparse.SUPPRESS
        if "default" in text or unset or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)".lstrip()


class AgentsCommand:
    """``mamma-mia agents``: the bundled agents, one a line."""

    SUMMARY = "list the bundled agents and the player counts each plays"
    DESCRIPTION = (
        "List the bundled agents: name, what it does, the observation it reads and the "
        "player counts it plays (each agent says so itself: a trained agent from the "
        "policy files it finds), with the reason for any count it does not play."
    )

    @staticmethod
    def add_flags(p: argparse.ArgumentParser) -> None:
        """It takes none."""

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        for name, cls in REGISTRY.items():
            doc = (cls.__doc__ or "").strip().splitlines()
            agent = load_agent(name)  # a trained agent's mode is its policy file's
            print(f"{name:10s} {doc[0] if doc else ''} [{agent.observation_mode}]")
            counts = player_counts(agent)
            plays = [n for n, why in counts.items() if why is None]
            print(f"{'':10s} plays {counts_text(plays)} players")
            refused = [n for n, why in counts.items() if why is not None]
            if refused:
                why = f"not {counts_text(refused, 'or')}; at {refused[0]}: {counts[refused[0]]}"
                print(textwrap.fill(why, 88, initial_indent=" " * 11, subsequent_indent=" " * 13))
        return 0


#: Each command: its ``SUMMARY`` and ``DESCRIPTION``, ``add_flags(parser)`` and ``run(args)``
#: (the parsed flags, with ``subparser`` to report a usage error and ``command_line``).
COMMANDS: dict[str, Any] = {
    "tournament": tournament,
    "agents": AgentsCommand,
    "play": play,
    "replay": replay,
    "serve": serve,
    "evaluate": evaluate,
}


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=PROG, description=DESCRIPTION, epilog=EPILOG, formatter_class=HelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.SUMMARY, description=command.DESCRIPTION,
                           formatter_class=HelpFormatter)  # fmt: skip
        command.add_flags(p)
        p.set_defaults(subparser=p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command's exit code; Ctrl-C or SIGTERM is one line and 130 or 143
    (``mamma_mia_interrupts.run_command``; a tournament's workers are killed first)."""
    return run_command(_main, PROG, argv)


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    args.command_line = shlex.join([PROG, *argv])  # results and scorecards record it
    return COMMANDS[args.command].run(args)
