"""Fill the docs' result tables from the result files (and the ``fixed`` observation's
table from ``observation_fields()``), so that they cannot drift.

    python -m experiments docs           # rewrite the marked blocks
    python -m experiments docs --check   # exit 1 if a block is stale

A block is marked ``<!-- results:NAME -->`` ... ``<!-- /results -->`` in a markdown file;
``BLOCKS[NAME]`` renders its content from ``experiments/results/``. Numbers outside
blocks are checked by ``tests/experiments/test_reproduce.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from experiments.common.output import ROOT
from experiments.docs import bots, ladder, layout, training
from experiments.docs.markdown import pct, rate, result, results, row, table
from mamma_mia_env.game.fields import observation_fields
from mamma_mia_env.game.observe import observation_slices
from mamma_mia_env.plumbing.arguments import ArgumentParser
from mamma_mia_env.plumbing.files import write_atomic

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COUNTS = (2, 3, 4, 5)
MARK = re.compile(r"(<!-- results:(\w+) -->\n)(.*?)(<!-- /results -->)", re.S)


def _leaderboards() -> dict[int, dict[str, dict]]:
    out = {}
    for n in COUNTS:
        out[n] = {r["agent"]: r for r in result(f"leaderboard/{n}p.json")["results"]}
    return out


def leaderboard_table() -> str:
    boards = _leaderboards()
    order = sorted(boards[2], key=lambda a: -boards[4][a]["win_rate"])  # ties: 2-player order
    rows = [row(a, *(rate(boards[n][a]) for n in COUNTS)) for a in order]
    rows.append(row("*chance*", *(pct(1 / n) for n in COUNTS)))
    return table(["agent", *(f"{n} players" for n in COUNTS)], "l" + "r" * len(COUNTS), rows)


def leaderboard_delivered() -> str:
    boards = _leaderboards()
    parts = []
    for n in COUNTS:
        rows = sorted(boards[n].values(), key=lambda r: r["rank"])
        parts.append(
            f"{n} players " + ", ".join(f"{r['agent']} {r['mean_delivered']:.2f}" for r in rows)
        )
    return "Mean delivered orders per game: " + "; ".join(parts) + ".\n"


def learner_env_speed() -> str:
    """The learner-seat entry points' env steps/s (experiments/benchmark/learner_env_speed.py)."""
    names = {
        "learner_vector": "`MammaMiaLearnerVectorEnv` (gymnasium `VectorEnv`)",
        "sb3_vecenv": "`MammaMiaSB3VecEnv` (SB3 `VecEnv`)",
        "sync_vector_gym": "`SyncVectorEnv` of B `MammaMiaGymEnv`",
    }
    docs = list(results("learner_env_speed/*p_b*.json").values())
    docs.sort(key=lambda d: (d["settings"]["batch"], -d["settings"].get("numba_threads", 0)))
    cores = docs[0]["provenance"]["machine"]["cores"]
    heads = []
    for d in docs:
        threads = d["settings"].get("numba_threads")
        extra = f", {threads} numba thread" if threads and threads != cores else ""
        heads.append(f"B = {d['settings']['batch']}{extra}: steps/s (x SyncVectorEnv)")
    rows = [
        row(
            name,
            *(
                f"{r['median_steps_per_s']:,.0f} (x{r['median_ratio_to_sync_vector_gym']:.1f})"
                for r in (d["report"][key] for d in docs)
            ),
        )  # fmt: skip
        for key, name in names.items()
    ]
    s = docs[0]["settings"]
    loads = ", ".join(f"{d['provenance']['machine']['load_average']}" for d in docs)
    return table(["entry point", *heads], "l" + "r" * len(docs), rows) + (
        f"\n{s['players']} players against `{s['opponent']}`, random legal learner actions "
        f"drawn outside the timing, {s['repeats']} interleaved slices of "
        f"{s['seconds_per_slice']:g} s per row (medians); load average {loads} on {cores} cores.\n"
    )


def omp_wait() -> str:
    """Engine speed under OpenMP's waiting policies (the omp_wait records): one table per
    run (a loaded and an idle machine)."""
    out = ""
    for name in ("omp_wait/loaded.json", "omp_wait/idle.json"):
        med = (d := result(name))["median"]
        m = d["provenance"]["machine"]
        rows = [
            row(
                pol,
                *(
                    f"{med[env][pol]:,.0f} (x{med[env][pol] / med[env]['libgomp default']:.2f})"
                    for env in med
                ),
            )  # fmt: skip
            for pol in next(iter(med.values()))
        ]
        head = ["OMP_WAIT_POLICY", *med]
        out += f"`{name}`: load average {m['load_average']} on {m['cores']} cores at the start\n\n"
        out += table(head, "l" + "r" * len(med), rows) + "\n"
    d = result("omp_wait/loaded.json")
    return out + (
        f"Medians of {d['repeats']} fresh processes per cell ({d['seconds']:g} s timed each), "
        "the policies interleaved; x: against libgomp's default.\n"
    )


def result_files_table() -> str:
    """Every committed result file with the command that makes it (the reproduce registry)."""
    from experiments.reproduce.comparison import result_files
    from experiments.reproduce.records import RECORDS
    from experiments.reproduce.registry import EXPERIMENTS

    out = []
    for mode in ("full", "quick"):
        files, rows = result_files(mode), []
        for e in EXPERIMENTS:
            mine = [(f, k) for f, (name, k, _) in files.items() if name == e.name]
            if mine:
                listed = "; ".join(
                    f"{kind}: " + ", ".join(f"`{f}`" for f, k in mine if k == kind)
                    for kind in dict.fromkeys(k for _, k in mine)
                )
                rows.append(row(f"`{e.name}`", f"`{files[mine[0][0]][2]}`", listed))
        if mode == "full":
            rows += [
                row(f"({r.name})", f"`{c}`", f"record: `{f}`")
                for r in RECORDS
                for f, c in r.commands.items()
            ]
        where = "experiments/results/" if mode == "full" else "experiments/results/quick/"
        out.append(
            f"`--{mode}`, files in `{where}`:\n\n"
            + table(["`--only`", "command", "files"], "lll", rows)
        )
    return "\n".join(out)


