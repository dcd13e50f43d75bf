"""PPO with action masking on the learner-seat vector env, in one file as CleanRL's ``ppo.py``.

    python -m experiments.train.cleanrl_ppo --num-players 2 --opponent builder \
        --total-timesteps 500000
    python -m experiments.train.cleanrl_ppo --preset ten-minutes --export  # a good policy, fast

Top to bottom as CleanRL's: the ``Args`` dataclass (``--preset`` names sets of flags),
the ``Agent`` (its policy over each row's list of legal actions), then the run: the
start (``--init-policy`` or the imitation warm start), the loop (rollout, GAE, update,
logging, learning-curve points; ``--wall-minutes`` stops it), the evaluations and the
files in ``runs/<name>/`` (or ``--out``): ``progress.csv``, ``model.pt``, ``policy.npz``
(the numpy policy file ``PPOAgent`` plays), ``learning_curve.png``, ``wall_curve.png``
and ``result.json``. ``--export`` copies ``result.json``, the curves and (with
``--final-games``) the policy file to ``experiments/results/cleanrl_ppo/``;
docs/TRAINING.md.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from gymnasium.spaces import Discrete
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from tqdm import tqdm

from experiments.common.arguments import agent_problems, checked
from experiments.common.evaluation import CURVE_SEED, FINAL_SEED, final_evaluation, policy_against
from experiments.common.output import RESULTS, RUNS, short_name, thinned
from experiments.common.policy_export import init_problem, load_actor, policy_from_mlp
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
    """seed of torch, of the env's deal generator and of the evaluation"""
    threads: int = 1
    """torch's and numba's threads: 2 puts the env's parallel kernels and the update on
    both cores (on a loaded 2-core machine 2 made the update slower)"""
    env_alone_seconds: float = 5.0
    """after training, step the same env alone (random legal actions, in this process, at
    num_envs) for this long: the honest reference of the throughput (0: skip)"""

    # the game
    num_players: str = "2"
    """the player count, or several comma-separated ("2,3,4,5"): one network for them all
    (the learner reads the ``fixed`` observation, one size for every count), every batch
    holding games of each count in turn"""
    opponent: str = "builder"
    """the opponents: a bundled bot's name, 'random' or an import path ('package.module:
    factory'); several, comma-separated: a pool each training game draws from uniformly"""
    eval_opponent: str = ""
    """the opponent of the curve's and the final evaluations (empty: --opponent, one)"""
    reward_mode: str = "delivered_win_loss"
    opponent_delivery_penalty: float = 1.0
    learner_seat: int | None = None
    """None: a random seat per game"""

    # PPO (CleanRL's names; its defaults but for learning_rate and update_epochs)
    total_timesteps: int = 200_000
    """env steps (learner decisions) to train for"""
    learning_rate: float = 1e-3
    """Adam's step size; CleanRL's 2.5e-4 with 4 epochs learnt no better than this with 1
    (docs/TRAINING.md, the A/B)"""
    num_envs: int = 64
    """games stepped together (one engine batch)"""
    num_steps: int = 32
    """steps of every game per rollout: a batch is num_envs x num_steps"""
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 1
    """passes over each batch: with CleanRL's 4 the update took two thirds of the time"""
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    hidden: int = 128
    """units of each of the two hidden layers of the actor and of the critic"""

    # the start: a trained policy (fine-tuning), or the imitation warm start
    init_policy: str = ""
    """a policy file (.npz) whose actor the agent starts from (two tanh layers of --hidden
    units or fewer: widened, the same policy); the critic starts fresh"""
    warm_start_games: int = 0
    """games of the teacher playing itself whose decisions the agent is first fitted to
    (behaviour cloning; 0: none)"""
    warm_start_teacher: str = "builder"
    warm_start_epochs: int = 2
    wall_minutes: float = 0.0
    """stop training after this much wall time, the warm start included (0: no budget)"""

    # evaluation
    eval_games: int = 256
    curve_every: int = 0
    """env steps between the learning curve's evaluations (0: none; the first before PPO)"""
    curve_games: int = 400
    """duplicate-deal games of each learning-curve evaluation"""
    final_games: int = 0
    """duplicate-deal games of the exported policy after training (0: none), at FINAL_SEED"""

    # filled in at runtime
    batch_size: int = 0
    minibatch_size: int = 0
    num_iterations: int = 0

    @property
    def counts(self) -> tuple[int, ...]:
        """The player counts trained (``--num-players``; checked by ``parse_args``)."""
        return tuple(int(n) for n in self.num_players.split(","))

    @property
    def pool(self) -> list[str]:
        """The training opponents: one spec, or several comma-separated."""
        return [name.strip() for name in self.opponent.split(",")]

    @property
    def rival(self) -> str:
        """The curve's and the final evaluations' opponent (one, not a pool)."""
        return self.eval_opponent or self.opponent


