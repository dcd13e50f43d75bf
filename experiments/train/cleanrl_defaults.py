"""A/Bs of the CleanRL-style PPO's settings: does a change learn as well?

    python -m experiments.train.cleanrl_defaults --export
    python -m experiments.train.cleanrl_defaults --study warm-start --seeds 2 --export

Each setting of a study (:data:`STUDIES`) trains ``experiments.train.cleanrl_ppo`` from
seeds 1..``--seeds``, each run a process of its own, the settings interleaved seed by
seed so that both see the same machine load; the record compares what each learnt at
equal env steps (the win share and orders delivered in the run's own evaluation, with
``--final-games`` the policy file on duplicate deals) and how fast. ``update``: CleanRL's
4 epochs at 2.5e-4 against the defaults' 1 at 1e-3; ``warm-start``: the ten-minute
preset (without its wall budget) from scratch and after the imitation warm start.
Writes ``<study>.json`` and ``.png`` into ``--out`` (default runs/cleanrl_defaults/;
``--export``: experiments/results/cleanrl_defaults/); docs/TRAINING.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from experiments.common.output import ROOT, add_output_args, output_dir, write_json
from mamma_mia_env.plumbing.arguments import ArgumentParser, int_flag
from mamma_mia_env.plumbing.provenance import provenance

NAME = "cleanrl_defaults"


@dataclass(frozen=True)
class Study:
    """One A/B: the result's name, the flags every run shares, and per setting its label,
    its own flags and what the record says of it."""

    name: str
    shape: list[str]
    settings: tuple[tuple[str, list[str], dict[str, Any]], ...]
    total_timesteps: int  # the default of --total-timesteps


WARM_GAMES = 10_000  # the ten-minute preset's warm start (cleanrl_ppo.PRESETS)
STUDIES = {
    "update": Study(
        "update",  # the shape of experiments/results/cleanrl_ppo/cleanrl_ppo_2p_builder.json
        ["--num-players", "2", "--opponent", "builder", "--num-envs", "128", "--num-steps", "32"],
        (("4 epochs, lr 2.5e-4", ["--update-epochs", "4", "--learning-rate", "0.00025"],
          {"update_epochs": 4, "learning_rate": 2.5e-4}),  # CleanRL's
         ("1 epoch, lr 1e-3", ["--update-epochs", "1", "--learning-rate", "0.001"],
          {"update_epochs": 1, "learning_rate": 1e-3})),  # cleanrl_ppo.py's defaults
        300_000,
    ),
    "warm-start": Study(
        "warm_start",
        ["--preset", "ten-minutes", "--wall-minutes", "0", "--curve-every", "0"],
        (("from scratch", ["--warm-start-games", "0"], {"warm_start_games": 0}),
         (f"warm start, {WARM_GAMES:,} builder games", ["--warm-start-games", str(WARM_GAMES)],
          {"warm_start_games": WARM_GAMES})),
        6_000_000,
    ),
}  # fmt: skip


@dataclass
class Args:
    seeds: int  # training seeds 1..seeds, each trained once per setting
    total_timesteps: int  # env steps per run
    eval_games: int  # evaluation games per run (cleanrl_ppo.py --eval-games)
    study: str = "update"


def parse_args(argv: list[str] | None) -> tuple[Args, argparse.Namespace]:
    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int_flag("--seeds", 1, 100), default=5,
                   help="train seeds 1..N per setting")  # fmt: skip
    p.add_argument("--total-timesteps", type=int_flag("--total-timesteps", 4096, 10**8),
                   default=None, help="env steps per run (default: the study's, "
                   "300,000 for update, 6,000,000 for warm-start)")  # fmt: skip
    p.add_argument("--eval-games", type=int_flag("--eval-games", 16, 100_000), default=512,
                   help="evaluation games per run")  # fmt: skip
    p.add_argument("--study", choices=sorted(STUDIES), default="update",
                   help="which A/B (default update)")  # fmt: skip
    add_output_args(p, NAME)
    ns = p.parse_args(argv)
    steps = ns.total_timesteps or STUDIES[ns.study].total_timesteps
    return Args(ns.seeds, steps, ns.eval_games, ns.study), ns


def one_run(args: Args, index: int, flags: list[str], seed: int, tmp: Path) -> dict[str, Any]:
    """Train once with ``cleanrl_ppo.py`` and return what it learnt and how fast."""
    out = tmp / f"setting{index}_s{seed}"
    cmd = [sys.executable, "-m", "experiments.train.cleanrl_ppo", *STUDIES[args.study].shape,
           *flags,
           "--total-timesteps", str(args.total_timesteps), "--seed", str(seed),
           "--eval-games", str(args.eval_games), "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    doc = json.loads((out / "result.json").read_text())
    trained, tp = doc["evaluation"]["trained"], doc["throughput"]
    run = {
        "seed": seed,
        "env_steps": tp["env_steps"],
        "win": trained["win"],
        "delivered": trained["delivered"],
        "env_steps_per_s_overall": tp["env_steps_per_s_overall"],
        "overall_over_env_only": tp["overall_over_env_only"],
        "share_update": tp["share_update"],
    }
    if "final" in doc["evaluation"]:  # the policy file on duplicate deals (--final-games)
        final = doc["evaluation"]["final"]
        run |= {k: final[k] for k in ("win_rate", "win_rate_low", "win_rate_high")}
        run["final_games"] = final["games"]
        run |= {"warm_start_seconds": doc["wall"]["warm_start_seconds"],
                "training_seconds": doc["wall"]["training_seconds"],
                "load_average": doc["wall"]["load_average"]}  # fmt: skip
    return run


def summary(runs: list[dict[str, Any]]) -> dict[str, float]:
    wins = [r["win"] for r in runs]
    out = {
        "win_mean": statistics.fmean(wins),
        "win_sd": statistics.stdev(wins) if len(wins) > 1 else 0.0,
        "delivered_mean": statistics.fmean(r["delivered"] for r in runs),
        "overall_over_env_only_median": statistics.median(r["overall_over_env_only"] for r in runs),
    }
    if all("win_rate" in r for r in runs):  # the duplicate-deal evaluation of each policy file
        out["final_win_rate_mean"] = statistics.fmean(r["win_rate"] for r in runs)
    return out


def plot(results: dict[str, dict[str, Any]], study: str, path: Path) -> None:
    from experiments.common.output import save_figure, subplots

    fig, ax = subplots(figsize=(6, 3.5))
    key = "final_win_rate_mean" if study != "update" else "win_mean"
    for i, res in enumerate(results.values()):
        wins = [r["win_rate" if key != "win_mean" else "win"] for r in res["runs"]]
        ax.scatter([i] * len(wins), wins, alpha=0.7)
        ax.hlines(res["summary"][key], i - 0.2, i + 0.2, colors="k")
    ax.set_xticks(range(len(results)), list(results))
    what = "duplicate deals, argmax" if key != "win_mean" else "evaluation"
    ax.set_ylabel(f"win rate vs builder ({what})")
    ax.set_title(f"CleanRL-style PPO, {study}: equal env steps")
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    args, ns = parse_args(argv)
    study = STUDIES[args.study]
    out = output_dir(ns, "cleanrl_defaults")
    started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {
        label: {**keys, "flags": flags, "runs": []} for label, flags, keys in study.settings
    }
    jobs = [(s, i, label, flags) for s in range(1, args.seeds + 1)
            for i, (label, flags, _) in enumerate(study.settings)]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for seed, i, label, flags in tqdm(jobs, desc="training runs"):
            results[label]["runs"].append(one_run(args, i, flags, seed, Path(tmp)))
    for res in results.values():
        res["summary"] = summary(res["runs"])
    doc = {"args": asdict(args), "shape": study.shape, "settings": results}
    record = provenance(seeds=list(range(1, args.seeds + 1)),
                        wall_time=time.perf_counter() - started)  # fmt: skip
    write_json(out / f"{study.name}.json", doc, record)
    plot(results, args.study, out / f"{study.name}.png")
    for label, res in results.items():
        s = res["summary"]
        ratio = s["overall_over_env_only_median"]
        final = f", final {s['final_win_rate_mean']:.3f}" if "final_win_rate_mean" in s else ""
        print(f"{label}: win {s['win_mean']:.3f} (sd {s['win_sd']:.3f}){final}, delivered "
              f"{s['delivered_mean']:.2f}, overall/env {ratio:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.cleanrl_defaults"))
