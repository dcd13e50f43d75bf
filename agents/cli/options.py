"""What the ``mamma-mia`` commands share: the program name, rule-variant flags, checks.

``positive``, ``real``, ``output_file`` and ``stem`` are argparse ``type=`` checks that
name the flag in their error (every flag's value goes through one of them or
``choices``); ``VARIANT_FLAGS`` are the rule variants every command that starts a game offers.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from mamma_mia_agents.tournament.output import OutputError, check_stem
from mamma_mia_agents.tournament.schedule import max_workers
from mamma_mia_env.plumbing.arguments import int_flag, out_file_flag, real_flag

PROG = "mamma-mia"

#: Rule variants as flags: (flag, Config field, help).
VARIANT_FLAGS = (
    ("--mamma-mia-in-deal", "mamma_mia_in_deal", "S2: the Mamma Mia! card is in the deal"),
    ("--pass-may-play-order", "pass_may_play_order", "T2: a passing player may play an order"),
    ("--strict-minimale", "strict_minimale", "R7: Minimale's minimum includes P"),
    ("--double-ingredients", "double_ingredients", "D1-D4: the double-ingredients expansion"),
    ("--random-start-player", "random_start_player", "S4: round 1's start seat from the seed"),
    ("--auto-reveal", "auto_reveal", "R8: reveal choices made by the automatic policy"),
)


def positive(name: str, low: int = 1, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``low..high`` (``high=None``: no upper bound),
    written as plain ASCII digits (``plumbing.arguments.int_flag``)."""
    return int_flag(name, low, high)


def add_workers_flag(parser: argparse.ArgumentParser, what: str = "worker processes") -> None:
    """``--workers``, as every command that plays a tournament offers it (``what``: what
    one worker is, in the help)."""
    parser.add_argument(
        "--workers",
        type=positive("--workers", 1, max_workers()),
        default=None,
        help=f"{what}, at most {max_workers()} (default: all {os.cpu_count()} cores; 1 below "
        "1000 games)",
    )


def real(name: str, low: float | None = None, high: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite real number in ``[low, high]`` (``type=float`` would
    take ``nan``, ``inf`` and ``1e999``; ``plumbing.arguments.real_flag``)."""
    return real_flag(name, low, high)


def output_file(name: str) -> Callable[[str], str]:
    """An argparse type: a path a file can be written to, checked when the flags are
    read, before any game is played (``plumbing.arguments.out_file_flag``)."""
    return out_file_flag(name)


def stem(text: str) -> str:
    """An argparse type: a plain file name for the output files (``check_stem``)."""
    try:
        return check_stem(text)
    except OutputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_error(command: str, message: str) -> int:
    """A run-time failure (not a usage error): one line on stderr, exit code 1."""
    print(f"{PROG} {command}: error: {message}", file=sys.stderr)
    return 1


def add_game_flags(p: argparse.ArgumentParser, *, seed_help: str, delay: float) -> None:
    """The flags of a command that starts a played game (``play``, ``serve``): the
    players, the agents, the person's seat, the seed, what the person sees, the agents'
    pace and the rule variants; each command adds its own ``--save`` and ``--resume``."""
    p.add_argument(
        "--players", type=positive("--players", 2, 5), default=3, help="players, you included: 2-5"
    )
    p.add_argument(
        "--agents",
        default=None,
        help="agents for the other seats, comma-separated, cycled (default: builder; "
        "with --resume: instead of the saved game's, which must be bundled agents)",
    )
    p.add_argument("--seat", type=positive("--seat", 0, 4), default=0, help="your seat")
    p.add_argument("--seed", type=positive("--seed", 0, 2**63 - 1), default=None, help=seed_help)
    p.add_argument(
        "--observation-mode",
        choices=("recall", "top_card"),
        default="recall",
        help="recall: the whole oven history is shown (a memory aid); top_card: only the top",
    )
    p.add_argument(
        "--delay",
        type=real("--delay", 0, 60),
        default=delay,
        help="seconds to show each agent move",
    )
    for flag, field, text in VARIANT_FLAGS:
        p.add_argument(flag, dest=field, action="store_true", help=text)