#: Named settings (``--preset NAME``; a flag given with it still wins; docs/TRAINING.md:
#: the A/B behind each). ``ten-minutes``: a 2-player policy against builder in at most 10
#: minutes of wall time on the 2-core machine. ``vs-search-1``/``-2``: the plain network
#: against the search bot, in two legs of fine-tuning from the ten-minute policy: first
#: against a cheap search it can learn to beat, then, widened to 256 units (the same
#: policy to start), against a pool of that and the full search bot.
#: ``all-counts``: one network (the fixed observation) for 2, 3, 4 and 5 players against
#: builder, every batch holding a quarter of each count, on both cores (two threads).
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
        "threads": 2, "wall_minutes": 45.0, "curve_every": 4_000_000,
        "curve_games": 200, "final_games": 2000,
    },
}  # fmt: skip


def parse_args(argv: list[str] | None = None) -> tuple[Args, argparse.Namespace]:
    """Every ``Args`` field as ``--field-name``, a ``--preset`` of them; checked before
    anything runs (a message naming each problem, no traceback)."""
    runtime = {"batch_size", "minibatch_size", "num_iterations"}
    parser = dataclass_parser(
        __doc__.split("\n\n")[0], Args, PRESETS, argv,
        "also copy result.json and the curve to experiments/results/", skip=runtime,
    )  # fmt: skip
    ns = checked(parser).parse_args(argv)  # every flag's value checked
    args = Args(**{k: getattr(ns, k) for k in {f.name for f in dataclasses.fields(Args)} - runtime})
    problems = [
        f"--{name.replace('_', '-')} must be positive"
        for name in ("total_timesteps", "num_envs", "num_steps", "num_minibatches")
        + ("update_epochs", "hidden", "eval_games", "threads", "curve_games")
        + ("warm_start_epochs",)
        if getattr(args, name) < 1
    ]
    count_problems = check_counts(args)
    problems += count_problems + check_agents(args)
    problems += [] if count_problems else check_init_policy(args)
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
        problems.append(f"--total-timesteps ({args.total_timesteps}) is less than one batch "
                        f"(num_envs * num_steps = {args.batch_size})")  # fmt: skip
    if problems:
        parser.error("; ".join(problems))
    return args, ns


def check_counts(args: Args) -> list[str]:
    """``--num-players``: counts 2-5, each once, in order."""
    parts = [p.strip() for p in args.num_players.split(",")]
    if not all(p in ("2", "3", "4", "5") for p in parts) or len(set(parts)) < len(parts):
        return [f"--num-players {args.num_players!r}: a count 2-5, or several comma-separated "
                "(each once)"]  # fmt: skip
    return []


def check_agents(args: Args) -> list[str]:
    """The opponents and the teacher must load, and the evaluations need one opponent."""
    if "" in args.pool:
        return [f"--opponent {args.opponent!r}: an empty name in the comma-separated list"]
    names = [("--opponent", name) for name in args.pool]
    if args.eval_opponent:
        names.append(("--eval-opponent", args.eval_opponent))
    elif len(args.pool) > 1:
        return ["--opponent is a pool: give the evaluations' opponent (--eval-opponent)"]
    if args.warm_start_games:
        names.append(("--warm-start-teacher", args.warm_start_teacher))
    return agent_problems(names)


