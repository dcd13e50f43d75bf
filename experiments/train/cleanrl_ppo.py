"""PPO with action masking on the learner-seat vector env, in one file as CleanRL's ``ppo.py``.

    python -m experiments.train.cleanrl_ppo --num-players 2 --opponent builder \
        --total-timesteps 500000
    python -m experiments.train.cleanrl_ppo --preset ten-minutes --export  # a good policy, fast

Top to bottom: the ``Args`` (``--preset`` names sets of them), the ``Agent``, then the
run: the start (``--init-policy`` or the imitation warm start), CleanRL's loop (rollout,
GAE, update, logging; the learning curve's evaluations; ``--wall-minutes`` stops it) and
the files in ``runs/<name>/`` (or ``--out``); ``--export`` copies them to
``experiments/results/cleanrl_ppo/``. docs/TRAINING.md.
"""

from __future__ import annotations

import argparse
import copy
import csv
import dataclasses
import io
import json
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from tqdm import tqdm

from experiments.common.arguments import agent_problems, checked
from experiments.common.evaluation import CURVE_SEED, FINAL_SEED, final_evaluation, policy_against
from experiments.common.output import RESULTS, RUNS, short_name, thinned
from experiments.common.policy_export import init_problem, load_actor, policy_from_mlp
from experiments.common.speed import random_legal
from experiments.common.training import dataclass_parser, plot_panels, plot_wall_curve, set_threads
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
from mamma_mia_env.game.symmetry import obs_scale
from mamma_mia_env.plumbing.files import write_file
from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["PRESETS", "Agent", "Args", "Legal", "export_policy", "main", "make_env"]
__all__ += ["parse_args", "sample", "train"]


@dataclass
class Args:
    name: str = "cleanrl_ppo"
    """the run's name: outputs go to runs/<name>/"""
    seed: int = 1
    """seed of torch, of the env's deals and of the evaluation"""
    threads: int = 1
    """torch's and numba's threads (with --overlap: of the update's and of the rollout's)"""
    overlap: bool = False
    """collect the next rollout (env and forward passes, on a second thread) while the
    update runs, by the policy before that update: both cores busy, at a lag of one
    update, which PPO's ratio to the collecting policy's log-probabilities accounts for"""
    env_alone_seconds: float = 5.0
    """after training, step the env alone this long: the throughput's reference (0: skip)"""
    num_players: str = "2"
    """a player count, or several comma-separated: one network, each batch holding all"""
    opponent: str = "builder"
    """a bundled bot, 'random' or 'package.module:factory'; several: a pool per game"""
    eval_opponent: str = ""
    """the opponent of the curve and the final evaluation (empty: --opponent)"""
    reward_mode: str = "delivered_win_loss"
    opponent_delivery_penalty: float = 1.0
    learner_seat: int | None = None
    """None: a random seat per game"""
    total_timesteps: int = 200_000
    """env steps (learner decisions) to train for"""
    learning_rate: float = 1e-3
    """CleanRL's 2.5e-4 with 4 epochs learnt no better (docs/TRAINING.md)"""
    num_envs: int = 64
    num_steps: int = 32
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 1
    """CleanRL's 4 took two thirds of the time"""
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    hidden: int = 128
    """units of each of the two hidden layers of the actor and of the critic"""
    init_policy: str = ""
    """a policy file (.npz) the actor starts from (narrower: widened); a fresh critic"""
    warm_start_games: int = 0
    """teacher self-play games the agent is first fitted to (behaviour cloning)"""
    warm_start_teacher: str = "builder"
    warm_start_epochs: int = 2
    wall_minutes: float = 0.0
    """stop training after this much wall time, the warm start included (0: no budget)"""
    eval_games: int = 256
    curve_every: int = 0
    """env steps between the learning curve's evaluations (0: none; the first before PPO)"""
    curve_games: int = 400
    """duplicate deals of each learning-curve evaluation (at CURVE_SEED)"""
    final_games: int = 0
    """duplicate deals of the exported policy after training (at FINAL_SEED; 0: none)"""
    # filled in at runtime
    batch_size: int = 0
    minibatch_size: int = 0
    num_iterations: int = 0

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(int(n) for n in self.num_players.split(","))

    @property
    def pool(self) -> list[str]:
        return [name.strip() for name in self.opponent.split(",")]

    @property
    def rival(self) -> str:
        return self.eval_opponent or self.opponent


