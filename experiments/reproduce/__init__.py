"""Regenerate every published result with one command, and check it against the committed one.

    python -m experiments reproduce --quick --check   # ~2 min, what CI runs
    python -m experiments reproduce --full --check    # the published results
    python -m experiments reproduce --list --full     # every file, its command

What ``--check`` compares and how, where the runs write and how to add an experiment:
docs/REPRODUCE.md. The package, by job: :mod:`.entries` (the :class:`Experiment` and
:class:`Record` kinds, the results' paths), :mod:`.registry` (the :class:`Experiment`
table), :mod:`.ratios` (the timing ratios), :mod:`.records` (the :class:`Record` table),
:mod:`.comparison` (what ``--check`` compares, and how), :mod:`.runner` (the
subprocesses) and :mod:`.cli` (``main``, which ``python -m experiments reproduce`` runs).
"""