def check_init_policy(args: Args) -> list[str]:
    """``--init-policy`` must be a policy file the actor can take, and not given with the
    warm start (which would overwrite it)."""
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy, PolicyFileError

    if not args.init_policy:
        return []
    if args.warm_start_games:
        return ["--init-policy and --warm-start-games both set the starting actor: give one"]
    try:
        policy = NumpyPolicy.load(args.init_policy)
        problem = init_problem(policy, args.hidden)
    except (OSError, PolicyFileError) as exc:
        return [f"--init-policy: {str(exc).splitlines()[0]}"]
    return [f"--init-policy {args.init_policy}: {problem}"] if problem else []


# -- the agent: CleanRL's, its policy over each row's legal actions ---------------------
class Legal(NamedTuple):
    """Each row's legal actions as a list rather than a ``(rows, n_actions)`` mask:
    ``actions`` ``(rows, K)`` the legal actions in increasing order, padded with 0, and
    ``valid`` ``(rows, K)`` which entries are real, K the most legal actions of any row.
    Mamma Mia! has 655 actions and at most a few dozen legal ones, so the masked
    softmax, entropy and their gradients run over K columns instead of 655: those
    full-width passes were most of the update's time."""

    actions: torch.Tensor  # not ``index``: that would hide the tuple's own ``index``
    valid: torch.Tensor

    @classmethod
    def from_mask(cls, mask: torch.Tensor) -> Legal:
        """By one compiled pass (as a dozen torch operations, every rollout step, it was
        a sixth of the policy's time there)."""
        index, valid = _legal_lists(mask.numpy())
        return cls(torch.from_numpy(index), torch.from_numpy(valid))

    @classmethod
    def cat(cls, parts: list[Legal]) -> Legal:
        """The rows of ``parts`` (a rollout's steps) one after the other, padded to the
        widest."""
        k = max(p.actions.shape[1] for p in parts)
        pad = [(p, k - p.actions.shape[1]) for p in parts]
        return cls(
            torch.cat([torch.nn.functional.pad(p.actions, (0, w)) for p, w in pad]),
            torch.cat([torch.nn.functional.pad(p.valid, (0, w)) for p, w in pad]),
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
        """CleanRL's masked distribution over the legal actions only (the padding gets
        -1e8: probability exactly 0, and a ``p log p`` of 0 in the entropy). ``softmax``
        and ``log_softmax`` rather than ``Categorical``, whose ``exp`` of logits that
        underflow to 0 is tens of times slower than on ordinary numbers."""
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
        """The rollout's half of :meth:`get_action_and_value`: a sampled action, its
        log-probability (the log of the one probability drawn) and the value."""
        probs = torch.softmax(self.legal_logits(x, legal), dim=-1)
        pick = sample(probs).unsqueeze(1)
        action = legal.actions.gather(1, pick).squeeze(1)
        return action, probs.gather(1, pick).squeeze(1).log(), self.critic(x)

    def legal_logits(self, x: torch.Tensor, legal: Legal) -> torch.Tensor:
        """Each row's logits over its legal actions (-1e8 in the padding), the logits
        layer applied to the actions legal in some row only (about 250 of 655 in a
        rollout step of 128 games): that layer is most of the network's arithmetic. The
        same logits (to the last bit's rounding) and gradients as the full layer's."""
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
    """One action per row, by inverting the cumulative distribution with one uniform
    number per row (``torch.multinomial`` draws one per action). In float64 so that
    ``u * total < total``: the index drawn has a probability above 0, a legal action."""
    cdf = probs.double().cumsum(-1)
    u = torch.rand((probs.shape[0], 1), dtype=torch.float64) * cdf[:, -1:]
    return torch.searchsorted(cdf, u, right=True).squeeze(1)


def make_env(args: Args, num_envs: int) -> MammaMiaLearnerVectorEnv:
    """The learner-seat env. One opponent plays every other seat ('random': the env's own
    uniform policy); a pool: each new game draws its opponents from it uniformly."""
    from mamma_mia_agents import load_agent

    opponents: Any = [load_agent(name) for name in args.pool]
    if len(opponents) == 1:
        opponents = None if args.pool[0] == "random" else opponents[0]
    counts = args.counts  # several: game i of the batch has count i mod len(counts)
    players = counts[0] if len(counts) == 1 else [counts[i % len(counts)] for i in range(num_envs)]
    return MammaMiaLearnerVectorEnv(
        num_envs, opponents=opponents, learner_seat=args.learner_seat,
        opponent_delivery_penalty=args.opponent_delivery_penalty, num_players=players,
        reward_mode=args.reward_mode,
    )  # fmt: skip


# -- the run: the start, then CleanRL's loop -------------------------------------------
@dataclass
class Storage:
    """CleanRL's storage, ``num_steps x num_envs`` of each quantity (the legal actions as
    one :class:`Legal` per step), and what carries over from one rollout to the next."""

    obs: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    values: torch.Tensor
    legal: list[Legal]
    next_obs: torch.Tensor
    next_mask: torch.Tensor
    next_done: torch.Tensor
    global_step: int = 0


@dataclass
class Run:
    """What a run records besides the network, so that it says where its time went: the
    warm start, one row per iteration, the learning curve (its seconds apart: the
    throughput is the loop's own), why the loop stopped, the loop's seconds by part."""

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
    """The run: the start (a policy file or the warm start, if any), the PPO loop (until
    ``total_timesteps`` or the wall budget), then :func:`finish`; returns the result
    document (also written to ``out``)."""
    run = Run()  # the wall budget's start
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)  # minibatch shuffling
    torch.manual_seed(args.seed)
    # torch's and numba's threads both: the teacher's games and the evaluations run the
    # engine's parallel kernels, whose OpenMP threads otherwise also became torch's, and
    # on a busy machine every torch operation then waited for a descheduled thread
    set_threads(args.threads)

    envs = RecordEpisodeStatistics(make_env(args, args.num_envs))
    obs_space, action_space = envs.single_observation_space, envs.single_action_space
    assert obs_space.shape is not None and isinstance(action_space, Discrete)
    obs_dim = obs_space.shape[0]
    agent = Agent(obs_dim, int(action_space.n), args.hidden)
    if args.init_policy:
        load_actor(agent.actor, args.init_policy)
    if args.warm_start_games:
        run.bc_rows, run.bc = warm_start(args, agent)
    run.bc_seconds = run.wall()
    # fused: one kernel for every parameter's step instead of a dozen list operations
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5, fused=True)

    shape = (args.num_steps, args.num_envs)
    next_obs, info = envs.reset(seed=args.seed)  # the first call loads the kernels
    s = Storage(
        obs=torch.zeros((*shape, obs_dim)), actions=torch.zeros(shape, dtype=torch.long),
        logprobs=torch.zeros(shape), rewards=torch.zeros(shape), dones=torch.zeros(shape),
        values=torch.zeros(shape), legal=[], next_obs=torch.as_tensor(next_obs),
        next_mask=torch.as_tensor(info["action_mask"] != 0), next_done=torch.zeros(args.num_envs),
    )  # fmt: skip
    Legal.from_mask(s.next_mask)  # compiles the legal lists' function: setup, not the loop
    loop_started = time.perf_counter()  # throughput from here: imports and setup excluded
    # streamed as the run goes (to follow it live) into a file of its own, renamed over
    # progress.csv at the end: a run that stops half-way never truncates an earlier one
    partial = out / "progress.csv.partial"
    try:
        with open(partial, "w", newline="") as fh:
            iterate(args, envs, agent, optimizer, s, rng, run, fh)
    finally:
        envs.close()
    os.replace(partial, out / "progress.csv")
    run.seconds["train"] = time.perf_counter() - loop_started - run.curve_seconds
    return finish(args, agent, out, run, s.global_step)


