"""PPO with action masking on the learner-seat vector env, in CleanRL's style.

    python experiments/cleanrl_ppo.py --num-players 2 --opponent builder --total-timesteps 500000
    python experiments/cleanrl_ppo.py --total-timesteps 20000 --name smoke   # a quick run

The structure of CleanRL's ``ppo.py`` (arguments dataclass, ``Agent`` with separate
actor and critic MLPs, a rollout buffer of ``num_steps x num_envs``, GAE, clipped
surrogate and value losses, entropy bonus, annealed learning rate, minibatch epochs,
early stop on ``target_kl``), on ``MammaMiaLearnerVectorEnv``: the learner's view of
``num_envs`` games, the other seats played inside the env by ``--opponent`` (the
bundled bots' compiled kernels, or ``random``). Illegal actions are masked out of the
logits (CleanRL's invalid-action masking: logits of illegal actions set to -1e8, so
their probability and their share of the entropy are 0). The steps of an iteration
(rollout, GAE, the minibatch update) are in ``experiments/common/ppo_steps.py``.

After training, the policy (sampled, as trained) and a uniformly random legal policy
play ``--eval-games`` games each against the same opponent on the same deals (one game
per slot, same seed): win share, orders delivered and return.

Outputs, all in ``runs/<name>/`` (or ``--out``): ``progress.csv`` (one row per
iteration), ``model.pt`` (the torch state dict), ``learning_curve.png`` and
``result.json`` (arguments, per-iteration metrics, evaluation, throughput and
provenance). ``--export`` also copies ``result.json`` and the curve to
``experiments/results/cleanrl_ppo_<name>.json`` / ``.png`` (the committed results);
nothing else is written outside the run directory.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from torch.distributions.categorical import Categorical
from tqdm import tqdm

from mamma_mia_env.plumbing.files import write_file

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments.common.evaluation import play_learner_games  # noqa: E402
from experiments.common.output import RESULTS, RUNS  # noqa: E402
from experiments.common.ppo_steps import Buffer, Live, gae, rollout, update  # noqa: E402
from experiments.common.provenance import provenance  # noqa: E402
from experiments.common.training import add_dataclass_args, plot_panels  # noqa: E402
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv  # noqa: E402


@dataclass
class Args:
    name: str = "cleanrl_ppo"
    """the run's name: outputs go to runs/<name>/"""
    seed: int = 1
    """seed of torch, of the env's deal generator and of the evaluation"""
    torch_deterministic: bool = True
    threads: int = 1
    """torch threads (1: the env and torch share few cores)"""

    # the game
    num_players: int = 2
    opponent: str = "builder"
    """the opponents' policy: a bundled bot name or 'random'"""
    reward_mode: str = "delivered_win_loss"
    opponent_delivery_penalty: float = 1.0
    learner_seat: int | None = None
    """None: a random seat per game"""

    # PPO (CleanRL's names and defaults where they apply)
    total_timesteps: int = 200_000
    learning_rate: float = 2.5e-4
    num_envs: int = 64
    num_steps: int = 32
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    hidden: int = 128

    # evaluation
    eval_games: int = 256

    # filled in at runtime
    batch_size: int = 0
    minibatch_size: int = 0
    num_iterations: int = 0


def parse_args(argv: list[str] | None = None) -> tuple[Args, argparse.Namespace]:
    """Every ``Args`` field as ``--field-name``; checked before anything runs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    runtime = {"batch_size", "minibatch_size", "num_iterations"}
    add_dataclass_args(parser, Args, skip=runtime)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--out", type=Path, default=None, help="run directory (default runs/<name>)")
    group.add_argument(
        "--export",
        action="store_true",
        help="also copy result.json and the curve to experiments/results/",
    )
    from experiments.common.arguments import checked  # every flag checked

    ns = checked(parser).parse_args(argv)
    fields = {f.name for f in dataclasses.fields(Args)} - runtime
    args = Args(**{k: getattr(ns, k) for k in fields})
    problems = [
        f"--{name.replace('_', '-')} must be positive"
        for name in ("total_timesteps", "num_envs", "num_steps", "num_minibatches")
        + ("update_epochs", "hidden", "eval_games", "threads")
        if getattr(args, name) < 1
    ]
    if not 0 < args.learning_rate < 1:
        problems.append("--learning-rate must be in (0, 1)")
    if not (0 <= args.gamma <= 1 and 0 <= args.gae_lambda <= 1):
        problems.append("--gamma and --gae-lambda must be in [0, 1]")
    if not args.name or "/" in args.name or args.name.startswith("."):
        problems.append("--name must be a plain directory name")
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // args.num_minibatches
    args.num_iterations = args.total_timesteps // max(args.batch_size, 1)
    if not problems and args.minibatch_size < 1:
        problems.append("--num-minibatches must not exceed num_envs * num_steps")
    if not problems and args.num_iterations < 1:
        problems.append(
            f"--total-timesteps ({args.total_timesteps}) is less than one batch "
            f"(num_envs * num_steps = {args.batch_size})"
        )
    if problems:
        parser.error("; ".join(problems))
    return args, ns


def make_env(args: Args, num_envs: int) -> MammaMiaLearnerVectorEnv:
    from mamma_mia_agents import load_agent

    opponent = None if args.opponent == "random" else load_agent(args.opponent)
    return MammaMiaLearnerVectorEnv(
        num_envs,
        opponents=opponent,
        learner_seat=args.learner_seat,
        opponent_delivery_penalty=args.opponent_delivery_penalty,
        num_players=args.num_players,
        reward_mode=args.reward_mode,
    )


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Masked logits: an illegal action gets -1e8, i.e. probability 0."""
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        p_log_p = probs.logits * probs.probs
        entropy = -torch.where(mask, p_log_p, torch.tensor(0.0)).sum(-1)
        return action, probs.log_prob(action), entropy, self.critic(x)


