"""Regenerate every published result with one command, and check it against the committed one.

    python -m experiments reproduce --quick --check   # ~2 min, what CI runs
    python -m experiments reproduce --full --check    # the published results
    python -m experiments reproduce --full --train    # + the two PPO trainings
    python -m experiments reproduce --full --only benchmark,speed --export
    python -m experiments reproduce --list --full     # every file, its command

Each experiment runs its script in a subprocess, writing into a run directory
(``runs/reproduce/<mode>/``, git-ignored; ``--out`` elsewhere). Nothing tracked is
written unless ``--export`` is given: then the files go to ``experiments/results/``
(``--full``) or ``experiments/results/quick/`` (``--quick``, the references CI checks).

``--check`` compares the regenerated files with the committed ones:

* deterministic files (tournaments, evaluations, trained policies) must match exactly,
  once the fields that record *how* a result was made are set aside (``provenance``,
  wall times, worker counts, command lines: :data:`IGNORED_KEYS`);
* timings are compared as ratios that do not depend on the machine's absolute speed
  (B=4096 vs B=1 speedup, our AEC env vs connect_four), each
  within a factor :data:`TIMING_TOLERANCE` of the committed one. Quick-mode timings
  are too short to mean anything and are not compared (only run, so that the scripts
  are exercised).

Every file in ``experiments/results/`` is accounted for: made by an :class:`Experiment`
(``--list`` prints each file with the command that makes it), or kept as a
:class:`Record` of a measurement that is not re-run (an A/B comparison against another
checkout, a fuzz run with unseeded draws), with the command that made it and why it is
not checked. ``tests/experiments/test_reproduce.py`` fails on a file that is neither.

To add an experiment, append an :class:`Experiment` to :data:`EXPERIMENTS`.

The package, by job: :mod:`.entries` (the :class:`Experiment` and :class:`Record`
kinds, the results' paths), :mod:`.registry` (the :class:`Experiment` table),
:mod:`.ratios` (the timing ratios), :mod:`.records` (the :class:`Record` table),
:mod:`.comparison` (what ``--check`` compares, and how), :mod:`.runner` (the
subprocesses) and :mod:`.cli` (``main``; ``python -m experiments.reproduce`` runs it).
"""