def warm_start(args: Args, agent: Agent) -> tuple[list[dict], dict[str, float]]:
    """``warm_start_games`` games of the teacher playing itself; the actor (masked over
    all actions) fitted to its choices and the critic to the returns
    (``imitation.behaviour_clone``). Returns the per-epoch rows and the timings."""
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


def iterate(
    args: Args, envs: Any, agent: Agent, optimizer: optim.Optimizer, s: Storage,
    rng: np.random.Generator, run: Run, fh: Any,
) -> None:  # fmt: skip
    """CleanRL's loop: anneal the learning rate, collect a rollout, compute GAE, update;
    one row per iteration into ``run.rows`` and the CSV ``fh``. The learning curve's
    evaluations come every ``curve_every`` env steps; the wall budget stops the loop
    before an iteration that would end past it (the last one's time the estimate), after
    the first (a budget spent by the setup still trains one)."""
    writer: csv.DictWriter | None = None
    budget, last = args.wall_minutes * 60.0, 0.0
    next_curve = 0 if args.curve_every else None
    bar = tqdm(range(1, args.num_iterations + 1), desc="PPO iterations")
    for iteration in bar:
        if next_curve is not None and s.global_step >= next_curve:
            curve_point(args, agent, run, s.global_step)
            next_curve += args.curve_every
        if budget and iteration > 1 and run.wall() + last > budget:  # one at least
            run.stopped = "wall_minutes"
            break
        t0, cpu0 = time.perf_counter(), time.process_time()
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate
        ep_returns, ep_wins = rollout(args, envs, agent, s, run.seconds)
        t1 = time.perf_counter()
        advantages, returns = gae(args, agent, s)
        t2 = time.perf_counter()
        losses = update(args, agent, optimizer, s, advantages, returns, rng)
        t3 = time.perf_counter()
        run.seconds["cpu"] += time.process_time() - cpu0
        run.seconds["rollout"] += t1 - t0
        run.seconds["gae"] += t2 - t1
        run.seconds["update"] += t3 - t2
        last = t3 - t0
        row = {
            "iteration": iteration, "global_step": s.global_step, "wall_seconds": run.wall(),
            "learning_rate": optimizer.param_groups[0]["lr"], **losses,
            "episodes": len(ep_returns),
            "episodic_return": float(np.mean(ep_returns)) if ep_returns else float("nan"),
            "win": float(np.mean(ep_wins)) if ep_wins else float("nan"),
        }  # fmt: skip
        run.rows.append(row)
        if writer is None:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            writer.writeheader()
        writer.writerow(row)
        fh.flush()
        bar.set_postfix(ret=f"{row['episodic_return']:.2f}", win=f"{row['win']:.2f}")
    bar.close()
    if args.curve_every and (not run.curve or run.curve[-1]["global_step"] < s.global_step):
        curve_point(args, agent, run, s.global_step)  # the policy as trained


