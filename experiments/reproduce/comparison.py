"""The comparator of ``--check``: deterministic files must match exactly once the fields
that record *how* a result was made are set aside (:data:`IGNORED_KEYS`), timing files
by ratios (:mod:`.ratios`) within a factor :data:`TIMING_TOLERANCE`; :func:`result_files`
lists every committed file with what makes it and how it is compared."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path
from typing import Any

from experiments.reproduce.entries import Experiment
from experiments.reproduce.records import RECORDS
from experiments.reproduce.registry import EXPERIMENTS

#: keys that record how a result was made, not what it is; --check ignores them
IGNORED_KEYS = frozenset(
    {
        "provenance",
        "elapsed",
        "elapsed_seconds",
        "seconds",
        "games_per_second",
        "load_average_before",
        "workers",
        "backend",  # local processes or Ray tasks: the same games (docs/CLUSTER.md)
        "address",
        "command",
        "summary",
        "machine",
        "python",
        "cores",
        "git",
        "policy",
        # the search / bot experiments: time per decision, loads, output paths
        "ms_per_decision",
        "ms_per_decision_median",
        "ms_per_decision_mean",
        "median_ms",
        "mean_ms",
        "p90_ms",
        "cpu_median_ms",
        "cpu_mean_ms",
        "cpu_p90_ms",
        "tournament_seconds",
        "timing",
        "load_average",
        "load_average_after",
        "out",
        "export",
    }
)
#: a timing ratio passes if regenerated / committed lies in [1/T, T]
TIMING_TOLERANCE = 2.0


def strip(doc: Any) -> Any:
    """``doc`` without the keys that record how it was made (:data:`IGNORED_KEYS`)."""
    if isinstance(doc, dict):
        return {k: strip(v) for k, v in doc.items() if k not in IGNORED_KEYS}
    if isinstance(doc, list):
        return [strip(v) for v in doc]
    return doc


def diff(a: Any, b: Any, where: str = "") -> list[str]:
    """Paths at which two parsed documents differ (at most a few per branch)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{where}/{k}: only in {'new' if k in a else 'committed'}")
            else:
                out += diff(a[k], b[k], f"{where}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: length {len(a)} vs {len(b)}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in diff(x, y, f"{where}[{i}]")
        ]
    return [] if a == b else [f"{where or '/'}: {a!r} (new) vs {b!r} (committed)"]


def compare_file(new: Path, ref: Path) -> list[str]:
    """Differences between a regenerated deterministic file and the committed one."""
    if not ref.exists():
        return [f"{ref.name}: no committed reference ({ref})"]
    if not new.exists():
        return [f"{new.name}: not produced"]
    if new.suffix == ".json":
        d = diff(strip(json.loads(new.read_text())), strip(json.loads(ref.read_text())))
    elif new.suffix == ".npz":
        import numpy as np

        a, b = np.load(new), np.load(ref)
        d = [
            f"{k}: differs"
            for k in sorted(set(a.files) | set(b.files))
            if k not in a.files or k not in b.files or not np.array_equal(a[k], b[k])
        ]
    else:
        d = [] if new.read_bytes() == ref.read_bytes() else ["contents differ"]
        if d and new.suffix == ".csv":
            na, nb = new.read_text().splitlines(), ref.read_text().splitlines()
            d = [
                f"line {i + 1}: {x!r} (new) vs {y!r} (committed)"
                for i, (x, y) in enumerate(zip(na, nb, strict=False))
                if x != y
            ][:5]
            if len(na) != len(nb):
                d.append(f"{len(na)} lines (new) vs {len(nb)} (committed)")
    return [f"{new.name}: {x}" for x in d[:10]]


def compare_timing(exp: Experiment, name: str, new: Path, ref: Path) -> list[str]:
    if exp.ratios is None:  # a timing file is compared by its ratios alone
        return [f"{name}: a timing file of {exp.name}, which has no ratios to compare it by"]
    if not ref.exists():
        return [f"{name}: no committed reference ({ref})"]
    if not new.exists():
        return [f"{name}: not produced"]
    a, b = exp.ratios(name, new), exp.ratios(name, ref)
    out = []
    for key in sorted(set(a) & set(b)):
        r = a[key] / b[key] if b[key] else math.inf
        if not 1 / TIMING_TOLERANCE <= r <= TIMING_TOLERANCE:
            out.append(
                f"{name}: {key} = {a[key]:.3g} (new) vs {b[key]:.3g} (committed), "
                f"ratio {r:.2f} outside x/÷{TIMING_TOLERANCE}"
            )
    return out


def result_files(mode: str = "full") -> dict[str, tuple[str, str, str]]:
    """Every committed result file of ``mode`` -> (what makes it, kind, command).

    ``kind``: ``deterministic`` (compared exactly by ``--check``), ``timing`` (compared
    as ratios), ``made`` (produced, not compared: plots, pages, provenance sidecars),
    ``training`` (``--train`` only), ``record`` (not re-run: :data:`RECORDS`).
    """
    out: dict[str, tuple[str, str, str]] = {}
    for e in EXPERIMENTS:
        cmd = e.command(mode)
        if cmd is None:
            continue
        shown = "python " + " ".join(shlex.quote(c) if " " in c else c for c in cmd)
        kinds = dict.fromkeys(e.timing(mode), "timing")  # a file in both is compared exactly
        kinds |= dict.fromkeys(e.deterministic(mode), "deterministic")
        raw = e.deterministic(mode) + e.timing(mode) + e.other(mode)
        for f, r in zip(e.results(mode), raw, strict=True):
            kind = "training" if e.train else kinds.get(r, "made")
            out[f] = (e.name, kind, shown)
    if mode == "full":
        for rec in RECORDS:
            for f, c in rec.commands.items():
                out[f] = (rec.name, "record", c)
    return out
