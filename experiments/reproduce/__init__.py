"""Regenerate every published result with one command, and check it against the committed one.

    PYTHONPATH=. python -m experiments reproduce --quick --check   # ~2 min, what CI runs
    PYTHONPATH=. python -m experiments reproduce --full --check    # the published results
    PYTHONPATH=. python -m experiments reproduce --full --train    # + the two PPO trainings
    PYTHONPATH=. python -m experiments reproduce --full --only benchmark,profile,speed --export
    PYTHONPATH=. python -m experiments reproduce --list --full     # every file, its command

Each experiment runs its script in a subprocess, writing into a run directory
(``runs/reproduce/<mode>/``, git-ignored; ``--out`` elsewhere). Nothing tracked is
written unless ``--export`` is given: then the files go to ``experiments/results/``
(``--full``) or ``experiments/results/quick/`` (``--quick``, the references CI checks).

``--check`` compares the regenerated files with the committed ones:

* deterministic files (tournaments, evaluations, trained policies) must match exactly,
  once the fields that record *how* a result was made are set aside (``provenance``,
  wall times, worker counts, command lines: :data:`IGNORED_KEYS`);
* timings are compared as ratios that do not depend on the machine's absolute speed
  (B=4096 vs B=1 speedup, our AEC env vs connect_four, the profile's shares), each
  within a factor :data:`TIMING_TOLERANCE` of the committed one. Quick-mode timings
  are too short to mean anything and are not compared (only run, so that the scripts
  are exercised).

Every file in ``experiments/results/`` is accounted for: made by an :class:`Experiment`
(``--list`` prints each file with the command that makes it), or kept as a
:class:`Record` of a measurement that is not re-run (an A/B comparison against another
checkout, a fuzz run with unseeded draws), with the command that made it and why it is
not checked. ``tests/experiments/test_reproduce.py`` fails on a file that is neither.

To add an experiment, append an :class:`Experiment` to :data:`EXPERIMENTS`.

The package, by job: :mod:`.registry` (the :class:`Experiment` table), :mod:`.ratios`
(the timing ratios), :mod:`.records` (the :class:`Record` table), :mod:`.comparison`
(what ``--check`` compares, and how), :mod:`.runner` (the subprocesses) and :mod:`.cli`
(``main``). The names below are those the single-module ``reproduce`` had.
"""

from __future__ import annotations

from experiments.reproduce.cli import main, print_list
from experiments.reproduce.comparison import (
    IGNORED_KEYS,
    TIMING_TOLERANCE,
    compare_file,
    compare_timing,
    diff,
    result_files,
    strip,
)
from experiments.reproduce.entries import (
    PRE_PROVENANCE,
    QUICK_RESULTS,
    RESULTS,
    ROOT,
    Experiment,
    Record,
)
from experiments.reproduce.ratios import (
    benchmark_ratios,
    bot_speed_ratios,
    learner_env_speed_ratios,
    omp_wait_ratios,
    profile_ratios,
    speed_ratios,
)
from experiments.reproduce.records import RECORDS
from experiments.reproduce.registry import DEMO, EXPERIMENTS
from experiments.reproduce.runner import Outcome, missing_requirements, run_one

__all__ = ["DEMO", "EXPERIMENTS", "IGNORED_KEYS", "PRE_PROVENANCE", "QUICK_RESULTS"]
__all__ += ["RECORDS", "RESULTS", "ROOT", "TIMING_TOLERANCE", "Experiment", "Outcome"]
__all__ += ["Record", "benchmark_ratios", "bot_speed_ratios", "compare_file"]
__all__ += ["compare_timing", "diff", "learner_env_speed_ratios", "main"]
__all__ += ["missing_requirements", "omp_wait_ratios", "print_list", "profile_ratios"]
__all__ += ["result_files", "run_one", "speed_ratios", "strip"]
