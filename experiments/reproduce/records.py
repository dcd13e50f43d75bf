"""Committed result files that ``reproduce`` does not re-run, with the command that made
each and why it is not checked (timings of one machine's state, fuzz runs with unseeded
draws, runs too long for ``--full``). Each file is named by its path in the results
(``<folder>/<file>``). ``tests/experiments/test_reproduce.py`` fails on a committed file
that is neither made by an experiment nor recorded here.
"""

from __future__ import annotations

from experiments.reproduce.entries import Record

_R = "experiments/results/"
#: the last commit whose networks read the ``recall`` observation layout (retired since)
_RECALL_AT = "89ad8e7"
_RECALL = (
    f" (made with the recall observation layout: run it at commit {_RECALL_AT}, the last "
    "with that layout, retired since)"
)
_FUZZ = (
    "MAMMA_MIA_FUZZ_EXAMPLES=1000 MAMMA_MIA_FUZZ_REPORT=experiments/results/{} python -m pytest "
    "tests/fuzz/test_fuzz_states.py tests/fuzz/test_fuzz_envs.py tests/fuzz/test_fuzz_files.py"
)
_FUZZ_TESTS = (
    "tests/fuzz/test_fuzz_states.py tests/fuzz/test_fuzz_envs.py tests/fuzz/test_fuzz_files.py "
    "tests/fuzz/test_fuzz_replays.py"
)


def _made(command: str, stem: str, kinds: tuple[str, ...] = ("json", "png")) -> dict[str, str]:
    """The files ``<stem>.<kind>`` that one run of ``command`` made: the first listed
    with the command, the others as made by the same command."""
    first, *others = (f"{stem}.{kind}" for kind in kinds)
    return {first: command} | dict.fromkeys(others, "the same command")


