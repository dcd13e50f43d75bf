"""The docs' champion blocks (``experiments/docs/generate.py`` fills them): the champion's tuning
against the search bot, rendered from the committed tuning files so that the numbers
cannot drift from them."""

from __future__ import annotations

import json

from experiments.common.output import RESULTS
from experiments.docs.ladder import pairings_table


def champion_tuning() -> str:
    """Every setting of the champion's tunings (experiments/train/tune_champion.py --export):
    win rate against the search bot with its Wilson interval, CPU time per decision on
    one core as measured during the tuning, and which setting was chosen."""
    lines = [
        "| players | setting (worlds x candidates, prior) | games vs search | win rate "
        "(Wilson 95%) | chance | CPU ms / decision, mean (tuning run) | chosen |",
        "|---:|---|---:|---|---:|---:|:---:|",
    ]
    for p in sorted(RESULTS.glob("champion/champion_*p_tuning.json")):
        d = json.loads(p.read_text())
        n = d["args"]["players"]
        for r in d["rows"]:
            rate = f"{100 * r['win_rate']:.1f}% ({100 * r['ci_low']:.1f}-{100 * r['ci_high']:.1f})"
            chosen = r["label"] == d["champion"]
            lines.append(
                f"| {n} | {r['label']} | {r['games']:,} | {f'**{rate}**' if chosen else rate} | "
                f"{100 / n:.0f}% | {r['cpu_mean_ms']:.1f} | {'yes' if chosen else ''} |"
            )
    docs = {
        p.name: json.loads(p.read_text())
        for p in sorted(RESULTS.glob("champion/champion_*p_tuning.json"))
    }
    gains = []
    for doc in docs.values():
        rates = {r["label"]: r["win_rate"] for r in doc["rows"]}
        gains += [
            f"{doc['args']['players']}p {label}: {100 * (rates[label + tag] - w):+.1f}"
            for label, w in rates.items()
            for tag in ("+ppo", "+prior")  # the prior by name: the shipped ppo, or a file
            if label + tag in rates
        ]
    files = ", ".join(f"`{name}` (tournament seed {v['args']['seed']})" for name, v in docs.items())
    gain = f"The prior's gain on the same deals, in points: {'; '.join(gains)}. " if gains else ""
    return "\n".join(lines) + f"\n\n{gain}Files: {files}.\n"


#: The champion's targets: (players, rung) -> the win rate to reach (against search at 3-5
#: players: 1.3 times chance).
TARGETS = {
    (2, "search"): 0.60, (3, "search"): 1.3 / 3, (4, "search"): 1.3 / 4, (5, "search"): 1.3 / 5,
    (2, "builder"): 0.80, (4, "builder"): 0.50,
}  # fmt: skip


def champion_strength() -> str:
    """The champion's scorecards (``mamma-mia evaluate champion``, 2,000 games a pairing
    on the evaluation seed, which no tuning used) against their targets."""
    return pairings_table("champion", TARGETS)


def champion_speed() -> str:
    """The time per decision of the search bot and the champion on one core
    (``experiments/benchmark/decision_speed.py``), against the champion's limit."""
    doc = json.loads((RESULTS / "decision_speed" / "decision_speed.json").read_text())
    lines = [
        "| players | bot | positions | wall ms / decision: mean | median | 90th percentile "
        "| CPU ms, mean | limit |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in doc["rows"]:
        limit = f"{doc['limit_ms']:g} ms" if r["bot"] == "champion" else "-"
        mean = f"**{r['mean_ms']:.1f}**" if r["bot"] == "champion" else f"{r['mean_ms']:.1f}"
        lines.append(
            f"| {r['players']} | {r['bot']} | {r['positions']} | {mean} | {r['median_ms']:.1f} "
            f"| {r['p90_ms']:.1f} | {r['cpu_mean_ms']:.1f} | {limit} |"
        )
    loads = ", ".join(f"{x:.2f}" for x in doc["load_average_before"])
    return "\n".join(lines) + (
        f"\n\nOne numba thread; load averages before the run {loads}. "
        "File: `decision_speed/decision_speed.json`.\n"
    )
