"""What every docs block is built of, one way everywhere: a committed result file, a
markdown table (its lines by :func:`row`) and a win rate with its 95% interval."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from experiments.common.output import RESULTS

ALIGN = {"l": "---", "r": "---:", "c": ":---:"}


def result(name: str) -> Any:
    """The committed result file ``name`` (a path in the results), parsed."""
    return json.loads((RESULTS / name).read_text())


def results(pattern: str) -> dict[str, Any]:
    """Every committed result file matching ``pattern`` (a glob in the results), parsed,
    by file name, in name order."""
    return {p.name: json.loads(p.read_text()) for p in sorted(RESULTS.glob(pattern))}


def row(*cells: object) -> str:
    """One table line: the cells between pipes."""
    return "| " + " | ".join(map(str, cells)) + " |"


def table(head: str | Sequence[str], align: str, rows: Iterable[str]) -> str:
    """The header line (``head``, or a :func:`row` of its cells), its separator (a
    column per letter of ``align``: ``l`` left, ``r`` right, ``c`` centred) and the row
    lines ``rows``."""
    head = head if isinstance(head, str) else row(*head)
    return "\n".join([head, "|" + "".join(ALIGN[a] + "|" for a in align), *rows]) + "\n"


def pct(x: float, digits: int = 1) -> str:
    """The share ``x`` in percent."""
    return f"{100 * x:.{digits}f}%"


def interval(low: float, high: float) -> str:
    """A 95% interval of shares, in percent (without the sign)."""
    return f"{100 * low:.1f}-{100 * high:.1f}"


def rate(
    d: dict, low: str = "win_rate_low", high: str = "win_rate_high", bold: bool = False
) -> str:
    """``d``'s win rate with its 95% interval, in percent (the rate in bold: ``bold``)."""
    wins = f"**{pct(d['win_rate'])}**" if bold else pct(d["win_rate"])
    return f"{wins} ({interval(d[low], d[high])})"


def opponents(num_players: int, name: str) -> str:
    """The opponents of a pairing: the bot, or how many of it sit at a bigger table."""
    return name if num_players == 2 else f"{num_players - 1} x {name}"
