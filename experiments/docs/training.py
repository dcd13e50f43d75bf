"""The docs' training blocks (``experiments/docs/generate.py`` fills them): the CleanRL-style
PPO run, the A/B of its update settings, where the shipped policy stands and the
champions' prior networks."""

from __future__ import annotations

from pathlib import Path

from experiments.common.output import short_name
from experiments.docs.ladder import pairings_table
from experiments.docs.markdown import pct, rate, result, results, row, table


def cleanrl_ppo() -> str:
    """The CleanRL-style PPO runs (python -m experiments.train.cleanrl_ppo --export): their
    throughput (overall / env alone, the target: 0.5) and strength."""
    rows = []
    for name, d in results("cleanrl_ppo/cleanrl_ppo_*.json").items():
        a, t, ev = d["args"], d["throughput"], d["evaluation"]
        tr, rnd = ev["trained"], ev["random"]
        ratio = t["env_steps_per_s_overall"] / t["env_steps_per_s_env_only"]
        honest = t.get("overall_over_env_alone")  # none in files before the env-alone step
        warm = a["warm_start_games"]
        warm_text = (
            f" after a warm start on {warm:,} `{a['warm_start_teacher']}` games" if warm else ""
        )
        if a.get("init_policy"):
            warm_text += f" from `{Path(a['init_policy']).name}`"
        rows.append(row(
            f"`{name}`: {a['num_players']}p vs `{a['opponent']}`{warm_text}, {a['num_envs']} "
            f"games x {a['num_steps']} steps, {a['update_epochs']} epochs of "
            f"{a['num_minibatches']} minibatches at learning rate {a['learning_rate']:g}"
            + (", `--overlap`" if a.get("overlap") else ""),
            f"{t['env_steps']:,}",
            f"{t['env_steps_per_s_overall']:,.0f} / {t['env_steps_per_s_rollout']:,.0f} / "
            f"{t['env_steps_per_s_env_only']:,.0f}",
            f"{ratio:.2f}", "-" if honest is None else f"{honest:.2f}",
            f"{t['share_update']:.2f}", f"{tr['win']:.3f} ({rnd['win']:.3f})",
            f"{tr['delivered']:.2f} ({rnd['delivered']:.2f})",
        ))  # fmt: skip
    head = ["run", "env steps", "env steps/s: overall / rollout / env only",
            "overall / env only", "overall / env alone", "update share",
            "win share trained (random)", "orders delivered trained (random)"]  # fmt: skip
    return table(head, "lrrrrrrr", rows)


#: 1.6x chance against ``builder`` in every other seat: the one network's goal per count
ONE_NETWORK_TARGET = 1.6


#: The chance of a seat at each table size, in words, for the prose blocks.
_TABLE = {2: "two", 3: "three", 4: "four", 5: "five"}


def _vs_search(card: str, n: int) -> dict:
    """A scorecard's pairing against the search bot at ``n`` players."""
    return next(r for r in result(card)["players"][str(n)]["pairings"] if r["opponent"] == "search")


def shipped_policy() -> str:
    """What the shipped ``ppo`` beats and what beats it (README's claim): the one
    network's final evaluation against ``builder`` at each count, its scorecards against
    the search bot, the champion's, and the demo tournament."""
    finals = result("cleanrl_ppo/cleanrl_ppo_all_counts.json")["evaluation"]["final_by_count"]
    vs_builder = ", ".join(
        f"{rate(f)} of {f['games']:,} {_TABLE[int(n)]}-player games (chance {pct(1 / int(n), 0)})"
        for n, f in sorted(finals.items())
    )
    searched = "; ".join(
        f"{rate(_vs_search(card, int(n)))} at {n} players (`{card}`)"
        for n in sorted(finals)
        for card in [f"scorecards/ppo_{n}p_random_builder_search.json"]
    )
    champ = _vs_search("scorecards/champion_2p_search.json", 2)
    rates = {r["agent"]: r for r in result("demo_tournament/demo.json")["results"]}
    return (
        f"The shipped policy (`--agents ppo`) is one network for 2-5 players "
        f"(`agents/policies/ppo.npz`). Against `builder` in every other seat it wins "
        f"{vs_builder} (`cleanrl_ppo/cleanrl_ppo_all_counts.json`). Against the search bot "
        f"(`--agents search`) in every other seat it wins {searched}. The strongest agent is "
        f"the champion, the search bot guided by a network, which wins {rate(champ)} of its "
        "two-player games against the search bot (`scorecards/champion_2p_search.json`). In "
        f"the mixed four-player field of the README's demo tournament `ppo` wins "
        f"{pct(rates['ppo']['win_rate'])} and `builder` "
        f"{pct(rates['builder']['win_rate'])} of their games (`demo_tournament/demo.json`).\n"
    )


