"""Expert iteration: the policy network distils the search bot's valued candidates.

    python -m experiments.train.expert_iteration --preset vs-search       # the published run
    python -m experiments.train.expert_iteration --preset vs-search-2     # two more rounds
    python -m experiments.train.expert_iteration --games 64 --iterations 1 --final-games 0 \
        --name smoke

PPO fine-tuning against the search bot levels off well short of it (docs/TRAINING.md,
the vs-search presets). This script teaches the network what the search knows instead,
in rounds (``--iterations``):

1. the network (its most likely legal action) plays ``--games`` games against
   ``--opponent`` on duplicate deals, and at each of its decisions with a choice the
   labeller, a search bot of ``--labeller-worlds`` sampled worlds, values its candidates:
   the builder's ``--labeller-candidates`` best moves plus the network's own
   ``--extra-top`` most likely ones (``experiments/common/search_labels.py``, over
   ``--workers`` processes, or as Ray tasks with ``--backend ray [--address ADDR]``:
   the same labels, docs/CLUSTER.md);
2. the network is fitted to its own preference among those candidates times
   exp(value / ``--temperature``), on every round's positions so far
   (``experiments/common/distill.py``);
3. the fitted network plays ``--curve-games`` duplicate deals against the evaluation
   opponent (the learning curve; a tournament whose batches run where the labelling
   does, ``--backend``), and the next round labels its own positions.

The positions are the network's own (not the search bot's games), so the labels cover
what the network will meet; the targets are values (not the search's single choice), and
weighted by the network's own preference (the labels are noisy: 32 sampled worlds
decide a near tie by luck), so only differences the labels show again and again move
the network. After the last round the policy file plays
``--final-games`` duplicate deals at the final seed no training uses.

Outputs in ``runs/<name>/`` (or ``--out``): ``policy.npz`` (plays as ``PPOAgent(path)``),
``result.json`` (arguments, per round: positions, labelling time, the network's win
rate while labelled, the fit's epochs, the curve point; the final evaluation; wall time;
provenance) and ``curve.png``. ``--export`` copies the result and the policy (not the
curve, which no doc shows) to ``experiments/results/expert_iteration/expert_iteration_<name>.*``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.arguments import checked
from experiments.common.distill import fit_to_values, numpy_policy, torch_actor
from experiments.common.evaluation import CURVE_SEED, FINAL_SEED, policy_against
from experiments.common.output import RESULTS, RUNS, save_figure, subplots
from experiments.common.search_labels import LabelJob, label_parallel
from experiments.common.training import dataclass_parser, set_threads
from mamma_mia_agents.cli.options import add_backend_flags, check_backend_flags
from mamma_mia_agents.tournament.fanout import FanOutError, session
from mamma_mia_env.plumbing.files import write_file
from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["PRESETS", "Args", "main", "parse_args", "run"]

LABELS = ("obs", "masks", "cands", "values")  # the labelled positions' arrays


@dataclass
class Args:
    name: str = "expert_iteration"
    """the run's name: outputs go to runs/<name>/"""
    seed: int = 1
    """seed of the labelled games' deals and of the fit's shuffling and initialisation"""
    threads: int = 2
    """torch's and numba's threads in the fit and the evaluations"""
    num_players: int = 2
    init_policy: str = "runs/2p_vs_search_2/policy.npz"
    """the policy file the network starts from (its shape is kept; the default: what
    ``cleanrl_ppo --preset vs-search-2`` writes)"""
    opponent: str = "search"
    """the opponent of the labelled games and of every evaluation (a bundled name or an
    import path)"""

    # the labels
    iterations: int = 3
    """rounds of labelling the current network's games and fitting it"""
    games: int = 3072
    """labelled games per round (duplicate deals: an even number in 2 players)"""
    labeller_worlds: int = 32
    """sampled worlds per candidate of the labeller (the bundled search bot uses 16)"""
    labeller_candidates: int = 6
    """the builder's best moves among the labeller's candidates"""
    extra_top: int = 2
    """the network's most likely moves added to the candidates"""
    workers: int = 2
    """processes labelling games"""

    # the fit
    anchored: bool = True
    """targets weighted by the network's own preference among the candidates, fitted over
    the candidates only (``distill.py``); off: a softmax of the values alone over every
    legal move, which on 32-world labels made the network worse (docs/TRAINING.md)"""
    temperature: float = 0.06
    """softmax temperature of the values, in win-share units (32-world values are
    noisy: about 0.07 standard deviation each)"""
    epochs: int = 8
    batch_size: int = 512
    learning_rate: float = 1e-3
    holdout: float = 0.05
    """share of the positions held out of the fit (its loss, regret and agreement)"""

    # evaluation
    curve_games: int = 400
    """duplicate-deal games against --opponent after each round, at the curve seed"""
    final_games: int = 2000
    """duplicate-deal games of the final policy against --opponent at the final seed
    (0: none)"""


