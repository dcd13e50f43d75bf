"""Train Mamma Mia! with Ray RLlib: masked PPO, self-play (one policy plays every seat).

    pip install -e ".[rllib]"
    python experiments/train_rllib.py --players 2 --iterations 20
    python experiments/train_rllib.py --address auto --env-runners 8   # on a Ray cluster

Zero glue: the env, the action masking and the shared policy come from
``mamma_mia_env.integrations.rllib.ppo_config``. Each iteration samples
``--batch`` env steps (every seat's decisions) and runs PPO on them. Outputs in
``--out`` (default ``runs/rllib``): ``progress.csv`` (per iteration: env steps, env
steps/s of sampling, episode length, policy loss, entropy), ``progress.png`` and
``summary.json`` (settings, versions, git revision, throughput). ``--checkpoint``
also saves the algorithm.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments.common import file_stem  # noqa: E402
from mamma_mia_env.provenance import provenance  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2, help="2-5 (default 2)")
    p.add_argument("--iterations", type=int, default=20, help="training iterations (default 20)")
    p.add_argument("--batch", type=int, default=4000, help="env steps per iteration (4000)")
    p.add_argument("--minibatch", type=int, default=256, help="PPO minibatch (256)")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration (4)")
    p.add_argument("--env-runners", type=int, default=0, help="remote env runners (0: local)")
    p.add_argument("--envs-per-runner", type=int, default=8, help="games per env runner (8)")
    p.add_argument("--reward-mode", default="delivered_win_loss", help="Config.reward_mode")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto', ray://...)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads per process (1)")
    p.add_argument(
        "--name",
        type=file_stem,
        default=None,
        help="file stem: NAME.json, NAME.csv, NAME.png (default summary.json, progress.csv, "
        "progress.png)",
    )
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "rllib")
    p.add_argument("--checkpoint", action="store_true", help="save the algorithm at the end")
    args = p.parse_args(argv)
    for name in ("iterations", "batch", "minibatch", "epochs", "envs_per_runner", "threads"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.env_runners < 0:
        p.error("--env-runners must be >= 0")
    if not 2 <= args.players <= 5:
        p.error("--players must be 2-5")
    if args.minibatch > args.batch:
        p.error("--minibatch must not exceed --batch")
    return args


def _get(d: dict[str, Any], *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d


def train(args: argparse.Namespace) -> dict[str, Any]:
    # one BLAS/torch thread per process: with several processes on few cores, more
    # threads oversubscribe the CPU (measured: 30x slower sampling on 2 shared cores)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import numpy as np
    import ray
    import torch
    from tqdm import tqdm

    from mamma_mia_env.integrations.rllib import POLICY_ID, ppo_config

    torch.set_num_threads(args.threads)
    ray.init(
        address=args.address,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"OMP_NUM_THREADS": str(args.threads)}},
    )
    config = ppo_config(
        num_players=args.players,
        env_config={"reward_mode": args.reward_mode},
        num_env_runners=args.env_runners,
        num_envs_per_env_runner=args.envs_per_runner,
        train_batch_size=args.batch,
        minibatch_size=args.minibatch,
        seed=args.seed,
    ).training(num_epochs=args.epochs)
    algo = config.build_algo()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    t_start = time.perf_counter()
    try:
        for it in tqdm(range(args.iterations), desc="RLlib PPO", unit="iter"):
            res = algo.train()
            timers = res.get("timers", {})
            sampled = _get(res, "env_runners", "num_env_steps_sampled") or 0
            sample_time = timers.get("env_runner_sampling_timer") or float("nan")
            learner = _get(res, "learners", POLICY_ID) or {}
            rows.append(
                {
                    "iteration": it + 1,
                    "env_steps": int(
                        _get(res, "env_runners", "num_env_steps_sampled_lifetime") or 0
                    ),
                    "sampled": int(sampled),
                    "sample_steps_per_s": sampled / sample_time if sample_time else float("nan"),
                    "episode_len_mean": _get(res, "env_runners", "episode_len_mean"),
                    "policy_loss": learner.get("policy_loss"),
                    "entropy": learner.get("entropy"),
                }
            )
        wall = time.perf_counter() - t_start
        if args.checkpoint:
            algo.save(str((args.out / "checkpoint").resolve()))
    finally:
        algo.stop()
        nodes = len(ray.nodes())
        ray.shutdown()
    with open(args.out / f"{args.name or 'progress'}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    total = rows[-1]["env_steps"]
    summary = {
        "library": "ray[rllib] " + ray.__version__,
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "iterations": len(rows),
        "env_steps": total,
        "wall_s": round(wall, 2),
        "env_steps_per_s_overall": round(total / wall, 1),
        "env_steps_per_s_sampling_median": round(
            float(np.nanmedian([r["sample_steps_per_s"] for r in rows])), 1
        ),
        "ray_nodes": nodes,
        # code revision, library versions, machine, command line, seed
        "provenance": provenance(seeds=args.seed, wall_time=wall),
    }
    (args.out / f"{args.name or 'summary'}.json").write_text(json.dumps(summary, indent=1) + "\n")
    _plot(rows, args.out / f"{args.name or 'progress'}.png")
    return summary


def _plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    it = [r["iteration"] for r in rows]
    fig, ax = plt.subplots(1, 3, figsize=(12, 3.2))
    for a, key, title in zip(
        ax,
        ("sample_steps_per_s", "policy_loss", "entropy"),
        ("env steps/s (sampling)", "policy loss", "policy entropy"),
        strict=True,
    ):
        a.plot(it, [r[key] if r[key] is not None else float("nan") for r in rows], marker=".")
        a.set_title(title)
        a.set_xlabel("iteration")
    fig.suptitle("RLlib PPO self-play on Mamma Mia!")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    summary = train(parse_args(argv))
    print(
        json.dumps(
            {
                k: summary[k]
                for k in (
                    "env_steps",
                    "wall_s",
                    "env_steps_per_s_overall",
                    "env_steps_per_s_sampling_median",
                )
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
