"""Regenerate every published result with one command, and check it against the committed one.

    PYTHONPATH=. python -m experiments reproduce --quick --check   # ~2 min, what CI runs
    PYTHONPATH=. python -m experiments reproduce --full --check    # the published results
    PYTHONPATH=. python -m experiments reproduce --full --train    # + the two PPO trainings
    PYTHONPATH=. python -m experiments reproduce --full --only benchmark,profile,speed --export
    PYTHONPATH=. python -m experiments reproduce --list --full     # every file, its command

Each experiment runs its script in a subprocess, writing into a run directory
(``runs/reproduce/<mode>/``, git-ignored; ``--out`` elsewhere). Nothing tracked is
written unless ``--export`` is given: then the files go to ``experiments/results/``
(``--full``) or ``experiments/results/quick/`` (``--quick``, the references CI checks).

``--check`` compares the regenerated files with the committed ones:

* deterministic files (tournaments, evaluations, trained policies) must match exactly,
  once the fields that record *how* a result was made are set aside (``provenance``,
  wall times, worker counts, command lines: :data:`IGNORED_KEYS`);
* timings are compared as ratios that do not depend on the machine's absolute speed
  (B=4096 vs B=1 speedup, our AEC env vs connect_four, the profile's shares), each
  within a factor :data:`TIMING_TOLERANCE` of the committed one. Quick-mode timings
  are too short to mean anything and are not compared (only run, so that the scripts
  are exercised).

Every file in ``experiments/results/`` is accounted for: made by an :class:`Experiment`
(``--list`` prints each file with the command that makes it), or kept as a
:class:`Record` of a measurement that is not re-run (an A/B comparison against another
checkout, a fuzz run with unseeded draws), with the command that made it and why it is
not checked. ``tests/test_reproduce.py`` fails on a file that is neither.

To add an experiment, append an :class:`Experiment` to :data:`EXPERIMENTS`.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results"
QUICK_RESULTS = RESULTS / "quick"

#: keys that record how a result was made, not what it is; --check ignores them
IGNORED_KEYS = frozenset(
    {
        "provenance",
        "elapsed",
        "elapsed_seconds",
        "seconds",
        "games_per_second",
        "load_average_before",
        "workers",
        "command",
        "summary",
        "machine",
        "python",
        "cores",
        "git",
        "policy",
        # the search / bot experiments: time per decision, loads, output paths
        "ms_per_decision",
        "ms_per_decision_median",
        "ms_per_decision_mean",
        "tournament_seconds",
        "timing",
        "load_average",
        "load_average_after",
        "out",
        "export",
    }
)
#: a timing ratio passes if regenerated / committed lies in [1/T, T]
TIMING_TOLERANCE = 2.0

#: Committed timings measured before result files recorded their provenance (commit
#: 72824dd; each file still names its machine, Python, numpy and numba). They
#: stay because they were measured on an otherwise idle machine and docs/PERFORMANCE.md
#: quotes them, while a re-run on the shared development machine would replace them with
#: slower numbers; ``--check`` compares their ratios. Re-measure on a quiet machine with
#: ``reproduce --full --only benchmark,profile --export`` (which also writes the
#: ``benchmark.csv.meta.json`` provenance sidecar they lack).
PRE_PROVENANCE = frozenset(
    {"benchmark.csv", "benchmark.txt", "benchmark.png", "profile_vector.json"}
)


@dataclass(frozen=True)
class Experiment:
    """One script of the reproduction.

    ``script`` is a path from the repository root, or ``-m module [subcommand]``.
    ``args(mode)`` gives the script's arguments for ``"quick"`` or ``"full"`` (None: not
    run in that mode); the runner appends ``--out DIR``. ``deterministic`` files must
    match exactly; ``timing`` files are checked by ``ratios`` (a function of a file's
    parsed content returning named machine-independent ratios); ``other`` files are
    made but not compared (plots, pages, provenance sidecars). ``train``: only with
    ``--train``. ``requires``: modules of optional extras; without them the experiment
    is skipped (and said so).
    """

    name: str
    script: str
    args: Callable[[str], list[str] | None]
    deterministic: Callable[[str], list[str]] = lambda mode: []
    timing: Callable[[str], list[str]] = lambda mode: []
    ratios: Callable[[str, Path], dict[str, float]] | None = None
    other: Callable[[str], list[str]] = lambda mode: []
    train: bool = False
    description: str = ""
    requires: tuple[str, ...] = field(default=())

    def command(self, mode: str) -> list[str] | None:
        """The command line (after ``python``) that writes this experiment's files into
        the committed results (``--full``: experiments/results, ``--quick``: .../quick)."""
        args = self.args(mode)
        if args is None:
            return None
        if self.train:  # a run directory of its own; its --export copies the results
            return [self.script, *args, "--export"]
        dst = (QUICK_RESULTS if mode == "quick" else RESULTS).relative_to(ROOT)
        return [*shlex.split(self.script), *args, "--out", str(dst)]

    def results(self, mode: str) -> list[str]:
        """The files this experiment puts into the committed results directory."""
        if self.args(mode) is None:
            return []
        files = self.deterministic(mode) + self.timing(mode) + self.other(mode)
        if self.train:
            prefix = self.name.removesuffix("_train")
            return [f"{prefix}_{f}" for f in files if f != "policy.npz"]
        return files


@dataclass(frozen=True)
class Record:
    """Committed result files that ``reproduce`` does not re-run, and why.

    ``commands`` maps each file to what made it; ``reason`` says why re-running it
    cannot (or need not) give the same file.
    """

    name: str
    commands: dict[str, str]
    reason: str


# -- timing ratios -----------------------------------------------------------------------------
def benchmark_ratios(name: str, path: Path) -> dict[str, float]:
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    speed = {(r["env"], int(r["batch"])): float(r["turns_per_s"]) for r in rows}
    vec = {b: v for (env, b), v in speed.items() if env.startswith("mamma_mia vector")}
    out = {}
    if 1 in vec and 4096 in vec:
        out["vector B=4096 / B=1"] = vec[4096] / vec[1]
    for kind in ("env()", "raw_env"):
        ours = speed.get((f"mamma_mia {kind} (AEC, 4 players)", 1))
        c4 = speed.get((f"connect_four_v3 {kind} (AEC)", 1))
        if ours and c4:
            out[f"AEC {kind} mamma_mia / connect_four"] = ours / c4
    return out


def profile_ratios(name: str, path: Path) -> dict[str, float]:
    doc = json.loads(path.read_text())
    parts = ("observe", "mask", "rules")
    serial = {p: doc[f"serial_{p}_us_per_game"] for p in parts}
    total = sum(serial.values())
    out = {f"serial {p} share": v / total for p, v in serial.items()}
    out["fused step / serial parts"] = doc["fused_kernel_us_per_turn"] / total
    return out


def speed_ratios(name: str, path: Path) -> dict[str, float]:
    doc = json.loads(path.read_text())
    # absolute, so loose: games/s per core against a 10,000-game run's committed value
    return {"games/s per core": doc["games_per_second"] / max(1, doc["cores"])}


def bot_speed_ratios(name: str, path: Path) -> dict[str, float]:
    doc = json.loads(path.read_text())
    v, g = doc["vector_env"], doc["games"]
    return {
        "vector env builder / random turns/s": v["builder_over_random"],
        "vector env compiled / numpy builder": v["compiled_over_numpy_builder"],
        "10,000 games tournament / compiled loop s": (
            g["tournament_seconds"] / g["compiled_loop_seconds"]
        ),
    }


def learner_env_speed_ratios(name: str, path: Path) -> dict[str, float]:
    rep = json.loads(path.read_text())["report"]
    return {
        f"{k} / SyncVectorEnv": rep[k]["median_ratio_to_sync_vector_gym"]
        for k in ("learner_vector", "sb3_vecenv")
    }


def omp_wait_ratios(name: str, path: Path) -> dict[str, float]:
    med = json.loads(path.read_text())["median"]
    return {
        f"{row}: passive / libgomp default": by["passive (package default)"] / by["libgomp default"]
        for row, by in med.items()
    }


def _learner_speed(batch: int) -> Experiment:
    stem = f"learner_env_speed_2p_b{batch}"
    return Experiment(
        name=f"learner_env_speed_b{batch}",
        script="experiments/learner_env_speed.py",
        args=lambda mode: None if mode == "quick" else ["--batch", str(batch)],
        timing=lambda mode: [f"{stem}.json"],
        ratios=learner_env_speed_ratios,
        other=lambda mode: [f"{stem}.png"],
        description=f"learner-seat envs' steps/s at B={batch} vs a SyncVectorEnv of gym envs",
    )


def _tournament(
    name: str, stem: str, flags: list[str], description: str, plot: bool = False, **kw: Any
) -> Experiment:
    """A ``mamma-mia tournament`` run (full mode only) that writes ``stem``.json / .csv,
    compared exactly, and its sidecar (and, with ``plot``, its picture)."""
    tail = ["--name", stem, "--no-progress"] + ([] if plot else ["--no-plot"])
    return Experiment(
        name=name,
        script="-m mamma_mia_agents tournament",
        args=lambda mode: None if mode == "quick" else [*flags, *tail],
        deterministic=lambda mode: [f"{stem}.json", f"{stem}.csv"],
        other=lambda mode: [f"{stem}.csv.meta.json"] + ([f"{stem}.png"] if plot else []),
        description=description,
        **kw,
    )


def _backend_tournament(backend: str) -> Experiment:
    stem = f"tournament_{backend}_4p"
    flags = [
        *["--players", "4", "--games", "2000"],
        *["--agents", "random,counter,builder,hoarder"],
        *["--workers", "2", "--batch-size", "250", "--seed", "3", "--backend", backend],
    ]
    return _tournament(
        stem,
        stem,
        flags,
        f"a 4-player tournament on the {backend} backend (the Ray comparison)",
        requires=("ray",) if backend == "ray" else (),
    )


#: the README's demo tournament (Quick start), without its --out
DEMO = [
    *["--players", "4", "--games", "400"],
    *["--agents", "random,counter,builder,hoarder,forgetful,ppo"],
]


# -- the table of experiments ------------------------------------------------------------------
def _lb_counts(mode: str) -> list[int]:
    return [2, 4] if mode == "quick" else [2, 3, 4, 5]


def _lb_files(mode: str) -> list[str]:
    return [f"leaderboard_{n}p.{ext}" for n in _lb_counts(mode) for ext in ("json", "csv")]


def _ppo(n: int) -> Experiment:
    cfg = f"experiments/configs/ppo_{n}p.json"
    return Experiment(
        name=f"ppo_{n}p_eval",
        script="experiments/train_ppo.py",
        args=lambda mode: [
            "--config",
            cfg,
            "--evaluate",
            f"agents/policies/ppo_{n}p.npz",
            "--workers",
            "1" if mode == "quick" else "2",  # the games do not depend on it
            *(["--set", "eval.final_games=40"] if mode == "quick" else []),
        ],
        deterministic=lambda mode: [f"ppo_{n}p_final_eval.json"],
        description=f"the shipped ppo_{n}p policy against each heuristic bot",
    )


def _ppo_seed7(n: int) -> Experiment:
    agents = ",".join(["ppo"] + ["builder"] * (n - 1))
    flags = ["--players", str(n), "--games", "2000", "--seed", "7", "--agents", agents]
    return _tournament(
        f"ppo_{n}p_seed7",
        f"ppo_{n}p_vs_builder_seed7",
        flags,
        f"the shipped ppo_{n}p policy against builder on 2,000 other deals (seed 7)",
    )


def _train(n: int) -> Experiment:
    return Experiment(
        name=f"ppo_{n}p_train",
        script="experiments/train_ppo.py",
        args=lambda mode: (
            None
            if mode == "quick"
            else ["--config", f"experiments/configs/ppo_{n}p.json", "--no-progress"]
        ),
        deterministic=lambda mode: ["policy.npz", "final_eval.json", "eval.csv"],
        other=lambda mode: ["bc.csv", "progress.csv", "summary.json", "learning_curve.png"],
        train=True,
        description=f"MaskablePPO training, {n} players (hours)",
    )


EXPERIMENTS: list[Experiment] = [
    # before the leaderboard, whose LEADERBOARD.md shows the speed.json beside it
    Experiment(
        name="speed",
        script="experiments/speed.py",
        args=lambda mode: ["--games", "300", "--workers", "1"] if mode == "quick" else [],
        timing=lambda mode: ["speed.json"],
        ratios=speed_ratios,
        description="10,000 four-player games between the heuristic bots, timed",
    ),
    Experiment(
        name="leaderboard",
        script="experiments/leaderboard.py",
        args=lambda mode: (
            ["--games", "200", "--players", "2,4", "--workers", "1"]
            if mode == "quick"
            else ["--games", "10000"]
        ),
        deterministic=_lb_files,
        other=lambda mode: (
            ["LEADERBOARD.md"]
            + [f"leaderboard_{n}p.{x}" for n in _lb_counts(mode) for x in ("png", "csv.meta.json")]
        ),
        description="duplicate-deal tournament of all bundled agents, 2-5 players",
    ),
    Experiment(
        name="benchmark",
        script="experiments/benchmark.py",
        args=lambda mode: ["--quick", "--no-plot"] if mode == "quick" else [],
        timing=lambda mode: ["benchmark.csv"],
        ratios=benchmark_ratios,
        other=lambda mode: (
            ["benchmark.txt", "benchmark.csv.meta.json"]
            + ([] if mode == "quick" else ["benchmark.png"])
        ),
        description="turns/s of the AEC and vector envs vs PettingZoo classics",
    ),
    Experiment(
        name="profile",
        script="experiments/profile_vector.py",
        args=lambda mode: ["--batch", "256", "--seconds", "0.3"] if mode == "quick" else [],
        timing=lambda mode: ["profile_vector.json"],
        ratios=profile_ratios,
        description="where a vector-env step spends its time",
    ),
    _ppo(2),
    _ppo(4),
    *(_ppo_seed7(n) for n in (2, 4)),
    _tournament(
        "demo",
        "demo_tournament",
        DEMO,
        "the README's demo tournament (six agents, four seats)",
        plot=True,
    ),
    Experiment(
        name="bot_speed",
        script="experiments/bot_speed.py",
        args=lambda mode: (
            ["--batch", "256", "--steps", "3", "--rounds", "1", "--games", "100"]
            if mode == "quick"
            else []
        ),
        timing=lambda mode: ["bot_speed.json"],
        ratios=bot_speed_ratios,
        description="compiled bots: vector env turns/s, 10,000 games in one compiled loop",
    ),
    Experiment(
        name="search_strength_2p",
        script="experiments/search_strength.py",
        args=lambda mode: [
            *(
                [
                    *["--worlds", "2", "--headline-worlds", "2", "--games", "8"],
                    *["--opponents", "builder", "--positions", "3"],
                ]
                if mode == "quick"
                else ["--worlds", "4,16", "--games", "200", "--positions", "30"]
            ),
            *["--players", "2", "--workers", "1" if mode == "quick" else "2"],
            *["--name", "search_strength_2p"],
        ],
        deterministic=lambda mode: ["search_strength_2p.json"],
        other=lambda mode: ["search_strength_2p.png"],
        description="search bot win rates by budget, 2 players, vs builder and ppo",
    ),
    Experiment(
        name="search_strength_4p",
        script="experiments/search_strength.py",
        args=lambda mode: (
            None
            if mode == "quick"
            else [
                *["--worlds", "4,16", "--games", "100", "--positions", "20", "--players", "4"],
                *["--workers", "2", "--name", "search_strength_4p"],
            ]
        ),
        deterministic=lambda mode: ["search_strength_4p.json"],
        other=lambda mode: ["search_strength_4p.png"],
        description="search bot win rates by budget, 4 players, vs 3 x builder and 3 x ppo",
    ),
    Experiment(
        name="openspiel_ismcts",
        script="experiments/openspiel_ismcts.py",
        args=lambda mode: None if mode == "quick" else ["--deals", "6", "--simulations", "20"],
        deterministic=lambda mode: ["openspiel_ismcts.json"],
        requires=("open_spiel",),
        description="OpenSpiel's ISMCTS bot vs builder, 2 players (needs the openspiel extra)",
    ),
    _learner_speed(64),
    _learner_speed(256),
    Experiment(
        name="rllib_2p",
        script="experiments/train_rllib.py",
        args=lambda mode: (
            None
            if mode == "quick"
            else ["--players", "2", "--batch", "4000", "--iterations", "5", "--name", "rllib_2p"]
        ),
        other=lambda mode: ["rllib_2p.json", "rllib_2p.csv", "rllib_2p.png"],
        requires=("ray",),
        description="RLlib PPO, 2 players, 5 iterations: env steps/s (needs the rllib extra)",
    ),
    Experiment(
        name="tianshou_2p",
        script="experiments/train_tianshou.py",
        args=lambda mode: (
            None
            if mode == "quick"
            else [
                *["--players", "2", "--steps", "2000", "--updates", "50", "--iterations", "10"],
                *["--name", "tianshou_2p"],
            ]
        ),
        other=lambda mode: ["tianshou_2p.json", "tianshou_2p.csv", "tianshou_2p.png"],
        requires=("tianshou",),
        description="Tianshou DQN, 2 players, 10 iterations: env steps/s (tianshou extra)",
    ),
    Experiment(
        name="torchrl_2p",
        script="experiments/train_torchrl.py",
        args=lambda mode: None if mode == "quick" else ["--name", "torchrl_2p"],
        other=lambda mode: ["torchrl_2p.json", "torchrl_2p.csv", "torchrl_2p.png"],
        requires=("torchrl",),
        description="TorchRL PPO, 2 players vs random: win rate, env steps/s (torchrl extra)",
    ),
    *(_backend_tournament(b) for b in ("local", "ray")),
    _train(2),
    _train(4),
]

_R = "experiments/results/"
_AB = "python experiments/ab_speed.py --base <checkout of 0ae2421> --seconds 1.0 --batch 4096"
_FUZZ = (
    "MAMMA_MIA_FUZZ_EXAMPLES=1000 MAMMA_MIA_FUZZ_REPORT=experiments/results/{} python -m pytest "
    "tests/test_fuzz_states.py tests/test_fuzz_envs.py tests/test_fuzz_files.py"
)
_FUZZ_TESTS = (
    "tests/test_fuzz_states.py tests/test_fuzz_envs.py tests/test_fuzz_files.py "
    "tests/test_fuzz_replays.py"
)
RECORDS: list[Record] = [
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
            "interleaved A/B timings of two code versions (the issue-9 checks against the "
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
                "python experiments/cleanrl_ppo.py --export --name 2p_builder --num-players 2 "
                "--opponent builder --total-timesteps 300000 --num-envs 128 --num-steps 32 "
                "--eval-games 512"
            ),
            "cleanrl_ppo_2p_builder.png": "the same command",
        },
        reason=(
            "the A/B timing needs the other checkout; the one-thread learner env speed was "
            "measured before OpenMP waits became passive (a record of that state); the "
            "CleanRL PPO run is a training run (minutes, its throughput timed), repeatable "
            "from its seed on the same library versions (tests/test_cleanrl_ppo.py)"
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
            "the issue-12 headline strength runs (2,000 games per headline row, hours of "
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
                    ("3b", "tests/test_fuzz_envs.py -k agent_act_batch", 9),
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
]


# -- comparison --------------------------------------------------------------------------------
def strip(doc: Any) -> Any:
    """``doc`` without the keys that record how it was made (:data:`IGNORED_KEYS`)."""
    if isinstance(doc, dict):
        return {k: strip(v) for k, v in doc.items() if k not in IGNORED_KEYS}
    if isinstance(doc, list):
        return [strip(v) for v in doc]
    return doc


def diff(a: Any, b: Any, where: str = "") -> list[str]:
    """Paths at which two parsed documents differ (at most a few per branch)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{where}/{k}: only in {'new' if k in a else 'committed'}")
            else:
                out += diff(a[k], b[k], f"{where}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: length {len(a)} vs {len(b)}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in diff(x, y, f"{where}[{i}]")
        ]
    return [] if a == b else [f"{where or '/'}: {a!r} (new) vs {b!r} (committed)"]


