"""Train Mamma Mia! with TorchRL: masked PPO in the learner's seat against `random`.

    pip install -e ".[torchrl]"
    python -m experiments.train.train_torchrl --name 2p --out experiments/results/torchrl  # ~5 min
    python -m experiments.train.train_torchrl --smoke --out /tmp/t   # seconds (CI)

Top to bottom, CleanRL style, with TorchRL's own parts and no hand-written PPO maths; the
parts, the evaluation and a run's numbers: docs/INTEGRATIONS.md (TorchRL).

Outputs in ``--out`` (default ``runs/torchrl``), named by ``--name``: ``progress.csv``
(per iteration: env steps, collection and overall env steps/s, the learner's win share in
the games that ended, losses), ``progress.png`` (the learning curve) and
``summary.json`` (settings, the evaluation, throughput end to end against the env alone,
wall and CPU time, versions, git revision); ``policy.npz`` beside them with ``--save``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.common.arguments import checked
from experiments.common.output import RUNS
from experiments.common.training import (
    add_dataclass_args,
    add_training_args,
    check_training_args,
    write_training_run,
)
from mamma_mia_env.plumbing.arguments import ArgumentParser


@dataclass
class Args:
    """Every field is a flag (``--total-frames``); the shared ones come from
    ``experiments.common.add_training_args``."""

    players: int = 2
    """seats at the table (2-5): the learner and players - 1 copies of the opponent"""
    reward_mode: str = "delivered_win_loss"
    """Config.reward_mode: +1 per order delivered and the end result (denser than win_loss)"""
    opponent: str = "random"
    """the opponents' policy: 'random' or a bundled bot name (load_agent)"""
    opponent_delivery_penalty: float = 1.0
    """minus this x the opponents' mean orders delivered (zero-sum shaping)"""
    seed: int = 0
    threads: int = 1
    """torch threads (1: the env's numba kernels use the other core)"""
    name: str | None = None
    out: Path = RUNS / "torchrl"
    # collection
    envs: int = 64
    """games played at once (the env's batch)"""
    steps: int = 64
    """env steps per game and iteration: a batch is envs x steps frames"""
    total_frames: int = 524_288
    """learner decisions to train on (128 iterations of 64 x 64)"""
    # PPO
    lr: float = 3e-4
    gamma: float = 0.99
    lmbda: float = 0.95
    clip: float = 0.2
    epochs: int = 4
    minibatch: int = 1024
    entropy: float = 0.01
    critic: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    """width of the actor's and the critic's two tanh layers"""
    # evaluation
    eval_games: int = 1000
    """duplicate-deal games against random at the end (seats rotated)"""
    save: bool = False
    """also write the policy file (the numpy format of mamma_mia_agents.bots.ppo_agent)"""
    smoke: bool = False
    """a few seconds: 2 iterations of 8 games x 16 steps, 20 evaluation games (CI)"""


def parse_args(argv: list[str] | None = None) -> Args:
    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    add_training_args(p, "torchrl", threads_help="torch threads (1)")
    switches = {"save", "smoke"}  # flags without a value
    add_dataclass_args(p, Args, skip={a.dest for a in p._actions} | switches)
    for name in sorted(switches):
        p.add_argument(f"--{name}", action="store_true")
    ns = checked(p).parse_args(argv)
    if ns.smoke:
        ns.envs, ns.steps, ns.total_frames, ns.minibatch, ns.eval_games = 8, 16, 256, 64, 20
    positive = ("envs", "steps", "total_frames", "epochs", "minibatch", "hidden", "eval_games")
    check_training_args(p, ns, positive)
    if ns.minibatch > ns.envs * ns.steps:
        p.error("--minibatch must not exceed --envs x --steps")
    return Args(**vars(ns))


