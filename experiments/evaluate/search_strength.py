"""How strong the search bot is, by budget: win rate against builder and ppo.

    python -m experiments.evaluate.search_strength [--worlds 2,4,8,16] [--games 200]
        [--opponents builder,ppo] [--players 2,4] [--headline-games 2000] [--export]

For every budget (``worlds`` sampled worlds per candidate action, the bot's default
number of candidates) and opponent, a duplicate-deal tournament (``run_tournament``, rotated
seats): with 2 players the search bot against one opponent, with 4 players against
three copies of it. The search bot's win rate comes with its Wilson 95% interval
(shared wins split). The time per decision is measured apart, on one core (numba
threads = 1), over positions of builder games, as the median and mean of
``act_states`` calls. Writes ``NAME.json`` and ``NAME.png`` (``--name``, default
``search_strength``) into ``--out`` (default runs/search_strength/; ``--export``:
experiments/results/search_strength/). The win rates are deterministic for given
arguments (``python -m experiments reproduce --check`` compares them); the times are not.

The headline rows (the bot's default budget, ``--headline-worlds``, against
``builder``) are played first with ``--headline-games`` games; then the
curve's other rows, one budget at a time, cheapest first, so that a run cut short
keeps the headline and the cheap end of every curve. Every row is played in
tournaments of ``--block`` games (tournament seeds ``--seed``, ``--seed + 1``, ...: new
deals each, the same deals at every budget); every block of every row of a stage (the
headline, then each budget) is played at once, in ``--workers`` processes or as Ray
tasks (``--backend ray [--address ADDR]``, docs/CLUSTER.md: the same games), and the
file is rewritten after every stage, the intervals computed over all the row's games
(deal-clustered: a deal's seat rotations count as one draw). The time per decision is
always measured here, before the stage's games start. ``--resume FILE`` continues a
file's rows (same ``--block`` and ``--seed``) up to the games now asked, and adds rows;
the earlier runs' arguments and provenance stay in its ``history``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.arguments import checked
from experiments.common.decision_time import decision_times
from experiments.common.output import add_output_args, output_dir, save_figure, subplots, write_json
from experiments.common.provenance import provenance_with_threads as provenance
from mamma_mia_agents import load_agent
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_agents.cli.options import add_backend_flags, check_backend_flags, stem
from mamma_mia_agents.tournament.fanout import FanOutError, session
from mamma_mia_agents.tournament.results import (
    TournamentResult,
    cluster_mean_interval,
    wilson_interval,
)
from mamma_mia_agents.tournament.runner import Prepared, prepare, run_all
from mamma_mia_env.game.outcome import win_shares
from mamma_mia_env.plumbing.arguments import ArgumentParser, as_float, as_int
from mamma_mia_env.plumbing.files import read_json

#: the opponent of the headline rows
HEADLINE = "builder"


def blocks(row: dict, agents: list[Any], num_players: int, games: int,
           args: argparse.Namespace) -> list[Prepared]:  # fmt: skip
    """The row's tournaments still to play, planned: blocks of ``--block`` games (seeds
    ``--seed``, ``--seed + 1``, ...: new deals each, the same deals for every budget),
    from where the row stands (``--resume``) up to ``games``."""
    b, done = int(row.get("blocks", 0)), sum(row.get("deal_games", []))
    planned: list[Prepared] = []
    while done < games:
        size = min(args.block, games - done)
        planned.append(prepare(agents, num_players, games=size, seed=args.seed + b + len(planned),
                               workers=args.workers, backend=args.backend))  # fmt: skip
        done += len(planned[-1].plan.seeds)  # whole deals: a block may round up
    return planned


def add_blocks(row: dict, opponent: str, played: list[TournamentResult]) -> dict:
    """The search bot's results against ``opponent`` in ``played`` (the row's blocks, in
    block order) added to ``row``: its per-deal wins and games (kept, so that
    ``--resume`` goes on where a run stopped) and the rates over all of them."""
    # per deal: the search bot's win shares and games (the clusters of the interval)
    deal_wins: list[float] = row.setdefault("deal_wins", [])
    deal_games: list[int] = row.setdefault("deal_games", [])
    delivered = float(row.get("delivered_total", 0))
    for res in played:
        sel = res.assign == 0  # the search bot's seat in every game
        x = win_shares(res.delivered, res.cards)[sel]
        deal = np.broadcast_to(res.deal[:, None], sel.shape)[sel]
        deal_wins += np.bincount(deal, weights=x).round(6).tolist()
        deal_games += np.bincount(deal).tolist()
        delivered += float(res.delivered[sel].sum())
    # the wall time of the fan-outs the row's blocks were in (shared with their other rows)
    elapsed = float(row.get("tournament_seconds", 0.0)) + played[0].elapsed
    w = np.array(deal_wins)
    c = np.array(deal_games)
    n_games = int(c.sum())
    wins = float(w.sum())
    lo, hi = wilson_interval(wins, n_games)
    # each game's share as its deal's mean: the same deal sums, so the same interval
    _, clo, chi = cluster_mean_interval(np.repeat(w / c, c), np.repeat(np.arange(len(c)), c))
    num_players = played[0].config.num_players
    row.update(
        num_players=num_players,
        opponent=opponent,
        games=n_games,
        blocks=int(row.get("blocks", 0)) + len(played),
        wins=round(wins, 4),
        win_rate=round(wins / n_games, 4),
        wilson95=[round(lo, 4), round(hi, 4)],
        deal_clustered95=[round(max(clo, 0.0), 4), round(min(chi, 1.0), 4)],
        chance=round(1 / num_players, 4),
        mean_delivered=round(delivered / n_games, 3),
        delivered_total=delivered,
        tournament_seconds=round(elapsed, 1),
    )
    return row


def plot(record: dict, path: Path) -> None:
    fig, ax = subplots(figsize=(7, 4.5))
    for key, rows in sorted(record["curves"].items()):
        x = [r["ms_per_decision"] for r in rows]
        y = [r["win_rate"] for r in rows]
        err = [[r["win_rate"] - r["wilson95"][0] for r in rows],
               [r["wilson95"][1] - r["win_rate"] for r in rows]]  # fmt: skip
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=key)
    ax.set_xscale("log")
    ax.set_xlabel("median time per decision (ms, one core)")
    ax.set_ylabel("search win rate (Wilson 95%)")
    ax.axhline(0.5, color="grey", lw=0.5, ls=":")
    ax.axhline(0.25, color="grey", lw=0.5, ls=":")
    ax.legend(fontsize=8)
    ax.set_title("Search bot strength vs budget (duplicate deals)")
    save_figure(fig, path, dpi=120)


def build_parser() -> argparse.ArgumentParser:
    ap = ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worlds", default="2,4,8,16", help="budgets: worlds per candidate")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--opponents", default="builder,ppo")
    ap.add_argument(
        "--headline-worlds",
        type=int,
        default=SearchAgent().worlds,
        help="the budget of the headline rows (default: the bot's default)",
    )
    ap.add_argument(
        "--headline-games",
        type=int,
        default=None,
        help="games of the headline rows (default: --games)",
    )
    ap.add_argument("--headline-players", default="", help="default: --players")
    ap.add_argument("--block", type=int, default=200, help="games per tournament (new deals)")
    ap.add_argument(
        "--resume",
        default=None,
        help="a search_strength.json to continue: its rows go on to the games asked",
    )
    ap.add_argument("--positions", type=int, default=60, help="positions timed per budget")
    ap.add_argument("--workers", type=int, default=2, help="processes playing the games")
    add_backend_flags(ap, "the games")
    ap.add_argument("--seed", type=int, default=0)
    add_output_args(ap, "search_strength")
    ap.add_argument("--name", type=stem, default="search_strength", help="output file stem")
    return ap


def check_args(
    ap: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[list[int], list[int], list[str]]:
    """The budgets, player counts and opponents, checked (the opponents loaded once, so
    that a bad name fails before anything runs)."""
    try:
        budgets = [int(w) for w in args.worlds.split(",")]
        players = [int(p) for p in args.players.split(",")]
    except ValueError:
        ap.error("--worlds and --players take comma-separated integers")
    if args.headline_games is None:
        args.headline_games = args.games
    if (
        min(budgets) < 1
        or min(args.games, args.positions, args.headline_games) < 1
        or args.headline_worlds < 1
        or args.block < 1
    ):
        ap.error("--worlds, --games, --positions and --headline-* must be >= 1")
    if any(p not in (2, 3, 4, 5) for p in players):
        ap.error("--players must be in 2-5")
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    for o in opponents:
        load_agent(o)  # fails early with a clear message
    return budgets, players, opponents


def resume(ap: argparse.ArgumentParser, args: argparse.Namespace, record: dict) -> None:
    """``--resume FILE``: its rows and timings into ``record``, its arguments and
    provenance kept in ``history``."""
    try:
        old = read_json(args.resume, "--resume file")
        check_resume(old)
    except ValueError as exc:  # FileError, a field of the wrong kind (named)
        ap.error(f"--resume {args.resume}: not a search_strength result file ({exc})")
    if old["args"]["block"] != args.block or old["args"]["seed"] != args.seed:
        ap.error("--resume needs the --block and --seed of the run it continues")
    # the earlier runs' code and arguments stay on record
    history = old.pop("history", []) + [
        {"args": old.pop("args"), "provenance": old.pop("provenance", None)}
    ]
    record.update(old, history=history, args=vars(args))


def check_resume(old: Any) -> None:
    """A ``--resume`` document as this script wrote it, every field it reads back of
    its kind (``plumbing.arguments``' checkers), or ``ValueError`` naming the field:
    a crafted file can only be refused, never crash the run or be read by truth value."""
    if not isinstance(old, dict) or old.get("experiment") != "search_strength":
        raise ValueError("field 'experiment' is not 'search_strength'")
    args, curves, timing = old.get("args"), old.get("curves"), old.get("timing", {})
    if not (isinstance(args, dict) and isinstance(curves, dict) and isinstance(timing, dict)):
        raise ValueError("fields 'args', 'curves' and 'timing' must be objects")
    as_int(args.get("block"), "args.block", 1)
    as_int(args.get("seed"), "args.seed", 0)
    if not isinstance(old.get("history", []), list):
        raise ValueError("field 'history' must be a list")
    for key, t in timing.items():
        if not isinstance(t, dict):
            raise ValueError(f"timing.{key} must be an object")
        as_float(t.get("median_ms"), f"timing.{key}.median_ms", 0.0)
    for curve, rows in curves.items():
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError(f"curves.{curve} must be a list of objects")
        for i, row in enumerate(rows):
            _check_row(row, f"curves.{curve}[{i}]")


def _check_row(row: dict, name: str) -> None:
    as_int(row.get("worlds"), f"{name}.worlds", 1)
    as_int(row.get("candidates"), f"{name}.candidates", 1)
    for key in ("games", "blocks"):
        as_int(row.get(key, 0), f"{name}.{key}", 0)
    for key in ("tournament_seconds", "delivered_total"):
        as_float(row.get(key, 0.0), f"{name}.{key}", 0.0)
    wins, games = row.get("deal_wins", []), row.get("deal_games", [])
    if not isinstance(wins, list) or not isinstance(games, list) or len(wins) != len(games):
        raise ValueError(f"{name}.deal_wins and .deal_games must be lists of one length")
    for k, (w, g) in enumerate(zip(wins, games, strict=True)):
        as_float(w, f"{name}.deal_wins[{k}]", 0.0)
        as_int(g, f"{name}.deal_games[{k}]", 1)


def plan(
    ap: argparse.ArgumentParser,
    args: argparse.Namespace,
    budgets: list[int],
    players: list[int],
    opponents: list[str],
) -> list[tuple[int, int, str, int]]:
    """The rows, as (players, worlds, opponent, games): the headline first, then the
    curves cheapest first."""
    try:
        headline_players = [int(p) for p in args.headline_players.split(",") if p.strip()]
    except ValueError:
        ap.error("--headline-players takes comma-separated integers")
    headline_players = headline_players or players
    if any(p not in (2, 3, 4, 5) for p in headline_players):
        ap.error("--headline-players must be in 2-5")
    jobs = [(n, args.headline_worlds, HEADLINE, args.headline_games) for n in headline_players]
    jobs += [
        (n, w, o, args.games)
        for w in sorted(budgets)
        for n in players
        for o in opponents
        if not (w == args.headline_worlds and o == HEADLINE)
    ]
    return jobs


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = checked(ap).parse_args(argv)
    check_backend_flags(ap, args)
    t0 = time.perf_counter()
    budgets, players, opponents = check_args(ap, args)
    out_dir = output_dir(args, "search_strength")
    args.out = str(out_dir)  # the arguments are written to the file as JSON
    record: dict = {
        "experiment": "search_strength",
        "args": vars(args),
        "load_average_before": os.getloadavg(),
        "curves": {},
        "timing": {},
    }
    if args.resume:
        resume(ap, args, record)

    def save() -> None:  # after every stage: a cut-short run keeps what it measured
        made = provenance(seeds=args.seed, wall_time=time.perf_counter() - t0)
        write_json(out_dir / f"{args.name}.json", record, made)
        plot(record, out_dir / f"{args.name}.png")

    jobs = plan(ap, args, budgets, players, opponents)
    try:
        with session(args.backend, args.address):  # a cluster that does not answer: now
            for stage in stages(jobs, args.headline_worlds):
                play_stage(args, record, stage)
                save()
    except FanOutError as exc:  # the stages played so far are in the file
        print(f"search_strength: {exc}", file=sys.stderr)
        return 1
    record["load_average_after"] = os.getloadavg()
    save()
    print(f"wrote {out_dir}/{args.name}.json and .png")
    return 0


def stages(
    jobs: list[tuple[int, int, str, int]], headline_worlds: int
) -> list[list[tuple[int, int, str, int]]]:
    """The rows in the order ``plan`` gives them, grouped: the headline rows, then the
    rows of each budget. A stage's games are fanned out together, and the file is
    written after each one."""

    def key(job: tuple[int, int, str, int]) -> int:
        _, w, opp, _ = job
        return 0 if w == headline_worlds and opp == HEADLINE else w

    return [list(group) for _, group in itertools.groupby(jobs, key)]


def play_stage(
    args: argparse.Namespace, record: dict, stage: list[tuple[int, int, str, int]]
) -> None:
    """The stage's rows: each budget's time per decision measured (here, on one core,
    before any game of the stage runs beside it), then every block of every row not yet
    complete played at once (``run_all``: worker processes or Ray tasks, one progress
    bar of games) and added to its row in block order."""
    todo = []
    for n, w, opp, games in stage:
        bot = SearchAgent(worlds=w)
        key = f"{n}p_worlds{w}"
        if key not in record["timing"]:
            record["timing"][key] = decision_times(n, bot, args.positions, args.seed)
        row = _row(record, f"{n}p vs {opp}", w, bot.candidates)
        if row.get("games", 0) >= games:  # --resume: this row is done
            continue
        row.update(
            ms_per_decision=record["timing"][key]["median_ms"],
            headline=w == args.headline_worlds and opp == HEADLINE,
        )
        todo.append((row, opp, blocks(row, [bot] + [opp] * (n - 1), n, games, args)))
    planned = [t for _, _, row_blocks in todo for t in row_blocks]
    if not planned:
        return
    desc = f"worlds {stage[0][1]}" + (" (headline)" if todo[0][0]["headline"] else "")
    played = iter(run_all(planned, args.workers, args.backend, desc=desc))
    for row, opp, row_blocks in todo:
        add_blocks(row, opp, [next(played) for _ in row_blocks])
        print(f"{row['num_players']}p worlds={row['worlds']} vs {opp}: {row['win_rate']:.1%} "
              f"{row['wilson95']} ({row['games']} games), "
              f"{row['ms_per_decision']} ms/decision")  # fmt: skip


def _row(record: dict, curve: str, worlds: int, candidates: int) -> dict:
    """The curve's row of this budget (found on --resume, else a new one, kept sorted)."""
    rows = record["curves"].setdefault(curve, [])
    found = [r for r in rows if r["worlds"] == worlds and r["candidates"] == candidates]
    if found:
        return found[0]
    row = {"worlds": worlds, "candidates": candidates}
    rows.append(row)
    rows.sort(key=lambda r: r["worlds"])
    return row


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.evaluate.search_strength"))
