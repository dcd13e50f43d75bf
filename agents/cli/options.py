"""What the ``mamma-mia`` commands share: the program name, rule-variant flags, checks.

``positive`` and ``stem`` are argparse ``type=`` checks that name the flag in their
error; ``VARIANT_FLAGS`` are the rule variants every command that starts a game offers.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from mamma_mia_agents.tournament.output import OutputError, check_stem

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
    """An argparse type: an integer in ``low..high`` (``high=None``: no upper bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"{low}-{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"{name} must be {bound}, got {value}")
        return value

    return parse


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
