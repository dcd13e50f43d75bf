"""Where the experiment scripts write, and how.

Every file goes through the file readers and writers (``mamma_mia_env.plumbing.files``): written to
a temporary file and renamed into place, a line on stderr when an earlier run's file
is replaced; ``--out`` is checked when the flags are read.

No script writes into a tracked file unless asked: by default results go to
``runs/<experiment>/`` (git-ignored); ``--export`` writes into
``experiments/results/<experiment>/`` (the committed results, one folder per experiment),
``--out DIR`` anywhere else. JSON results carry their
provenance record inside (:func:`write_json`), CSV and PNG results beside them
(``write_sidecar``, from :mod:`experiments.common.provenance`).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
from pathlib import Path
from typing import Any

from mamma_mia_env.plumbing.arguments import out_dir_flag
from mamma_mia_env.plumbing.files import write_figure, write_file

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "experiments" / "results"
RUNS = ROOT / "runs"

__all__ = ["RESULTS", "ROOT", "RUNS", "add_output_args", "out_dir_arg", "output_dir"]
__all__ += ["save_figure", "short_name", "subplots", "thinned", "write_csv", "write_json"]


def add_output_args(parser: argparse.ArgumentParser, name: str) -> None:
    """``--out DIR`` or ``--export`` (exclusive); :func:`output_dir` resolves them."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--out",
        type=out_dir_arg,
        default=None,
        help=f"output directory (default runs/{name}/; checked before the run starts)",
    )
    group.add_argument(
        "--export",
        action="store_true",
        help=f"write into experiments/results/{name}/ (the committed results)",
    )


#: The argparse type of ``--out``: a directory that exists and is writable, or can be
#: created (``check_output_dir``), checked when the flags are read, before any work.
out_dir_arg = out_dir_flag("--out")


def short_name(spec: str) -> str:
    """An opponent spec as a plot or a table names it: an import path by its last part
    (``experiments.common.opponents:search_4x3`` -> ``search_4x3``), a pool joined by +."""
    return "+".join(name.rpartition(":")[2] for name in spec.split(","))


def thinned(rows: list[dict[str, Any]], most: int = 200) -> list[dict[str, Any]]:
    """At most ``most`` of ``rows``, evenly spaced, the last included: a run of millions
    of env steps has thousands of iterations, too many for a committed result."""
    import numpy as np

    if len(rows) <= most:
        return rows
    keep = np.unique(np.linspace(0, len(rows) - 1, most).round().astype(int))
    return [rows[i] for i in keep]


def output_dir(args: argparse.Namespace, name: str) -> Path:
    """``--out``, or experiments/results/<name> with ``--export``, or runs/<name>; created."""
    out = Path(args.out) if args.out is not None else (RESULTS if args.export else RUNS) / name
    out.mkdir(parents=True, exist_ok=True)
    return out


def subplots(*args: Any, **kw: Any) -> Any:
    """``matplotlib.pyplot.subplots`` on the Agg backend: the scripts draw files, and
    need no display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kw)


def save_figure(fig: Any, path: str | os.PathLike, dpi: int = 100) -> None:
    """``fig`` tightened, written to ``path`` (``write_figure``: atomically) and closed."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    write_figure(fig, path, "plot", dpi=dpi)
    plt.close(fig)


def write_json(path: str | os.PathLike, doc: dict[str, Any], record: dict[str, Any]) -> None:
    """Write ``doc`` with its provenance record under the key ``"provenance"``."""
    write_file(path, json.dumps({**doc, "provenance": record}, indent=2) + "\n", "result")


def write_csv(path: Path, rows: list[dict], what: str = "result table") -> None:
    """Rows of dicts as a CSV; the columns in order of first appearance (a later row may
    add a column). Nothing is written for no rows."""
    if not rows:
        return
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)
    write_file(path, buf.getvalue(), what)