#: ``--preset NAME`` (a flag given with it wins; docs/TRAINING.md: the A/B behind each).
#: ``ten-minutes``: 2 players against builder in 10 minutes on 2 cores; ``vs-search-1``,
#: ``-2``: fine-tuning it against a cheap search, then (widened to 256 units) against a
#: pool of that and the full search bot; ``all-counts``: one network for 2-5 players.
PRESETS: dict[str, dict[str, Any]] = {
    "ten-minutes": {
        "name": "2p_ten_minutes", "num_players": "2", "opponent": "builder",
        "total_timesteps": 6_000_000, "num_envs": 128, "warm_start_games": 10_000,
        "warm_start_epochs": 2, "wall_minutes": 10.0, "curve_every": 500_000,
        "final_games": 2000,
    },
    "vs-search-1": {
        "name": "2p_vs_search_1", "num_players": "2",
        "opponent": "experiments.common.opponents:search_4x3", "eval_opponent": "search",
        "init_policy": "runs/2p_ten_minutes/policy.npz",  # what ten-minutes writes
        "total_timesteps": 6_000_000, "learning_rate": 3e-4, "update_epochs": 4,
        "num_envs": 128, "threads": 2, "wall_minutes": 35.0, "curve_every": 500_000,
        "final_games": 2000,
    },
    "vs-search-2": {
        "name": "2p_vs_search_2", "num_players": "2",
        "opponent": "experiments.common.opponents:search_4x3,search", "eval_opponent": "search",
        "init_policy": "runs/2p_vs_search_1/policy.npz",  # what vs-search-1 writes
        "hidden": 256,
        "seed": 2, "total_timesteps": 3_000_000, "learning_rate": 3e-4, "update_epochs": 4,
        "num_envs": 128, "threads": 2, "wall_minutes": 25.0, "curve_every": 250_000,
        "final_games": 2000,
    },
    "all-counts": {
        "name": "all_counts", "num_players": "2,3,4,5",
        "opponent": "builder", "hidden": 256, "total_timesteps": 100_000_000,
        "num_envs": 256, "warm_start_games": 20_000, "warm_start_epochs": 2,
        "threads": 1, "overlap": True, "wall_minutes": 45.0, "curve_every": 4_000_000,
        "curve_games": 200, "final_games": 2000,
    },
}  # fmt: skip


def parse_args(argv: list[str] | None = None) -> tuple[Args, argparse.Namespace]:
    """Every ``Args`` field as ``--field-name``, checked before anything runs."""
    runtime = {"batch_size", "minibatch_size", "num_iterations"}
    parser = dataclass_parser(
        __doc__.split("\n\n")[0], Args, PRESETS, argv,
        "also copy result.json and the curve to experiments/results/", skip=runtime,
    )  # fmt: skip
    ns = checked(parser).parse_args(argv)
    args = Args(**{k: getattr(ns, k) for k in {f.name for f in dataclasses.fields(Args)} - runtime})
    positive = ["total_timesteps", "num_envs", "num_steps", "num_minibatches", "update_epochs"]
    positive += ["hidden", "eval_games", "threads", "curve_games", "warm_start_epochs"]
    problems = [
        f"--{k.replace('_', '-')} must be positive" for k in positive if getattr(args, k) < 1
    ]
    parts = [p.strip() for p in args.num_players.split(",")]
    counts_ok = all(p in ("2", "3", "4", "5") for p in parts) and len(set(parts)) == len(parts)
    if not counts_ok:
        problems.append(f"--num-players {args.num_players!r}: a count 2-5, or several "
                        "comma-separated (each once)")  # fmt: skip
    agents = [("--opponent", name) for name in args.pool]
    agents += [("--eval-opponent", args.eval_opponent)] if args.eval_opponent else []
    agents += [("--warm-start-teacher", args.warm_start_teacher)] if args.warm_start_games else []
    if "" in args.pool:
        problems.append(f"--opponent {args.opponent!r}: an empty name in the comma-separated list")
    elif len(args.pool) > 1 and not args.eval_opponent:
        problems.append("--opponent is a pool: give the evaluations' opponent (--eval-opponent)")
    else:
        problems += agent_problems(agents)
    problems += init_policy_problems(args) if counts_ok and args.init_policy else []
    if not 0 < args.learning_rate < 1:
        problems.append("--learning-rate must be in (0, 1)")
    if not (0 <= args.gamma <= 1 and 0 <= args.gae_lambda <= 1):
        problems.append("--gamma and --gae-lambda must be in [0, 1]")
    if not args.name or "/" in args.name or args.name.startswith("."):
        problems.append("--name must be a plain directory name")
    args.batch_size = args.num_envs * args.num_steps
    args.minibatch_size = args.batch_size // max(args.num_minibatches, 1)  # 0: refused above
    args.num_iterations = args.total_timesteps // max(args.batch_size, 1)
    if not problems and args.minibatch_size < 1:
        problems.append("--num-minibatches must not exceed num_envs * num_steps")
    if not problems and args.num_iterations < 1:
        problems.append(f"--total-timesteps ({args.total_timesteps}) is less than one batch "
                        f"(num_envs * num_steps = {args.batch_size})")  # fmt: skip
    if problems:
        parser.error("; ".join(problems))
    return args, ns


