"""The docs' training blocks (``experiments/docs/generate.py`` fills them): the CleanRL-style
PPO run, the A/B of its update settings, where the shipped policy stands and the
champions' prior networks. Each
renders its block from the committed result files, so the numbers cannot drift."""

from __future__ import annotations

import json
from pathlib import Path

from experiments.common.output import RESULTS, short_name
from experiments.docs.ladder import pairings_table


def cleanrl_ppo() -> str:
    """The CleanRL-style PPO run (python -m experiments.train.cleanrl_ppo --export): its throughput,
    overall / env alone (the target: 0.5) and the update's share of the wall
    time."""
    lines = [
        "| run | env steps | env steps/s: overall / rollout / env only | overall / env only | "
        "overall / env alone | update share | win share trained (random) | orders delivered "
        "trained (random) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in sorted((RESULTS / "cleanrl_ppo").glob("cleanrl_ppo_*.json")):
        d = json.loads(p.read_text())
        a, t, ev = d["args"], d["throughput"], d["evaluation"]
        tr, rnd = ev["trained"], ev["random"]
        ratio = t["env_steps_per_s_overall"] / t["env_steps_per_s_env_only"]
        honest = t.get("overall_over_env_alone")  # none in files before the env-alone step
        warm = a.get("warm_start_games", 0)
        warm_text = (
            f" after a warm start on {warm:,} `{a['warm_start_teacher']}` games" if warm else ""
        )
        if a.get("init_policy"):
            warm_text += f" from `{Path(a['init_policy']).name}`"
        lines.append(
            f"| `{p.name}`: {a['num_players']}p vs `{a['opponent']}`{warm_text}, "
            f"{a['num_envs']} games x "
            f"{a['num_steps']} steps, {a['update_epochs']} epochs of {a['num_minibatches']} "
            f"minibatches at learning rate {a['learning_rate']:g} | {t['env_steps']:,} | "
            f"{t['env_steps_per_s_overall']:,.0f} / {t['env_steps_per_s_rollout']:,.0f} / "
            f"{t['env_steps_per_s_env_only']:,.0f} | {ratio:.2f} | "
            f"{'-' if honest is None else f'{honest:.2f}'} | {t['share_update']:.2f} | "
            f"{tr['win']:.3f} ({rnd['win']:.3f}) | {tr['delivered']:.2f} ({rnd['delivered']:.2f}) |"
        )
    return "\n".join(lines) + "\n"


def _rate(d: dict) -> str:
    """A result's win rate with its 95% interval."""
    return (
        f"{100 * d['win_rate']:.1f}% ({100 * d['win_rate_low']:.1f}-{100 * d['win_rate_high']:.1f})"
    )


#: The chance of a seat at each table size, in words, for the prose blocks.
_TABLE = {2: "two", 3: "three", 4: "four", 5: "five"}


def _all_counts_finals() -> dict[int, dict]:
    """The one network's final evaluation against ``builder`` per player count."""
    d = json.loads((RESULTS / "cleanrl_ppo" / "cleanrl_ppo_all_counts.json").read_text())
    return {int(n): f for n, f in d["evaluation"]["final_by_count"].items()}


def _vs_search(card: Path, n: int) -> dict | None:
    """A scorecard's pairing against the search bot at ``n`` players, if it has one."""
    pairings = json.loads(card.read_text())["players"].get(str(n), {}).get("pairings", [])
    return next((r for r in pairings if r["opponent"] == "search"), None)


def shipped_policy() -> str:
    """What the shipped ``ppo`` beats and what beats it (README's claim): the one
    network's final evaluation against ``builder`` at each count, its scorecards against
    the search bot (whichever counts have one), the champion's, and the demo tournament."""
    finals = _all_counts_finals()
    vs_builder = ", ".join(
        f"{_rate(f)} of {f['games']:,} {_TABLE[n]}-player games (chance {100 / n:.0f}%)"
        for n, f in sorted(finals.items())
    )
    searched = []
    for n in sorted(finals):
        card = RESULTS / "scorecards" / f"ppo_{n}p_random_builder_search.json"
        row = _vs_search(card, n) if card.exists() else None
        if row is not None:
            searched.append(f"{_rate(row)} at {n} players (`scorecards/{card.name}`)")
    champ = _vs_search(RESULTS / "scorecards" / "champion_2p_search.json", 2)
    demo = json.loads((RESULTS / "demo_tournament" / "demo.json").read_text())
    rates = {r["agent"]: r for r in demo["results"]}
    ppo, builder = rates["ppo"], rates["builder"]
    against_search = (
        f" Against the search bot (`--agents search`) in every other seat it wins "
        f"{'; '.join(searched)}."
        if searched
        else ""
    )
    champion = (
        f" The strongest agent is the champion, the search bot guided by a network, which "
        f"wins {_rate(champ)} of its two-player games against the search bot "
        f"(`scorecards/champion_2p_search.json`)."
        if champ
        else ""
    )
    return (
        f"The shipped policy (`--agents ppo`) is one network for 2-5 players "
        f"(`agents/policies/ppo.npz`). Against `builder` in every other seat it wins "
        f"{vs_builder} (`cleanrl_ppo/cleanrl_ppo_all_counts.json`).{against_search}"
        f"{champion} In the mixed four-player field of the "
        f"README's demo tournament `ppo` wins {100 * ppo['win_rate']:.1f}% and `builder` "
        f"{100 * builder['win_rate']:.1f}% of their games (`demo_tournament/demo.json`).\n"
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
    lines = [
        "| step | command (`python -m experiments.`) | starts from | training wall time | final "
        "evaluation, 2,000 duplicate deals (seed 230,023) | file |",
        "|---:|---|---|---:|---|---|",
    ]
    total = 0.0
    for i, (command, name) in enumerate(EXPERT_2P, 1):
        d = json.loads((RESULTS / name).read_text())
        final = d["final"] if "final" in d else d["evaluation"]["final"]
        rival = final.get("opponent", d["args"]["opponent"])
        start = d["args"].get("init_policy")  # the ten-minute run predates the flag
        minutes = d["wall"]["training_seconds"] / 60
        total += minutes
        lines.append(
            f"| {i} | `{command}` | {f'`{Path(start).name}`' if start else 'scratch'} | "
            f"{minutes:.1f} min | vs `{rival}`: {_rate(final)} | `{name}` |"
        )
    return "\n".join(lines) + f"\n\n{total:.0f} min of training wall time in all.\n"


def champion_priors() -> str:
    """The SB3 networks the champions were tuned with (``champion_prior_{2,4}p.npz``):
    their final evaluations against each heuristic bot and their training runs."""
    folder = RESULTS / "champion_prior"
    evals = {n: json.loads((folder / f"{n}p_final_eval.json").read_text()) for n in (2, 4)}
    runs = {n: json.loads((folder / f"{n}p_summary.json").read_text())["timings"] for n in (2, 4)}
    rows = {
        "**win rate vs `builder`**, duplicate-deal games at seed 2": lambda n: (
            f"**{_rate(evals[n]['builder'])}** of {evals[n]['builder']['games']:,}"
            + (" vs three `builder`s" if n == 4 else "")
        ),
        "vs `counter` / `hoarder` / `forgetful` (seed 2)": lambda n: " / ".join(
            f"{100 * evals[n][b]['win_rate']:.1f}%" for b in ("counter", "hoarder", "forgetful")
        ),
        "training time, wall (CPU)": lambda n: (
            f"{runs[n]['train_seconds'] / 60:.1f} min ({runs[n]['train_cpu_seconds'] / 60:.1f} min)"
        ),
        "PPO steps (learner decisions)": lambda n: f"{runs[n]['ppo_timesteps']:,}",
    }
    lines = [
        "| | 2 players (`champion_prior_2p.npz`) | 4 players (`champion_prior_4p.npz`) |",
        "|---|---:|---:|",
    ]
    lines += [f"| {label} | {cell(2)} | {cell(4)} |" for label, cell in rows.items()]
    return "\n".join(lines) + (
        "\n\n95% Wilson intervals in brackets (`champion_prior/2p_final_eval.json`, "
        "`champion_prior/4p_final_eval.json`, `champion_prior/{2,4}p_summary.json`).\n"
    )


def _wins(runs: list[dict]) -> str:
    return ", ".join(f"{r['win']:.3f}" for r in runs)


def cleanrl_defaults() -> str:
    """The CleanRL-style PPO's update settings, old and new, at equal env steps
    (experiments/train/cleanrl_defaults.py)."""
    doc = json.loads((RESULTS / "cleanrl_defaults" / "update.json").read_text())
    lines = [
        "| update epochs, learning rate | win share vs `builder`, seeds 1-"
        f"{doc['args']['seeds']} | mean (sd) | orders delivered | overall / env alone "
        "(median) | update share (median) |",
        "|---|---|---|---:|---:|---:|",
    ]
    for label, res in doc["settings"].items():
        runs, s = res["runs"], res["summary"]
        share = sorted(r["share_update"] for r in runs)[len(runs) // 2]
        lines.append(
            f"| {label} | {_wins(runs)} | "
            f"{s['win_mean']:.3f} ({s['win_sd']:.3f}) | {s['delivered_mean']:.2f} | "
            f"{s['overall_over_env_only_median']:.2f} | {share:.2f} |"
        )
    steps = next(iter(doc["settings"].values()))["runs"][0]["env_steps"]
    games = doc["args"]["eval_games"]
    return "\n".join(lines) + (
        f"\n\n{steps:,} env steps per run, {games} evaluation games each "
        "(`cleanrl_defaults/update.json`).\n"
    )


def ten_minutes() -> str:
    """The "minutes to a good policy" goal: the ``--preset ten-minutes`` run
    (python -m experiments.train.cleanrl_ppo --preset ten-minutes --export), its final
    duplicate-deal evaluation and where its wall time went."""
    d = json.loads((RESULTS / "cleanrl_ppo" / "cleanrl_ppo_2p_ten_minutes.json").read_text())
    a, f, w, t = d["args"], d["evaluation"]["final"], d["wall"], d["throughput"]
    warm = d["warm_start"]
    load = ", ".join(f"{x:.1f}" for x in w["load_average"])
    bc = (
        f"the imitation warm start ({a['warm_start_games']:,} `{a['warm_start_teacher']}` "
        f"self-play games, {warm.get('bc_decisions', 0):,} decisions, {a['warm_start_epochs']} "
        f"epochs) {w['warm_start_seconds']:.0f} s, "
        if a["warm_start_games"]
        else ""
    )
    sampled = f["sampled"]
    return (
        f"| win rate vs `{f['opponent']}` (sampled) | games (seed) | env steps | training wall "
        "time (CPU time) | overall / env alone |\n|---:|---:|---:|---:|---:|\n"
        f"| {_rate(f)} ({100 * sampled['win_rate']:.1f}%) | "
        f"{f['games']:,} ({f['seed']:,}) | {t['env_steps']:,} | "
        f"{w['training_seconds'] / 60:.1f} min ({w['training_cpu_seconds'] / 60:.1f} min) | "
        f"{t['overall_over_env_only']:.2f} |\n\n"
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
    doc = json.loads((RESULTS / "cleanrl_defaults" / "warm_start.json").read_text())
    lines = [
        f"| setting | win rate vs `builder`, 2,000 duplicate deals, seeds 1-{doc['args']['seeds']} "
        "| mean | warm start (s, wall) | win share, sampled (script's evaluation) |",
        "|---|---|---:|---:|---|",
    ]
    for label, res in doc["settings"].items():
        runs, s = res["runs"], res["summary"]
        rates = ", ".join(_rate(r) for r in runs)
        bc = ", ".join(f"{r['warm_start_seconds']:.0f}" for r in runs)
        lines.append(
            f"| {label} | {rates} | {100 * s['final_win_rate_mean']:.1f}% | {bc} | {_wins(runs)} |"
        )
    steps = next(iter(doc["settings"].values()))["runs"][0]["env_steps"]
    return (
        "\n".join(lines)
        + f"\n\n{steps:,} env steps per run (`cleanrl_defaults/warm_start.json`).\n"
    )


#: The one network's goal against builder: 1.6 times chance at every count.
PPO_TARGETS = {(n, "builder"): 1.6 / n for n in (2, 3, 4, 5)}


def ppo_strength() -> str:
    """The shipped network's scorecards (``mamma-mia evaluate ppo``, the games a pairing
    the table says, on the evaluation seed) against its goal: 1.6 times chance against
    builder at every count."""
    return pairings_table("ppo", PPO_TARGETS)


def vs_search() -> str:
    """The two legs of ``--preset vs-search-1`` / ``vs-search-2`` (the plain network
    fine-tuned against the search bot): per leg its start, training opponents, steps,
    wall time, learning curve against ``search`` and final duplicate-deal evaluation."""
    lines = [
        "| leg | starts from | trained against | env steps (env steps/s) | training wall "
        "time | curve vs `search` (400 deals): first, best, last | final vs `search`, "
        "argmax (sampled) | file |",
        "|---|---|---|---:|---:|---|---|---|",
    ]
    for leg in (1, 2):
        name = f"cleanrl_ppo/cleanrl_ppo_2p_vs_search_{leg}.json"
        d = json.loads((RESULTS / name).read_text())
        a, f, w, t = d["args"], d["evaluation"]["final"], d["wall"], d["throughput"]
        rates = [c["win_rate"] for c in d["curve"]]
        curve = f"{100 * rates[0]:.1f}%, {100 * max(rates):.1f}%, {100 * rates[-1]:.1f}%"
        rivals = ", ".join(f"`{short_name(o)}`" for o in a["opponent"].split(","))
        lines.append(
            f"| `--preset vs-search-{leg}` | `{Path(a['init_policy']).name}` | {rivals} | "
            f"{t['env_steps']:,} ({t['env_steps_per_s_overall']:,.0f}) | "
            f"{w['training_seconds'] / 60:.1f} min | {curve} | "
            f"**{_rate(f)}** ({100 * f['sampled']['win_rate']:.1f}%) | `{name}` |"
        )
    return "\n".join(lines) + "\n"


def vs_search_strength() -> str:
    """The second vs-search leg's policy file on the evaluation ladder (``mamma-mia
    evaluate``, 2,000 games a pairing), against the target for the plain network."""
    return pairings_table("vs_search", {(2, "search"): 0.5})


def expert_iteration() -> str:
    """``experiments/train/expert_iteration.py --preset vs-search`` and its continuation
    ``vs-search-2``: per round the labelled positions, the network's win rate while being
    labelled, the labelling and fitting time and the curve point against ``search``;
    then each run's final duplicate-deal evaluation."""
    runs = [
        ("expert_iteration/expert_iteration_2p_vs_search.json", "vs-search"),
        ("expert_iteration/expert_iteration_2p_vs_search_2.json", "vs-search-2"),
    ]  # both, or fail
    docs = [json.loads((RESULTS / name).read_text()) for name, _ in runs]
    a, s = docs[0]["args"], docs[0]["start_curve"]
    lines = [
        f"| run | round | labelled positions ({a['games']:,} games) | network's win rate "
        f"while labelled | labelling + fit (min) | vs `{a['opponent']}` after the round, "
        f"{a['curve_games']} deals (seed {docs[0]['provenance']['seeds']['curve_seed']:,}) |",
        "|---|---:|---:|---:|---:|---|",
        f"| | start (`{Path(a['init_policy']).name}`) | - | - | - | {_rate(s)} |",
    ]
    finals, done = [], 0
    for (name, preset), d in zip(runs, docs, strict=True):
        for r in d["rounds"]:
            lines.append(
                f"| `--preset {preset}` | {done + r['round']} | {r['positions']:,} | "
                f"{100 * r['win_rate_while_labelled']:.1f}% | {r['label_seconds'] / 60:.1f} + "
                f"{r['fit_seconds'] / 60:.1f} | {_rate(r['curve'])} |"
            )
        done += len(d["rounds"])
        finals.append(
            f"after round {done} (`--preset {preset}`), **{_rate(d['final'])}**, "
            f"{d['wall']['training_seconds'] / 60:.1f} min wall of training (`{name}`)"
        )
    f = docs[0]["final"]
    return "\n".join(lines) + (
        f"\n\nThe policy against `{a['opponent']}` on {f['games']:,} duplicate deals (seed "
        f"{f['seed']:,}, the vs-search presets' final deals): {'; '.join(finals)}. The "
        "training time counts labelling, fitting and the curve.\n"
    )


def expert_iteration_strength() -> str:
    """The expert-iteration policy file on the evaluation ladder (``mamma-mia evaluate``,
    2,000 games a pairing), against the target for the plain network."""
    return pairings_table("expert_iteration", {(2, "search"): 0.5})


#: 1.6x chance against ``builder`` in every other seat: the one network's goal per count
ONE_NETWORK_TARGET = 1.6


def all_counts() -> str:
    """The one network for 2-5 players (``--preset all-counts``, the shipped ``ppo``): its
    final evaluation against ``builder`` at each count beside the goal, and where its wall
    time went (the throughput against the env alone)."""
    d = json.loads((RESULTS / "cleanrl_ppo" / "cleanrl_ppo_all_counts.json").read_text())
    w, t, finals = d["wall"], d["throughput"], d["evaluation"]["final_by_count"]
    lines = [
        "| players | win rate vs `builder` (Wilson 95%) | sampled | goal (1.6 x chance) |",
        "|---:|---|---:|---:|",
    ]
    for key, f in sorted(finals.items()):
        n = int(key)
        lines.append(
            f"| {n} | **{_rate(f)}** | {100 * f['sampled']['win_rate']:.1f}% | "
            f"{100 * ONE_NETWORK_TARGET / n:.0f}% |"
        )
    f = next(iter(finals.values()))
    load = ", ".join(f"{x:.1f}" for x in w["load_average"])
    return "\n".join(lines) + (
        f"\n\n{f['games']:,} duplicate-deal games per count at seed {f['seed']:,}; "
        f"{t['env_steps']:,} env steps in {w['training_seconds'] / 60:.1f} min of wall time "
        f"(the warm start {w['warm_start_seconds'] / 60:.1f} min, stopped by "
        f"`{w['stopped_by']}`); {t['env_steps_per_s_overall']:,.0f} env steps/s overall, "
        f"{t['env_steps_per_s_env_alone']:,.0f} for the env alone (overall / env alone "
        f"{t['overall_over_env_alone']:.2f}), {t['cores_busy']:.2f} cores busy; load "
        f"average {load} when it ended (`cleanrl_ppo/cleanrl_ppo_all_counts.json`).\n"
    )