def integrations_speed() -> str:
    """RLlib and Tianshou training throughput (experiments.train.train_{rllib,tianshou}), each
    shown with the command that makes it (the reproduce registry's)."""
    from experiments.reproduce.registry import EXPERIMENTS

    commands = {e.name: e.command("full") for e in EXPERIMENTS}
    rows, loads = [], []
    for library, sampling in (
        ("rllib", "env_steps_per_s_sampling_median"),
        ("tianshou", "env_steps_per_s_collect_median"),
    ):
        d = result(f"{library}/2p.json")
        cmd = "python " + " ".join((commands[f"{library}_2p"] or [])[:-2])  # without --out
        rows.append(row(d["library"], f"`{cmd}`", f"{d['env_steps']:,}", f"{d[sampling]:,.0f}",
                        f"{d['env_steps_per_s_overall']:,.0f}"))  # fmt: skip
        loads.append(f"{d['provenance']['machine']['load_average']}")
    head = ["library", "run", "env steps", "env steps/s sampling", "env steps/s overall"]
    return table(head, "llrrr", rows) + (
        f"\nLoad average {' and '.join(loads)} at the start of each run, on "
        f"{d['provenance']['machine']['cores']} cores; torch with one thread.\n"
    )


def ray_tournament() -> str:
    """The same tournament on the local and the Ray backend (reproduce's tournament_*_4p)."""
    from experiments.reproduce.comparison import strip  # the fields that say how a run was made go

    docs = {b: result(f"backend_tournament/{b}_4p.json") for b in ("local", "ray")}
    same = strip(docs["local"]) == strip(docs["ray"])
    secs = ", ".join(f"{b} {d['elapsed_seconds']:.1f} s" for b, d in docs.items())
    return (
        f"Wall time: {secs} (Ray's includes starting and stopping its local instance); "
        f"results {'identical' if same else 'DIFFERENT'} apart from the command line and "
        "timings.\n"
    )


def observation_fields_table(mode: str) -> str:
    """docs/ENV.md's table of the ``mode`` observation, from ``observation_fields``."""
    slices = observation_slices(mode)
    rows = []
    for f in observation_fields(mode):
        sl = slices[f.section]
        where = f"{sl.start}" if sl.stop - sl.start == 1 else f"{sl.start}-{sl.stop - 1}"
        shape = "(" + ", ".join(map(str, f.shape)) + ("," if len(f.shape) == 1 else "") + ")"
        rows.append(row(f"`{f.name}`", shape, f"0-{f.high}", f"{where} (`{f.section}`)", f.meaning))
    return table(["field", "shape", "values", "entries (section)", "meaning"], "lllll", rows)


BLOCKS: dict[str, Callable[[], str]] = {
    "leaderboard": leaderboard_table,
    "leaderboard_delivered": leaderboard_delivered,
    "learner_env_speed": learner_env_speed,
    "cleanrl_ppo": training.cleanrl_ppo,
    "omp_wait": omp_wait,
    "integrations_speed": integrations_speed,
    "ray_tournament": ray_tournament,
    "search_strength": bots.search_strength_table,
    "result_files": result_files_table,
    "bot_speed": bots.bot_speed_table,
    "bot_kernels": bots.bot_kernels,
    "shipped_policy": training.shipped_policy,
    "cleanrl_defaults": training.cleanrl_defaults,
    "champion_tuning": bots.champion_tuning,
    "champion_strength": bots.champion_strength,
    "champion_speed": bots.champion_speed,
    "ladder_ratings": ladder.ladder_ratings,
    "ladder_anchors": ladder.anchors_table,
    "ppo_strength": training.ppo_strength,
    "ten_minutes": training.ten_minutes,
    "all_counts": training.all_counts,
    "training_speed": training.training_speed,
    "cleanrl_warm_start": training.cleanrl_warm_start,
    "vs_search": training.vs_search,
    "vs_search_strength": training.vs_search_strength,
    "expert_iteration": training.expert_iteration,
    "expert_iteration_strength": training.expert_iteration_strength,
    "expert_2p": training.expert_2p,
    "champion_priors": training.champion_priors,
    "fixed_observation_fields": lambda: observation_fields_table("fixed"),
    "top_card_observation_fields": lambda: observation_fields_table("top_card"),
    "layout_speed": layout.layout_speed,
}


def render(text: str) -> str:
    def fill(m: re.Match) -> str:
        name = m.group(2)
        if name not in BLOCKS:
            raise ValueError(f"unknown results block {name!r}; known: {', '.join(BLOCKS)}")
        return m.group(1) + BLOCKS[name]() + m.group(4)

    return MARK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m experiments docs", description=__doc__)
    ap.add_argument("--check", action="store_true", help="only report stale blocks")
    from experiments.common.arguments import checked  # every flag checked

    args = checked(ap).parse_args(argv)
    stale = []
    for path in DOCS:
        text = path.read_text()
        try:
            new = render(text)
        except (OSError, ValueError, KeyError) as exc:  # a block, or a result file it reads
            ap.exit(2, f"{ap.prog}: error: {path.relative_to(ROOT)}: {exc}\n")
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                write_atomic(path, new, "document")
    verb = "stale" if args.check else "rewrote"
    print(f"{verb}: {', '.join(map(str, stale))}" if stale else "docs match the result files")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.docs.generate"))