def rollout(
    args: Args, envs: Any, agent: Agent, s: Storage, seconds: dict[str, float]
) -> tuple[list[float], list[float]]:
    """``num_steps`` steps of every env into the storage; returns the returns and wins of
    the episodes that ended."""
    ep_returns: list[float] = []
    ep_wins: list[float] = []
    s.legal.clear()
    for step in range(args.num_steps):
        t0 = time.perf_counter()
        s.global_step += args.num_envs
        s.obs[step] = s.next_obs
        s.dones[step] = s.next_done
        legal = Legal.from_mask(s.next_mask)  # kept for the update: not an inference tensor
        s.legal.append(legal)
        with torch.inference_mode():  # no autograd records: the update recomputes
            action, logprob, value = agent.act(s.obs[step], legal)
            s.values[step] = value.flatten()
            s.actions[step] = action
            s.logprobs[step] = logprob
        t1 = time.perf_counter()
        seconds["inference"] += t1 - t0
        next_obs, reward, term, trunc, info = envs.step(action.numpy())
        seconds["env"] += time.perf_counter() - t1
        next_done = np.logical_or(term, trunc)
        s.rewards[step] = torch.from_numpy(reward)  # views, copied into the storage
        s.next_obs = torch.from_numpy(next_obs)
        s.next_mask = torch.from_numpy(info["action_mask"]).view(torch.bool)  # int8 0/1
        s.next_done = torch.from_numpy(next_done).float()
        if next_done.any():
            ep_returns.extend(info["episode"]["r"][next_done].tolist())
            ep_wins.extend(info["final_info"]["result"]["win"][next_done].tolist())
    return ep_returns, ep_wins