def compare_file(new: Path, ref: Path) -> list[str]:
    """Differences between a regenerated deterministic file and the committed one."""
    if not ref.exists():
        return [f"{ref.name}: no committed reference ({ref})"]
    if not new.exists():
        return [f"{new.name}: not produced"]
    if new.suffix == ".json":
        d = diff(strip(json.loads(new.read_text())), strip(json.loads(ref.read_text())))
    elif new.suffix == ".npz":
        import numpy as np

        a, b = np.load(new), np.load(ref)
        d = [
            f"{k}: differs"
            for k in sorted(set(a.files) | set(b.files))
            if k not in a.files or k not in b.files or not np.array_equal(a[k], b[k])
        ]
    else:
        d = [] if new.read_bytes() == ref.read_bytes() else ["contents differ"]
        if d and new.suffix == ".csv":
            na, nb = new.read_text().splitlines(), ref.read_text().splitlines()
            d = [
                f"line {i + 1}: {x!r} (new) vs {y!r} (committed)"
                for i, (x, y) in enumerate(zip(na, nb, strict=False))
                if x != y
            ][:5]
            if len(na) != len(nb):
                d.append(f"{len(na)} lines (new) vs {len(nb)} (committed)")
    return [f"{new.name}: {x}" for x in d[:10]]


