"""``python -m experiments.reproduce``: the same as ``python -m experiments reproduce``."""

from experiments.reproduce.cli import main

raise SystemExit(main())