def env_alone_steps_per_s(args: Args, seconds: float = 3.0) -> float:
    """The env by itself: the vector env's ``step`` with uniformly random legal actions
    (drawn outside the timing), batch ``--envs``, as the collector drives it."""
    import numpy as np

    from experiments.common.samplers import random_legal
    from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv

    venv = MammaMiaLearnerVectorEnv(args.envs, **_env_kwargs(args))
    _obs, info = venv.reset(seed=args.seed + 1)
    rng = np.random.default_rng(args.seed)
    spent, steps = 0.0, 0
    while spent < seconds:
        actions = random_legal(info["action_mask"], rng)
        t0 = time.perf_counter()
        _obs, _r, _te, _tr, info = venv.step(actions)
        spent += time.perf_counter() - t0
        steps += args.envs
    return steps / spent


def _env_kwargs(args: Args) -> dict[str, Any]:
    from mamma_mia_agents import load_agent

    opponents = None if args.opponent == "random" else load_agent(args.opponent)
    return {
        "num_players": args.players,
        "reward_mode": args.reward_mode,
        "opponents": opponents,
        "opponent_delivery_penalty": args.opponent_delivery_penalty,
    }


def build(args: Args) -> tuple[Any, Any, Any]:
    """The env, the masked actor and the critic."""
    import torch
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator

    from mamma_mia_env.integrations.torchrl import LearnerEnv

    env = LearnerEnv(args.envs, **_env_kwargs(args))
    env.set_seed(args.seed)
    obs_dim = env.observation_spec["observation"].shape[-1]
    n_actions = env.action_spec.space.n

    def mlp(out: int) -> nn.Sequential:
        h = args.hidden
        return nn.Sequential(
            nn.Linear(obs_dim, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, out)
        )

    logits = TensorDictModule(mlp(n_actions), in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        spec=env.action_spec,
        return_log_prob=True,
    )
    critic = ValueOperator(mlp(1), in_keys=["observation"])
    with torch.no_grad():
        actor(env.reset())
    return env, actor, critic


def ppo_parts(args: Args, actor: Any, critic: Any) -> tuple[Any, Any, Any, Any]:
    """TorchRL's GAE, clipped PPO loss, the optimiser and the minibatch buffer."""
    import torch
    from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    advantage = GAE(gamma=args.gamma, lmbda=args.lmbda, value_network=critic, average_gae=True)
    loss = ClipPPOLoss(
        actor, critic, clip_epsilon=args.clip, entropy_coeff=args.entropy,
        critic_coeff=args.critic, loss_critic_type="l2",
    )  # fmt: skip
    optim = torch.optim.Adam(loss.parameters(), lr=args.lr)
    buffer = ReplayBuffer(
        storage=LazyTensorStorage(args.envs * args.steps),
        sampler=SamplerWithoutReplacement(),
        batch_size=args.minibatch,
    )
    return advantage, loss, optim, buffer


def ppo_update(args: Args, batch: Any, parts: tuple[Any, Any, Any, Any]) -> dict[str, float]:
    """``--epochs`` passes over the batch in minibatches (advantages recomputed per
    epoch, as in TorchRL's PPO tutorial); the losses' means."""
    import numpy as np
    import torch

    advantage, loss, optim, buffer = parts
    stats: dict[str, list[float]] = {"loss_objective": [], "loss_critic": [], "entropy": []}
    for _ in range(args.epochs):
        with torch.no_grad():
            advantage(batch)
        buffer.extend(batch.reshape(-1))
        for mb in buffer:
            out = loss(mb)
            total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
            optim.zero_grad()
            total.backward()
            torch.nn.utils.clip_grad_norm_(loss.parameters(), args.max_grad_norm)
            optim.step()
            for key in stats:
                stats[key].append(float(out[key].detach()))
    return {k: float(np.mean(v)) for k, v in stats.items()}


