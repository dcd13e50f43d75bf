"""``python -m experiments.reproduce``: the same as ``python -m experiments reproduce``."""

from mamma_mia_interrupts import run_command  # first: a Ctrl-C while the rest loads is one line


def main() -> int:
    from experiments.reproduce.cli import main as reproduce

    return reproduce()


raise SystemExit(run_command(main, "python -m experiments reproduce"))
