"""The leaderboard's table of ratings on the evaluation ladder (``experiments/docs/generate.py``
fills it): every rung's anchor and every agent with committed scorecards, on the one Elo
scale of ``mamma-mia evaluate`` (random = 0).

The round-robin leaderboard (``leaderboard.py``) plays the cheap bots against each other
10,000 times per player count; the search bot and the champion cost milliseconds a move,
so they enter the leaderboard here instead, rated by the scorecards they played against
the anchored rungs (2,000 games a pairing). A rating is refitted from the files' wins with
the anchors the files recorded (``ladder_rating.fit_rating``), never copied.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from experiments.common.output import RESULTS
from experiments.docs.markdown import opponents, pct, rate, row, table
from mamma_mia_agents.tournament.ladder_rating import Result, fit_rating
from mamma_mia_agents.tournament.scorecard import ANCHOR_SOURCES, ANCHORS, anchored_results

COUNTS = (2, 4)

__all__ = ["anchors_table", "ladder_ratings", "pairings_table", "scorecard_fits"]


def scorecard_fits(results: Path = RESULTS) -> dict[str, dict[int, dict[str, Any]]]:
    """Per agent and player count: the rating fitted to all its committed scorecards'
    pairings at that count (``fit``), their games and the files."""
    found: dict[str, dict[int, list[Result]]] = defaultdict(lambda: defaultdict(list))
    files: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(results.glob("scorecards/*.json")):
        card = json.loads(path.read_text())
        anchors = {
            r["name"]: {int(k): v for k, v in r["anchors"].items()} for r in card["ladder"]
        }  # the anchors the file was rated with
        agent = card["agent"]["name"]
        for n, block in card["players"].items():
            found[agent][int(n)] += anchored_results(block["pairings"], int(n), anchors)
            files[agent][int(n)].append(f"scorecards/{path.name}")
    fits: dict[str, dict[int, dict[str, Any]]] = {}
    for agent, by_count in found.items():
        fits[agent] = {}
        for n, rs in by_count.items():
            fit = fit_rating(rs)
            if fit is not None:
                fits[agent][n] = {"fit": fit, "files": files[agent][n]}
    return fits


def _cell(fit: Any) -> str:
    if fit.value is None:
        return f"off the scale ({fit.off_scale})"
    return f"{fit.value:.0f} ({fit.low:.0f}-{fit.high:.0f})"


def ladder_ratings() -> str:
    """Rows: the anchored rungs (their stored anchors) and every agent with scorecards
    (its fitted rating and 95% interval), best first at 2 players."""
    fits = scorecard_fits()
    rows: list[tuple[float, str]] = []
    for agent in sorted(set(ANCHORS) | set(fits)):
        cells, sources = [], []
        for n in COUNTS:
            if agent in fits and n in fits[agent]:
                f = fits[agent][n]
                cells.append(_cell(f["fit"]))
                sources += [f"`{name}`" for name in f["files"]]
            elif n in ANCHORS.get(agent, {}):
                cells.append(f"{ANCHORS[agent][n]:g} (anchor)")
            else:
                cells.append("")
        if agent in ANCHORS and not sources:
            sources.append("the stored anchor (`ANCHORS`)")
        two = fits.get(agent, {}).get(2)
        key = two["fit"].value or 0.0 if two else ANCHORS.get(agent, {}).get(2, 0.0)
        sources = list(dict.fromkeys(sources))  # a file that holds both counts, once
        rows.append((key, row(agent, *cells, ", ".join(sources))))
    rows.sort(key=lambda r: -r[0])
    return table(["agent", "2 players", "4 players", "from"], "lrrl", (line for _, line in rows))


def anchors_table() -> str:
    """The rungs' stored anchors by player count, with where each came from
    (``ANCHORS``, ``ANCHOR_SOURCES``)."""
    counts = sorted({n for by_count in ANCHORS.values() for n in by_count})
    rows = [
        row(
            f"`{rung}`",
            *(f"{by_count[n]:g}" if n in by_count else "" for n in counts),
            ANCHOR_SOURCES[rung],
        )  # fmt: skip
        for rung, by_count in ANCHORS.items()
    ]
    head = ["rung", *(f"{n} players" for n in counts), "measured by"]
    return table(head, "l" + "r" * len(counts) + "l", rows)


def pairings_table(agent: str, targets: dict[tuple[int, str], float]) -> str:
    """Every pairing of ``agent``'s committed scorecards: its win rate with the Wilson
    interval, chance, the target (``targets[(players, rung)]``, if any) and the file."""
    rows = []
    for p in sorted(RESULTS.glob(f"scorecards/{agent}_*.json")):
        for n, block in json.loads(p.read_text())["players"].items():
            for r in block["pairings"]:
                k = int(n)
                target = targets.get((k, r["opponent"]))
                rows.append(row(
                    k, opponents(k, r["opponent"]), f"{r['games']:,}", rate(r, bold=True),
                    pct(r["chance"], 0), "-" if target is None else pct(target, 0),
                    f"`scorecards/{p.name}`",
                ))  # fmt: skip
    head = ["players", "opponents", "games", f"{agent}'s win rate (Wilson 95%)", "chance",
            "target", "file"]  # fmt: skip
    return table(head, "rlrlrrl", rows)
