"""The registry of the reproduction: every experiment (:data:`EXPERIMENTS`), the script
and arguments that make its files, and which of them ``--check`` compares and how.

An :class:`Experiment` names the files it makes by kind: ``deterministic`` (compared
exactly), ``timing`` (compared by machine-independent ratios, :mod:`.ratios`) and
``other`` (made, not compared). Committed files that are not re-run are kept as
:class:`Record` entries (:mod:`.records`). To add an experiment, append an
:class:`Experiment` to :data:`EXPERIMENTS`.
"""

from __future__ import annotations

from collections.abc import Callable
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


def _learner_speed(batch: int) -> Experiment:
    stem = f"2p_b{batch}"
    return Experiment(
        name=f"learner_env_speed_b{batch}",
        script="-m experiments.benchmark.learner_env_speed",
        folder="learner_env_speed",
        args=_full("--batch", str(batch)),
        timing=_files(f"{stem}.json"),
        ratios=learner_env_speed_ratios,
        description=f"learner-seat envs' steps/s at B={batch} vs a SyncVectorEnv of gym envs",
    )


def _tournament(
    name: str,
    folder: str,
    stem: str,
    flags: list[str],
    description: str,
    plot: bool = False,
    **kw: Any,
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
        description=description,
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
    return [f"{n}p.{ext}" for n in _lb_counts(mode) for ext in ("json", "csv")]


def _ppo_seed7(n: int) -> Experiment:
    agents = ",".join(["ppo"] + ["builder"] * (n - 1))
    flags = ["--players", str(n), "--games", "2000", "--seed", "7", "--agents", agents]
    return _tournament(
        f"ppo_{n}p_seed7",
        "vs_builder_seed7",
        f"ppo_{n}p",
        flags,
        f"the shipped ppo against builder at {n} players on 2,000 other deals (seed 7)",
    )


def _scorecard(
    agent: str,
    n: int | str,
    ladder: str,
    stem: str | None = None,
    description: str | None = None,
    games: int = 2000,
) -> Experiment:
    """A ``mamma-mia evaluate`` scorecard (full mode only) of ``agent`` (a bundled name or
    a committed policy file) at ``n`` players (a count, or counts as ``"2,4"``) against
    the rungs ``ladder``: ``games`` games per pairing on the evaluation seed, written to
    ``scorecards/<stem>.json``."""
    stem = stem or f"{agent}_{n}p_{ladder.replace(',', '_')}"
    evaluate = [agent, "--players", str(n), "--ladder", ladder, "--games", str(games)]
    return Experiment(
        name=f"scorecard_{stem}",
        script="-m mamma_mia_agents evaluate",
        folder="scorecards",
        args=_full(*evaluate, "--no-progress"),
        deterministic=_files(f"{stem}.json"),
        out_file=f"{stem}.json",
        description=description
        or f"the {agent}'s scorecard, {n} players, against {ladder} ({games:,} games each)",
    )


def _champion(n: int, grid: str, priors: str = "none,ppo") -> Experiment:
    tune = ["--players", str(n), "--grid", grid, "--priors", priors, "--max-ms", "30"]
    return Experiment(
        name=f"champion_{n}p_train",
        script="-m experiments.train.tune_champion",
        folder="champion",
        args=_full(*tune),
        deterministic=_files("tuning.json"),
        other=_files("tuning.png"),
        train=True,
        description=f"the champion's tuning against search, {n} players (under an hour)",
    )


EXPERIMENTS: list[Experiment] = [
    # before the leaderboard, whose LEADERBOARD.md shows the speed.json beside it
    Experiment(
        name="speed",
        script="-m experiments.benchmark.speed",
        folder="leaderboard",  # the leaderboard's page shows it
        args=lambda mode: ["--games", "300", "--workers", "1"] if mode == "quick" else [],
        timing=_files("speed.json"),
        ratios=speed_ratios,
        description="10,000 four-player games between the heuristic bots, timed",
    ),
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
        description="duplicate-deal tournament of all bundled agents, 2-5 players",
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
        description="turns/s of the AEC and vector envs vs PettingZoo classics",
    ),
    *(_ppo_seed7(n) for n in (2, 3, 4, 5)),
    _tournament(
        "demo",
        "demo_tournament",
        "demo",
        DEMO,
        "the README's demo tournament (six agents, four seats)",
        plot=True,
    ),
    Experiment(
        name="bot_speed",
        script="-m experiments.benchmark.bot_speed",
        folder="bot_speed",
        args=lambda mode: (
            ["--batch", "256", "--steps", "3", "--rounds", "1", "--games", "100"]
            if mode == "quick"
            else []
        ),
        timing=_files("bot_speed.json"),
        ratios=bot_speed_ratios,
        description="compiled bots: vector env turns/s, 10,000 games in one compiled loop",
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
        description="search bot win rates by budget, 2 players, vs builder and ppo",
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
        description="search bot win rates by budget, 4 players, vs 3 x builder and 3 x ppo",
    ),
    Experiment(
        name="openspiel_ismcts",
        script="-m experiments.evaluate.openspiel_ismcts",
        folder="openspiel_ismcts",
        args=_full("--deals", "6", "--simulations", "20"),
        deterministic=_files("openspiel_ismcts.json"),
        requires=("open_spiel",),
        description="OpenSpiel's ISMCTS bot vs builder, 2 players (needs the openspiel extra)",
    ),
    _learner_speed(64),
    _learner_speed(256),
    Experiment(
        name="rllib_2p",
        script="-m experiments.train.train_rllib",
        folder="rllib",
        args=_full("--players", "2", "--batch", "4000", "--iterations", "5", "--name", "2p"),
        other=_files("2p.json", "2p.csv", "2p.png"),
        requires=("ray",),
        description="RLlib PPO, 2 players, 5 iterations: env steps/s (needs the rllib extra)",
    ),
    Experiment(
        name="tianshou_2p",
        script="-m experiments.train.train_tianshou",
        folder="tianshou",
        args=_full(
            *["--players", "2", "--steps", "2000", "--updates", "50", "--iterations", "10"],
            *["--name", "2p"],
        ),
        other=_files("2p.json", "2p.csv", "2p.png"),
        requires=("tianshou",),
        description="Tianshou DQN, 2 players, 10 iterations: env steps/s (tianshou extra)",
    ),
    Experiment(
        name="torchrl_2p",
        script="-m experiments.train.train_torchrl",
        folder="torchrl",
        args=_full("--name", "2p"),
        other=_files("2p.json", "2p.csv", "2p.png"),
        requires=("torchrl",),
        description="TorchRL PPO, 2 players vs random: win rate, env steps/s (torchrl extra)",
    ),
    *(_backend_tournament(b) for b in ("local", "ray")),
    # tuned with the SB3 network that was ppo then, bundled since as its prior file
    # the one network as the prior; at 2 and 4 players the budgets that won with the
    # per-count networks before it
    _champion(2, "96x3", "ppo"),
    _champion(3, "32x6,48x4", "ppo"),
    _champion(4, "48x4", "ppo"),
    _champion(5, "24x6,32x4", "ppo"),
    Experiment(
        name="decision_speed",
        script="-m experiments.benchmark.decision_speed",
        folder="decision_speed",
        args=_full(),
        timing=_files("decision_speed.json"),
        ratios=decision_speed_ratios,
        description="ms per decision on one core: search and the champion, 2 and 4 players",
    ),
    _scorecard(
        "search",
        "2,4",
        "random,builder",
        "search_2p_4p_random_builder",
        "the search rung's anchors (ANCHORS): search against random and builder, 2 and 4 "
        "players (600 games each)",
        games=600,
    ),
    *(_scorecard("champion", n, "search", games=500) for n in (2, 3, 4, 5)),
    *(_scorecard("champion", n, "builder", games=500) for n in (2, 4)),
    *(_scorecard("ppo", n, "random,builder,search", games=1000) for n in (2, 3, 4, 5)),
    _scorecard(
        "experiments/results/cleanrl_ppo/cleanrl_ppo_2p_ten_minutes.npz",
        2,
        "search",
        "ten_minutes_2p_search",
        "the ten-minute policy's scorecard against search, 2 players",
    ),
    _scorecard(
        "experiments/results/cleanrl_ppo/cleanrl_ppo_2p_vs_search_2.npz",
        2,
        "random,builder,search",
        "vs_search_2p_random_builder_search",
        "the vs-search fine-tuned policy's scorecard, 2 players",
    ),
    _scorecard(
        "experiments/results/expert_iteration/expert_iteration_2p_vs_search.npz",
        2,
        "random,builder,search",
        "expert_iteration_2p_random_builder_search",
        "the expert-iteration policy's scorecard, 2 players",
    ),
]