def train(args: Args) -> dict[str, Any]:
    import torch
    import torchrl
    from torchrl.collectors import Collector
    from tqdm import tqdm

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    env_alone = env_alone_steps_per_s(args, 0.5 if args.smoke else 3.0)
    env, actor, critic = build(args)
    collector = Collector(
        env, actor, frames_per_batch=args.envs * args.steps, total_frames=args.total_frames,
        auto_register_policy_transforms=False,
    )  # fmt: skip
    parts = ppo_parts(args, actor, critic)
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    frames, collect_s = 0, 0.0
    t_start, cpu_start = time.perf_counter(), time.process_time()
    t_collect = time.perf_counter()
    bar = tqdm(total=args.total_frames, desc="TorchRL PPO", unit="step", disable=args.smoke)
    for it, batch in enumerate(collector):
        collect_s += time.perf_counter() - t_collect
        frames += batch.numel()
        ended = batch["next", "done"].squeeze(-1)
        wins = batch["next", "win"].squeeze(-1)[ended]
        losses = ppo_update(args, batch, parts)
        collector.update_policy_weights_()
        bar.update(batch.numel())
        rows.append(
            {
                "iteration": it + 1,
                "env_steps": frames,
                "games_ended": int(ended.sum()),
                "win_share": float(wins.mean()) if len(wins) else float("nan"),
                "collect_steps_per_s": round(frames / collect_s, 1),
                "steps_per_s_overall": round(frames / (time.perf_counter() - t_start), 1),
                **losses,
            }
        )
        bar.set_postfix(win=f"{rows[-1]['win_share']:.3f}", refresh=False)
        t_collect = time.perf_counter()
    bar.close()
    collector.shutdown()
    wall, cpu = time.perf_counter() - t_start, time.process_time() - cpu_start
    policy = export_policy(args, actor)
    if args.save:
        policy.save(args.out / f"{args.name or 'policy'}.npz")
    summary = {
        "library": "torchrl " + torchrl.__version__,
        "opponent": args.opponent,
        "evaluation": evaluate(args, policy),
        "cpu_s": round(cpu, 2),
        "env_steps_per_s_collect": round(frames / collect_s, 1),
        "env_steps_per_s_env_alone": round(env_alone, 1),
    }
    panels = (
        ("win_share", f"win share vs {args.opponent} (training games)"),
        ("collect_steps_per_s", "env steps/s collecting (so far)"),
        ("loss_critic", "critic loss"),
    )
    ns = argparse.Namespace(**dataclasses.asdict(args))
    return write_training_run(ns, rows, summary, panels, "TorchRL PPO on Mamma Mia!", wall)


def export_policy(args: Args, actor: Any) -> Any:
    """The actor's MLP in the project's numpy policy format (canonical frame, scaled)."""
    import torch

    from experiments.common.policy_export import policy_from_mlp
    from mamma_mia_env.game.symmetry import obs_scale

    mlp = list(next(m for m in actor.modules() if isinstance(m, torch.nn.Sequential)))
    meta = {
        "num_players": args.players,
        "observation_mode": "fixed",
        "trained": f"experiments/train/train_torchrl.py vs {args.opponent}",
    }
    return policy_from_mlp(mlp[:-1], mlp[-1], meta, obs_scale())


def evaluate(args: Args, policy: Any) -> dict[str, Any]:
    """The policy (deterministic) against the opponent on duplicate deals, seats rotated."""
    from experiments.common.evaluation import policy_against

    ev = policy_against(policy, args.opponent, args.players, args.eval_games, args.seed + 1_000)
    return {
        "games": ev["games"],
        "opponent": args.opponent,
        **{k: ev[k] for k in ("win_rate", "win_rate_low", "win_rate_high", "mean_delivered")},
        "seating": "duplicate deals, seats rotated",
        "elapsed_s": round(ev["elapsed"], 2),
    }


def main(argv: list[str] | None = None) -> int:
    summary = train(parse_args(argv))
    ev = summary["evaluation"]
    keys = ("env_steps", "wall_s", "cpu_s", "env_steps_per_s_overall",
            "env_steps_per_s_collect", "env_steps_per_s_env_alone")  # fmt: skip
    print(json.dumps({**{k: summary[k] for k in keys}, "win_rate": ev["win_rate"]}))
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.train_torchrl"))
