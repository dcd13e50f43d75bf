"""The registry of the reproduction: every experiment (:data:`EXPERIMENTS`), the script
and arguments that make its files, and which of them ``--check`` compares and how
(:class:`~.entries.Experiment`); to add one, append it (docs/REPRODUCE.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from experiments.reproduce.entries import Experiment
from experiments.reproduce.ratios import (
    benchmark_ratios,
    bot_speed_ratios,
    decision_speed_ratios,
    learner_env_speed_ratios,
    speed_ratios,
)


def _full(*args: str) -> Callable[[str], list[str] | None]:
    """Arguments of an experiment that only ``--full`` runs."""
    return lambda mode: None if mode == "quick" else list(args)


def _files(*names: str) -> Callable[[str], list[str]]:
    """The same files in both modes."""
    return lambda mode: list(names)


def _timed(
    module: str,
    quick: list[str] | None,
    ratios: Callable[[str, Path], dict[str, float]],
    name: str | None = None,
    folder: str | None = None,
) -> Experiment:
    """A benchmark (``experiments.benchmark.<module>``) whose one timing file,
    ``<module>.json`` in its folder (``module`` unless given), ``--check`` compares by
    ``ratios``; ``quick``: its arguments in quick mode (None: not run in quick mode)."""
    return Experiment(
        name=name or module,
        script=f"-m experiments.benchmark.{module}",
        folder=folder or module,
        args=_full() if quick is None else lambda mode: quick if mode == "quick" else [],
        timing=_files(f"{module}.json"),
        ratios=ratios,
    )


def _library(library: str, module: str, *flags: str) -> Experiment:
    """A library's training run, 2 players (full mode only; needs ``module``, its extra):
    its throughput in ``2p.json``, ``.csv`` and ``.png``, not compared."""
    return Experiment(
        name=f"{library}_2p",
        script=f"-m experiments.train.train_{library}",
        folder=library,
        args=_full(*flags, "--name", "2p"),
        other=_files("2p.json", "2p.csv", "2p.png"),
        requires=(module,),
    )


def _learner_speed(batch: int) -> Experiment:
    stem = f"2p_b{batch}"
    return Experiment(
        name=f"learner_env_speed_b{batch}",
        script="-m experiments.benchmark.learner_env_speed",
        folder="learner_env_speed",
        args=_full("--batch", str(batch)),
        timing=_files(f"{stem}.json"),
        ratios=learner_env_speed_ratios,
    )


def _tournament(
    name: str, folder: str, stem: str, flags: list[str], plot: bool = False, **kw: Any
) -> Experiment:
    """A ``mamma-mia tournament`` run (full mode only) that writes ``<folder>/<stem>``
    .json / .csv, compared exactly, and its sidecar (and, with ``plot``, its picture)."""
    tail = ["--name", stem, "--no-progress"] + ([] if plot else ["--no-plot"])
    return Experiment(
        name=name,
        script="-m mamma_mia_agents tournament",
        folder=folder,
        args=_full(*flags, *tail),
        deterministic=_files(f"{stem}.json", f"{stem}.csv"),
        other=_files(f"{stem}.csv.meta.json", *([f"{stem}.png"] if plot else [])),
        **kw,
    )


def _backend_tournament(backend: str) -> Experiment:
    flags = [
        *["--players", "4", "--games", "2000"],
        *["--agents", "random,counter,builder,hoarder"],
        *["--workers", "2", "--batch-size", "250", "--seed", "3", "--backend", backend],
    ]
    return _tournament(
        f"tournament_{backend}_4p",
        "backend_tournament",
        f"{backend}_4p",
        flags,
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
    return [f"{n}p.{ext}" for n in _lb_counts(mode) for ext in ("json", "csv")]


def _ppo_seed7(n: int) -> Experiment:
    agents = ",".join(["ppo"] + ["builder"] * (n - 1))
    flags = ["--players", str(n), "--games", "2000", "--seed", "7", "--agents", agents]
    return _tournament(f"ppo_{n}p_seed7", "vs_builder_seed7", f"ppo_{n}p", flags)


#: the evaluation ladder's rungs below the champion
_RUNGS = "random,builder,search"


def _scorecard(
    agent: str, n: int | str, ladder: str, games: int = 2000, named: str | None = None
) -> Experiment:
    """A ``mamma-mia evaluate`` scorecard (full mode only) of ``agent`` (a bundled name or
    a committed policy file) at ``n`` players (a count, or counts as ``"2,4"``) against
    the rungs ``ladder``: ``games`` games per pairing on the evaluation seed, written to
    ``scorecards/<named>_<n>p_<rungs>.json`` (``named``: the agent unless given; counts
    ``2,4``: ``2p_4p``)."""
    stem = f"{named or agent}_{str(n).replace(',', 'p_')}p_{ladder.replace(',', '_')}"
    evaluate = [agent, "--players", str(n), "--ladder", ladder, "--games", str(games)]
    return Experiment(
        name=f"scorecard_{stem}",
        script="-m mamma_mia_agents evaluate",
        folder="scorecards",
        args=_full(*evaluate, "--no-progress"),
        deterministic=_files(f"{stem}.json"),
        out_file=f"{stem}.json",
    )


def _champion(n: int, grid: str) -> Experiment:
    """The champion's tuning at ``n`` players over ``grid``, with ``--priors ppo``."""
    tune = ["--players", str(n), "--grid", grid, "--priors", "ppo", "--max-ms", "30"]
    return Experiment(
        name=f"champion_{n}p_train",
        script="-m experiments.train.tune_champion",
        folder="champion",
        args=_full(*tune),
        deterministic=_files("tuning.json"),
        other=_files("tuning.png"),
        train=True,
    )


