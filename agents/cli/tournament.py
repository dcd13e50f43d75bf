"""``mamma-mia tournament``: play a duplicate-deal tournament between agents.

    mamma-mia tournament --players 4 --games 2000 --agents random,counter,builder,hoarder
    mamma-mia tournament --players 3 --agents counter,mypkg.mybot:MyBot --out runs/t1

Every argument is checked, and ``--out`` proved writable, before the first game.
"""

from __future__ import annotations

import argparse
import os
import sys

from mamma_mia_agents import REGISTRY
from mamma_mia_agents.cli.options import (
    add_rule_flags,
    add_run_flags,
    check_backend_flags,
    rule_config,
    run_error,
    run_keywords,
    spec_list,
    stem,
)
from mamma_mia_agents.tournament.fanout import FanOutError
from mamma_mia_agents.tournament.matches import AgentError
from mamma_mia_agents.tournament.output import OutputError, prepare_output
from mamma_mia_agents.tournament.results import TournamentResult
from mamma_mia_agents.tournament.runner import DEFAULT_BATCH, run_tournament
from mamma_mia_agents.tournament.schedule import MAX_GAMES, SEATINGS
from mamma_mia_env.game.log import write_log
from mamma_mia_env.plumbing.arguments import add_int_flag
from mamma_mia_env.plumbing.files import FileError

SUMMARY = "play a duplicate-deal tournament between agents"
DESCRIPTION = (
    "Play a tournament: every deal is replayed once per seating (seats rotated, "
    "or permuted), on all cores. Prints a table of wins, win rate with a 95% "
    "Wilson interval, mean delivered orders and an openskill PlackettLuce rating; "
    "with --out also writes CSV, JSON and a PNG plot."
)


def add_flags(t: argparse.ArgumentParser) -> None:
    """The ``tournament`` command's flags."""
    t.add_argument(
        "--agents",
        required=True,
        metavar="LIST",
        help=f"comma-separated agents: bundled names ({', '.join(REGISTRY)}) or import paths "
        "package.module:ClassName",
    )
    add_int_flag(t, "--players", 2, 5, default=4, help="players per game, 2-5")
    add_int_flag(
        t,
        "--games",
        1,
        MAX_GAMES,
        default=2000,
        help=f"games to play, at most {MAX_GAMES:,} (rounded up to whole duplicate deals; "
        "default 2000)",
    )
    add_int_flag(t, "--seed", 0, 2**32 - 1, default=0, help="base seed")
    t.add_argument(
        "--seating",
        choices=SEATINGS,
        default="rotate",
        help="rotate: the N cyclic rotations of each table; permute: all seat orders",
    )
    add_int_flag(
        t,
        "--batch-size",
        1,
        None,
        default=DEFAULT_BATCH,
        help=f"games stepped together per batch (default {DEFAULT_BATCH})",
    )
    add_run_flags(t, "worker processes", "the batches of games")
    _add_output_flags(t)
    add_rule_flags(t.add_argument_group("rule variants (docs/RULES.md)"), ("variant", "limit"))


def _add_output_flags(t: argparse.ArgumentParser) -> None:
    """What is printed and written."""
    t.add_argument(
        "--out",
        metavar="DIR",
        help="write NAME.csv, NAME.json and NAME.png here (created and checked writable "
        "before the first game)",
    )
    t.add_argument(
        "--name",
        type=stem,
        default="tournament",
        help="file name stem for --out: a plain name, no path separators",
    )
    add_int_flag(
        t,
        "--save-logs",
        0,
        MAX_GAMES,
        default=0,
        metavar="N",
        help="with --out: write event logs of the first N games (NAME.game-K.json) for "
        "`mamma-mia replay`",
    )
    t.add_argument("--no-plot", action="store_true", help="with --out: skip the PNG plot")


def run(args: argparse.Namespace) -> int:
    """Run the tournament of ``args``; the exit code. Every argument is the library's to
    check (``run_tournament``), its message printed as a usage error."""
    parser: argparse.ArgumentParser = args.subparser
    if args.save_logs and not args.out:
        parser.error("--save-logs needs --out DIR to write the logs to")
    try:
        check_backend_flags(parser, args)  # before --out is proved writable
        if args.out is not None:  # before playing: a run must not be lost at the end
            logs = min(args.save_logs, args.games)  # each further log is checked as written
            prepare_output(args.out, args.name, plot=not args.no_plot, logs=logs)
        res = run_tournament(
            spec_list(parser, "--agents", args.agents),
            num_players=args.players,
            games=args.games,
            seating=args.seating,
            batch_size=args.batch_size,
            save_logs=args.save_logs,
            **run_keywords(args),
            **rule_config(args, ("variant", "limit")),
        )
    except (AgentError, FanOutError) as exc:
        return run_error("tournament", str(exc))
    except ValueError as exc:  # ConfigError, AgentLoadError, OutputError... naming the input
        parser.error(str(exc))
    if args.json:
        print(res.to_json())
    else:
        print(res.summary())
        print(res.format_table())
    return 0 if args.out is None else _write(args, res)


def _write(args: argparse.Namespace, res: TournamentResult) -> int:
    """The result files (and ``--save-logs`` event logs) into ``--out``."""
    try:
        paths = res.write(args.out, args.name, plot=not args.no_plot)
        for k, log in enumerate(res.logs):  # --save-logs
            paths.append(os.path.join(args.out, f"{args.name}.game-{k}.json"))
            write_log(paths[-1], log)
    except (OSError, OutputError, FileError) as exc:  # e.g. the disk filled up
        return run_error("tournament", f"could not write the results to --out {args.out!r}: {exc}")
    print("wrote " + ", ".join(paths), file=sys.stderr if args.json else sys.stdout)
    return 0
