"""``python -m experiments reproduce ...``: the one entry point of the reproduction."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "reproduce":
        print("usage: python -m experiments reproduce [options]  (--help for the options)")
        return 2
    from experiments.reproduce import main as reproduce

    return reproduce(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