def evaluate(args: Args, agent: Agent | None, games: int, seed: int) -> dict[str, float]:
    """``agent`` (sampled, as trained; None: uniformly random legal actions) on
    ``games`` games against ``--opponent`` (:func:`play_learner_games`)."""
    if agent is None:
        return play_learner_games(make_env(args, games), None, games, seed)

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            action = agent.get_action_and_value(torch.as_tensor(obs), torch.as_tensor(mask))[0]
        return action.numpy().astype(np.int64)

    return play_learner_games(make_env(args, games), act, games, seed)


def train(args: Args, out: Path) -> dict[str, Any]:
    """The training loop; returns the result document (also written to ``out``)."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)  # minibatch shuffling
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    torch.set_num_threads(args.threads)
    device = torch.device("cpu")

    envs = RecordEpisodeStatistics(make_env(args, args.num_envs))
    obs_dim = envs.single_observation_space.shape[0]
    n_actions = int(envs.single_action_space.n)
    agent = Agent(obs_dim, n_actions, args.hidden).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    buf = Buffer.empty(args, obs_dim, n_actions)

    loop_started = time.perf_counter()  # throughput from here: imports and setup excluded
    next_obs_np, info = envs.reset(seed=args.seed)
    now = Live(
        obs=torch.as_tensor(next_obs_np),
        mask=torch.as_tensor(info["action_mask"] != 0),
        done=torch.zeros(args.num_envs),
    )
    rows: list[dict[str, Any]] = []
    rollout_time = 0.0
    with open(out / "progress.csv", "w", newline="") as fh:
        writer: csv.DictWriter | None = None
        bar = tqdm(range(1, args.num_iterations + 1), desc="PPO iterations")
        for iteration in bar:
            if args.anneal_lr:
                frac = 1.0 - (iteration - 1.0) / args.num_iterations
                optimizer.param_groups[0]["lr"] = frac * args.learning_rate
            t0 = time.perf_counter()
            ep_returns, ep_wins = rollout(args, envs, agent, buf, now)
            rollout_time += time.perf_counter() - t0
            advantages, returns = gae(args, agent, buf, now)
            losses = update(args, agent, optimizer, buf, advantages, returns, rng)
            row = {
                "iteration": iteration,
                "global_step": now.global_step,
                "learning_rate": optimizer.param_groups[0]["lr"],
                **losses,
                "episodes": len(ep_returns),
                "episodic_return": float(np.mean(ep_returns)) if ep_returns else float("nan"),
                "win": float(np.mean(ep_wins)) if ep_wins else float("nan"),
                "sps": now.global_step / (time.perf_counter() - loop_started),
            }
            rows.append(row)
            if writer is None:
                writer = csv.DictWriter(fh, fieldnames=list(row))
                writer.writeheader()
            writer.writerow(row)
            fh.flush()
            bar.set_postfix(ret=f"{row['episodic_return']:.2f}", win=f"{row['win']:.2f}")

    train_time = time.perf_counter() - loop_started
    return finish(args, agent, out, rows, now, train_time, rollout_time, started)


def finish(
    args: Args,
    agent: Agent,
    out: Path,
    rows: list[dict[str, Any]],
    now: Live,
    train_time: float,
    rollout_time: float,
    started: float,
) -> dict[str, Any]:
    """Save the model, evaluate it and random play on the same deals, plot the curve and
    write ``result.json`` (returned)."""
    torch.save(agent.state_dict(), out / "model.pt")
    eval_seed = args.seed + 10_000
    trained = evaluate(args, agent, args.eval_games, eval_seed)
    random_play = evaluate(args, None, args.eval_games, eval_seed)
    plot_panels(
        rows,
        "global_step",
        (("episodic_return", "mean episodic return"), ("win", "mean win share (finished games)")),
        f"CleanRL-style PPO, {args.num_players}p vs {args.opponent}",
        out / "learning_curve.png",
    )
    doc = {
        "args": dataclasses.asdict(args),
        "iterations": rows,
        "evaluation": {"seed": eval_seed, "trained": trained, "random": random_play},
        "throughput": {  # the training loop only (no imports, setup or evaluation)
            "env_steps": now.global_step,
            "train_seconds": round(train_time, 3),
            "env_steps_per_s_overall": now.global_step / train_time,
            "env_steps_per_s_rollout": now.global_step / rollout_time,
            "env_steps_per_s_env_only": now.global_step / now.env_time,
        },
        "provenance": provenance(seeds={"seed": args.seed, "eval_seed": eval_seed},
                                 wall_time=time.perf_counter() - started),
    }  # fmt: skip
    write_file(out / "result.json", json.dumps(doc, indent=1) + "\n", "result")
    return doc


def main(argv: list[str] | None = None) -> int:
    args, ns = parse_args(argv)
    out = ns.out if ns.out is not None else RUNS / args.name
    doc = train(args, out)
    ev = doc["evaluation"]
    print(
        f"trained: win {ev['trained']['win']:.3f} delivered {ev['trained']['delivered']:.2f} | "
        f"random: win {ev['random']['win']:.3f} delivered {ev['random']['delivered']:.2f} | "
        f"{doc['throughput']['env_steps_per_s_overall']:,.0f} env steps/s overall; {out}"
    )
    if ns.export:
        RESULTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "result.json", RESULTS / f"cleanrl_ppo_{args.name}.json")
        shutil.copyfile(out / "learning_curve.png", RESULTS / f"cleanrl_ppo_{args.name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
