"""The experiment scripts' flags go through the same checks as the ``mamma-mia`` CLI.

``checked(parser)`` rewrites a finished parser in place, so no script can forget a
flag: a ``type=int`` takes ASCII digits, >= 0 (no ``" 5"``, ``"-1"``, ``"5_000"`` or
``"1e3"``), a ``type=float`` a finite number >= 0 (no ``nan``, ``inf`` or ``1e999``),
and an output flag (``--out``) is checked when the flags are read, before any work: a
directory that is writable or can be created, or, for the scripts whose ``--out`` is
one JSON file, a file that can be written there (``mamma_mia_env.plumbing.arguments``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mamma_mia_env.plumbing.arguments import int_flag, out_dir_flag, out_file_flag, real_flag

__all__ = ["agent_problems", "checked"]


def _retype(action: argparse.Action) -> Any:
    """The checked ``type`` for one action (``None``: keep its own)."""
    flag = max(action.option_strings, key=len, default=action.dest)
    if action.type is int:  # no experiment flag takes a negative count, seed or size
        return int_flag(flag, 0)
    if action.type is float:  # ... nor a negative time, rate or coefficient
        return real_flag(flag, 0.0)
    if action.dest == "out" and action.type in (None, str, Path):
        kind = Path if action.type is Path else str  # the flag's own type
        one_file = "(JSON)" in (action.help or "")
        return out_file_flag(flag, kind) if one_file else out_dir_flag(flag, kind)
    return None


def checked(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with every flag's type replaced by its checked version (module doc),
    its subcommands' parsers too; returned for ``checked(p).parse_args(argv)``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                checked(sub)
            continue
        new = _retype(action)
        if new is not None:
            action.type = new
    return parser


def agent_problems(flags: list[tuple[str, str]]) -> list[str]:
    """The agents named by ``(flag, spec)`` pairs must load (a bundled bot's name or an
    import path), checked before anything runs: a message naming the flag for each
    that does not."""
    from mamma_mia_agents import load_agent

    problems = []
    for flag, name in flags:
        try:
            load_agent(name)
        except (ValueError, ImportError, AttributeError, TypeError) as exc:
            problems.append(f"{flag}: {str(exc).splitlines()[0]}")
    return problems