#: ``--preset vs-search``: the plain network against the search bot (about an
#: hour on the 2-core machine, docs/TRAINING.md); ``--preset vs-search-2``: two more
#: rounds from its policy, on other labelled deals (``--seed 2``).
PRESETS: dict[str, dict[str, Any]] = {
    "vs-search": {"name": "2p_vs_search"},
    "vs-search-2": {
        "name": "2p_vs_search_2",
        "init_policy": "runs/2p_vs_search/policy.npz",  # what vs-search writes
        "iterations": 2,
        "seed": 2,
    },
}


def parse_args(argv: list[str] | None = None) -> tuple[Args, argparse.Namespace]:
    """Every ``Args`` field as ``--field-name``, a ``--preset`` of them; checked before
    anything runs."""
    parser = dataclass_parser(
        __doc__.split("\n\n")[0], Args, PRESETS, argv,
        "also copy the result and the policy to experiments/results/expert_iteration/",
    )  # fmt: skip
    add_backend_flags(parser, "the labelled games and the evaluations' games")
    ns = checked(parser).parse_args(argv)
    check_backend_flags(parser, ns)
    args = Args(**{f.name: getattr(ns, f.name) for f in dataclasses.fields(Args)})
    problems = [
        f"--{name.replace('_', '-')} must be positive"
        for name in ("iterations", "games", "labeller_worlds", "labeller_candidates")
        + ("workers", "epochs", "batch_size", "threads", "curve_games")
        if getattr(args, name) < 1
    ]
    problems += _problems(args)
    if problems:
        parser.error("; ".join(problems))
    return args, ns


def _problems(args: Args) -> list[str]:
    """What else is wrong with ``args``: values out of range, a policy file or an
    opponent that cannot play this game."""
    problems = []
    if args.games % args.num_players:
        problems.append(f"--games must be a multiple of --num-players ({args.num_players})")
    if not args.temperature > 0 or not 0 < args.learning_rate < 1 or not 0 < args.holdout < 1:
        problems.append("--temperature must be positive, --learning-rate and --holdout in (0, 1)")
    if not args.name or "/" in args.name or args.name.startswith("."):
        problems.append("--name must be a plain directory name")
    from mamma_mia_agents import load_agent
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy
    from mamma_mia_env import Config

    try:
        pol = NumpyPolicy.load(args.init_policy)
        if pol.num_players != args.num_players:
            problems.append(
                f"--init-policy {args.init_policy!r} is not a canonical "
                f"{args.num_players}-player policy of the whole observation"
            )
    except (OSError, ValueError) as exc:
        problems.append(f"--init-policy: {exc}")
    try:
        load_agent(args.opponent).check_config(Config(num_players=args.num_players))
    except (ValueError, TypeError, ImportError) as exc:
        problems.append(f"--opponent {args.opponent!r}: {exc}")
    return problems


def _against(args: Args, pol: Any, games: int, seed: int, backend: str) -> dict[str, float]:
    """``pol`` against the opponent: in ``--workers`` processes or as Ray tasks (the
    same games)."""
    res = policy_against(pol, args.opponent, args.num_players, games, seed, args.workers,
                         backend)  # fmt: skip
    return {k: res[k] for k in ("games", "win_rate", "win_rate_low", "win_rate_high")}


def _round(
    args: Args, it: int, actor: Any, pol: Any, policy_file: Path, data: list, started: float,
    backend: str,
) -> dict[str, Any]:  # fmt: skip
    """Round ``it``: label the games of the policy in ``policy_file``, fit ``actor`` to
    every round's labels so far, write the fitted policy over ``policy_file`` and play
    the curve's deals. Returns the round's record (``data`` gains its labels)."""
    t0 = time.perf_counter()
    job = LabelJob(str(policy_file), args.opponent, args.labeller_worlds,
                   args.labeller_candidates, args.extra_top, args.num_players,
                   first_game=0, games=args.games, seed=args.seed * 1000 + it)  # fmt: skip
    data.append(label_parallel(job, args.workers, backend=backend))
    label_seconds = time.perf_counter() - t0
    merged = {k: np.concatenate([d[k] for d in data]) for k in LABELS}
    fit_rows: list[dict[str, Any]] = []
    t1 = time.perf_counter()
    fit = {k: getattr(args, k) for k in ("temperature", "epochs", "batch_size")}
    fit |= {"learning_rate": args.learning_rate, "holdout": args.holdout,
            "anchored": args.anchored}  # fmt: skip
    fit_to_values(actor, merged, pol.scale, fit, args.seed + it, fit_rows)
    fit_seconds = time.perf_counter() - t1
    new = numpy_policy(actor, pol)
    new.meta["trained_with"] = {
        "script": "expert_iteration.py", "name": args.name, "seed": args.seed,
        "init_policy": args.init_policy, "rounds": it + 1, "positions": len(merged["obs"]),
    }  # fmt: skip
    new.save(policy_file)
    t2 = time.perf_counter()
    point = _against(args, new, args.curve_games, CURVE_SEED, backend)
    return {
        "round": it + 1, "labelled_games": args.games, "positions": len(data[-1]["obs"]),
        "win_rate_while_labelled": float(data[-1]["wins"].mean()),
        "label_seconds": label_seconds, "fit_seconds": fit_seconds, "fit": fit_rows,
        "curve": point, "curve_seconds": time.perf_counter() - t2,
        "wall_seconds": time.perf_counter() - started,
    }  # fmt: skip


