"""What every docs block is built of, one way everywhere: a committed result file, a
markdown table and a win rate with its 95% interval."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from experiments.common.output import RESULTS

ALIGN = {"l": "---", "r": "---:", "c": ":---:"}


def result(name: str) -> Any:
    """The committed result file ``name`` (a path in the results), parsed."""
    return json.loads((RESULTS / name).read_text())


def table(head: str, align: str, rows: Iterable[str]) -> str:
    """The header line ``head``, its separator (a column per letter of ``align``: ``l``
    left, ``r`` right, ``c`` centred) and the row lines ``rows``."""
    return "\n".join([head, "|" + "".join(ALIGN[a] + "|" for a in align), *rows]) + "\n"


def rate(d: dict, low: str = "win_rate_low", high: str = "win_rate_high") -> str:
    """``d``'s win rate with its 95% interval, in percent."""
    return f"{100 * d['win_rate']:.1f}% ({100 * d[low]:.1f}-{100 * d[high]:.1f})"
