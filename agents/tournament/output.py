"""A tournament's files: where they go (checked before the first game), tables, plots.

``check_stem`` and ``prepare_output`` refuse an unusable ``--out`` / ``--name`` before
any game is played; ``row_cells``, ``markdown_table``, ``csv_text`` and ``plot_rows``
draw the rows of ``TournamentResult.table`` (also as read back from a JSON file).
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from typing import Any

import numpy as np

from mamma_mia_env.plumbing.files import (
    FileError,
    check_output,
    check_output_dir,
    write_figure,
)

#: The longest ``--name`` / ``stem`` of the output files.
MAX_STEM = 100
#: The columns of the CSV file, in order.
CSV_COLUMNS = (
    "rank",
    "agent",
    "seat_games",
    "wins",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "win_rate_deal_low",
    "win_rate_deal_high",
    "mean_delivered",
    "delivered_low",
    "delivered_high",
    "rating_mu",
    "rating_sigma",
    "rating_low",
    "rating_high",
)


class OutputError(ValueError):
    """The output directory or file name cannot be used; the message names which."""


def check_stem(stem: Any) -> str:
    """``stem`` if it is a plain file name (the files stay inside the output directory;
    a NUL would cut the name short); else ``OutputError`` saying why."""
    if not isinstance(stem, str) or not stem.strip():
        raise OutputError(f"--name must be a non-empty file name, got {stem!r}")
    seps = [s for s in ("/", "\\", os.sep, os.altsep) if s]
    if any(c in stem for c in seps) or stem in (".", "..") or os.path.isabs(stem):
        raise OutputError(
            f"--name must be a plain file name (no path separators, '.' or '..'), got "
            f"{stem!r}: the files are written inside --out"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in stem):
        raise OutputError(f"--name must not hold control characters, got {stem!r}")
    if len(stem) > MAX_STEM:
        raise OutputError(f"--name must be at most {MAX_STEM} characters, got {len(stem)}")
    return stem


def prepare_output(
    out_dir: str | os.PathLike, stem: str, plot: bool = True, logs: int = 0
) -> list[str]:
    """Prove ``out_dir`` writable (or creatable: it is created only when the results
    are written) and return the output paths: the CSV, the JSON, the PNG with ``plot``,
    then ``logs`` event logs ``{stem}.game-K.json``. Called before the games, so that an
    unusable ``--out`` fails at once (``OutputError``) and changes nothing; a target may
    exist (``check_output``: replaced, a link never followed) unless it is a directory or
    a read-only file.
    """
    check_stem(stem)
    try:
        out = os.fspath(out_dir)
    except TypeError:
        raise OutputError(f"--out must be a directory path, got {out_dir!r}") from None
    if not isinstance(out, str) or not out or "\0" in out:
        raise OutputError(f"--out must be a directory path, got {out_dir!r}")
    if not os.path.isdir(out):  # created when the results are written, not before
        try:
            check_output_dir(out, "--out directory")
        except FileError as exc:
            raise OutputError(f"--out {out!r} is not a writable directory: {exc}") from None
    else:
        try:  # a probe finds what os.access misses (a read-only file system, ACLs)
            with tempfile.NamedTemporaryFile(dir=out, prefix=f".{stem}.", suffix=".probe"):
                pass
        except OSError as exc:
            raise OutputError(
                f"--out {out!r} is not a writable directory: {exc.strerror or exc}"
            ) from None
    exts = ("csv", "json", "png") if plot else ("csv", "json")
    paths = [os.path.join(out, f"{stem}.{ext}") for ext in exts]
    paths += [os.path.join(out, f"{stem}.game-{k}.json") for k in range(logs)]
    if os.path.isdir(out):
        for path in paths + [f"{p}.meta.json" for p in paths[:1]]:
            try:
                check_output(path, "output file")
            except FileError as exc:
                raise OutputError(f"--out {out!r}: cannot write {exc}") from None
    return paths


def aligned(rows: list[list[str]], left: frozenset[int] = frozenset({1})) -> list[str]:
    """A text table of ``rows`` (the head first), each column as wide as its widest cell
    and a rule under the head: the terminal tables of a tournament and of a scorecard."""
    widths = [max(len(x) for x in col) for col in zip(*rows, strict=True)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return [fmt(rows[0]), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows[1:]]


def row_cells(r: dict[str, Any], delivered_interval: bool = False) -> list[str]:
    """A ``TournamentResult.table`` row as the text table's (and markdown's) cells."""
    delivered = f"{r['mean_delivered']:.2f}"
    if delivered_interval:
        delivered += f" ({r['delivered_low']:.2f}-{r['delivered_high']:.2f})"
    return [
        str(r["rank"]),
        r["agent"],
        f"{r['seat_games']:,}",
        f"{r['wins']:,.1f}",
        f"{100 * r['win_rate']:.1f}%",
        f"{100 * r['win_rate_low']:.1f}-{100 * r['win_rate_high']:.1f}%",
        delivered,
        f"{r['rating_mu']:.1f} ({r['rating_low']:.1f}-{r['rating_high']:.1f})",
    ]


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """A markdown table of ``TournamentResult.table`` rows (also as read from JSON)."""
    lines = [
        "| # | agent | seat-games | wins | win rate | 95% CI | delivered (95% CI) | rating mu "
        "(95%) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += ["| " + " | ".join(row_cells(r, delivered_interval=True)) + " |" for r in rows]
    return "\n".join(lines)


def csv_text(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV (``CSV_COLUMNS``), floats to six significant digits."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow([f"{r[c]:.6g}" if isinstance(r[c], float) else r[c] for c in CSV_COLUMNS])
    return buf.getvalue()


def plot_rows(
    rows: list[dict[str, Any]], path: str | os.PathLike, num_players: int, title: str
) -> None:
    """A PNG: win rate, delivered orders and rating per agent, with 95% intervals."""
    import matplotlib  # here: a second or more to import, and only plots need it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(rows))
    names = [r["agent"] for r in rows]
    y = np.arange(len(rows))
    fig, axes = plt.subplots(1, 3, figsize=(13, 1.2 + 0.55 * len(rows)), sharey=True)
    panels = [
        ("win rate (%)", "win_rate", "win_rate_low", "win_rate_high", 100.0),
        ("delivered orders per game", "mean_delivered", "delivered_low", "delivered_high", 1),
        ("rating (PlackettLuce mu)", "rating_mu", "rating_low", "rating_high", 1.0),
    ]
    for ax, (label, key, lo, hi, scale) in zip(axes, panels, strict=True):
        v = np.array([r[key] for r in rows]) * scale
        err = np.array([[r[key] - r[lo], r[hi] - r[key]] for r in rows]).T * scale
        ax.errorbar(v, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
        ax.set_xlabel(label)
        ax.grid(axis="x", alpha=0.3)
        if key == "win_rate":
            ax.axvline(100 / num_players, ls="--", color="grey", lw=1)
    axes[0].set_yticks(y, names)
    fig.suptitle(title)
    fig.tight_layout()
    try:
        write_figure(fig, path, "plot", dpi=120)
    finally:
        plt.close(fig)
