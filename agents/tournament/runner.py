"""``run_tournament``: the schedule (``schedule``), the batches (``matches.Plan``) and
where they run (``fanout``) tied together, in three steps (``prepare``, ``play_all``,
``finish``) so that a job of several tournaments (a scorecard's pairings) runs as one.
A failing agent, in a worker process as in this one, stops the run with an
``AgentError`` naming it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from mamma_mia_agents.bots.base import Agent
from mamma_mia_agents.bots.loading import agent_name
from mamma_mia_agents.tournament.fanout import FanOutError, Job, check_backend, fan_out
from mamma_mia_agents.tournament.matches import (
    AgentError,
    BatchOutcomes,
    Outcomes,
    Plan,
    check_agents,
    load_agents,
)
from mamma_mia_agents.tournament.results import TournamentResult
from mamma_mia_agents.tournament.schedule import (
    SEATINGS,
    TournamentSizeError,
    batches,
    count_deals,
    deal_seeds,
    max_workers,
    seating_schedule,
)
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.log import MAX_AGENT_NAME, replay_events
from mamma_mia_env.plumbing.arguments import as_int

DEFAULT_BATCH = 2500
SMALL_RUN = 1000  # with workers=None, fewer games than this play in this process


def unique_names(agents: list[Any]) -> list[str]:
    """Display names, numbered where an agent appears twice (``random#1``, ``random#2``)."""
    base = [agent_name(a) for a in agents]
    return [f"{b}#{base[: i + 1].count(b)}" if base.count(b) > 1 else b for i, b in enumerate(base)]


def run_tournament(
    agents: str | Sequence[str | Agent],
    *args: Any,
    progress: bool = True,
    command: str | None = None,
    **options: Any,
) -> TournamentResult:
    """Play a duplicate-deal tournament and return its results.

    The arguments are ``prepare``'s (``num_players=4, games=2000, seed=0, workers=None,
    seating="rotate", batch_size=DEFAULT_BATCH, backend="local", address=None,
    save_logs=0`` and the rule flags, e.g. ``double_ingredients=True``), all checked
    before a game is played. ``agents``: bundled names, ``module:Class`` import paths or
    ``Agent`` objects. ``workers``: processes (default: the CPU count, or 1 below
    ``SMALL_RUN`` games); more than 1 needs the caller's ``if __name__ == "__main__":``
    guard, as any spawned multiprocessing does.

    Each batch of at most ``batch_size`` games has its own generator (``matches.Plan``),
    so a run gives the same games whatever the workers, the machine or the backend
    (``backend="ray"``: Ray tasks, on the cluster at ``address``). ``save_logs``: event
    logs of the first ``save_logs`` games in ``result.logs``, for replays.
    """
    setup = prepare(agents, *args, **options)
    desc = f"{setup.plan.config.num_players}p tournament"
    (result,) = run_all([setup], setup.workers, setup.backend, setup.address, progress, desc,
                        command)  # fmt: skip
    return result


def run_all(
    tournaments: Sequence[Prepared],
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: bool = True,
    desc: str = "tournaments",
    command: str | None = None,
) -> list[TournamentResult]:
    """Prepared tournaments played at once, each one's result: every batch of every one
    fanned out together (``play_all``), so that a job of many small tournaments (a
    scorecard's pairings, a leaderboard's player counts, a strength curve's blocks) keeps
    every worker or node busy. One progress bar counts the games; ``workers``: as
    ``run_tournament``'s, for the games of all of them (at most one per batch). Each
    result's ``elapsed`` is the wall time of the whole job."""
    games = sum(len(t.plan.seeds) for t in tournaments)
    workers = min(_workers(workers, games), sum(len(t.plan.chunks) for t in tournaments))
    start = time.perf_counter()
    with tqdm(total=games, desc=desc, unit="game", smoothing=0.1, disable=not progress) as bar:
        results = play_all(tournaments, backend, workers, address, bar)
    elapsed = time.perf_counter() - start
    return [finish(t, r, elapsed, command) for t, r in zip(tournaments, results, strict=True)]


@dataclass(frozen=True)
class Prepared:
    """A tournament checked and planned, its agents loaded: what is left is playing it."""

    plan: Plan
    specs: list[Any]  # as a worker process loads the agents: the names given, else objects
    loaded: list[Any]
    seating: str
    schedule: np.ndarray
    deals: int
    workers: int
    games_requested: int
    backend: str
    address: str | None


def prepare(
    agents: str | Sequence[str | Agent],
    num_players: int = 4,
    games: int = 2000,
    seed: int = 0,
    workers: int | None = None,
    seating: str = "rotate",
    batch_size: int = DEFAULT_BATCH,
    backend: str = "local",
    address: str | None = None,
    save_logs: int = 0,
    **config: Any,
) -> Prepared:
    """``run_tournament``'s checks, agents and plan, before any game is played (the
    arguments are described there)."""
    if isinstance(agents, str):
        agents = [a for a in agents.split(",") if a.strip()]
    _check_arguments(agents, games, seed, workers, batch_size, seating, backend, address)
    cfg = Config.from_kwargs(num_players=num_players, **config)
    # the size checks come before any agent is created or any game played
    deals = count_deals(len(agents), num_players, seating, games)
    workers = _workers(workers, games)
    loaded = load_agents(agents)
    check_agents(loaded, cfg)
    schedule = seating_schedule(len(loaded), num_players, seating)
    assign = np.tile(schedule, (deals, 1))
    deal = np.repeat(np.arange(deals), len(schedule))
    seeds = deal_seeds(seed, deals)[deal]
    chunks = batches(len(seeds), batch_size)
    if backend != "ray":  # the processes started: one plays here, none idles
        workers = 1 if len(chunks) == 1 else min(workers, len(chunks))
    plan = Plan(cfg, assign, seeds, chunks, seed, record=save_logs)
    specs = [s if isinstance(s, str) else obj for s, obj in zip(agents, loaded, strict=True)]
    return Prepared(plan, specs, loaded, seating, schedule, deals, workers, games, backend, address)


def play_all(
    tournaments: Sequence[Prepared],
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    bar: Any = None,
) -> list[dict[int, BatchOutcomes]]:
    """Every batch of every tournament, fanned out together (``fanout``): per
    tournament, its batches' outcomes by batch index."""
    if backend == "local" and workers == 1:  # in this process: the agents already loaded
        job = Job(lambda shared: shared, _play_batch, [(t.plan, t.loaded) for t in tournaments])
    else:
        job = Job(_load, _play_batch, [(t.plan, t.specs) for t in tournaments])
    items = [(t, i) for t, tour in enumerate(tournaments) for i in range(len(tour.plan.chunks))]
    try:
        outcomes = fan_out(job, items, backend, workers, address, bar)
    except FanOutError as exc:
        if backend == "ray":  # a node or the cluster, not an agent
            raise
        names = ", ".join(repr(agent_name(a)) for t in tournaments for a in t.loaded)
        raise AgentError(
            f"{exc}. Agents {names} were playing: if one of them crashed the interpreter "
            "or called os._exit, rerun with --workers 1 to see which"
        ) from exc
    results: list[dict[int, BatchOutcomes]] = [{} for _ in tournaments]
    for (t, _), (i, res) in zip(items, outcomes, strict=True):
        results[t][i] = res
    return results


def _load(shared: list[tuple[Plan, list[Any]]]) -> list[tuple[Plan, list[Any]]]:
    """Every tournament's agents loaded in a worker process: a failing agent is an
    ``AgentError`` naming it, raised by each of its batches."""
    try:
        return [(plan, load_agents(specs)) for plan, specs in shared]
    except (Exception, SystemExit) as exc:
        raise AgentError(f"in a worker process: {exc}") from exc


def _play_batch(
    tournaments: list[tuple[Plan, list[Any]]], item: tuple[int, int], report: Any
) -> tuple[int, BatchOutcomes]:
    t, i = item
    plan, agents = tournaments[t]
    return plan.play(i, agents, progress=report)


def finish(
    setup: Prepared,
    results: dict[int, BatchOutcomes],
    elapsed: float,
    command: str | None = None,
) -> TournamentResult:
    """The tournament's result from its batches' outcomes."""
    plan = setup.plan
    res = TournamentResult(
        names=unique_names(setup.loaded),
        config=plan.config,
        seating=setup.seating,
        schedule=setup.schedule,
        seed=plan.seed,
        deals=setup.deals,
        assign=plan.assign,
        deal=np.repeat(np.arange(setup.deals), len(setup.schedule)),
        **_gather(results, len(plan.chunks)),
        elapsed=elapsed,
        workers=setup.workers,
        command=command,
        games_requested=setup.games_requested,
    )
    res.compute_table()
    if plan.record:
        res.logs = _event_logs(res, results[0].get("actions", []), plan.seeds, plan.chunks[0][0])
    return res


def _workers(workers: int | None, games: int) -> int:
    """The worker processes asked for (default: every core, or 1 for a short run)."""
    if workers is None:  # starting processes costs seconds: not worth it for short runs
        workers = 1 if games < SMALL_RUN else os.cpu_count() or 1
    if not 1 <= workers <= max_workers():
        raise TournamentSizeError(
            f"workers must be 1-{max_workers()} (four per core), got {workers}"
        )
    return workers


def _gather(results: dict[int, BatchOutcomes], n_batches: int) -> Outcomes:
    """The per-game arrays of every batch, in batch order."""
    batch = [results[i] for i in range(n_batches)]
    return Outcomes(
        delivered=np.concatenate([b["delivered"] for b in batch]),
        cards=np.concatenate([b["cards"] for b in batch]),
        turns=np.concatenate([b["turns"] for b in batch]),
        truncated=np.concatenate([b["truncated"] for b in batch]),
    )


def _check_arguments(
    agents: Sequence[object],
    games: Any,
    seed: Any,
    workers: Any,
    batch_size: Any,
    seating: Any,
    backend: Any,
    address: Any,
) -> None:
    """``run_tournament``'s argument checks, before anything is created or played."""
    check_backend(backend, address)
    if not agents:
        raise ValueError("a tournament needs at least one agent")
    as_int(games, "games", 1)
    as_int(batch_size, "batch_size", 1)
    as_int(seed, "seed")  # its range: deal_seeds
    if workers is not None:
        as_int(workers, "workers")  # its range: _workers
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {SEATINGS}, got {seating!r}")


def _event_logs(
    res: TournamentResult, actions: list[list[int]], seeds: np.ndarray, lo: int
) -> list[dict[str, Any]]:
    """Event logs (``mamma_mia_env.replay_events``) of the recorded games of batch 0."""
    logs = []
    for k, acts in enumerate(actions):
        names = [res.names[a][:MAX_AGENT_NAME] for a in res.assign[lo + k]]  # by seat
        logs.append(replay_events(res.config, int(seeds[lo + k]), acts, agents=names))
    return logs