def init_policy_problems(args: Args) -> list[str]:
    """``--init-policy`` must fit the actor, and not come with the warm start (which
    would overwrite it)."""
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy, PolicyFileError

    if args.warm_start_games:
        return ["--init-policy and --warm-start-games both set the starting actor: give one"]
    try:
        problem = init_problem(NumpyPolicy.load(args.init_policy), args.hidden)
    except (OSError, PolicyFileError) as exc:
        return [f"--init-policy: {str(exc).splitlines()[0]}"]
    return [f"--init-policy {args.init_policy}: {problem}"] if problem else []


class Legal(NamedTuple):
    """Each row's legal actions as a list, ``actions`` ``(rows, K)`` in increasing order
    padded with 0 and ``valid`` which entries are real: the masked softmax, entropy and
    their gradients run over K (a few dozen) columns instead of 655, which were most of
    the update's time."""

    actions: torch.Tensor
    valid: torch.Tensor

    @classmethod
    def from_mask(cls, mask: torch.Tensor) -> Legal:
        index, valid = _legal_lists(mask.numpy())
        return cls(torch.from_numpy(index), torch.from_numpy(valid))

    @classmethod
    def cat(cls, parts: list[Legal]) -> Legal:
        """The rows of ``parts`` (a rollout's steps), padded to the widest."""
        k = max(p.actions.shape[1] for p in parts)
        pad = [(p, k - p.actions.shape[1]) for p in parts]
        return cls(
            torch.cat([nn.functional.pad(p.actions, (0, w)) for p, w in pad]),
            torch.cat([nn.functional.pad(p.valid, (0, w)) for p, w in pad]),
        )

    def rows(self, inds: Any) -> Legal:
        return Legal(self.actions[inds], self.valid[inds])


@numba.njit(cache=False)  # a fraction of a second to compile; nothing kept on disk
def _legal_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows, n = mask.shape
    counts = np.zeros(rows, np.int64)
    for r in range(rows):
        for a in range(n):
            counts[r] += mask[r, a]
    k = max(counts.max(), 1) if rows else 1
    index = np.zeros((rows, k), np.int64)
    valid = np.zeros((rows, k), np.bool_)
    for r in range(rows):
        j = 0
        for a in range(n):
            if mask[r, a]:
                index[r, j] = a
                valid[r, j] = True
                j += 1
    return index, valid


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.n_actions = n_actions
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
        """CleanRL's masked distribution (the padding's logits -1e8: probability 0 and no
        entropy), by ``log_softmax`` rather than ``Categorical``, whose ``exp`` of
        underflowing logits is tens of times slower."""
        logits = self.legal_logits(x, legal)
        logp, probs = torch.log_softmax(logits, dim=-1), torch.softmax(logits, dim=-1)
        if action is None:
            pick = sample(probs)
            action = legal.actions.gather(1, pick.unsqueeze(1)).squeeze(1)
        else:  # the action's column in its row's list
            pick = ((legal.actions == action.unsqueeze(1)) & legal.valid).float().argmax(1)
        logprob = logp.gather(1, pick.unsqueeze(1)).squeeze(1)
        entropy = -(probs * logp).sum(-1)
        return action, logprob, entropy, self.critic(x)

    def act(self, x: torch.Tensor, legal: Legal) -> tuple[torch.Tensor, ...]:
        """The rollout's sampled action, its log-probability and the value."""
        probs = torch.softmax(self.legal_logits(x, legal), dim=-1)
        pick = sample(probs).unsqueeze(1)
        action = legal.actions.gather(1, pick).squeeze(1)
        return action, probs.gather(1, pick).squeeze(1).log(), self.critic(x)

    def legal_logits(self, x: torch.Tensor, legal: Legal) -> torch.Tensor:
        """The logits over each row's legal actions (-1e8 in the padding), the last layer
        applied to the actions legal in some row only: that layer is most of the
        network's arithmetic. The same logits and gradients as the full layer's."""
        *body, last = self.actor  # not ``actor[:-1]``: a new Sequential every call
        hidden = x
        for layer in body:
            hidden = layer(hidden)
        assert isinstance(last, nn.Linear)
        present = torch.zeros(last.weight.shape[0], dtype=torch.bool)
        present[legal.actions] = True  # the padding's 0 too: a column more at most
        cols = present.nonzero().squeeze(1)
        where = present.cumsum(0) - 1  # an action's column among ``cols``
        logits = nn.functional.linear(hidden, last.weight[cols], last.bias[cols])
        return torch.where(legal.valid, logits.gather(1, where[legal.actions]), -1e8)


