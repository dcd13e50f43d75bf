"""PPO with action masking on the learner-seat vector env, in CleanRL's style.

    python experiments/cleanrl_ppo.py --num-players 2 --opponent builder --total-timesteps 500000
    python experiments/cleanrl_ppo.py --total-timesteps 20000 --name smoke   # a quick run

The structure of CleanRL's ``ppo.py`` (arguments dataclass, ``Agent`` with separate
actor and critic MLPs, a rollout buffer of ``num_steps x num_envs``, GAE, clipped
surrogate and value losses, entropy bonus, annealed learning rate, minibatch epochs,
early stop on ``target_kl``), on ``MammaMiaLearnerVectorEnv``: the learner's view of
``num_envs`` games, the other seats played inside the env by ``--opponent`` (the
bundled bots' compiled kernels, or ``random``). Illegal actions are masked out of the
logits (CleanRL's invalid-action masking: probability and share of the entropy 0),
computed over each row's list of legal actions (at most a few dozen of the 655).
The steps of an iteration (rollout, GAE, the minibatch update) are in
``experiments/common/ppo_steps.py``.

After training, the policy (sampled, as trained) and a uniformly random legal policy
play ``--eval-games`` games each against the same opponent on the same deals (one game
per slot, same seed): win share, orders delivered and return.

Outputs, all in ``runs/<name>/`` (or ``--out``): ``progress.csv`` (one row per
iteration), ``model.pt`` (the torch state dict), ``learning_curve.png`` and
``result.json`` (arguments, per-iteration metrics, evaluation, throughput and
provenance). The throughput says where the loop's time went: env steps/s overall, in
the rollouts and inside ``envs.step`` alone, their ratio, and the shares of the wall
time in the policy's forward passes, GAE and the update (docs/TRAINING.md).
``--export`` also copies ``result.json`` and the curve to
``experiments/results/cleanrl_ppo_<name>.json`` / ``.png`` (the committed results);
nothing else is written outside the run directory.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import os
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
from tqdm import tqdm

from mamma_mia_env.plumbing.files import write_file

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments.common.evaluation import play_learner_games  # noqa: E402
from experiments.common.output import RESULTS, RUNS  # noqa: E402
from experiments.common.ppo_steps import Buffer, Legal, Live, gae, rollout, update  # noqa: E402
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
    """torch threads (1: the env's kernels and torch share few cores; on a loaded 2-core
    machine 2 threads made the update several times slower)"""

    # the game
    num_players: int = 2
    opponent: str = "builder"
    """the opponents' policy: a bundled bot name or 'random'"""
    reward_mode: str = "delivered_win_loss"
    opponent_delivery_penalty: float = 1.0
    learner_seat: int | None = None
    """None: a random seat per game"""

    # PPO (CleanRL's names; its defaults but for learning_rate and update_epochs)
    total_timesteps: int = 200_000
    """env steps (learner decisions) to train for"""
    learning_rate: float = 1e-3
    """Adam's step size (annealed linearly to 0 with --anneal-lr); CleanRL's 2.5e-4
    with 4 epochs learnt no better than this with 1 (docs/TRAINING.md, the A/B)"""
    num_envs: int = 64
    """games stepped together (one engine batch)"""
    num_steps: int = 32
    """steps of every game per rollout: a batch is num_envs x num_steps"""
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    """minibatches per epoch of the update"""
    update_epochs: int = 1
    """passes over each batch: the update's cost grows with it (the result's
    share_update); with CleanRL's 4 the update was two thirds of the wall time or more"""
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    hidden: int = 128
    """units of each of the two hidden layers of the actor and of the critic"""

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
        self, x: torch.Tensor, legal: Legal, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Masked logits over the legal actions only (``legal``: each row's list; the
        padding gets -1e8, probability exactly 0, and so a ``p log p`` of 0 in the
        entropy): the same distribution as CleanRL's mask over all 655 logits, at a
        fraction of the cost. ``softmax`` and ``log_softmax`` rather than
        ``Categorical``, whose ``exp`` of logits that underflow to 0 is tens of times
        slower than on ordinary numbers."""
        logits = torch.where(legal.valid, self.actor(x).gather(1, legal.index), -1e8)
        logp, probs = torch.log_softmax(logits, dim=-1), torch.softmax(logits, dim=-1)
        if action is None:
            pick = sample(probs)
            action = legal.index.gather(1, pick.unsqueeze(1)).squeeze(1)
        else:  # the action's column in its row's list
            pick = ((legal.index == action.unsqueeze(1)) & legal.valid).float().argmax(1)
        logprob = logp.gather(1, pick.unsqueeze(1)).squeeze(1)
        entropy = -(probs * logp).sum(-1)
        return action, logprob, entropy, self.critic(x)

    def act(self, x: torch.Tensor, legal: Legal) -> tuple[torch.Tensor, ...]:
        """The rollout's half of :meth:`get_action_and_value`: a sampled action, its
        log-probability and the value (no entropy, no ``log_softmax``: the log of
        the one probability drawn)."""
        logits = torch.where(legal.valid, self.actor(x).gather(1, legal.index), -1e8)
        probs = torch.softmax(logits, dim=-1)
        pick = sample(probs).unsqueeze(1)
        action = legal.index.gather(1, pick).squeeze(1)
        return action, probs.gather(1, pick).squeeze(1).log(), self.critic(x)


def sample(probs: torch.Tensor) -> torch.Tensor:
    """One action per row, drawn by inverting the cumulative distribution with one
    uniform number per row (``torch.multinomial`` draws an exponential number per
    action, 655 per row). In float64 so that ``u * total < total``: the first index
    whose cumulative probability exceeds it has a probability above 0, a legal action."""
    cdf = probs.double().cumsum(-1)
    u = torch.rand((probs.shape[0], 1), dtype=torch.float64) * cdf[:, -1:]
    return torch.searchsorted(cdf, u, right=True).squeeze(1)


def evaluate(args: Args, agent: Agent | None, games: int, seed: int) -> dict[str, float]:
    """``agent`` (sampled, as trained; None: uniformly random legal actions) on
    ``games`` games against ``--opponent`` (:func:`play_learner_games`)."""
    if agent is None:
        return play_learner_games(make_env(args, games), None, games, seed)

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            legal = Legal.from_mask(torch.from_numpy(mask))
            action = agent.act(torch.from_numpy(obs), legal)[0]
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
    buf = Buffer.empty(args, obs_dim)

    next_obs_np, info = envs.reset(seed=args.seed)  # the first call loads the kernels
    loop_started = time.perf_counter()  # throughput from here: imports and setup excluded
    now = Live(
        obs=torch.as_tensor(next_obs_np),
        mask=torch.as_tensor(info["action_mask"] != 0),
        done=torch.zeros(args.num_envs),
    )
    rows: list[dict[str, Any]] = []
    # streamed as the run goes (to follow it live) into a file of its own, renamed over
    # progress.csv at the end: a run that stops half-way never truncates an earlier one
    partial = out / "progress.csv.partial"
    with open(partial, "w", newline="") as fh:
        writer: csv.DictWriter | None = None
        bar = tqdm(range(1, args.num_iterations + 1), desc="PPO iterations")
        for iteration in bar:
            if args.anneal_lr:
                frac = 1.0 - (iteration - 1.0) / args.num_iterations
                optimizer.param_groups[0]["lr"] = frac * args.learning_rate
            t0 = time.perf_counter()
            ep_returns, ep_wins = rollout(args, envs, agent, buf, now)
            t1 = time.perf_counter()
            advantages, returns = gae(args, agent, buf, now)
            t2 = time.perf_counter()
            losses = update(args, agent, optimizer, buf, advantages, returns, rng)
            now.rollout_time += t1 - t0
            now.gae_time += t2 - t1
            now.update_time += time.perf_counter() - t2
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

    os.replace(partial, out / "progress.csv")
    train_time = time.perf_counter() - loop_started
    return finish(args, agent, out, rows, now, train_time, started)


def finish(
    args: Args,
    agent: Agent,
    out: Path,
    rows: list[dict[str, Any]],
    now: Live,
    train_time: float,
    started: float,
) -> dict[str, Any]:
    """Save the model, evaluate it and random play on the same deals, plot the curve and
    write ``result.json`` (returned)."""
    model = io.BytesIO()
    torch.save(agent.state_dict(), model)
    write_file(out / "model.pt", model.getvalue(), "model")
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
        "throughput": throughput(now, train_time),
        "provenance": provenance(seeds={"seed": args.seed, "eval_seed": eval_seed},
                                 wall_time=time.perf_counter() - started),
    }  # fmt: skip
    write_file(out / "result.json", json.dumps(doc, indent=1) + "\n", "result")
    return doc


def throughput(now: Live, train_time: float) -> dict[str, float]:
    """Env steps per second of the training loop (no imports, setup or evaluation):
    overall, in the rollouts (env steps and the policy's forward passes) and inside
    ``envs.step`` alone; the ratio overall / env alone (how close training runs to the
    speed of the game, the issue-23 target is 0.5) and the share of the wall time
    spent in the policy's forward passes of the rollouts, in GAE and in the update."""
    steps = now.global_step
    return {
        "env_steps": steps,
        "train_seconds": round(train_time, 3),
        "env_steps_per_s_overall": steps / train_time,
        "env_steps_per_s_rollout": steps / now.rollout_time,
        "env_steps_per_s_env_only": steps / now.env_time,
        "overall_over_env_only": now.env_time / train_time,
        "share_inference": now.inference_time / train_time,
        "share_gae": now.gae_time / train_time,
        "share_update": now.update_time / train_time,
    }


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
        for made, ext in (("result.json", "json"), ("learning_curve.png", "png")):
            data = (out / made).read_bytes()
            write_file(RESULTS / f"cleanrl_ppo_{args.name}.{ext}", data, "exported result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