def gae(args: Args, agent: Agent, s: Storage) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages (GAE) and returns, bootstrapping the value where a game goes on."""
    with torch.no_grad():
        next_value = agent.get_value(s.next_obs).reshape(1, -1)
        advantages = torch.zeros_like(s.rewards)
        lastgaelam = torch.zeros(args.num_envs)
        for t in reversed(range(args.num_steps)):
            if t == args.num_steps - 1:
                nextnonterminal = 1.0 - s.next_done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - s.dones[t + 1]
                nextvalues = s.values[t + 1]
            delta = s.rewards[t] + args.gamma * nextvalues * nextnonterminal - s.values[t]
            lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            advantages[t] = lastgaelam
        returns = advantages + s.values
    return advantages, returns


def update(
    args: Args, agent: Agent, optimizer: optim.Optimizer, s: Storage, advantages: torch.Tensor,
    returns: torch.Tensor, rng: np.random.Generator,
) -> dict[str, float]:  # fmt: skip
    """``update_epochs`` epochs of minibatch PPO on the flattened batch (early stop on
    ``target_kl``); returns the last minibatch's losses and the epoch statistics."""
    b_obs = s.obs.reshape((-1, s.obs.shape[-1]))
    b_legal = Legal.cat(s.legal)
    b_logprobs = s.logprobs.reshape(-1)
    b_actions = s.actions.reshape(-1)
    b_advantages = advantages.reshape(-1)
    b_returns = returns.reshape(-1)
    b_values = s.values.reshape(-1)
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
            # the clipped surrogate objective, as a loss
            pg_loss1 = -mb_adv * ratio
            pg_loss2 = -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
            pg_loss = torch.max(pg_loss1, pg_loss2).mean()
            # half the squared error to the returns, clipped around the rollout's values
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
    return {
        "loss": loss.item(),
        "value_loss": v_loss.item(),
        "policy_loss": pg_loss.item(),
        "entropy": entropy_loss.item(),
        "approx_kl": approx_kl.item(),
        "clipfrac": float(np.mean(clipfracs)),
        "explained_variance": float(explained_var),
    }


# -- evaluations and outputs ----------------------------------------------------------
def export_policy(args: Args, agent: Agent, trained_steps: int) -> Any:
    """The agent's actor as a ``NumpyPolicy`` (the ``.npz`` file ``PPOAgent`` plays),
    reading the env's canonical observations divided by its scale."""
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
    """One point of the learning curve: the policy as it ships (the exported file, its
    most likely legal action) on ``curve_games`` duplicate deals against the evaluations'
    opponent, always the same deals (``CURVE_SEED``)."""
    t0, wall = time.perf_counter(), run.wall()
    policy = export_policy(args, agent, step)
    rates = []
    for n in args.counts:  # one entry per count
        t1 = time.perf_counter()
        res = policy_against(policy.for_count(n), args.rival, n, args.curve_games, CURVE_SEED)
        run.curve.append({"global_step": step, "wall_seconds": round(wall, 2), "num_players": n,
                          **{k: res[k] for k in ("win_rate", "win_rate_low", "win_rate_high")},
                          "delivered": res["mean_delivered"],
                          "eval_seconds": round(time.perf_counter() - t1, 3)})  # fmt: skip
        rates.append(f"{n}p {100 * res['win_rate']:.1f}%")
    run.curve_seconds += time.perf_counter() - t0
    tqdm.write(f"[{wall:.0f} s, {step:,} steps] win rate vs {args.rival}: {', '.join(rates)}")


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask``: the baseline's play."""
    return (rng.random(mask.shape) * (mask != 0)).argmax(axis=1)


