"""Tune the champion: the search bot's budget under a time limit, against the search bot.

    python -m experiments.train.tune_champion --players 2 --grid 48x6,64x4,96x3 --export
    python -m experiments.train.tune_champion --players 4 --grid 32x6,48x4 --export

The champion (``mamma_mia_agents.bots.champion``) is the search bot with a larger budget
and, optionally, the shipped ``ppo`` network's choice added to its candidates (a
policy-guided search: the network proposes, the rollouts decide). Its training is this
search over settings, read top to bottom:

1. every setting of the grid (``--grid``: ``WORLDSxCANDIDATES`` pairs, each with and
   without the prior, ``--priors``) is timed on one core (numba threads 1) over
   ``--positions`` positions of builder games; settings whose mean CPU time per decision
   exceeds ``--max-ms`` may not be chosen;
2. each setting plays ``--games`` duplicate-deal games (rotated seats) against
   the default ``search`` bot: one of it against one search bot at 2 players, against
   three at 4, on the tournament seed ``--seed`` (the same deals for every setting);
   the settings' tournaments are fanned out, one per worker process (``--workers``) or
   as Ray tasks (``--backend ray [--address ADDR]``, docs/CLUSTER.md): the same games;
3. of the settings within the time limit, the one with the highest win rate (ties: the
   faster) is the champion.

Writes ``tuning.json`` (every setting's time, win rate with its Wilson 95% interval and
delivered orders; the chosen one), ``tuning.png`` and the settings file
``champion.json`` into ``--out`` (default runs/tune_champion_<N>p/); ``--export`` also
copies them to experiments/results/champion/champion_<N>p_tuning.json / .png and
agents/policies/champion_<N>p.json, where ``ChampionAgent`` reads it. The evaluation
on 2,000 games at seeds that no tuning used is ``mamma-mia evaluate champion``
(docs/AGENTS.md). The win rates are deterministic for given arguments (every setting
is played, whatever its time); the times are not: the CPU time moves much less than
the wall clock on a shared machine, but does move, so the champion's time per decision
is measured again, on a quiet machine, for docs/AGENTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from experiments.common.arguments import checked
from experiments.common.decision_time import decision_times
from experiments.common.output import RESULTS, RUNS, out_dir_arg, save_figure, subplots, write_json
from experiments.common.provenance import provenance_with_threads
from experiments.common.training import add_dataclass_args
from mamma_mia_agents.bots.champion import FORMAT, POLICY_DIR, read_settings
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_agents.cli.options import add_backend_flags, check_backend_flags
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_agents.tournament.fanout import FanOutError, Job, fan_out, session
from mamma_mia_agents.tournament.schedule import count_deals
from mamma_mia_env.plumbing.arguments import ArgumentParser
from mamma_mia_env.plumbing.files import write_file


@dataclass
class Args:
    players: int = 2
    """players per game (the settings file is for this count)"""
    grid: str = "64x6,96x4,128x3"
    """budgets to try: WORLDSxCANDIDATES, comma-separated (worlds per candidate action,
    candidate turn actions from the builder's scores)"""
    priors: str = "none,ppo"
    """candidate priors to try with every budget: none or ppo (the shipped network's
    choice added to the candidates)"""
    games: int = 200
    """games per setting against the search bot (rounded up to whole deals)"""
    seed: int = 23
    """tournament seed of the tuning games (the evaluation's seeds differ)"""
    max_ms: float = 20.0
    """limit of the mean CPU milliseconds per decision on one core"""
    positions: int = 30
    """positions timed per setting"""
    margin: float = 0.02
    """the search bot's tie-breaker weight of the delivered-orders lead"""
    workers: int = 2
    """worker processes, each playing one setting's tournament at a time"""


def parse_args(argv: list[str] | None = None) -> tuple[Args, argparse.Namespace]:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dataclass_args(parser, Args)
    parser.add_argument(
        "--out",
        type=out_dir_arg,
        default=None,
        help="run directory (default runs/tune_champion_<N>p/)",
    )
    parser.add_argument(
        "--export",
        action="store_true",
        help="also copy the results to experiments/results/champion/, the settings to "
        "agents/policies/",
    )
    add_backend_flags(parser, "the settings' tournaments")
    ns = checked(parser).parse_args(argv)
    check_backend_flags(parser, ns)
    args = Args(**{k: getattr(ns, k) for k in asdict(Args())})
    try:
        settings(args)
    except ValueError as exc:
        parser.error(str(exc))
    problems = [
        f"--{k.replace('_', '-')} must be positive"
        for k in ("games", "positions", "workers", "max_ms")
        if getattr(args, k) <= 0
    ]
    if not 2 <= args.players <= 5:
        problems.append("--players must be 2-5")
    if problems:
        parser.error("; ".join(problems))
    return args, ns


def settings(args: Args) -> list[dict[str, Any]]:
    """The grid as search-bot settings, cheapest budget first."""
    out = []
    for pair in args.grid.split(","):
        worlds, _, cands = pair.strip().partition("x")
        if not (worlds.isdigit() and cands.isdigit() and int(worlds) > 0 and int(cands) > 0):
            raise ValueError(f"--grid entries are WORLDSxCANDIDATES (e.g. 64x6), got {pair!r}")
        for prior in args.priors.split(","):
            if prior not in ("none", "ppo"):
                raise ValueError(f"--priors are none or ppo, got {prior!r}")
            out.append(
                {
                    "worlds": int(worlds),
                    "candidates": int(cands),
                    "margin": args.margin,
                    "rollout": "builder",
                    "prior": None if prior == "none" else prior,
                }
            )
    return out


def label(s: dict[str, Any]) -> str:
    return f"{s['worlds']}x{s['candidates']}" + ("+ppo" if s["prior"] else "")


def search_bot(s: dict[str, Any]) -> SearchAgent:
    """The search bot of the setting ``s``, as the champion plays it."""
    return SearchAgent(**s)


def play(args: Args, s: dict[str, Any], report: Callable[[int], None]) -> dict[str, Any]:
    """The setting's results against the search bot (its row of the tournament), played
    in one process: a work item of ``play_all``. ``report(k)``: ``k`` games played."""
    bot = search_bot(s)
    bot.name = label(s)
    started = time.perf_counter()
    res = run_tournament(
        [bot] + ["search"] * (args.players - 1),
        num_players=args.players,
        games=args.games,
        seed=args.seed,
        workers=1,
        progress=False,
    )
    report(res.games)
    row = next(r for r in res.compute_table() if r["agent"] == bot.name)
    return {
        "games": row["seat_games"],
        "wins": row["wins"],
        "win_rate": row["win_rate"],
        "ci_low": row["win_rate_low"],
        "ci_high": row["win_rate_high"],
        "mean_delivered": row["mean_delivered"],
        "seconds": round(time.perf_counter() - started, 1),
    }


def _args(args: Args) -> Args:
    return args


def play_all(args: Args, grid: list[dict[str, Any]], backend: str = "local") -> list[Any]:
    """Every setting's tournament, one work item each (``fanout``: ``args.workers``
    processes, or Ray tasks), in grid order; a progress bar of games."""
    deals = count_deals(args.players, args.players, "rotate", args.games)
    total = deals * args.players * len(grid)
    with tqdm(total=total, desc=f"tuning games ({args.players}p)", unit="game") as bar:
        return fan_out(Job(_args, play, args), grid, backend, args.workers, bar=bar)


def plot(rows: list[dict[str, Any]], args: Args, path: Path) -> None:
    """``tuning.png``: every setting's win rate (95% interval) against its CPU time."""
    fig, ax = subplots(figsize=(7, 4))
    xs = [r["cpu_mean_ms"] for r in rows]
    ys = [r["win_rate"] for r in rows]
    low = [y - r["ci_low"] for y, r in zip(ys, rows, strict=True)]
    high = [r["ci_high"] - y for y, r in zip(ys, rows, strict=True)]
    ax.errorbar(xs, ys, yerr=[low, high], fmt="o", capsize=3)
    for x, y, r in zip(xs, ys, rows, strict=True):
        ax.annotate(r["label"], (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.axhline(1 / args.players, color="grey", ls=":", label="chance")
    ax.axvline(args.max_ms, color="red", ls="--", label=f"limit {args.max_ms:g} ms")
    ax.set_xlabel("mean CPU ms per decision, one core")
    ax.set_ylabel(f"win rate vs search ({args.games} games, 95% CI)")
    ax.set_title(f"Champion tuning, {args.players} players")
    ax.legend()
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    args, ns = parse_args(argv)
    started = time.perf_counter()
    n = args.players
    out = Path(ns.out) if ns.out is not None else RUNS / f"tune_champion_{n}p"
    out.mkdir(parents=True, exist_ok=True)
    loads = list(os.getloadavg())
    grid = settings(args)
    try:
        with session(ns.backend, ns.address):  # a cluster that does not answer: now
            # timed first, here, one after another: the tournaments fanned out below
            # would share the cores the timing needs alone
            times = [decision_times(n, search_bot(s), args.positions, args.seed)
                     for s in tqdm(grid, desc=f"timing settings ({n}p)")]  # fmt: skip
            played = play_all(args, grid, ns.backend)
    except FanOutError as exc:  # nothing written: docs/CLUSTER.md
        print(f"tune_champion: {exc}", file=sys.stderr)
        return 1
    rows: list[dict[str, Any]] = []
    for s, timed, result in zip(grid, times, played, strict=True):
        rows.append({"label": label(s), "settings": s, **timed, **result})
        tqdm.write(json.dumps({k: v for k, v in rows[-1].items() if k != "settings"}))
    within = [r for r in rows if r["cpu_mean_ms"] <= args.max_ms]
    if not within:
        print(f"no setting within {args.max_ms} ms per decision", file=sys.stderr)
        return 1
    best = max(within, key=lambda r: (r["win_rate"], -r["cpu_mean_ms"]))
    doc = {
        "experiment": "tune_champion",
        "args": asdict(args),
        "rows": rows,
        "champion": best["label"],
        "load_average_before": loads,
    }
    record = provenance_with_threads(
        seeds={"seed": args.seed}, wall_time=time.perf_counter() - started
    )
    write_json(out / "tuning.json", doc, record)
    plot(rows, args, out / "tuning.png")
    champion = {
        "format": FORMAT,
        "num_players": n,
        "search": best["settings"],
        "tuned_by": f"experiments/results/champion/champion_{n}p_tuning.json",
        "win_rate_vs_search": best["win_rate"],
        "cpu_mean_ms": best["cpu_mean_ms"],
    }
    write_file(out / "champion.json", json.dumps(champion, indent=2) + "\n", "champion settings")
    read_settings(out / "champion.json")  # the file reads back as a champion
    if ns.export:  # only an explicit --export touches the repository's tracked files
        for made, dst in (
            ("tuning.json", RESULTS / "champion" / f"champion_{n}p_tuning.json"),
            ("tuning.png", RESULTS / "champion" / f"champion_{n}p_tuning.png"),
            ("champion.json", POLICY_DIR / f"champion_{n}p.json"),
        ):
            write_file(dst, (out / made).read_bytes(), "exported result")
    print(
        f"champion {best['label']}: win {best['win_rate']:.3f} "
        f"[{best['ci_low']:.3f}, {best['ci_high']:.3f}] vs search, "
        f"{best['cpu_mean_ms']} ms/decision; {out}"
    )
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.tune_champion"))