def compare_timing(exp: Experiment, name: str, new: Path, ref: Path) -> list[str]:
    if not ref.exists():
        return [f"{name}: no committed reference ({ref})"]
    if not new.exists():
        return [f"{name}: not produced"]
    a, b = exp.ratios(name, new), exp.ratios(name, ref)
    out = []
    for key in sorted(set(a) & set(b)):
        r = a[key] / b[key] if b[key] else math.inf
        if not 1 / TIMING_TOLERANCE <= r <= TIMING_TOLERANCE:
            out.append(
                f"{name}: {key} = {a[key]:.3g} (new) vs {b[key]:.3g} (committed), "
                f"ratio {r:.2f} outside x/÷{TIMING_TOLERANCE}"
            )
    return out


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:  # not on every platform
        return 0.0


# -- the runner --------------------------------------------------------------------------------
@dataclass
class Outcome:
    exp: Experiment
    seconds: float
    files: list[str]
    returncode: int
    problems: list[str]
    skipped: str = ""


def missing_requirements(exp: Experiment) -> list[str]:
    """The optional modules ``exp`` needs that are not installed."""
    import importlib.util

    return [m for m in exp.requires if importlib.util.find_spec(m) is None]


def run_one(exp: Experiment, mode: str, out: Path, extra: list[str]) -> Outcome:
    args = exp.args(mode)
    assert args is not None
    files = exp.deterministic(mode) + exp.timing(mode) + exp.other(mode)
    missing = missing_requirements(exp)
    if missing:
        return Outcome(exp, 0.0, files, 0, [], skipped=f"needs {', '.join(missing)}")
    out.mkdir(parents=True, exist_ok=True)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out  # cwd is ROOT
    cmd = [sys.executable, *shlex.split(exp.script), *args, *extra, "--out", str(shown)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    t0 = time.perf_counter()
    logs = ROOT / "runs" / "reproduce" / "logs"  # never beside exported results
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{exp.name}.log"
    with open(log, "w") as fh:
        fh.write("$ " + " ".join(cmd) + "\n")
        fh.flush()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - t0
    problems = [] if proc.returncode == 0 else [f"exit code {proc.returncode}, see {log}"]
    return Outcome(exp, seconds, files, proc.returncode, problems)


def result_files(mode: str = "full") -> dict[str, tuple[str, str, str]]:
    """Every committed result file of ``mode`` -> (what makes it, kind, command).

    ``kind``: ``deterministic`` (compared exactly by ``--check``), ``timing`` (compared
    as ratios), ``made`` (produced, not compared: plots, pages, provenance sidecars),
    ``training`` (``--train`` only), ``record`` (not re-run: :data:`RECORDS`).
    """
    out: dict[str, tuple[str, str, str]] = {}
    for e in EXPERIMENTS:
        cmd = e.command(mode)
        if cmd is None:
            continue
        shown = "python " + " ".join(shlex.quote(c) if " " in c else c for c in cmd)
        det, tim = set(e.deterministic(mode)), set(e.timing(mode))
        names = e.results(mode)
        raw = [f for f in e.deterministic(mode) + e.timing(mode) + e.other(mode)]
        if e.train:
            raw = [f for f in raw if f != "policy.npz"]
        for f, r in zip(names, raw, strict=True):
            kind = (
                "training"
                if e.train
                else "deterministic"
                if r in det
                else "timing"
                if r in tim
                else "made"
            )
            out.setdefault(f, (e.name, kind, shown))  # the evaluation, not the training
    if mode == "full":
        for rec in RECORDS:
            for f, c in rec.commands.items():
                out[f] = (rec.name, "record", c)
    return out


def print_list(mode: str) -> None:
    where = "experiments/results/quick/" if mode == "quick" else "experiments/results/"
    print(f"--{mode}: every file in {where}, by the command that makes it")
    print("(reproduce runs the same command with --out runs/reproduce/<mode>/):\n")
    files = result_files(mode)
    for e in EXPERIMENTS:
        cmd = e.command(mode)
        if cmd is None:
            continue
        tag = (
            "  [--train]" if e.train else f"  [needs {', '.join(e.requires)}]" if e.requires else ""
        )
        print(f"{e.name}{tag}: python {' '.join(cmd)}")
        for f, (name, kind, _) in files.items():
            if name == e.name:
                print(f"    {f:42s} {kind}")
    if mode == "full":
        print("\nNot re-run by --check:")
        for rec in RECORDS:
            print(f"{rec.name}: {rec.reason}")
            for f, c in rec.commands.items():
                print(f"    {f:42s} {c}")
    skipped = [e.name for e in EXPERIMENTS if e.args(mode) is None]
    if skipped:
        print(f"\nNot run in --{mode}: {', '.join(skipped)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments reproduce", description=__doc__.split("\n\n")[0]
    )
    m = ap.add_mutually_exclusive_group()
    m.add_argument(
        "--quick",
        action="store_const",
        dest="mode",
        const="quick",
        help="small versions of every experiment (minutes)",
    )
    m.add_argument(
        "--full", action="store_const", dest="mode", const="full", help="the published results"
    )
    ap.add_argument(
        "--train", action="store_true", help="also the two PPO training runs (hours; --full)"
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="compare with the committed results; exit 1 on a mismatch",
    )
    ap.add_argument(
        "--export",
        action="store_true",
        help="write into experiments/results/ (quick: results/quick/)",
    )
    ap.add_argument("--only", help="comma-separated experiment names (see --list)")
    ap.add_argument("--list", action="store_true", help="list the experiments and exit")
    ap.add_argument("--out", type=Path, help="run directory (default runs/reproduce/<mode>)")
    ap.add_argument(
        "--no-timing-check",
        action="store_true",
        help="with --check, compare deterministic files only",
    )
    args = ap.parse_args(argv)
    mode = args.mode or "quick"
    if args.list:
        print_list(mode)
        return 0
    if args.export and args.out:
        ap.error("--export and --out are exclusive")
    names = {e.name for e in EXPERIMENTS}
    only = None
    if args.only:
        only = [x.strip() for x in args.only.split(",") if x.strip()]
        bad = [x for x in only if x not in names]
        if bad:
            ap.error(
                f"--only: unknown experiment(s) {', '.join(bad)}; known: {', '.join(sorted(names))}"
            )
    if args.train and mode != "full":
        ap.error("--train needs --full")
    chosen = [
        e
        for e in EXPERIMENTS
        if e.args(mode) is not None
        and (only is None or e.name in only)
        and (not e.train or args.train or (only is not None and e.name in only and mode == "full"))
    ]
    ref_dir = QUICK_RESULTS if mode == "quick" else RESULTS
    out = ref_dir if args.export else args.out or ROOT / "runs" / "reproduce" / mode
    from tqdm.auto import tqdm

    outcomes = []
    loads = [_load()]
    bar = tqdm(chosen, desc=f"reproduce --{mode}", unit="experiment")
    for exp in bar:
        bar.set_postfix_str(exp.name)
        # training runs write a whole run directory; keep them apart
        dst = out / exp.name if exp.train else out
        if exp.train and args.export:
            dst = ROOT / "runs" / exp.name
        # a training run's own --export copies its policy and results into the repository
        extra = ["--export"] if exp.train and args.export else []
        outcomes.append(run_one(exp, mode, dst, extra))
        loads.append(_load())
    if args.check:
        for o in outcomes:
            dst = out / o.exp.name if o.exp.train else out
            if o.returncode != 0 or o.skipped:
                continue
            for f in o.exp.deterministic(mode):
                ref = (
                    (ROOT / "agents" / "policies" / f"{o.exp.name[:6]}.npz")
                    if f == "policy.npz"
                    else ref_dir / (f"{o.exp.name[:6]}_{f}" if o.exp.train else f)
                )
                o.problems += compare_file(dst / f, ref)
            if mode == "full" and not args.no_timing_check and o.exp.ratios:
                for f in o.exp.timing(mode):
                    o.problems += compare_timing(o.exp, f, dst / f, ref_dir / f)
    print()
    print(f"{'experiment':20s} {'wall s':>8s}  {'result':8s} files (in {out})")
    for o in outcomes:
        status = (
            "FAILED"
            if o.returncode
            else "skipped"
            if o.skipped
            else ("differs" if o.problems else ("matches" if args.check else "ok"))
        )
        files = f"({o.skipped})" if o.skipped else ", ".join(o.files)
        print(f"{o.exp.name:20s} {o.seconds:8.1f}  {status:8s} {files}")
    bad = [p for o in outcomes for p in (f"{o.exp.name}: {x}" for x in o.problems)]
    print(f"total {sum(o.seconds for o in outcomes):.1f} s")
    if bad:
        print("\nDifferences / failures:")
        print("\n".join("  " + b for b in bad))
        busy = max(loads)
        if any("ratio" in b for b in bad) and busy > (os.cpu_count() or 1):
            print(
                f"  (the load average reached {busy:.1f} on {os.cpu_count()} cores during "
                "the run: other work slows parallel kernels more than serial ones, so timing "
                "ratios of a busy machine are not comparable; re-check when it is quiet, or "
                "--no-timing-check)"
            )
        return 1
    if args.check:
        note = "deterministic files match exactly"
        if mode == "full" and not args.no_timing_check:
            note += f"; timing ratios within x/÷{TIMING_TOLERANCE}"
        skipped = [f"{o.exp.name} ({o.skipped})" for o in outcomes if o.skipped]
        if skipped:
            note += "; skipped, not checked: " + ", ".join(skipped)
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