RECORDS: list[Record] = [
    Record(
        name="bot_kernels",
        commands={
            "bot_kernels/against_562aa93.json": (
                "the ab_bot_kernels script of commit a9d03b6 with --base <checkout of 562aa93> "
                "--base-commit 562aa93 --repeats 11"
            ),
        },
        reason=(
            "the bots' decision kernels against those of commit 562aa93 loaded side by side "
            "(why the kernels compile without numba's runtime: agents/compiled/jit.py); it "
            "needs that checkout, and it times one machine's state: a record, not re-run"
        ),
    ),
    Record(
        name="learner_env_speed_one_thread",
        commands={
            "learner_env_speed/2p_b256_t1.json": (
                "NUMBA_NUM_THREADS=1 python -m experiments.benchmark.learner_env_speed "
                "--batch 256 --export"
            ),
        },
        reason=(
            "the one-thread learner env speed was measured before OpenMP waits became "
            "passive: a record of that state, not re-run"
        ),
    ),
    Record(
        name="cleanrl_ppo_builder",
        commands=_made(
            "python -m experiments.train.cleanrl_ppo --export --name 2p_builder "
            "--num-players 2 --opponent builder --total-timesteps 300000 --num-envs 128 "
            "--num-steps 32 --eval-games 512 --observation-mode recall" + _RECALL,
            "cleanrl_ppo/cleanrl_ppo_2p_builder",
        ),
        reason=(
            "a training run (minutes, its throughput timed), repeatable from its seed on the "
            "same library versions (tests/experiments/test_cleanrl_ppo.py)"
        ),
    ),
    Record(
        name="search_strength_headline",
        commands=_made(
            "python -m experiments.evaluate.search_strength --worlds 2,4,8,16 --games 100 "
            "--headline-games 1000 --headline-players 4 --block 100 --players 2,4 "
            "--opponents builder,ppo --workers 1 --positions 30, continued with --resume "
            "FILE --worlds 2,4,8,16,32 --games 300 --headline-games 2000 (the file's "
            "args and history hold both runs' arguments)",
            "search_strength/headline",
        )
        | _made(
            "python -m experiments.evaluate.search_strength --worlds 2,4,8,16,32 --games 400 "
            "--headline-games 2000 --players 2,4 --opponents builder,ppo (stopped after "
            "its first row, the two-player headline; the file holds its arguments)",
            "search_strength/2p_headline",
        ),
        reason=(
            "the headline strength runs (2,000 games per headline row, hours of "
            "CPU): deterministic for their arguments, but too long for --full; the "
            "search_strength_2p/4p experiments check the same code deterministically"
        ),
    ),
    Record(
        name="omp_wait",
        commands={
            "omp_wait/loaded.json": (
                "the omp_wait script of commit 4429bc3 with --repeats 5 --seconds 3 --export "
                "(load average 3.3); python -m experiments.benchmark.ab --base . --base-env "
                "OMP_WAIT_POLICY=ACTIVE times the same choice now"
            ),
            "omp_wait/idle.json": (
                "the omp_wait script of commit ae77b40 on an otherwise idle machine (load "
                "average 1.5)"
            ),
        },
        reason=(
            "what OpenMP's waiting policy does depends on what else the machine runs (with "
            "the other core busy, spinning workers make the learner env ~20x slower; on an "
            "idle machine they make it faster): the two runs are records of both situations, "
            "not a ratio a re-run could check"
        ),
    ),
    Record(
        name="cluster_scaling",
        commands={
            "cluster_scaling/cluster_scaling.json": (
                "the cluster_scaling script (last in commit c7deff1) with --out FILE (the "
                "file's args hold its settings; load average 5.0)"
            ),
        },
        reason=(
            "the fan-out's cost per item on Ray's test cluster against the local pool, on "
            "one shared machine: a record of that run, which docs/PERFORMANCE.md plans a "
            "cluster from; tests/tournament/test_ray_cluster.py checks that Ray's results "
            "are the local ones"
        ),
    ),
    Record(
        name="layout_speed",
        commands={
            "layout_speed/layout_speed.json": (
                "the layout_speed script (last in commit c7deff1) with --export (load average "
                "8.1); python -m experiments.benchmark.ab --base . --base-env "
                f"MAMMA_MIA_AB_LAYOUT=recall timed the same choice up to commit {_RECALL_AT} "
                "(the recall layout is retired since)"
            ),
        },
        reason=(
            "the fixed observation layout against recall, with the write bound: the layout "
            "is chosen (docs/PERFORMANCE.md quotes this run); a record, not re-run"
        ),
    ),
    Record(
        name="profile_vector",
        commands={
            "profile_vector/profile_vector.json": (
                "the profile_vector script (last in commit c7deff1) with --batch 4096 "
                "--seconds 3 --export, before result files recorded their provenance (the "
                "file names its machine); bot_speed's step profile splits a step now"
            ),
        },
        reason=(
            "a one-off split of a vector-env step into its kernels, measured on an otherwise "
            "idle machine; the fixes it found are made (docs/PERFORMANCE.md): a record"
        ),
    ),
    Record(
        name="fuzz_long_run",
        commands={
            **{f: _FUZZ.format(f) for f in ("fuzz_long_run/1.json", "fuzz_long_run/2.json")},
            **{
                f"fuzz_long_run/{k}.json": (
                    f"MAMMA_MIA_FUZZ_EXAMPLES=400 MAMMA_MIA_FUZZ_REPORT={_R}fuzz_long_run/{k}.json "
                    f"python -m pytest {tests} -p no:cacheprovider --hypothesis-seed={seed}"
                )
                for k, tests, seed in (
                    ("3", _FUZZ_TESTS, 9),
                    ("3b", "tests/fuzz/test_fuzz_envs.py -k agent_act_batch", 9),
                    ("4", _FUZZ_TESTS, 10),
                )
            },
        },
        reason=(
            "hypothesis draws the cases at random (no fixed seed) and a test stops at its first "
            "failure, at the commit the file names: records of what those runs found "
            "(docs/TESTING.md), not deterministic results"
        ),
    ),
    Record(
        name="cleanrl_defaults",
        commands=_made(
            "python -m experiments.train.cleanrl_defaults --export",
            "cleanrl_defaults/update",
        )
        | _made(
            "python -m experiments.train.cleanrl_defaults --study warm-start --seeds 2 --export",
            "cleanrl_defaults/warm_start",
        ),
        reason=(
            "training runs (minutes); their win shares are repeatable from their seeds on "
            "the same library versions, their throughputs are timings of that machine"
        ),
    ),
    Record(
        name="cleanrl_ten_minutes",
        commands=_made(
            "python -m experiments.train.cleanrl_ppo --preset ten-minutes --export",
            "cleanrl_ppo/cleanrl_ppo_2p_ten_minutes",
            ("json", "png", "wall_curve.png", "npz"),
        ),
        reason=(
            "training runs against a wall-clock budget (the goal: minutes to a good policy); "
            "their win rates are repeatable from their seeds at equal env steps on the same "
            "library versions, but where the budget stops a run depends on the machine's "
            "speed and load, and the wall times are timings of that machine"
        ),
    ),
    Record(
        name="cleanrl_all_counts",
        commands=_made(
            "python -m experiments.train.cleanrl_ppo --preset all-counts --threads 1 "
            "--export (made at 10ab810, whose preset had one thread and the env in two "
            "worker processes, an option since removed; run with --out "
            "runs/all_counts, its files copied as --export copies them)",
            "cleanrl_ppo/cleanrl_ppo_all_counts",
            ("json", "png", "wall_curve.png", "npz"),
        )
        | _made(
            "python -m experiments.train.cleanrl_ppo --preset all-counts "
            "--name all_counts_overlap --export",
            "cleanrl_ppo/cleanrl_ppo_all_counts_overlap",
            ("json", "png", "wall_curve.png", "npz"),
        )
        | {
            f: c
            for name, flags in (("plain", " --overlap false --threads 2"), ("overlap", ""))
            for f, c in _made(
                "python -m experiments.train.cleanrl_ppo --preset all-counts --wall-minutes 0 "
                "--total-timesteps 1500000 --warm-start-games 0 --curve-every 0 "
                f"--final-games 0{flags} --name all_counts_throughput_{name} --export",
                f"cleanrl_ppo/cleanrl_ppo_all_counts_throughput_{name}",
            ).items()
        },
        reason=(
            "training runs against a wall-clock budget and timings of the training loop: "
            "their win rates are repeatable from their seeds at equal env steps on the same "
            "library versions, their throughputs are timings of that machine"
        ),
    ),
    Record(
        name="counts_mixed_vs_5p",
        commands={
            "ab/counts_mixed_vs_5p.json": (
                "python -m experiments.benchmark.ab --base . --base-env MAMMA_MIA_AB_PLAYERS=5 "
                "--new-env MAMMA_MIA_AB_PLAYERS=mixed --comparison counts_learner_256,"
                "counts_learner_4096,counts_engine_256,counts_engine_4096 "
                "--name counts_mixed_vs_5p --export"
            ),
        },
        reason="timings of one machine's state (a mixed batch against five players): a record",
    ),
    Record(
        name="observation_ab",
        commands={
            f"observation_ab/2p_{mode}.json": (
                "python -m experiments.train.cleanrl_ppo --preset ten-minutes --wall-minutes 0 "
                f"--total-timesteps 2000000 --observation-mode {mode} --final-games 1000 "
                "--curve-every 1000000 --curve-games 200 --env-alone-seconds 0 "
                f"--name ab_{mode} (its result.json; made at 0335a06, stamped 816a5dc, "
                "which changed only a docstring and docs; the recall layout is retired since "
                f"commit {_RECALL_AT})"
            )
            for mode in ("recall", "fixed")
        },
        reason=(
            "a trial of the fixed observation against recall at two players (one seed, the two "
            "runs side by side on the shared machine): training runs, repeatable from their "
            "seed on the same library versions, not re-run by reproduce"
        ),
    ),
    Record(
        name="champion_priors",
        commands={
            **{
                f"champion_prior/{n}p_summary.json": (
                    f"the SB3 training script of commit b4f26c7 (train_ppo.py) with --config "
                    f"experiments/configs/ppo_{n}p.json --no-progress (its summary.json)"
                )
                for n in (2, 4)
            },
            "champion_prior/2p_final_eval.json": (
                "the SB3 training script of commit 7b22390 with --config "
                "experiments/configs/ppo_2p.json --evaluate agents/policies/champion_prior_2p.npz "
                "--workers 2 --set name=champion_prior_2p"
            ),
            "champion_prior/4p_final_eval.json": (
                "the SB3 training script of commit 7b22390 with --config "
                "experiments/configs/ppo_4p.json --evaluate agents/policies/ppo_4p.npz --workers 2 "
                "(that network is champion_prior/4p.npz since)"
            ),
            **{
                f"champion_prior/{n}p.npz": (
                    f"the SB3 training script of commit b4f26c7 (train_ppo.py) with --config "
                    f"experiments/configs/ppo_{n}p.json, its export (bundled as ppo_{n}p.npz "
                    "until commit c7deff1)"
                )
                for n in (2, 4)
            },
        },
        reason=(
            "the SB3 MaskablePPO networks the earlier champions were tuned with (2p.npz, "
            "4p.npz), their training summaries and their final evaluations against each "
            "heuristic bot. The script that made them is retired, so they are records"
        ),
    ),
    Record(
        name="expert_iteration",
        commands={
            f: c
            for stem, preset in (("vs_search", "vs-search"), ("vs_search_2", "vs-search-2"))
            for f, c in _made(
                f"python -m experiments.train.expert_iteration --preset {preset} --export"
                + _RECALL,
                f"expert_iteration/expert_iteration_2p_{stem}",
                ("json", "npz"),
            ).items()
        },
        reason=(
            "an hour, then half an hour, of labelling the network's games with a search bot and "
            "fitting it (the goal: the plain network against search); the labels and the fit "
            "are repeatable from the seed on the same library versions, the wall times are "
            "timings of that machine"
        ),
    ),
    Record(
        name="cleanrl_vs_search",
        commands={
            f: c
            for leg in (1, 2)
            for f, c in _made(
                f"python -m experiments.train.cleanrl_ppo --preset vs-search-{leg} --export"
                + _RECALL,
                f"cleanrl_ppo/cleanrl_ppo_2p_vs_search_{leg}",
                ("json", "png", "wall_curve.png", "npz"),
            ).items()
        },
        reason=(
            "two fine-tuning legs against the search bot (the goal: the plain network against "
            "search), an hour of training against a wall-clock budget; the second starts from "
            "the first's policy file. Where the budget stops a leg depends on the machine's "
            "speed and load"
        ),
    ),
    Record(
        name="trained_policy_scorecards",
        commands={
            f"scorecards/{named}_2p_{ladder.replace(',', '_')}.json": (
                f"python -m mamma_mia_agents evaluate experiments/results/{policy}.npz "
                f"--players 2 --ladder {ladder} --games 2000 --no-progress --out "
                f"{_R}scorecards/{named}_2p_{ladder.replace(',', '_')}.json" + _RECALL
            )
            for named, policy, ladder in (
                ("vs_search", "cleanrl_ppo/cleanrl_ppo_2p_vs_search_2", "random,builder,search"),
                (
                    "expert_iteration",
                    "expert_iteration/expert_iteration_2p_vs_search",
                    "random,builder,search",
                ),
            )
        },
        reason=(
            "scorecards of trained policy files that read the retired recall observation "
            "layout: this version refuses those files, so the scorecards cannot be re-made "
            "(docs quote them); a record"
        ),
    ),
]
