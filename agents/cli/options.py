"""What the ``mamma-mia`` commands share: the program name, rule-variant flags, checks.

Every flag's value goes through an argparse ``type=`` check that names the flag in its
error (``stem`` here, the flag types of ``mamma_mia_env.plumbing.arguments``) or
``choices``; ``add_rule_flags``/``rule_config`` make and read any kind of game
parameter's flags, all from the declarations in ``mamma_mia_env.game.config``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from mamma_mia_agents.tournament.fanout import BACKENDS, check_backend
from mamma_mia_agents.tournament.output import OutputError, check_stem
from mamma_mia_agents.tournament.schedule import max_workers
from mamma_mia_env.game.config import OBSERVATION_MODES, PARAMETERS, Parameter
from mamma_mia_env.plumbing.arguments import add_int_flag, real_flag

PROG = "mamma-mia"


def _flag(p: Parameter) -> str:
    """A game parameter's flag: its name with dashes; a bool that is on by default is
    switched off with ``--no-NAME``."""
    name = p.name.replace("_", "-")
    return f"--no-{name}" if p.default is True else f"--{name}"


def _help(p: Parameter) -> str:
    return f"{p.rule}, on by default: {p.help}" if p.default is True else f"{p.rule}: {p.help}"


def add_rule_flags(parser: Any, kinds: tuple[str, ...] = ("variant",)) -> None:
    """A flag for each game parameter of ``kinds`` (``Parameter.kind``), its value
    stored under the parameter's name (``rule_config`` reads them back). ``parser``: an
    ``ArgumentParser`` or an argument group."""
    for p in PARAMETERS:
        if p.kind not in kinds:
            continue
        if p.type is bool:
            action = "store_false" if p.default else "store_true"
            parser.add_argument(_flag(p), dest=p.name, action=action, help=_help(p))
        elif p.type is int:
            low, high = p.allowed[0], p.allowed[-1]
            add_int_flag(parser, _flag(p), low, high, dest=p.name, default=p.default, help=_help(p))
        else:
            raise TypeError(f"{p.name}: no flag for a {p.type.__name__} parameter")


def rule_config(args: argparse.Namespace, kinds: tuple[str, ...] = ("variant",)) -> dict[str, Any]:
    """The Config fields ``add_rule_flags(parser, kinds)`` added, as parsed."""
    return {p.name: getattr(args, p.name) for p in PARAMETERS if p.kind in kinds}


def add_run_flags(parser: argparse.ArgumentParser, workers: str, batches: str) -> None:
    """The flags of every command that plays tournaments: ``--workers`` (``workers``:
    what one is), ``--backend`` and ``--address`` (where ``batches`` run), ``--json``
    and ``--no-progress`` (``run_keywords`` reads them)."""
    add_int_flag(
        parser,
        "--workers",
        1,
        max_workers(),
        default=None,
        help=f"{workers}, at most {max_workers()} (default: all {os.cpu_count()} cores; 1 "
        "below 1000 games)",
    )
    add_backend_flags(parser, batches)
    parser.add_argument("--json", action="store_true", help="print the JSON instead of the table")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_backend_flags(parser: argparse.ArgumentParser, what: str) -> None:
    """``--backend`` and ``--address``: where ``what`` run (``tournament.fanout``)."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help=f"where {what} run: local processes (default) or Ray tasks; the results are identical",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="with --backend ray: a running Ray cluster ('auto', 'HOST:6379', "
        "'ray://HOST:10001'); default: start a local Ray instance (docs/CLUSTER.md)",
    )


def check_backend_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--backend`` and ``--address`` checked by the library (``fanout.check_backend``:
    an address only for Ray, Ray installed) before any work, as a usage error naming
    the flags."""
    if args.address is not None and args.backend != "ray":
        parser.error("--address needs --backend ray")
    try:
        check_backend(args.backend, args.address)
    except ValueError as exc:
        parser.error(f"--backend {args.backend}: {exc}")


def run_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of ``run_tournament`` (and of ``evaluate``, which passes them on)
    that the flags of every command playing tournaments give: ``--seed``, ``--workers``,
    ``--no-progress``, ``--backend``, ``--address``, and the command line to record."""
    return {
        "seed": args.seed,
        "workers": args.workers,
        "progress": not args.no_progress,
        "command": args.command_line,
        "backend": args.backend,
        "address": args.address,
    }


def stem(text: str) -> str:
    """An argparse type: a plain file name for the output files (``check_stem``)."""
    try:
        return check_stem(text)
    except OutputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def spec_list(parser: argparse.ArgumentParser, flag: str, text: str) -> list[str]:
    """The agents of a comma-separated ``flag`` (loaded later, by the call that names a
    failing one); an empty entry is a usage error naming the flag."""
    specs = [s.strip() for s in text.split(",")]
    if not all(specs):
        parser.error(f"{flag} needs a comma-separated list of agents, got {text!r:.80}")
    return specs


def counts_text(counts: list[int], conjunction: str = "and") -> str:
    """Player counts as words: "2-5", "2 and 4" (or "2 or 4"), "no"."""
    if not counts:
        return "no"
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}"
    if len(counts) == 1:
        return str(counts[0])
    return f"{', '.join(map(str, counts[:-1]))} {conjunction} {counts[-1]}"


def run_error(command: str, message: str) -> int:
    """A run-time failure (not a usage error): one line on stderr, exit code 1."""
    print(f"{PROG} {command}: error: {message}", file=sys.stderr)
    return 1


def add_game_flags(
    p: argparse.ArgumentParser, *, seed_help: str, delay: float, max_delay: float = 60
) -> None:
    """The flags of a command that starts a played game (``play``, ``serve``): the
    players, the agents, the person's seat, the seed, what the person sees, the agents'
    pace and the rule variants; each command adds its own ``--save`` and ``--resume``."""
    add_int_flag(p, "--players", 2, 5, default=3, help="players, you included: 2-5")
    p.add_argument(
        "--agents",
        default=None,
        help="agents for the other seats, comma-separated, cycled (default: builder; "
        "with --resume: instead of the saved game's, which must be bundled agents); "
        "`mamma-mia agents` lists them and the player counts each plays",
    )
    add_int_flag(p, "--seat", 0, 4, default=0, help="your seat")
    add_int_flag(p, "--seed", 0, 2**63 - 1, default=None, help=seed_help)
    p.add_argument(
        "--observation-mode",
        choices=OBSERVATION_MODES,
        default=OBSERVATION_MODES[0],
        help="fixed: the whole oven history is shown (a memory aid); top_card: only the top",
    )
    p.add_argument(
        "--delay",
        type=real_flag("--delay", 0, max_delay),
        default=delay,
        help="seconds to show each agent move",
    )
    add_rule_flags(p)