def sample(probs: torch.Tensor) -> torch.Tensor:
    """One action per row by inverting the CDF with one uniform number per row (where
    ``torch.multinomial`` draws one per action); float64 so that the index drawn has a
    probability above 0."""
    cdf = probs.double().cumsum(-1)
    u = torch.rand((probs.shape[0], 1), dtype=torch.float64) * cdf[:, -1:]
    return torch.searchsorted(cdf, u, right=True).squeeze(1)


def make_env(args: Args, num_envs: int) -> MammaMiaLearnerVectorEnv:
    """The learner-seat env: one opponent at every other seat ('random': the env's own),
    or a pool each game draws from; several counts: game i has count i mod len(counts)."""
    from mamma_mia_agents import load_agent

    opponents: Any = [load_agent(name) for name in args.pool]
    if len(opponents) == 1:
        opponents = None if args.pool[0] == "random" else opponents[0]
    counts = args.counts
    players = counts[0] if len(counts) == 1 else [counts[i % len(counts)] for i in range(num_envs)]
    return MammaMiaLearnerVectorEnv(
        num_envs, opponents=opponents, learner_seat=args.learner_seat,
        opponent_delivery_penalty=args.opponent_delivery_penalty, num_players=players,
        reward_mode=args.reward_mode,
    )  # fmt: skip


def warm_start(args: Args, agent: Agent) -> tuple[list[dict], dict[str, float]]:
    """Fit the actor to the teacher's choices in ``warm_start_games`` self-play games and
    the critic to the returns; the per-epoch rows and the timings."""
    from experiments.common.imitation import Clonable, behaviour_clone, teacher_games
    from mamma_mia_agents import load_agent
    from mamma_mia_env.game.config import Config

    t0, teacher, parts = time.perf_counter(), load_agent(args.warm_start_teacher), []
    for i, n in enumerate(args.counts):  # the games shared out between the counts
        config = Config(num_players=n, reward_mode=args.reward_mode)
        games = args.warm_start_games // len(args.counts)
        games += i < args.warm_start_games % len(args.counts)
        parts.append(teacher_games(config, teacher, games, args.seed + i, args.gamma,
                                   args.opponent_delivery_penalty))  # fmt: skip
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    t1 = time.perf_counter()

    def forward(obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return agent.actor(obs).masked_fill(~mask, -1e8), agent.critic(obs).squeeze(-1)

    net = Clonable(forward, agent.parameters, agent.n_actions, agent.train)
    bc = {"batch_size": 1024, "learning_rate": 1e-3, "vf_coef": 0.5, "holdout": 0.05,
          "epochs": args.warm_start_epochs}  # fmt: skip
    rows: list[dict] = []
    behaviour_clone(net, data, obs_scale(), bc, args.seed, rows)
    return rows, {"bc_data_seconds": t1 - t0, "bc_fit_seconds": time.perf_counter() - t1,
                  "bc_decisions": int(len(data["actions"]))}  # fmt: skip


class Rollout(NamedTuple):
    """CleanRL's storage of one rollout (the legal actions as one Legal per step), the
    value that bootstraps where a game goes on, and the episodes that ended in it."""

    obs: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    values: torch.Tensor
    legal: list[Legal]
    next_value: torch.Tensor
    next_done: torch.Tensor
    returns: list[float]
    wins: list[float]


class Collector:
    """The env and where its games stand between rollouts: ``collect`` plays
    ``num_steps`` steps of every game with a policy (on the caller's thread, or on
    another while the update runs: ``--overlap``), adding its time to ``seconds``."""

    def __init__(self, args: Args, seconds: dict[str, float]) -> None:
        self.args, self.seconds = args, seconds
        self.envs = RecordEpisodeStatistics(make_env(args, args.num_envs))
        next_obs, info = self.envs.reset(seed=args.seed)
        self.next_obs = torch.as_tensor(next_obs)
        self.next_mask = torch.as_tensor(info["action_mask"] != 0)
        self.next_done = torch.zeros(args.num_envs)
        Legal.from_mask(self.next_mask)  # compiles the legal lists' kernel: setup, not the loop

    def collect(self, agent: Agent) -> Rollout:
        a, sec = self.args, self.seconds
        shape = (a.num_steps, a.num_envs)
        obs = torch.zeros((*shape, self.next_obs.shape[-1]))
        actions = torch.zeros(shape, dtype=torch.long)
        logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))
        legal: list[Legal] = []
        ep_returns: list[float] = []
        ep_wins: list[float] = []
        for step in range(a.num_steps):
            t_step = time.perf_counter()
            obs[step] = self.next_obs
            dones[step] = self.next_done
            legal.append(Legal.from_mask(self.next_mask))  # not an inference tensor
            with torch.inference_mode():  # no autograd records: the update recomputes
                action, logprob, value = agent.act(obs[step], legal[-1])
                values[step] = value.flatten()
                actions[step] = action
                logprobs[step] = logprob
            t_env = time.perf_counter()
            sec["inference"] += t_env - t_step
            next_obs_np, reward, term, trunc, info = self.envs.step(action.numpy())
            sec["env"] += time.perf_counter() - t_env
            done = np.logical_or(term, trunc)
            rewards[step] = torch.from_numpy(reward)
            self.next_obs = torch.from_numpy(next_obs_np)
            self.next_mask = torch.from_numpy(info["action_mask"]).view(torch.bool)  # int8 0/1
            self.next_done = torch.from_numpy(done).float()
            if done.any():
                ep_returns.extend(info["episode"]["r"][done].tolist())
                ep_wins.extend(info["final_info"]["result"]["win"][done].tolist())
        with torch.no_grad():  # the collecting policy's value where a game goes on
            next_value = agent.get_value(self.next_obs).reshape(1, -1)
        return Rollout(obs, actions, logprobs, rewards, dones, values, legal, next_value,
                       self.next_done, ep_returns, ep_wins)  # fmt: skip


