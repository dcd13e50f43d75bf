"""``python -m experiments reproduce ...`` and ``python -m experiments docs``."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("reproduce", "docs"):
        print("usage: python -m experiments {reproduce,docs} [options]  (--help for each)")
        return 2
    if argv[0] == "docs":
        from experiments.docs.generate import main as docs

        return docs(argv[1:])
    from experiments.reproduce.cli import main as reproduce

    return reproduce(argv[1:])


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments"))
