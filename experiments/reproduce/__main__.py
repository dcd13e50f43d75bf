"""``python -m experiments.reproduce``: the same as ``python -m experiments reproduce``."""

from experiments.reproduce.cli import main
from mamma_mia_env.plumbing.interrupts import run_command

raise SystemExit(run_command(main, "python -m experiments reproduce"))
