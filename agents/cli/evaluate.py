"""``mamma-mia evaluate SPEC``: an agent's scorecard against the reference ladder.

    mamma-mia evaluate builder
    mamma-mia evaluate runs/ppo_2p/policy.npz --players 2 --out scorecard.json
    mamma-mia evaluate mypkg.mybot:MyBot --ladder random,builder --games 400

The games, the seeds and the rating are ``tournament/scorecard.py``'s; this module reads
the flags and prints. Every flag is checked, and the agent and the ladder loaded, before
the first game.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable

from mamma_mia_agents.bots.loading import AgentLoadError
from mamma_mia_agents.bots.ppo_policy import PolicyFileError
from mamma_mia_agents.cli.options import (
    add_run_flags,
    check_backend_flags,
    run_error,
    run_keywords,
    spec_list,
)
from mamma_mia_agents.tournament.fanout import FanOutError
from mamma_mia_agents.tournament.matches import AgentError, AgentMismatchError
from mamma_mia_agents.tournament.schedule import MAX_GAMES
from mamma_mia_agents.tournament.scorecard import (
    DEFAULT_GAMES,
    DEFAULT_PLAYERS,
    EVAL_SEED,
    LADDER,
    LadderError,
    evaluate,
    format_scorecard,
)
from mamma_mia_env.plumbing.arguments import add_int_flag, int_flag, out_file_flag
from mamma_mia_env.plumbing.files import FileError, write_json


def counts(name: str) -> Callable[[str], tuple[int, ...]]:
    """An argparse type: comma-separated player counts 2-5, each listed once."""
    one = int_flag(name, 2, 5)

    def parse(text: str) -> tuple[int, ...]:
        values = tuple(one(part) for part in text.split(","))
        if len(set(values)) != len(values):
            raise argparse.ArgumentTypeError(f"{name} lists a player count twice: {text!r:.60}")
        return values

    return parse


SUMMARY = "an agent's scorecard against the reference ladder"
DESCRIPTION = textwrap.fill(
    "Play an agent against the reference ladder (" + ", ".join(n for n, _ in LADDER)
    + ") at 2 and 4 players on fixed evaluation deals, and print one stamped "
    "scorecard: win rates with 95% Wilson intervals, an Elo rating on the "
    "ladder's scale (random at 0), the package version and the seeds. At N players "
    "the agent sits in one seat against N-1 copies of each rung, every deal "
    "played once per seat. docs/AGENTS.md, 'Scorecard: mamma-mia evaluate'.",
    width=80,
)  # fmt: skip


def add_flags(p: argparse.ArgumentParser) -> None:
    """The ``evaluate`` command's flags."""
    p.add_argument(
        "spec",
        metavar="SPEC",
        help="the agent: a bundled name, package.module:ClassName, or a .npz policy file",
    )
    p.add_argument(
        "--ladder",
        metavar="LIST",
        default=None,
        help="comma-separated opponents instead of the reference ladder (bundled names, "
        "import paths, policy files; default: the reference ladder's bundled rungs)",
    )
    p.add_argument(
        "--players",
        type=counts("--players"),
        default=DEFAULT_PLAYERS,
        metavar="LIST",
        help="comma-separated player counts, 2-5 (default: 2,4)",
    )
    add_int_flag(
        p,
        "--games",
        1,
        MAX_GAMES,
        default=DEFAULT_GAMES,
        help="games per pairing (agent vs one rung at one player count), rounded up to "
        "whole duplicate deals",
    )
    add_int_flag(
        p,
        "--seed",
        0,
        2**32 - 1,
        default=EVAL_SEED,
        help="tournament seed of the deals, 0 to 2**32-1; scorecards compare with each "
        f"other only at the evaluation seed (default: {EVAL_SEED})",
    )
    add_run_flags(
        p, "worker processes (every pairing's batches share them)", "the batches of every pairing"
    )
    p.add_argument("--out", metavar="FILE", type=out_file_flag("--out"), help="write the "
                   "scorecard JSON here (checked before the first game)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Evaluate ``args.spec``; print (and with ``--out`` write) the scorecard."""
    parser: argparse.ArgumentParser = args.subparser
    check_backend_flags(parser, args)
    try:
        card = evaluate(
            args.spec,
            ladder=None if args.ladder is None else spec_list(parser, "--ladder", args.ladder),
            players=args.players,
            games=args.games,
            **run_keywords(args),
        )
    except (AgentError, FanOutError) as exc:
        return run_error("evaluate", str(exc))
    except ValueError as exc:  # the library's checks of every argument, naming it
        parser.error(_message(args.spec, exc))
    print(json.dumps(card, indent=2) if args.json else format_scorecard(card))
    if args.out is None:
        return 0
    try:
        write_json(args.out, card, "scorecard")
    except (OSError, FileError) as exc:
        return run_error("evaluate", f"could not write the scorecard to --out: {exc}")
    print(f"wrote {args.out}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _message(spec: str, exc: Exception) -> str:
    """The error line: naming ``--ladder`` for a rung, the agent for one that does not
    load or play, the argument itself for the rest."""
    if isinstance(exc, LadderError):
        return f"--ladder: {exc}"
    agent = isinstance(exc, (AgentLoadError, PolicyFileError, AgentMismatchError))
    return f"agent {spec!r:.80}: {exc}" if agent else str(exc)
