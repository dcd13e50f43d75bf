"""The docs' blocks about the compiled bots (``experiments/docs/generate.py`` fills them): their
speed, the A/B of their kernels, and the search bot's strength curves, rendered from the
committed result files so that the numbers cannot drift from them."""

from __future__ import annotations

import json

from experiments.common.output import RESULTS


def _commit(prov: dict) -> str:
    """The short revision of a provenance record."""
    rev = (prov.get("git") or {}).get("revision") or "unknown"
    return str(rev)[:7]


def bot_speed_table() -> str:
    """The compiled bots' speed (experiments/benchmark/bot_speed.py, one run)."""
    doc = json.loads((RESULTS / "bot_speed" / "bot_speed.json").read_text())
    v, g, p = doc["vector_env"], doc["games"], doc["step_profile_cpu"]
    med, cpu = v["median_turns_per_second"], v["median_turns_per_cpu_second"]
    load = doc["load_average_before"][0], doc["load_average_after"][0]
    return (
        "\n".join(
            [
                f"One run, load average {load[0]:.1f} before and {load[1]:.1f} after "
                f"(2 cores, shared); commit `{_commit(doc['provenance'])}`.",
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
                *(
                    [  # runs from before the numpy builder was removed
                        f"| the same with the numpy `builder` (before the kernels) | "
                        f"{med['builder_numpy']:,} turns/s "
                        f"(compiled: {v['compiled_over_numpy_builder']}x) |"
                    ]
                    if "builder_numpy" in med
                    else []
                ),
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


def bot_kernels() -> str:
    """The bots' decision kernels against those of commit 562aa93 (the record
    bot_kernels/against_562aa93.json)."""
    doc = json.loads((RESULTS / "bot_kernels" / "against_562aa93.json").read_text())
    lines = [
        "| bot, players | positions | CPU us per decision, before | after | after / before, "
        "median (quartiles) | same actions |",
        "|---|---:|---:|---:|---|---|",
    ]
    for row, r in doc["report"].items():
        bot, players = row.split()
        q = r["ratio_quartiles"]
        lines.append(
            f"| `{bot}`, {players[:-1]} | {r['positions']:,} | "
            f"{r['base_cpu_us_per_decision']:.3f} | {r['new_cpu_us_per_decision']:.3f} | "
            f"{r['ratio_median']:.3f} ({q[0]:.3f}-{q[2]:.3f}) | "
            f"{'yes' if r['same_actions'] else 'NO'} |"
        )
    prov = doc["provenance"]
    load = prov["machine"]["load_average"]
    lines += [
        "",
        f"{doc['args']['repeats']} slices of {doc['args']['seconds']} CPU s per version and "
        f"row, load average {load:.1f}; commit `{_commit(prov)}` against "
        f"`{doc['args']['base_commit']}`.",
    ]
    return "\n".join(lines) + "\n"


STRENGTH_FILES = ("search_strength/2p_headline.json", "search_strength/headline.json")


def search_strength_table() -> str:
    """The search bot's win rates (experiments/evaluate/search_strength.py): the headline rows
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