def play(args: Args, agent: Agent | None, games: int, seed: int) -> dict[str, float]:
    """``agent`` (sampled, as trained; None: uniformly random legal actions) on the first
    game of each of ``games`` slots of the training env reset with ``seed``: two policies
    evaluated with one seed play the same deals, seats and opponents. Returns the mean
    win share, delivered orders and return."""
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
    return {
        "games": games,
        "win": float(win.mean()),
        "delivered": float(delivered.mean()),
        "return": float(ret.mean()),
    }


def env_alone(args: Args) -> float:
    """Env steps/s of the training env alone, outside training: ``num_envs`` games in
    this process (the same opponents and options), random legal actions drawn outside
    the timing, for ``env_alone_seconds``; the reference of the honest throughput ratio
    (0.0 if skipped)."""
    if not args.env_alone_seconds:
        return 0.0
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
    return steps / spent


def finish(args: Args, agent: Agent, out: Path, run: Run, steps: int) -> dict[str, Any]:
    """Save the model and the policy file, evaluate both (the sampled policy and random
    play on the script's own deals; the policy file on duplicate deals, ``--final-games``),
    plot the curves and write ``result.json`` (returned)."""
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
        # on a machine shared with other jobs the wall time also counts their turns
        "training_cpu_seconds": training_cpu,
        "warm_start_seconds": run.bc_seconds,
        "ppo_seconds": run.seconds["train"],
        "curve_eval_seconds": run.curve_seconds,
        "evaluation_seconds": time.perf_counter() - t0,
        "stopped_by": run.stopped,
        "load_average": list(os.getloadavg()),
    }
    seeds = {"seed": args.seed, "eval_seed": eval_seed}  # the deals of every evaluation
    seeds |= {"curve_seed": CURVE_SEED} if args.curve_every else {}
    seeds |= {"final_seed": FINAL_SEED} if args.final_games else {}
    doc = {
        "args": dataclasses.asdict(args), "iterations": thinned(run.rows),  # all: progress.csv
        "warm_start": {"epochs": run.bc_rows, **run.bc, "seconds": run.bc_seconds},
        "curve": run.curve, "evaluation": evaluation, "wall": wall,
        "throughput": throughput(run.seconds, steps, alone),
        "provenance": provenance(seeds=seeds, wall_time=run.wall()),
    }  # fmt: skip
    write_file(out / "result.json", json.dumps(doc, indent=1) + "\n", "result")
    return doc


def throughput(sec: dict[str, float], steps: int, alone: float) -> dict[str, Any]:
    """Env steps/s of the loop overall, in the rollouts and in ``envs.step`` alone; the
    ratio overall / env alone (the target is 0.5) and the shares of the loop's time."""
    return {
        "env_steps": steps,
        "train_seconds": round(sec["train"], 3),
        "env_steps_per_s_overall": steps / sec["train"],
        "env_steps_per_s_rollout": steps / sec["rollout"],
        "env_steps_per_s_env_only": steps / sec["env"],
        "overall_over_env_only": sec["env"] / sec["train"],
        "env_steps_per_s_env_alone": alone,
        "overall_over_env_alone": steps / sec["train"] / alone if alone else None,
        # CPU seconds per wall second of the loop (curve points apart): 2 = both cores
        "cores_busy": sec["cpu"] / sec["train"],
        **{f"share_{k}": sec[k] / sec["train"] for k in ("inference", "gae", "update")},
    }


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
            write_file(
                RESULTS / "cleanrl_ppo" / f"cleanrl_ppo_{args.name}.{ext}", data, "exported result"
            )
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.cleanrl_ppo"))