#: The plain two-player network against the search bot: each step's command and result
#: file, in order (the last one's policy is ``tests/support/helpers.py``'s 2-player file).
EXPERT_2P = [
    ("train.cleanrl_ppo --preset ten-minutes --export",
     "cleanrl_ppo/cleanrl_ppo_2p_ten_minutes.json"),
    ("train.cleanrl_ppo --preset vs-search-1 --export",
     "cleanrl_ppo/cleanrl_ppo_2p_vs_search_1.json"),
    ("train.cleanrl_ppo --preset vs-search-2 --export",
     "cleanrl_ppo/cleanrl_ppo_2p_vs_search_2.json"),
    ("train.expert_iteration --preset vs-search --export",
     "expert_iteration/expert_iteration_2p_vs_search.json"),
    ("train.expert_iteration --preset vs-search-2 --export",
     "expert_iteration/expert_iteration_2p_vs_search_2.json"),
]  # fmt: skip


def expert_2p() -> str:
    """The plain two-player network against the search bot: the five training steps that
    made it (each one's command, wall time and final 2,000-deal evaluation)."""
    rows, total = [], 0.0
    for i, (command, name) in enumerate(EXPERT_2P, 1):
        d = result(name)
        final = d["final"] if "final" in d else d["evaluation"]["final"]
        rival = final.get("opponent", d["args"]["opponent"])
        start = d["args"].get("init_policy")  # the ten-minute run predates the flag
        minutes = d["wall"]["training_seconds"] / 60
        total += minutes
        rows.append(row(
            i, f"`{command}`", f"`{Path(start).name}`" if start else "scratch",
            f"{minutes:.1f} min", f"vs `{rival}`: {rate(final)}", f"`{name}`",
        ))  # fmt: skip
    head = ["step", "command (`python -m experiments.`)", "starts from", "training wall time",
            "final evaluation, 2,000 duplicate deals (seed 230,023)", "file"]  # fmt: skip
    return table(head, "rllrll", rows) + f"\n{total:.0f} min of training wall time in all.\n"


def champion_priors() -> str:
    """The SB3 networks the earlier champions were tuned with (``champion_prior/{2,4}p.npz``):
    their final evaluations against each heuristic bot and their training runs."""
    evals = {n: result(f"champion_prior/{n}p_final_eval.json") for n in (2, 4)}
    runs = {n: result(f"champion_prior/{n}p_summary.json")["timings"] for n in (2, 4)}
    rows = {
        "**win rate vs `builder`**, duplicate-deal games at seed 2": lambda n: (
            f"**{rate(evals[n]['builder'])}** of {evals[n]['builder']['games']:,}"
            + (" vs three `builder`s" if n == 4 else "")
        ),
        "vs `counter` / `hoarder` / `forgetful` (seed 2)": lambda n: " / ".join(
            pct(evals[n][b]["win_rate"]) for b in ("counter", "hoarder", "forgetful")
        ),
        "training time, wall (CPU)": lambda n: (
            f"{runs[n]['train_seconds'] / 60:.1f} min ({runs[n]['train_cpu_seconds'] / 60:.1f} min)"
        ),
        "PPO steps (learner decisions)": lambda n: f"{runs[n]['ppo_timesteps']:,}",
    }
    head = "| | 2 players (`champion_prior/2p.npz`) | 4 players (`champion_prior/4p.npz`) |"
    return table(head, "lrr", (row(k, cell(2), cell(4)) for k, cell in rows.items())) + (
        "\n95% Wilson intervals in brackets (`champion_prior/2p_final_eval.json`, "
        "`champion_prior/4p_final_eval.json`, `champion_prior/{2,4}p_summary.json`).\n"
    )


def _wins(runs: list[dict]) -> str:
    return ", ".join(f"{r['win']:.3f}" for r in runs)