@dataclass
class Run:
    """What a run records besides the network: where its time went (the loop's seconds
    by part; the curve's apart), the warm start, the iterations and the curve."""

    started: float = field(default_factory=time.perf_counter)
    cpu_started: float = field(default_factory=time.process_time)
    bc_rows: list[dict[str, Any]] = field(default_factory=list)
    bc: dict[str, float] = field(default_factory=dict)
    bc_seconds: float = 0.0
    rows: list[dict[str, Any]] = field(default_factory=list)
    curve: list[dict[str, float]] = field(default_factory=list)
    curve_seconds: float = 0.0
    stopped: str = "total_timesteps"
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("env", "inference", "rollout", "gae", "update", "train", "cpu"), 0.0
    ))  # fmt: skip

    def wall(self) -> float:
        return time.perf_counter() - self.started


def train(args: Args, out: Path) -> dict[str, Any]:
    """The start, CleanRL's loop (until ``total_timesteps`` or the wall budget), then
    :func:`finish`; returns the result document."""
    run = Run()  # the wall budget's start
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)  # minibatch shuffling
    torch.manual_seed(args.seed)
    set_threads(args.threads)  # numba's too: its OpenMP threads otherwise became torch's

    global_step, sec = 0, run.seconds
    collector = Collector(args, sec)
    obs_dim = collector.envs.single_observation_space.shape[0]  # type: ignore[index]
    n_actions = int(collector.envs.single_action_space.n)  # type: ignore[attr-defined]
    agent = Agent(obs_dim, n_actions, args.hidden)
    if args.init_policy:
        load_actor(agent.actor, args.init_policy)
    if args.warm_start_games:
        run.bc_rows, run.bc = warm_start(args, agent)
    run.bc_seconds = run.wall()
    # fused: one kernel for every parameter's step instead of a dozen list operations
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5, fused=True)

    # --overlap: the next rollout is collected on this second thread while the update runs
    pool = ThreadPoolExecutor(1, "rollout", set_threads, (args.threads,)) if args.overlap else None
    pending: Future[Rollout] | None = None
    loop_started = time.perf_counter()  # throughput from here: imports and setup excluded
    budget, last = args.wall_minutes * 60.0, 0.0
    next_curve = 0 if args.curve_every else None
    partial = out / "progress.csv.partial"  # renamed at the end: never truncates a run's
    bar = tqdm(range(1, args.num_iterations + 1), desc="PPO iterations")
    for iteration in bar:
        if next_curve is not None and global_step >= next_curve:
            if pending:  # the kernels on one thread at a time (numba's workqueue layer
                pending.result()  # allows no other)
            curve_point(args, agent, run, global_step)
            next_curve += args.curve_every
        if budget and iteration > 1 and run.wall() + last > budget:  # one at least
            run.stopped = "wall_minutes"
            break
        t0, cpu0 = time.perf_counter(), time.process_time()
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        batch = pending.result() if pending else collector.collect(agent)
        global_step += args.batch_size
        pending = None
        if pool and iteration < args.num_iterations:  # the next, by the policy before this update
            pending = pool.submit(collector.collect, copy.deepcopy(agent))
        t1 = time.perf_counter()

        with torch.no_grad():  # GAE, bootstrapped where a game goes on
            rewards, dones, values = batch.rewards, batch.dones, batch.values
            advantages = torch.zeros_like(rewards)
            lastgaelam = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - batch.next_done
                    nextvalues = batch.next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values
        t2 = time.perf_counter()

        b_legal = Legal.cat(batch.legal)
        b_obs = batch.obs.reshape((-1, obs_dim))
        b_logprobs = batch.logprobs.reshape(-1)
        b_actions = batch.actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)
        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for _epoch in range(args.update_epochs):
            rng.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                mb_inds = torch.from_numpy(b_inds[start : start + args.minibatch_size])
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_legal.rows(mb_inds), b_actions[mb_inds]
                )
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]
                mb_adv = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss1 = -mb_adv * ratio
                pg_loss2 = -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()
                newvalue = newvalue.view(-1)
                v_loss = (newvalue - b_returns[mb_inds]) ** 2
                if args.clip_vloss:
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef
                    )
                    v_loss = torch.max(v_loss, (v_clipped - b_returns[mb_inds]) ** 2)
                v_loss = 0.5 * v_loss.mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values.numpy(), b_returns.numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
        t3 = time.perf_counter()
        sec["cpu"] += time.process_time() - cpu0
        sec["rollout"] += t1 - t0
        sec["gae"] += t2 - t1
        sec["update"] += t3 - t2
        last = t3 - t0
        row = {
            "iteration": iteration, "global_step": global_step, "wall_seconds": run.wall(),
            "learning_rate": optimizer.param_groups[0]["lr"], "loss": loss.item(),
            "value_loss": v_loss.item(), "policy_loss": pg_loss.item(),
            "entropy": entropy_loss.item(), "approx_kl": approx_kl.item(),
            "clipfrac": float(np.mean(clipfracs)), "explained_variance": float(explained_var),
            "episodes": len(batch.returns),
            "episodic_return": float(np.mean(batch.returns)) if batch.returns else float("nan"),
            "win": float(np.mean(batch.wins)) if batch.wins else float("nan"),
        }  # fmt: skip
        run.rows.append(row)
        with open(partial, "w" if iteration == 1 else "a", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            if iteration == 1:
                writer.writeheader()
            writer.writerow(row)
        bar.set_postfix(ret=f"{row['episodic_return']:.2f}", win=f"{row['win']:.2f}")
    bar.close()
    if pool:  # waits for a rollout the wall budget stopped before its update
        pool.shutdown()
    if args.curve_every and (not run.curve or run.curve[-1]["global_step"] < global_step):
        curve_point(args, agent, run, global_step)  # the policy as trained
    collector.envs.close()
    os.replace(partial, out / "progress.csv")
    sec["train"] = time.perf_counter() - loop_started - run.curve_seconds
    return finish(args, agent, out, run, global_step)


def export_policy(args: Args, agent: Agent, trained_steps: int) -> Any:
    """The actor as the ``NumpyPolicy`` file ``PPOAgent`` plays (it reads the env's
    canonical observations divided by their scale)."""
    counts = args.counts
    meta = {
        "num_players": list(counts) if len(counts) > 1 else counts[0],
        "observation_mode": "fixed",
        "double_ingredients": False,
        "trained_with": {"script": "cleanrl_ppo.py", "name": args.name, "seed": args.seed,
                         "env_steps": trained_steps},
    }  # fmt: skip
    *hidden, logits = agent.actor
    return policy_from_mlp(hidden, logits, meta, obs_scale())


def curve_point(args: Args, agent: Agent, run: Run, step: int) -> None:
    """A learning-curve point per count: the exported policy (its most likely legal
    action) on ``curve_games`` duplicate deals at ``CURVE_SEED``."""
    t0, wall = time.perf_counter(), run.wall()
    policy = export_policy(args, agent, step)
    rates = []
    for n in args.counts:
        t1 = time.perf_counter()
        res = policy_against(policy.for_count(n), args.rival, n, args.curve_games, CURVE_SEED)
        run.curve.append({"global_step": step, "wall_seconds": round(wall, 2), "num_players": n,
                          **{k: res[k] for k in ("win_rate", "win_rate_low", "win_rate_high")},
                          "delivered": res["mean_delivered"],
                          "eval_seconds": round(time.perf_counter() - t1, 3)})  # fmt: skip
        rates.append(f"{n}p {100 * res['win_rate']:.1f}%")
    run.curve_seconds += time.perf_counter() - t0
    tqdm.write(f"[{wall:.0f} s, {step:,} steps] win rate vs {args.rival}: {', '.join(rates)}")


def play(args: Args, agent: Agent | None, games: int, seed: int) -> dict[str, float]:
    """``agent`` (sampled; None: random legal actions) on the first game of each of
    ``games`` env slots: one seed, the same deals, seats and opponents."""
    envs = make_env(args, games)
    obs, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done_once = np.zeros(games, dtype=bool)
    ret, win, delivered = np.zeros(games), np.zeros(games), np.zeros(games)
    while not done_once.all():
        if agent is None:
            action = random_legal(info["action_mask"], rng)
        else:
            with torch.inference_mode():
                legal = Legal.from_mask(torch.from_numpy(info["action_mask"] != 0))
                action = agent.act(torch.from_numpy(obs), legal)[0].numpy().astype(np.int64)
        obs, reward, term, trunc, info = envs.step(action)
        ret[~done_once] += reward[~done_once]
        ended = (term | trunc) & ~done_once
        if ended.any():
            win[ended] = info["final_info"]["result"]["win"][ended]
            delivered[ended] = info["final_info"]["result"]["delivered"][ended]
            done_once |= ended
    envs.close()
    return {"games": games, "win": float(win.mean()), "delivered": float(delivered.mean()),
            "return": float(ret.mean())}  # fmt: skip


def env_alone(args: Args) -> float:
    """Env steps/s of the training env stepped alone (random legal actions drawn outside
    the timing) on every core, whatever ``--threads``: the reference of the honest
    throughput ratio (0.0: skipped)."""
    if not args.env_alone_seconds:
        return 0.0
    set_threads(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # every core numba has
    envs = RecordEpisodeStatistics(make_env(args, args.num_envs))
    _, info = envs.reset(seed=args.seed + 20_000)
    rng, steps, spent = np.random.default_rng(args.seed), 0, 0.0
    _, _, _, _, info = envs.step(random_legal(info["action_mask"], rng))  # untimed: warm
    while spent < args.env_alone_seconds:
        actions = random_legal(info["action_mask"], rng)
        t0 = time.perf_counter()
        _, _, _, _, info = envs.step(actions)
        spent += time.perf_counter() - t0
        steps += args.num_envs
    envs.close()
    set_threads(args.threads)  # the evaluations' as the training's
    return steps / spent


def finish(args: Args, agent: Agent, out: Path, run: Run, steps: int) -> dict[str, Any]:
    """Save the model and the policy file, evaluate them, plot the curves and write
    ``result.json`` (returned)."""
    training_wall, training_cpu = run.wall(), time.process_time() - run.cpu_started
    alone = env_alone(args)  # after the training's clock: not part of it
    model = io.BytesIO()
    torch.save(agent.state_dict(), model)
    write_file(out / "model.pt", model.getvalue(), "model")
    export_policy(args, agent, steps).save(out / "policy.npz")
    eval_seed, t0 = args.seed + 10_000, time.perf_counter()
    trained, random_play = (play(args, a, args.eval_games, eval_seed) for a in (agent, None))
    evaluation: dict[str, Any] = {"seed": eval_seed, "trained": trained, "random": random_play}
    if args.final_games:  # one count: "final"; several: "final_by_count", keyed by count
        finals = {n: final_evaluation(out / "policy.npz", args.rival, n, args.final_games)
                  for n in args.counts}  # fmt: skip
        if len(finals) == 1:
            evaluation["final"] = finals[args.counts[0]]
        else:
            evaluation["final_by_count"] = {str(n): f for n, f in finals.items()}
    title = f"CleanRL-style PPO, {args.num_players}p vs {short_name(args.opponent)}"
    panels = (("episodic_return", "mean episodic return"),
              ("win", "mean win share (finished games)"))  # fmt: skip
    plot_panels(run.rows, "global_step", panels, title, out / "learning_curve.png")
    plot_wall_curve(run.rows, run.curve, (args.rival, args.opponent),
                    (run.bc_seconds, args.wall_minutes), f"{title}, over wall time",
                    out / "wall_curve.png")  # fmt: skip
    wall = {
        "training_seconds": training_wall,  # warm start, PPO and curve: the budget's
        "training_cpu_seconds": training_cpu,
        "warm_start_seconds": run.bc_seconds,
        "ppo_seconds": run.seconds["train"],
        "curve_eval_seconds": run.curve_seconds,
        "evaluation_seconds": time.perf_counter() - t0,
        "stopped_by": run.stopped,
        "load_average": list(os.getloadavg()),  # other jobs' turns count in the wall time
    }
    sec = run.seconds
    throughput = {
        "env_steps": steps,
        "train_seconds": round(sec["train"], 3),
        "env_steps_per_s_overall": steps / sec["train"],
        "env_steps_per_s_rollout": steps / sec["rollout"],
        "env_steps_per_s_env_only": steps / sec["env"],
        "overall_over_env_only": sec["env"] / sec["train"],
        "env_steps_per_s_env_alone": alone,
        "overall_over_env_alone": steps / sec["train"] / alone if alone else None,
        "cores_busy": sec["cpu"] / sec["train"],  # CPU seconds per wall second: 2 = both
        **{f"share_{k}": sec[k] / sec["train"] for k in ("inference", "gae", "update")},
    }
    seeds = {"seed": args.seed, "eval_seed": eval_seed}  # the deals of every evaluation
    seeds |= {"curve_seed": CURVE_SEED} if args.curve_every else {}
    seeds |= {"final_seed": FINAL_SEED} if args.final_games else {}
    doc = {
        "args": dataclasses.asdict(args), "iterations": thinned(run.rows),  # all: progress.csv
        "warm_start": {"epochs": run.bc_rows, **run.bc, "seconds": run.bc_seconds},
        "curve": run.curve, "evaluation": evaluation, "wall": wall, "throughput": throughput,
        "provenance": provenance(seeds=seeds, wall_time=run.wall()),
    }  # fmt: skip
    write_file(out / "result.json", json.dumps(doc, indent=1) + "\n", "result")
    return doc


def main(argv: list[str] | None = None) -> int:
    args, ns = parse_args(argv)
    out = ns.out if ns.out is not None else RUNS / args.name
    doc = train(args, out)
    ev, wall, tp = doc["evaluation"], doc["wall"], doc["throughput"]
    print(
        f"trained: win {ev['trained']['win']:.3f} delivered {ev['trained']['delivered']:.2f} | "
        f"random: win {ev['random']['win']:.3f} delivered {ev['random']['delivered']:.2f} | "
        f"{tp['env_steps_per_s_overall']:,.0f} env steps/s overall; {out}"
    )
    for key, f in ev.get("final_by_count", {"": ev["final"]} if "final" in ev else {}).items():
        print(
            f"final{f' ({key} players)' if key else ''}: "
            f"win rate vs {f['opponent']} {100 * f['win_rate']:.1f}% "
            f"[{100 * f['win_rate_low']:.1f}, {100 * f['win_rate_high']:.1f}] on {f['games']:,} "
            f"duplicate deals; trained in {wall['training_seconds'] / 60:.1f} min wall "
            f"({tp['env_steps']:,} env steps, stopped by {wall['stopped_by']})"
        )
    if ns.export:
        made = [("result.json", "json"), ("learning_curve.png", "png")]
        made += [("wall_curve.png", "wall_curve.png")] if args.curve_every else []
        made += [("policy.npz", "npz")] if args.final_games else []
        (RESULTS / "cleanrl_ppo").mkdir(parents=True, exist_ok=True)
        for name, ext in made:
            data = (out / name).read_bytes()
            dest = RESULTS / "cleanrl_ppo" / f"cleanrl_ppo_{args.name}.{ext}"
            write_file(dest, data, "exported result")
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.cleanrl_ppo"))
