"""Committed result files that ``reproduce`` does not re-run, with the command that made
each and why it is not checked (A/B timings against another checkout, fuzz runs with
unseeded draws, runs too long for ``--full``). ``tests/experiments/test_reproduce.py`` fails on a
committed file that is neither made by an experiment nor recorded here.
"""

from __future__ import annotations

from experiments.reproduce.entries import Record

_R = "experiments/results/"
_AB = "python experiments/ab_speed.py --base <checkout of 0ae2421> --seconds 1.0 --batch 4096"
_FUZZ = (
    "MAMMA_MIA_FUZZ_EXAMPLES=1000 MAMMA_MIA_FUZZ_REPORT=experiments/results/{} python -m pytest "
    "tests/fuzz/test_fuzz_states.py tests/fuzz/test_fuzz_envs.py tests/fuzz/test_fuzz_files.py"
)
_FUZZ_TESTS = (
    "tests/fuzz/test_fuzz_states.py tests/fuzz/test_fuzz_envs.py tests/fuzz/test_fuzz_files.py "
    "tests/fuzz/test_fuzz_replays.py"
)
_ABL = "python experiments/ab_layout.py --seconds 1.0"
RECORDS: list[Record] = [
    Record(
        name="ab_layout_i18",
        commands={
            "ab_layout_i18.json": (
                f"{_ABL} --base <checkout of 444946b> --rounds 21 --name ab_layout_i18 --export"
            ),
            "ab_layout_i18_aec.json": (
                f"{_ABL} --base <checkout of 444946b> --rows aec --rounds 31 --out <dir> "
                "(renamed after the run)"
            ),
            "ab_layout_i18_aec_vs_i22.json": (
                f"{_ABL} --base <checkout of c9e410d> --rows aec --rounds 31 --out <dir> "
                "(renamed after the run)"
            ),
            "ab_infos_i22_aec.json": (
                f"{_ABL} --base <checkout of 444946b> --new <checkout of c9e410d> --rows aec "
                "--rounds 41 --name ab_infos_i22_aec --export"
            ),
        },
        reason=(
            "interleaved A/B timings of whole checkouts (the layered package against the code "
            "before it; the int infos alone, c9e410d, against the same base) on a "
            "shared machine: they need the other checkouts; records, not re-run"
        ),
    ),
    Record(
        name="ab_speed",
        commands={
            "ab_speed_issue9.json": f"{_AB} --repeats 31 --out {_R}ab_speed_issue9.json",
            "ab_speed_issue9_load12.json": (
                f"{_AB} --repeats 21 --out {_R}ab_speed_issue9.json (renamed after the run)"
            ),
            "ab_speed_issue9_aec.json": (
                f"{_AB} --repeats 41 --rows aec --out {_R}ab_speed_issue9_aec.json"
            ),
            "ab_speed_issue9_aec_same_code.json": (
                "python experiments/ab_speed.py --base <checkout of the same code> --seconds 1.0 "
                "--batch 4096 --repeats 41 --rows aec --out ab_speed_issue9_aec_same_code.json"
            ),
        },
        reason=(
            "interleaved A/B timings of two code versions (the input checks against the "
            "code before them, and an A/A control) on a shared machine: they need the other "
            "checkout and measure the machine's noise as much as the code (each file records "
            "its arguments, commit and load average); records, not re-run"
        ),
    ),
    Record(
        name="issue11",
        commands={
            "ab_speed_issue11.json": (
                "python experiments/ab_speed.py --base <checkout of 479b5d9> --rows "
                f"vector_copy_false,vector_copy_true --repeats 31 --batch 4096 --out {_R}"
                "ab_speed_issue11.json"
            ),
            "learner_env_speed_2p_b256_t1.json": (
                "NUMBA_NUM_THREADS=1 python experiments/learner_env_speed.py --batch 256 --export"
            ),
            "learner_env_speed_2p_b256_t1.png": "the same command",
            "cleanrl_ppo_2p_builder.json": (
                "python -m experiments.cleanrl_ppo --export --name 2p_builder --num-players 2 "
                "--opponent builder --total-timesteps 300000 --num-envs 128 --num-steps 32 "
                "--eval-games 512"
            ),
            "cleanrl_ppo_2p_builder.png": "the same command",
        },
        reason=(
            "the A/B timing needs the other checkout; the one-thread learner env speed was "
            "measured before OpenMP waits became passive (a record of that state); the "
            "CleanRL PPO run is a training run (minutes, its throughput timed), repeatable "
            "from its seed on the same library versions (tests/experiments/test_cleanrl_ppo.py)"
        ),
    ),
    Record(
        name="ab_speed_i9fix",
        commands={
            "ab_speed_i9fix.json": (
                "python experiments/ab_speed.py --base <checkout of 479b5d9> --seconds 1.0 "
                f"--batch 4096 --repeats 15 --rows vector_copy_false,vector_copy_true,aec "
                f"--out {_R}ab_speed_i9fix.json"
            ),
            "ab_speed_i9fix_vector.json": (
                "python experiments/ab_speed.py --base <checkout of 479b5d9> --seconds 1.0 "
                f"--batch 4096 --repeats 31 --rows vector_copy_true,vector_copy_false "
                f"--out {_R}ab_speed_i9fix_vector.json"
            ),
            "ab_bot_check_i9fix.json": (
                "python experiments/ab_bot_check.py --bots builder,counter --batch 4096 "
                f"--repeats 21 --out {_R}ab_bot_check_i9fix.json"
            ),
        },
        reason=(
            "interleaved A/B timings of the fuzz-hole fixes against the code before them "
            "(another checkout) on a shared machine; records, not re-run"
        ),
    ),
    Record(
        name="ab_bot_kernels_i12",
        commands={
            "ab_bot_kernels_i12.json": (
                "python experiments/ab_bot_kernels.py --base <checkout of 562aa93> "
                f"--base-commit 562aa93 --repeats 11 --out {_R}ab_bot_kernels_i12.json"
            ),
            "ab_bot_check_i12.json": (
                "python experiments/ab_bot_check.py --bots builder,counter --batch 4096 "
                f"--repeats 21 --out {_R}ab_bot_check_i12.json"
            ),
        },
        reason=(
            "interleaved A/B timings of the bots' kernels without numba's runtime against "
            "the kernels before (another checkout), and of the observation check inside "
            "the kernel against no check, on a shared machine; records, not re-run"
        ),
    ),
    Record(
        name="search_strength_headline",
        commands={
            "search_strength.json": (
                "python experiments/search_strength.py --worlds 2,4,8,16 --games 100 "
                "--headline-games 1000 --headline-players 4 --block 100 --players 2,4 "
                "--opponents builder,ppo --workers 1 --positions 30, continued with --resume "
                "FILE --worlds 2,4,8,16,32 --games 300 --headline-games 2000 (the file's "
                "args and history hold both runs' arguments)"
            ),
            "search_strength.png": "the same runs",
            "search_strength_2p_headline.json": (
                "python experiments/search_strength.py --worlds 2,4,8,16,32 --games 400 "
                "--headline-games 2000 --players 2,4 --opponents builder,ppo (stopped after "
                "its first row, the two-player headline; the file holds its arguments)"
            ),
            "search_strength_2p_headline.png": "the same run",
        },
        reason=(
            "the headline strength runs (2,000 games per headline row, hours of "
            "CPU): deterministic for their arguments, but too long for --full; the "
            "search_strength_2p/4p experiments check the same code deterministically"
        ),
    ),
    Record(
        name="omp_wait",
        commands={
            "omp_wait.json": "python experiments/omp_wait.py --export (load average 3.3)",
            "omp_wait_idle.json": (
                "python experiments/omp_wait.py --out DIR on an otherwise idle machine (load "
                "average 1.5), copied to experiments/results/omp_wait_idle.json"
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
        name="fuzz_long_run",
        commands={
            **{f: _FUZZ.format(f) for f in ("fuzz_long_run_1.json", "fuzz_long_run_2.json")},
            **{
                f"fuzz_long_run_{k}.json": (
                    f"MAMMA_MIA_FUZZ_EXAMPLES=400 MAMMA_MIA_FUZZ_REPORT={_R}fuzz_long_run_{k}.json "
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
        name="ab_cleanrl_defaults",
        commands={
            "ab_cleanrl_defaults.json": "python experiments/ab_cleanrl_defaults.py --export",
            "ab_cleanrl_defaults.png": "the same command",
        },
        reason=(
            "ten training runs (minutes); their win shares are repeatable from their seeds on "
            "the same library versions, their throughputs are timings of that machine"
        ),
    ),
    Record(
        name="cleanrl_ten_minutes",
        commands={
            "cleanrl_ppo_2p_ten_minutes.json": (
                "python -m experiments.cleanrl_ppo --preset ten-minutes --export"
            ),
            "cleanrl_ppo_2p_ten_minutes.png": "the same command",
            "cleanrl_ppo_2p_ten_minutes.wall_curve.png": "the same command",
            "cleanrl_ppo_2p_ten_minutes.npz": "the same command",
            "ab_cleanrl_warm_start.json": (
                "python experiments/ab_cleanrl_defaults.py --study warm-start --seeds 2 --export"
            ),
            "ab_cleanrl_warm_start.png": "the same command",
        },
        reason=(
            "training runs against a wall-clock budget (the goal: minutes to a good policy); "
            "their win rates are repeatable from their seeds at equal env steps on the same "
            "library versions, but where the budget stops a run depends on the machine's "
            "speed and load, and the wall times are timings of that machine"
        ),
    ),
    Record(
        name="champion_prior_2p_seed7",
        commands={
            f"champion_prior_2p_vs_builder_seed7.{ext}": (
                "mamma-mia tournament --players 2 --games 2000 --seed 7 --agents ppo,builder "
                "--name ppo_2p_vs_builder_seed7 --no-progress --no-plot (renamed after the run)"
                if ext == "json"
                else "the same command"
            )
            for ext in ("json", "csv", "csv.meta.json")
        },
        reason=(
            "the SB3 network's second 2,000 deals against builder, played when it was the "
            "shipped ppo_2p.npz (commit in the sidecar); it is the champion's prior file since, "
            "which the tournament names only as ppo, so the file is a record, not re-run"
        ),
    ),
    Record(
        name="expert_iteration",
        commands={
            f"expert_iteration_2p_{stem}.{ext}": (
                f"python experiments/expert_iteration.py --preset {preset} --export{ship}"
                if ext == "json"
                else "the same command"
            )
            for stem, preset, ship in (
                ("vs_search", "vs-search", ""),
                ("vs_search_2", "vs-search-2", " --ship (also agents/policies/ppo_2p.npz)"),
            )
            for ext in ("json", "png", "npz")
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
            f"cleanrl_ppo_2p_vs_search_{leg}.{ext}": (
                f"python -m experiments.cleanrl_ppo --preset vs-search-{leg} --export"
                if ext == "json"
                else "the same command"
            )
            for leg in (1, 2)
            for ext in ("json", "png", "wall_curve.png", "npz")
        },
        reason=(
            "two fine-tuning legs against the search bot (the goal: the plain network against "
            "search), an hour of training against a wall-clock budget; the second starts from "
            "the first's policy file. Where the budget stops a leg depends on the machine's "
            "speed and load"
        ),
    ),
]