EXPERIMENTS: list[Experiment] = [
    # before the leaderboard, whose LEADERBOARD.md shows the speed.json beside it
    _timed("speed", ["--games", "300", "--workers", "1"], speed_ratios, folder="leaderboard"),
    Experiment(
        name="leaderboard",
        script="-m experiments.evaluate.leaderboard",
        folder="leaderboard",
        args=lambda mode: (
            ["--games", "200", "--players", "2,4", "--workers", "1"]
            if mode == "quick"
            else ["--games", "10000"]
        ),
        deterministic=_lb_files,
        other=lambda mode: (
            ["LEADERBOARD.md"]
            + [f"{n}p.{x}" for n in _lb_counts(mode) for x in ("png", "csv.meta.json")]
        ),
    ),
    Experiment(
        name="benchmark",
        script="-m experiments.benchmark.benchmark",
        folder="benchmark",
        args=lambda mode: ["--quick", "--no-plot"] if mode == "quick" else [],
        timing=_files("benchmark.csv"),
        ratios=benchmark_ratios,
        other=lambda mode: (
            ["benchmark.txt", "benchmark.csv.meta.json"]
            + ([] if mode == "quick" else ["benchmark.png"])
        ),
        requires=("pygame",),  # PettingZoo's classic envs import it
    ),
    *(_ppo_seed7(n) for n in (2, 3, 4, 5)),
    _tournament("demo", "demo_tournament", "demo", DEMO, plot=True),
    _timed(
        "bot_speed",
        ["--batch", "256", "--steps", "3", "--rounds", "1", "--games", "100"],
        bot_speed_ratios,
    ),
    Experiment(
        name="search_strength_2p",
        script="-m experiments.evaluate.search_strength",
        folder="search_strength",
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
            *["--name", "2p"],
        ],
        deterministic=_files("2p.json"),
        other=_files("2p.png"),
    ),
    Experiment(
        name="search_strength_4p",
        script="-m experiments.evaluate.search_strength",
        folder="search_strength",
        args=_full(
            *["--worlds", "4,16", "--games", "100", "--positions", "20", "--players", "4"],
            *["--workers", "2", "--name", "4p"],
        ),
        deterministic=_files("4p.json"),
        other=_files("4p.png"),
    ),
    Experiment(
        name="openspiel_ismcts",
        script="-m experiments.evaluate.openspiel_ismcts",
        folder="openspiel_ismcts",
        args=_full("--deals", "6", "--simulations", "20"),
        deterministic=_files("openspiel_ismcts.json"),
        requires=("open_spiel",),
    ),
    _learner_speed(64),
    _learner_speed(256),
    _library("rllib", "ray", "--players", "2", "--batch", "4000", "--iterations", "5"),
    _library(
        "tianshou",
        "tianshou",
        *["--players", "2", "--steps", "2000", "--updates", "50", "--iterations", "10"],
    ),
    _library("torchrl", "torchrl"),
    *(_backend_tournament(b) for b in ("local", "ray")),
    # tuned with the SB3 network that was ppo then, bundled since as its prior file
    # the one network as the prior; at 2 and 4 players the budgets that won with the
    # per-count networks before it
    _champion(2, "96x3"),
    _champion(3, "32x6,48x4"),
    _champion(4, "48x4"),
    _champion(5, "24x6,32x4"),
    _timed("decision_speed", None, decision_speed_ratios),
    _scorecard("search", "2,4", "random,builder", games=600),  # the search rung's ANCHORS
    *(_scorecard("champion", n, "search", games=500) for n in (2, 3, 4, 5)),
    *(_scorecard("champion", n, "builder", games=500) for n in (2, 4)),
    *(_scorecard("ppo", n, _RUNGS, games=1000) for n in (2, 3, 4, 5)),
    _scorecard(  # the ten-minute preset's policy file
        "experiments/results/cleanrl_ppo/cleanrl_ppo_2p_ten_minutes.npz",
        2,
        "search",
        named="ten_minutes",
    ),
]
