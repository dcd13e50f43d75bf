"""Where the experiment scripts write, and the provenance they attach to what they write.

No script writes into a tracked file unless asked: by default results go to
``runs/<experiment>/`` (git-ignored); ``--export`` writes into ``experiments/results/``
(the committed results), ``--out DIR`` anywhere else.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from mamma_mia_env.provenance import provenance, write_sidecar

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results"
RUNS = ROOT / "runs"

__all__ = ["RESULTS", "ROOT", "RUNS", "add_output_args", "output_dir", "provenance"]
__all__ += ["write_json", "write_sidecar"]


def add_output_args(parser: argparse.ArgumentParser, name: str) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--out", type=Path, default=None, help=f"output directory (default runs/{name}/)"
    )
    group.add_argument(
        "--export",
        action="store_true",
        help="write into experiments/results/ (the committed results)",
    )


def file_stem(text: str) -> str:
    """The argparse type of a script's ``--name``: a plain file stem, by the same rule as
    the tournament CLI's ``--name`` (``mamma_mia_agents.tournament.check_stem``)."""
    from mamma_mia_agents.tournament import OutputError, check_stem

    try:
        return check_stem(text)
    except OutputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def output_dir(args: argparse.Namespace, name: str) -> Path:
    """``--out``, or experiments/results with ``--export``, or runs/<name>; created."""
    out = Path(args.out) if args.out is not None else RESULTS if args.export else RUNS / name
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_json(path: str | os.PathLike, doc: dict[str, Any], record: dict[str, Any]) -> None:
    """Write ``doc`` with its provenance record under the key ``"provenance"``."""
    with open(path, "w") as fh:
        json.dump({**doc, "provenance": record}, fh, indent=2)
        fh.write("\n")
