"""The entries of the reproduction's registry: an :class:`Experiment` (a script that
``reproduce`` runs, and the files it makes by kind) and a :class:`Record` (committed
files that are not re-run, and why), with the paths they are relative to: each
experiment's files are in a folder of its own, ``experiments/results/<folder>/``
(``experiments/results/quick/<folder>/`` for ``--quick``)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PRE_PROVENANCE", "QUICK_RESULTS", "RESULTS", "ROOT", "Experiment", "Record"]

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "experiments" / "results"
QUICK_RESULTS = RESULTS / "quick"

#: Committed timings measured on an idle machine before result files recorded their
#: provenance, so without a sidecar (why they stay: docs/REPRODUCE.md).
PRE_PROVENANCE = frozenset(
    {
        "benchmark/benchmark.csv",
        "benchmark/benchmark.txt",
        "benchmark/benchmark.png",
    }
)


@dataclass(frozen=True)
class Experiment:
    """One script of the reproduction.

    ``script`` is ``-m module [subcommand]``; ``folder`` the experiment's folder in the
    results (the script's ``--out``; a training run's ``--export`` writes there itself).
    ``args(mode)`` gives the script's arguments for ``"quick"`` or ``"full"`` (None: not
    run in that mode); the runner appends ``--out DIR``. ``deterministic`` files must
    match exactly; ``timing`` files are checked by ``ratios`` (a function of a file's
    parsed content returning named machine-independent ratios); ``other`` files are
    made but not compared (plots, pages, provenance sidecars). ``train``: only with
    ``--train``. ``requires``: modules of optional extras; without them the experiment
    is skipped (and said so).
    """

    name: str
    script: str
    folder: str
    args: Callable[[str], list[str] | None]
    deterministic: Callable[[str], list[str]] = lambda mode: []
    timing: Callable[[str], list[str]] = lambda mode: []
    ratios: Callable[[str, Path], dict[str, float]] | None = None
    other: Callable[[str], list[str]] = lambda mode: []
    train: bool = False
    #: a script whose ``--out`` names a file (``mamma-mia evaluate``): this name in DIR
    out_file: str | None = None
    requires: tuple[str, ...] = field(default=())

    def command(self, mode: str) -> list[str] | None:
        """The command line (after ``python``) that writes this experiment's files into
        the committed results (``--full``: experiments/results, ``--quick``: .../quick)."""
        args = self.args(mode)
        if args is None:
            return None
        if self.train:  # a run directory of its own; its --export copies the results
            return [*shlex.split(self.script), *args, "--export"]
        dst = (QUICK_RESULTS if mode == "quick" else RESULTS).relative_to(ROOT) / self.folder
        return [*shlex.split(self.script), *args, "--out", str(self.out_path(dst))]

    def reference(self, made: str, ref_dir: Path) -> Path:
        """The committed copy that ``--check`` compares the made file ``made`` with: for a
        training run ``<name>_<file>`` in its folder (``<name>``: the experiment's name
        without ``_train``); otherwise the same name in its folder of ``ref_dir`` (the
        results, or the quick results)."""
        if not self.train:
            return ref_dir / self.folder / made
        return ref_dir / self.folder / f"{self.name.removesuffix('_train')}_{made}"

    def out_path(self, out: Path) -> Path:
        """What ``--out`` is given: the directory, or the file ``out_file`` in it."""
        return out / self.out_file if self.out_file else out

    def results(self, mode: str) -> list[str]:
        """The files this experiment puts into the committed results, as paths in them
        (``<folder>/<file>``)."""
        if self.args(mode) is None:
            return []
        files = self.deterministic(mode) + self.timing(mode) + self.other(mode)
        if self.train:
            files = [f"{self.name.removesuffix('_train')}_{f}" for f in files]
        return [f"{self.folder}/{f}" for f in files]


@dataclass(frozen=True)
class Record:
    """Committed result files that ``reproduce`` does not re-run, and why.

    ``commands`` maps each file (a path in the results, ``<folder>/<file>``) to what made
    it; ``reason`` says why re-running it cannot (or need not) give the same file.
    """

    name: str
    commands: dict[str, str]
    reason: str
