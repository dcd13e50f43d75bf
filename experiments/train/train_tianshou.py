"""Train Mamma Mia! with Tianshou (2.x, multi-agent): masked DQN, self-play or vs random.

    pip install -e ".[tianshou]"
    python -m experiments.train.train_tianshou --players 2 --iterations 50

Zero glue: ``mamma_mia_env.integrations.tianshou.tianshou_env`` is the env Tianshou's
collectors and ``MultiAgentOffPolicyAlgorithm`` take as they are. ``--opponent self``
(default) lets one DQN play every seat (all seats' moves train it); ``--opponent
random`` puts it in seat 0 against Tianshou's masked random algorithm. Each iteration
collects ``--steps`` env steps from ``--envs`` games and does ``--updates`` gradient
steps. Outputs in ``--out`` (default ``runs/tianshou``): ``progress.csv`` (env steps,
collection steps/s, loss, finished games), ``progress.png`` and ``summary.json``
(settings, versions, git revision, throughput).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from typing import Any

from experiments.common.arguments import checked
from experiments.common.training import add_training_args, check_training_args, write_training_run
from mamma_mia_env.plumbing.arguments import ArgumentParser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=50, help="collect/update rounds (50)")
    p.add_argument("--steps", type=int, default=1000, help="env steps per iteration (1000)")
    p.add_argument("--updates", type=int, default=50, help="gradient steps per iteration (50)")
    p.add_argument("--envs", type=int, default=8, help="games collected in parallel (8)")
    p.add_argument("--batch", type=int, default=64, help="DQN batch size (64)")
    p.add_argument("--buffer", type=int, default=50_000, help="replay buffer size (50000)")
    p.add_argument("--opponent", choices=("self", "random"), default="self")
    add_training_args(p, "tianshou", threads_help="torch threads (1)")
    args = checked(p).parse_args(argv)
    check_training_args(p, args, ("iterations", "steps", "updates", "envs", "batch", "buffer"))
    return args


def train(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np
    import tianshou
    from tianshou.utils.torch_utils import policy_within_training_step
    from tqdm import tqdm

    algo, buffer, collector = make_algorithm(args)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    total = 0
    t_start = time.perf_counter()
    for it in tqdm(range(args.iterations), desc="Tianshou DQN", unit="iter"):
        t0 = time.perf_counter()
        stats = collector.collect(n_step=args.steps)
        collect_s = time.perf_counter() - t0
        total += stats.n_collected_steps
        losses = []
        with policy_within_training_step(algo.policy):
            for _ in range(args.updates):
                loss = algo.update(buffer, sample_size=args.batch).get_loss_stats_dict()
                losses.append(float(np.mean(list(loss.values()))))
        rows.append(
            {
                "iteration": it + 1,
                "env_steps": total,
                "collect_steps_per_s": stats.n_collected_steps / collect_s,
                "games_finished": stats.n_collected_episodes,
                "loss": float(np.mean(losses)),
            }
        )
    wall = time.perf_counter() - t_start
    summary = {
        "library": "tianshou " + tianshou.__version__,
        "env_steps_per_s_collect_median": round(
            float(np.median([r["collect_steps_per_s"] for r in rows])), 1
        ),
    }
    panels = (("collect_steps_per_s", "env steps/s (collecting)"), ("loss", "DQN loss"))
    return write_training_run(args, rows, summary, panels, "Tianshou DQN on Mamma Mia!", wall)


def make_algorithm(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """The seeded multi-agent algorithm (the DQN in every seat, or against random), the
    replay buffer and the collector over ``--envs`` games."""
    import numpy as np
    import torch
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.net.common import Net

    from mamma_mia_env.integrations.tianshou import tianshou_env

    # Tianshou's statistics warn on every collect that the multi-agent reward is 2-D
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # noqa: NPY002 - Tianshou explores with the global generator
    cfg = {"num_players": args.players, "reward_mode": args.reward_mode}
    env = tianshou_env(**cfg)
    envs = DummyVectorEnv([lambda: tianshou_env(**cfg) for _ in range(args.envs)])
    envs.seed(args.seed)
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=[256, 256],
    )
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0
    )
    dqn = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99, target_update_freq=200
    )
    if args.opponent == "self":
        seats = [dqn] * env.num_agents
    else:
        rand = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
        seats = [dqn] + [rand] * (env.num_agents - 1)
    algo = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)
    buffer = VectorReplayBuffer(args.buffer, len(envs))
    collector = Collector(algo, envs, buffer, exploration_noise=True)
    collector.reset()
    return algo, buffer, collector


def main(argv: list[str] | None = None) -> int:
    summary = train(parse_args(argv))
    keys = ("env_steps", "wall_s", "env_steps_per_s_overall", "env_steps_per_s_collect_median")
    print(json.dumps({k: summary[k] for k in keys}))
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.train_tianshou"))
