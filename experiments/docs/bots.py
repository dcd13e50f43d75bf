"""The docs' blocks about the compiled bots (``experiments/docs/generate.py`` fills them): their
speed, the A/B of their kernels, the search bot's strength curves, and the champion's
tuning against the search bot, its strength and its time per decision."""

from __future__ import annotations

from experiments.docs.ladder import pairings_table
from experiments.docs.markdown import interval, opponents, pct, rate, result, results, row, table


def bot_speed_table() -> str:
    """The compiled bots' speed (experiments/benchmark/bot_speed.py, one run)."""
    doc = result("bot_speed/bot_speed.json")
    v, g, p = doc["vector_env"], doc["games"], doc["step_profile_cpu"]
    med, cpu = v["median_turns_per_second"], v["median_turns_per_cpu_second"]
    load = doc["load_average_before"][0], doc["load_average_after"][0]
    rows = [
        f"| vector env, B = {v['batch']:,}, 4 players, `random` at every seat (median of "
        f"{v['rounds']} rounds) | {med['random']:,} turns/s |",
        f"| the same with compiled `builder` at every seat | {med['builder']:,} turns/s "
        f"(**{100 * v['builder_over_random']:.0f}%** of random) |",
        f"| the same per CPU second of the process (all threads) | random "
        f"{cpu['random']:,}, builder {cpu['builder']:,} "
        f"({100 * v['builder_over_random_cpu']:.0f}%) |",
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
    if "builder_numpy" in med:  # a run from before the numpy builder was removed
        rows.insert(3, row("the same with the numpy `builder` (before the kernels)",
                           f"{med['builder_numpy']:,} turns/s (compiled: "
                           f"{v['compiled_over_numpy_builder']}x)"))  # fmt: skip
    return (
        f"One run, load average {load[0]:.1f} before and {load[1]:.1f} after "
        f"(2 cores, shared); commit `{doc['provenance']['git']['revision'][:7]}`.\n\n"
    ) + table("| measured in one run | value |", "lr", rows)


def bot_kernels() -> str:
    """The bots' decision kernels against those of commit 562aa93 (the record
    bot_kernels/against_562aa93.json)."""
    doc = result("bot_kernels/against_562aa93.json")
    rows = []
    for name, r in doc["report"].items():
        bot, players = name.split()
        q = r["ratio_quartiles"]
        rows.append(row(
            f"`{bot}`, {players[:-1]}", f"{r['positions']:,}",
            f"{r['base_cpu_us_per_decision']:.3f}", f"{r['new_cpu_us_per_decision']:.3f}",
            f"{r['ratio_median']:.3f} ({q[0]:.3f}-{q[2]:.3f})",
            "yes" if r["same_actions"] else "NO",
        ))  # fmt: skip
    prov = doc["provenance"]
    head = ["bot, players", "positions", "CPU us per decision, before", "after",
            "after / before, median (quartiles)", "same actions"]  # fmt: skip
    return table(head, "lrrrll", rows) + (
        f"\n{doc['args']['repeats']} slices of {doc['args']['seconds']} CPU s per version and "
        f"row, load average {prov['machine']['load_average']:.1f}; commit "
        f"`{prov['git']['revision'][:7]}` against `{doc['args']['base_commit']}`.\n"
    )


def search_strength_table() -> str:
    """The search bot's win rates (experiments/evaluate/search_strength.py): the headline rows
    (default budget, most games) first, then every curve point."""
    rows = []
    for name in ("search_strength/2p_headline.json", "search_strength/headline.json"):
        rows += [dict(r, file=name) for c in result(name)["curves"].values() for r in c]
    rows.sort(key=lambda r: (not r["headline"], r["num_players"], r["opponent"], r["worlds"]))
    lines = []
    for r in rows:
        n = r["num_players"]
        wins = f"{pct(r['win_rate'])} ({interval(*r['wilson95'])})"
        lines.append(row(
            n, opponents(n, r["opponent"]), r["worlds"], f"{r['games']:,}",
            f"**{wins}**" if r["headline"] else wins, interval(*r["deal_clustered95"]),
            pct(r["chance"], 0), r["ms_per_decision"], f"`{r['file']}`",
        ))  # fmt: skip
    head = ["players", "opponent(s)", "worlds", "games", "search win rate (Wilson 95%)",
            "deal-clustered 95%", "chance", "ms / decision (median)", "file"]  # fmt: skip
    return table(head, "llrrllrrl", lines)


def champion_tuning() -> str:
    """Every setting of the champion's tunings (experiments/train/tune_champion.py
    --export) against the search bot, and which setting was chosen."""
    docs = results("champion/champion_*p_tuning.json")
    rows, gains = [], []
    for d in docs.values():
        n = d["args"]["players"]
        for r in d["rows"]:
            chosen = r["label"] == d["champion"]
            wins = rate(r, "ci_low", "ci_high")
            rows.append(row(
                n, r["label"], f"{r['games']:,}", f"**{wins}**" if chosen else wins,
                pct(1 / n, 0), f"{r['cpu_mean_ms']:.1f}", "yes" if chosen else "",
            ))  # fmt: skip
        rates = {r["label"]: r["win_rate"] for r in d["rows"]}
        gains += [
            f"{n}p {label}: {100 * (rates[label + tag] - w):+.1f}"
            for label, w in rates.items()
            for tag in ("+ppo", "+prior")  # the prior by name: the shipped ppo, or a file
            if label + tag in rates
        ]
    files = ", ".join(f"`{name}` (tournament seed {v['args']['seed']})" for name, v in docs.items())
    gain = f"The prior's gain on the same deals, in points: {'; '.join(gains)}. " if gains else ""
    head = ["players", "setting (worlds x candidates, prior)", "games vs search",
            "win rate (Wilson 95%)", "chance", "CPU ms / decision, mean (tuning run)",
            "chosen"]  # fmt: skip
    return table(head, "rlrlrrc", rows) + f"\n{gain}Files: {files}.\n"


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
    doc = result("decision_speed/decision_speed.json")
    rows = []
    for r in doc["rows"]:
        champion = r["bot"] == "champion"
        mean = f"**{r['mean_ms']:.1f}**" if champion else f"{r['mean_ms']:.1f}"
        limit = f"{doc['limit_ms']:g} ms" if champion else "-"
        rows.append(row(
            r["players"], r["bot"], r["positions"], mean, f"{r['median_ms']:.1f}",
            f"{r['p90_ms']:.1f}", f"{r['cpu_mean_ms']:.1f}", limit,
        ))  # fmt: skip
    loads = ", ".join(f"{x:.2f}" for x in doc["load_average_before"])
    head = ["players", "bot", "positions", "wall ms / decision: mean", "median",
            "90th percentile", "CPU ms, mean", "limit"]  # fmt: skip
    return table(head, "rlrrrrrr", rows) + (
        f"\nOne numba thread; load averages before the run {loads}. "
        "File: `decision_speed/decision_speed.json`.\n"
    )