def cleanrl_defaults() -> str:
    """The CleanRL-style PPO's update settings, old and new, at equal env steps
    (experiments/train/cleanrl_defaults.py)."""
    doc = result("cleanrl_defaults/update.json")
    rows = []
    for label, res in doc["settings"].items():
        runs, s = res["runs"], res["summary"]
        share = sorted(r["share_update"] for r in runs)[len(runs) // 2]
        rows.append(row(
            label, _wins(runs), f"{s['win_mean']:.3f} ({s['win_sd']:.3f})",
            f"{s['delivered_mean']:.2f}", f"{s['overall_over_env_only_median']:.2f}",
            f"{share:.2f}",
        ))  # fmt: skip
    steps = next(iter(doc["settings"].values()))["runs"][0]["env_steps"]
    head = ["update epochs, learning rate",
            f"win share vs `builder`, seeds 1-{doc['args']['seeds']}", "mean (sd)",
            "orders delivered", "overall / env alone (median)",
            "update share (median)"]  # fmt: skip
    return table(head, "lllrrr", rows) + (
        f"\n{steps:,} env steps per run, {doc['args']['eval_games']} evaluation games each "
        "(`cleanrl_defaults/update.json`).\n"
    )


def ten_minutes() -> str:
    """The "minutes to a good policy" goal: the ``--preset ten-minutes`` run
    (python -m experiments.train.cleanrl_ppo --preset ten-minutes --export), its final
    duplicate-deal evaluation and where its wall time went."""
    d = result("cleanrl_ppo/cleanrl_ppo_2p_ten_minutes.json")
    a, f, w, t = d["args"], d["evaluation"]["final"], d["wall"], d["throughput"]
    load = ", ".join(f"{x:.1f}" for x in w["load_average"])
    bc = (
        f"the imitation warm start ({a['warm_start_games']:,} `{a['warm_start_teacher']}` "
        f"self-play games, {d['warm_start']['bc_decisions']:,} decisions, "
        f"{a['warm_start_epochs']} epochs) {w['warm_start_seconds']:.0f} s, "
    )
    head = [f"win rate vs `{f['opponent']}` (sampled)", "games (seed)", "env steps",
            "training wall time (CPU time)", "overall / env alone"]  # fmt: skip
    cells = [
        f"{rate(f)} ({pct(f['sampled']['win_rate'])})", f"{f['games']:,} ({f['seed']:,})",
        f"{t['env_steps']:,}",
        f"{w['training_seconds'] / 60:.1f} min ({w['training_cpu_seconds'] / 60:.1f} min)",
        f"{t['overall_over_env_only']:.2f}",
    ]  # fmt: skip
    return (
        table(head, "rrrrr", [row(*cells)]) + "\n"
        f"Of the training's wall time: {bc}PPO {w['ppo_seconds']:.0f} s "
        f"({t['env_steps_per_s_overall']:,.0f} env steps/s; the update "
        f"{100 * t['share_update']:.0f}% of it), the learning curve's {len(d['curve'])} "
        f"evaluations {w['curve_eval_seconds']:.0f} s; stopped by `{w['stopped_by']}`; "
        f"load average {load} when it ended; the final evaluations (argmax and sampled) "
        f"took {f['seconds']:.0f} s more (`cleanrl_ppo_2p_ten_minutes.json`).\n"
    )


def cleanrl_warm_start() -> str:
    """The ten-minute preset from scratch and with the imitation warm start, at equal env
    steps (experiments/train/cleanrl_defaults.py --study warm-start)."""
    doc = result("cleanrl_defaults/warm_start.json")
    rows = []
    for label, res in doc["settings"].items():
        runs, s = res["runs"], res["summary"]
        rates = ", ".join(rate(r) for r in runs)
        bc = ", ".join(f"{r['warm_start_seconds']:.0f}" for r in runs)
        rows.append(row(label, rates, pct(s["final_win_rate_mean"]), bc, _wins(runs)))
    steps = next(iter(doc["settings"].values()))["runs"][0]["env_steps"]
    head = ["setting",
            f"win rate vs `builder`, 2,000 duplicate deals, seeds 1-{doc['args']['seeds']}",
            "mean", "warm start (s, wall)", "win share, sampled (script's evaluation)"]  # fmt: skip
    return table(head, "llrrl", rows) + (
        f"\n{steps:,} env steps per run (`cleanrl_defaults/warm_start.json`).\n"
    )


def ppo_strength() -> str:
    """The shipped network's scorecards (``mamma-mia evaluate ppo``, the games a pairing
    the table says, on the evaluation seed) against its goal: 1.6 times chance against
    builder at every count."""
    return pairings_table("ppo", {(n, "builder"): ONE_NETWORK_TARGET / n for n in (2, 3, 4, 5)})


def vs_search() -> str:
    """The two legs of ``--preset vs-search-1`` / ``vs-search-2``: the plain network
    fine-tuned against the search bot."""
    rows = []
    for leg in (1, 2):
        name = f"cleanrl_ppo/cleanrl_ppo_2p_vs_search_{leg}.json"
        d = result(name)
        a, f, w, t = d["args"], d["evaluation"]["final"], d["wall"], d["throughput"]
        rates = [c["win_rate"] for c in d["curve"]]
        curve = ", ".join(pct(x) for x in (rates[0], max(rates), rates[-1]))
        rivals = ", ".join(f"`{short_name(o)}`" for o in a["opponent"].split(","))
        rows.append(row(
            f"`--preset vs-search-{leg}`", f"`{Path(a['init_policy']).name}`", rivals,
            f"{t['env_steps']:,} ({t['env_steps_per_s_overall']:,.0f})",
            f"{w['training_seconds'] / 60:.1f} min", curve,
            f"**{rate(f)}** ({pct(f['sampled']['win_rate'])})", f"`{name}`",
        ))  # fmt: skip
    head = ["leg", "starts from", "trained against", "env steps (env steps/s)",
            "training wall time", "curve vs `search` (400 deals): first, best, last",
            "final vs `search`, argmax (sampled)", "file"]  # fmt: skip
    return table(head, "lllrrlll", rows)


def vs_search_strength() -> str:
    """The second vs-search leg's policy file on the evaluation ladder (``mamma-mia
    evaluate``, 2,000 games a pairing), against the target for the plain network."""
    return pairings_table("vs_search", {(2, "search"): 0.5})


def expert_iteration() -> str:
    """``experiments/train/expert_iteration.py --preset vs-search`` and its continuation
    ``vs-search-2``, round by round, then each run's final evaluation."""
    runs = {
        "expert_iteration/expert_iteration_2p_vs_search.json": "vs-search",
        "expert_iteration/expert_iteration_2p_vs_search_2.json": "vs-search-2",
    }  # both, or fail
    docs = [result(name) for name in runs]
    a, s = docs[0]["args"], docs[0]["start_curve"]
    rows = [f"| | start (`{Path(a['init_policy']).name}`) | - | - | - | {rate(s)} |"]  # "| |"
    finals, done = [], 0
    for (name, preset), d in zip(runs.items(), docs, strict=True):
        rows += [
            row(f"`--preset {preset}`", done + r["round"], f"{r['positions']:,}",
                pct(r["win_rate_while_labelled"]),
                f"{r['label_seconds'] / 60:.1f} + {r['fit_seconds'] / 60:.1f}", rate(r["curve"]))
            for r in d["rounds"]
        ]  # fmt: skip
        done += len(d["rounds"])
        finals.append(
            f"after round {done} (`--preset {preset}`), **{rate(d['final'])}**, "
            f"{d['wall']['training_seconds'] / 60:.1f} min wall of training (`{name}`)"
        )
    f = docs[0]["final"]
    head = (
        f"| run | round | labelled positions ({a['games']:,} games) | network's win rate "
        f"while labelled | labelling + fit (min) | vs `{a['opponent']}` after the round, "
        f"{a['curve_games']} deals (seed {docs[0]['provenance']['seeds']['curve_seed']:,}) |"
    )
    return table(head, "lrrrrl", rows) + (
        f"\nThe policy against `{a['opponent']}` on {f['games']:,} duplicate deals (seed "
        f"{f['seed']:,}, the vs-search presets' final deals): {'; '.join(finals)}. The "
        "training time counts labelling, fitting and the curve.\n"
    )


def expert_iteration_strength() -> str:
    """The expert-iteration policy file on the evaluation ladder (``mamma-mia evaluate``,
    2,000 games a pairing), against the target for the plain network."""
    return pairings_table("expert_iteration", {(2, "search"): 0.5})


def _run_line(label: str, file: str) -> str:
    """One all-counts run's evaluation and wall time, in words: where its time went (the
    throughput against the env alone) and the machine's load when it ended."""
    d = result(file)
    w, t = d["wall"], d["throughput"]
    f = next(iter(d["evaluation"]["final_by_count"].values()))
    load = ", ".join(f"{x:.1f}" for x in w["load_average"])
    # an option since removed: the runs made with it say so
    workers = f", the env in {n} worker processes" if (n := d["args"].get("env_workers")) else ""
    threads = "one thread" if d["args"]["threads"] == 1 else f"{d['args']['threads']} threads"
    threads += " each for the rollout and the update" if d["args"].get("overlap") else ""
    return (
        f"{label[:1].upper() + label[1:]}: {f['games']:,} duplicate-deal games per count at "
        f"seed {f['seed']:,}; "
        f"{t['env_steps']:,} env steps in {w['training_seconds'] / 60:.1f} min of wall time "
        f"(the warm start {w['warm_start_seconds'] / 60:.1f} min, stopped by "
        f"`{w['stopped_by']}`) on {threads}{workers}; "
        f"{t['env_steps_per_s_overall']:,.0f} env steps/s overall, "
        f"{t['env_steps_per_s_env_alone']:,.0f} for the env alone (overall / env alone "
        f"**{t['overall_over_env_alone']:.2f}**), {t['cores_busy']:.2f} cores busy; load "
        f"average {load} when it ended (`{file}`)."
    )


#: The all-counts runs the docs show: the shipped ``ppo``'s, and the preset as it is today.
ALL_COUNTS_RUNS = {
    "the shipped `ppo`": "cleanrl_ppo/cleanrl_ppo_all_counts.json",
    "the preset today": "cleanrl_ppo/cleanrl_ppo_all_counts_overlap.json",
}


def all_counts() -> str:
    """The one network for 2-5 players (``--preset all-counts``): the shipped ``ppo``'s
    run and the preset re-run as it stands today, their final evaluations against
    ``builder`` at each count beside the goal, and where their wall time went."""
    finals = {k: result(f)["evaluation"]["final_by_count"] for k, f in ALL_COUNTS_RUNS.items()}
    counts = sorted(next(iter(finals.values())))
    rows = [
        row(n, *(f"**{rate(f[n])}** ({pct(f[n]['sampled']['win_rate'])})" for f in finals.values()),
            pct(ONE_NETWORK_TARGET / int(n), 0))
        for n in counts
    ]  # fmt: skip
    head = ["players", *(f"{k}: win rate vs `builder` (Wilson 95%; sampled)" for k in finals),
            "goal (1.6 x chance)"]  # fmt: skip
    lines = "\n\n".join(_run_line(k, f) for k, f in ALL_COUNTS_RUNS.items())
    return table(head, "rllr", rows) + "\n" + lines + "\n"


#: The runs the training-speed table compares: the one-network settings without and with
#: ``--overlap`` (one after the other, no warm start or evaluations), then the full runs.
TRAINING_SPEED_RUNS = (
    "cleanrl_ppo_all_counts_throughput_plain",
    "cleanrl_ppo_all_counts_throughput_overlap",
    "cleanrl_ppo_all_counts",
    "cleanrl_ppo_all_counts_overlap",
)


def training_speed() -> str:
    """The one-network training's speed against the env alone, stepped outside training
    (docs/PERFORMANCE.md, "Training at engine speed"): each run's threads, whether the
    rollout overlapped the update, env steps/s overall and alone, their ratio and the
    cores kept busy."""
    rows = []
    for name in TRAINING_SPEED_RUNS:
        d = result(f"cleanrl_ppo/{name}.json")
        a, t = d["args"], d["throughput"]
        rows.append(row(
            f"`{name}.json`", f"{t['env_steps']:,}", a["threads"],
            "yes" if a.get("overlap") else "no", f"{t['env_steps_per_s_overall']:,.0f}",
            f"{t['env_steps_per_s_env_alone']:,.0f}", f"**{t['overall_over_env_alone']:.2f}**",
            f"{t['cores_busy']:.2f}",
        ))  # fmt: skip
    head = ["run", "env steps", "threads", "`--overlap`", "env steps/s overall",
            "env alone", "overall / env alone", "cores busy"]  # fmt: skip
    return table(head, "lrrlrrrr", rows)
