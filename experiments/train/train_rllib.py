"""Train Mamma Mia! with Ray RLlib: masked PPO, self-play (one policy plays every seat).

    pip install -e ".[rllib]"
    python -m experiments.train.train_rllib --players 2 --iterations 20
    python -m experiments.train.train_rllib --address auto --env-runners 8   # on a Ray cluster

Zero glue: the env, the action masking and the shared policy come from
``mamma_mia_env.integrations.rllib.ppo_config``. Each iteration samples
``--batch`` env steps (every seat's decisions) and runs PPO on them. Outputs in
``--out`` (default ``runs/rllib``): ``progress.csv`` (per iteration: env steps, env
steps/s of sampling, episode length, policy loss, entropy), ``progress.png`` and
``summary.json`` (settings, versions, git revision, throughput).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from experiments.common.arguments import checked
from experiments.common.training import add_training_args, check_training_args, write_training_run
from mamma_mia_env.plumbing.arguments import ArgumentParser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=20, help="training iterations (default 20)")
    p.add_argument("--batch", type=int, default=4000, help="env steps per iteration (4000)")
    p.add_argument("--minibatch", type=int, default=256, help="PPO minibatch (256)")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration (4)")
    p.add_argument("--env-runners", type=int, default=0, help="remote env runners (0: local)")
    p.add_argument("--envs-per-runner", type=int, default=8, help="games per env runner (8)")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto', ray://...)")
    add_training_args(p, "rllib", threads_help="torch threads per process (1)")
    args = checked(p).parse_args(argv)
    check_training_args(p, args, ("iterations", "batch", "minibatch", "epochs", "envs_per_runner"))
    if args.minibatch > args.batch:
        p.error("--minibatch must not exceed --batch")
    return args


def _get(d: dict[str, Any], *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d


def _row(iteration: int, res: dict[str, Any], policy_id: str) -> dict[str, Any]:
    """A row of progress.csv from an iteration's result: env steps, sampling speed,
    episode length, the shared policy's loss and entropy."""
    timers = res.get("timers", {})
    sampled = _get(res, "env_runners", "num_env_steps_sampled") or 0
    sample_time = timers.get("env_runner_sampling_timer") or float("nan")
    learner = _get(res, "learners", policy_id) or {}
    return {
        "iteration": iteration,
        "env_steps": int(_get(res, "env_runners", "num_env_steps_sampled_lifetime") or 0),
        "sampled": int(sampled),
        "sample_steps_per_s": sampled / sample_time if sample_time else float("nan"),
        "episode_len_mean": _get(res, "env_runners", "episode_len_mean"),
        "policy_loss": learner.get("policy_loss"),
        "entropy": learner.get("entropy"),
    }


def train(args: argparse.Namespace) -> dict[str, Any]:
    # one BLAS/torch thread per process: with several processes on few cores, more
    # threads oversubscribe the CPU (measured: 30x slower sampling on 2 shared cores)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import numpy as np
    import ray
    import torch
    from tqdm import tqdm

    from mamma_mia_env.integrations.ray_cluster import init_ray
    from mamma_mia_env.integrations.rllib import POLICY_ID, ppo_config

    torch.set_num_threads(args.threads)
    init_ray(args.address, runtime_env={"env_vars": {"OMP_NUM_THREADS": str(args.threads)}})
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
            rows.append(_row(it + 1, algo.train(), POLICY_ID))
        wall = time.perf_counter() - t_start
    finally:
        algo.stop()
        nodes = len(ray.nodes())
        ray.shutdown()
    summary = {
        "library": "ray[rllib] " + ray.__version__,
        "iterations": len(rows),
        "env_steps_per_s_sampling_median": round(
            float(np.nanmedian([r["sample_steps_per_s"] for r in rows])), 1
        ),
        "ray_nodes": nodes,
    }
    panels = (
        ("sample_steps_per_s", "env steps/s (sampling)"),
        ("policy_loss", "policy loss"),
        ("entropy", "policy entropy"),
    )
    return write_training_run(
        args, rows, summary, panels, "RLlib PPO self-play on Mamma Mia!", wall
    )


def main(argv: list[str] | None = None) -> int:
    summary = train(parse_args(argv))
    keys = ("env_steps", "wall_s", "env_steps_per_s_overall", "env_steps_per_s_sampling_median")
    print(json.dumps({k: summary[k] for k in keys}))
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.train_rllib"))