def run(args: Args, out: Path, backend: str = "local") -> dict[str, Any]:
    """The rounds, the final evaluation, the curve and ``result.json`` (returned).
    ``backend="ray"``: the labelling and the evaluations' games on the Ray instance this
    process is connected to (``fanout.session``); the fit stays here."""
    import torch

    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    set_threads(args.threads)
    torch.manual_seed(args.seed)
    pol = NumpyPolicy.load(args.init_policy)
    actor = torch_actor(pol)
    policy_file = out / "policy.npz"
    pol.save(policy_file)  # the first round's games are the starting policy's
    data: list[dict[str, np.ndarray]] = []
    rounds: list[dict[str, Any]] = []
    for it in range(args.iterations):
        rounds.append(_round(args, it, actor, pol, policy_file, data, started, backend))
        r = rounds[-1]
        print(f"round {it + 1}: {r['positions']:,} positions, win while labelled "
              f"{r['win_rate_while_labelled']:.3f}, curve {r['curve']['win_rate']:.3f}",
              flush=True)  # fmt: skip
    training_seconds = time.perf_counter() - started
    final = None
    if args.final_games:
        trained = NumpyPolicy.load(policy_file)
        final = {"seed": FINAL_SEED,
                 **_against(args, trained, args.final_games, FINAL_SEED, backend)}  # fmt: skip
    start = _against(args, NumpyPolicy.load(args.init_policy), args.curve_games, CURVE_SEED,
                     backend)  # fmt: skip
    _plot(args, start, rounds, out / "curve.png")
    doc = {
        "args": dataclasses.asdict(args),
        "start_curve": start,
        "rounds": rounds,
        "final": final,
        "wall": {
            "training_seconds": training_seconds,
            "total_seconds": time.perf_counter() - started,
            "load_average": list(os.getloadavg()),
        },
        "provenance": provenance(
            seeds={"seed": args.seed, "curve_seed": CURVE_SEED, "final_seed": FINAL_SEED},
            wall_time=time.perf_counter() - started,
        ),
    }
    write_file(out / "result.json", json.dumps(doc, indent=1) + "\n", "result")
    return doc


def _plot(args: Args, start: dict, rounds: list[dict], path: Path) -> None:
    """The curve's win rates (Wilson 95% bars) over the wall time of training."""
    pts = [(0.0, start)] + [(r["wall_seconds"] / 60, r["curve"]) for r in rounds]
    x = [p[0] for p in pts]
    y = [100 * p[1]["win_rate"] for p in pts]
    err = [[100 * (p[1]["win_rate"] - p[1]["win_rate_low"]) for p in pts],
           [100 * (p[1]["win_rate_high"] - p[1]["win_rate"]) for p in pts]]  # fmt: skip
    fig, ax = subplots(figsize=(6, 4))
    ax.errorbar(x, y, yerr=err, marker="o", capsize=3)
    ax.axhline(100 / args.num_players, ls=":", color="grey", label="chance")
    ax.set_xlabel("wall minutes (labelling, fit, curve games)")
    ax.set_ylabel(f"win rate vs {args.opponent} (%), {args.curve_games} deals")
    ax.set_title(f"Expert iteration, {args.num_players}p, {args.games:,} labelled games a round")
    ax.legend()
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    args, ns = parse_args(argv)
    out = ns.out if ns.out is not None else RUNS / args.name
    try:
        with session(ns.backend, ns.address):
            doc = run(args, out, ns.backend)
    except FanOutError as exc:  # no result.json: docs/CLUSTER.md
        print(f"expert_iteration: {exc}", file=sys.stderr)
        return 1
    if doc["final"] is not None:
        f = doc["final"]
        print(f"final: win rate vs {args.opponent} {100 * f['win_rate']:.1f}% "
              f"[{100 * f['win_rate_low']:.1f}, {100 * f['win_rate_high']:.1f}] on "
              f"{f['games']:,} duplicate deals; trained in "
              f"{doc['wall']['training_seconds'] / 60:.1f} min wall; {out}")  # fmt: skip
    if ns.export:
        for name, ext in (("result.json", "json"), ("policy.npz", "npz")):
            write_file(RESULTS / "expert_iteration" / f"expert_iteration_{args.name}.{ext}",
                       (out / name).read_bytes(), "exported result")  # fmt: skip
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.expert_iteration"))
