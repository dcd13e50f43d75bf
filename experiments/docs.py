"""Fill the docs' result tables from the result files, so that they cannot drift.

    PYTHONPATH=. python -m experiments docs           # rewrite the marked blocks
    PYTHONPATH=. python -m experiments docs --check   # exit 1 if a block is stale

A block is marked ``<!-- results:NAME -->`` ... ``<!-- /results -->`` in a markdown file;
``BLOCKS[NAME]`` renders its content from ``experiments/results/``. Numbers outside
blocks are checked by ``tests/test_reproduce.py``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COUNTS = (2, 3, 4, 5)
MARK = re.compile(r"(<!-- results:(\w+) -->\n)(.*?)(<!-- /results -->)", re.S)


def _leaderboards() -> dict[int, dict[str, dict]]:
    out = {}
    for n in COUNTS:
        doc = json.loads((RESULTS / f"leaderboard_{n}p.json").read_text())
        out[n] = {r["agent"]: r for r in doc["results"]}
    return out


def leaderboard_table() -> str:
    boards = _leaderboards()
    order = [r for r in boards[2]]  # the 2-player order of the file, strongest first
    order = sorted(order, key=lambda a: -boards[4][a]["win_rate"])
    lines = [
        "| agent | " + " | ".join(f"{n} players" for n in COUNTS) + " |",
        "|---|" + "---:|" * len(COUNTS),
    ]
    for a in order:
        cells = [
            f"{100 * b[a]['win_rate']:.1f}% ({100 * b[a]['win_rate_low']:.1f}-"
            f"{100 * b[a]['win_rate_high']:.1f})"
            for b in (boards[n] for n in COUNTS)
        ]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines.append("| *chance* | " + " | ".join(f"{100 / n:.1f}%" for n in COUNTS) + " |")
    return "\n".join(lines) + "\n"


def leaderboard_delivered() -> str:
    boards = _leaderboards()
    parts = []
    for n in COUNTS:
        rows = sorted(boards[n].values(), key=lambda r: r["rank"])
        parts.append(
            f"{n} players " + ", ".join(f"{r['agent']} {r['mean_delivered']:.2f}" for r in rows)
        )
    return "Mean delivered orders per game: " + "; ".join(parts) + ".\n"


def bot_speed_table() -> str:
    """The compiled bots' speed (experiments/bot_speed.py, one run)."""
    doc = json.loads((RESULTS / "bot_speed.json").read_text())
    v, g, p = doc["vector_env"], doc["games"], doc["step_profile_cpu"]
    med, cpu = v["median_turns_per_second"], v["median_turns_per_cpu_second"]
    load = doc["load_average_before"][0], doc["load_average_after"][0]
    return (
        "\n".join(
            [
                f"One run, load average {load[0]:.1f} before and {load[1]:.1f} after "
                f"(2 cores, shared); commit `{doc['provenance']['git_commit'][:7]}`.",
                "",
                "| measured in one run | value |",
                "|---|---:|",
                f"| vector env, B = {v['batch']:,}, 4 players, `random` at every seat (median of "
                f"{v['rounds']} rounds) | {med['random']:,} turns/s |",
                f"| the same with compiled `builder` at every seat | {med['builder']:,} turns/s "
                f"(**{100 * v['builder_over_random']:.0f}%** of random) |",
                f"| the same per CPU second of the process (all threads) | random "
                f"{cpu['random']:,}, builder {cpu['builder']:,} "
                f"({100 * v['builder_over_random_cpu']:.0f}%) |",
                f"| the same with the numpy `builder` (before the kernels) | "
                f"{med['builder_numpy']:,} turns/s "
                f"(compiled: {v['compiled_over_numpy_builder']}x) |",
                f"| {g['games']:,} four-player games of the four heuristic bots in `play_out` "
                f"(one compiled loop, {g['numba_threads']} threads) | "
                f"**{g['compiled_loop_seconds']} s**"
                f" ({g['compiled_loop_cpu_seconds']} CPU s, {g['mean_actions_per_game']} actions "
                "per game) |",
                f"| the same games through `run_tournament` ({g['tournament_workers']} worker "
                f"processes, statistics included) | {g['tournament_seconds']} s |",
                f"| CPU time per position of a compiled step, one thread ({p['positions']:,} "
                f"positions): observation {p['observe_us']} us, legal mask {p['legal_mask_us']} us,"
                f" `builder` decision {p['builder_decision_us']} us (of which the oven replay "
                f"{p['of_which_oven_replay_us']} us), engine step {p['engine_step_us']} us | |",
            ]
        )
        + "\n"
    )


STRENGTH_FILES = ("search_strength_2p_headline.json", "search_strength.json")


def search_strength_table() -> str:
    """The search bot's win rates (experiments/search_strength.py): the headline rows
    (default budget, most games) first, then every curve point."""
    rows, timing = [], {}
    for name in STRENGTH_FILES:
        doc = json.loads((RESULTS / name).read_text())
        for curve in doc["curves"].values():
            rows += [dict(r, file=name) for r in curve if "games" in r]
        timing.update(doc["timing"])
    rows.sort(key=lambda r: (not r["headline"], r["num_players"], r["opponent"], r["worlds"]))
    lines = [
        "| players | opponent(s) | worlds | games | search win rate (Wilson 95%) | "
        "deal-clustered 95% | chance | ms / decision (median) | file |",
        "|---|---|---:|---:|---|---|---:|---:|---|",
    ]
    for r in rows:
        n = r["num_players"]
        opp = r["opponent"] if n == 2 else f"{n - 1} x {r['opponent']}"
        rate = f"{100 * r['win_rate']:.1f}% ({100 * r['wilson95'][0]:.1f}-"
        rate += f"{100 * r['wilson95'][1]:.1f})"
        if r["headline"]:
            rate = f"**{rate}**"
        lo, hi = r["deal_clustered95"]
        lines.append(
            f"| {n} | {opp} | {r['worlds']} | {r['games']:,} | {rate} | "
            f"{100 * lo:.1f}-{100 * hi:.1f} | {100 * r['chance']:.0f}% | "
            f"{r['ms_per_decision']} | `{r['file']}` |"
        )
    return "\n".join(lines) + "\n"


BLOCKS: dict[str, Callable[[], str]] = {
    "leaderboard": leaderboard_table,
    "leaderboard_delivered": leaderboard_delivered,
    "bot_speed": bot_speed_table,
    "search_strength": search_strength_table,
}


def render(text: str) -> str:
    def fill(m: re.Match) -> str:
        name = m.group(2)
        if name not in BLOCKS:
            raise KeyError(f"unknown results block {name!r}; known: {', '.join(BLOCKS)}")
        return m.group(1) + BLOCKS[name]() + m.group(4)

    return MARK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments docs", description=__doc__)
    ap.add_argument("--check", action="store_true", help="only report stale blocks")
    args = ap.parse_args(argv)
    stale = []
    for path in DOCS:
        text = path.read_text()
        new = render(text)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new)
    verb = "stale" if args.check else "rewrote"
    print(f"{verb}: {', '.join(map(str, stale))}" if stale else "docs match the result files")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
