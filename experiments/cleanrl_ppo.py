"""PPO with action masking on the learner-seat vector env, in CleanRL's style.

    python experiments/cleanrl_ppo.py --num-players 2 --opponent builder --total-timesteps 500000
    python experiments/cleanrl_ppo.py --total-timesteps 20000 --name smoke   # a quick run

The structure of CleanRL's ``ppo.py`` (arguments dataclass, ``Agent`` with separate
actor and critic MLPs, a rollout buffer of ``num_steps x num_envs``, GAE, clipped
surrogate and value losses, entropy bonus, annealed learning rate, minibatch epochs,
early stop on ``target_kl``), on ``MammaMiaLearnerVectorEnv`` (``--opponent`` plays
the other seats inside the env). Illegal actions are masked out of the logits
(probability and share of the entropy 0) over each row's list of legal actions. The
steps of an iteration are in ``experiments/common/ppo_steps.py``.

Optional phases around the loop (``experiments/common/cleanrl_phases.py``): an imitation
warm start (``--warm-start-games``: the agent fitted to a teacher bot's self-play), a
wall-clock budget (``--wall-minutes``, the warm start included), learning-curve
evaluations every ``--curve-every`` env steps and a final evaluation of the exported
policy file on ``--final-games`` duplicate deals. ``--preset ten-minutes`` is the
"minutes to a good policy" (docs/TRAINING.md).

After training, the policy (sampled, as trained) and a uniformly random legal policy
play ``--eval-games`` games each against the same opponent on the same deals (one game
per slot, same seed): win share, orders delivered and return.

Outputs, all in ``runs/<name>/`` (or ``--out``): ``progress.csv`` (one row per
iteration), ``model.pt`` (the torch state dict), ``policy.npz`` (the actor as the numpy
policy file ``PPOAgent`` plays), ``learning_curve.png``, ``wall_curve.png`` (the
evaluations over wall time) and ``result.json`` (arguments, per-iteration metrics (at
most 200 rows), evaluations, wall time by phase, throughput and provenance). The
throughput says where the loop's time went (docs/TRAINING.md). ``--export`` also copies
``result.json`` and the curves (and with ``--final-games`` the policy file) to
``experiments/results/cleanrl_ppo_<name>.*`` (the committed results); nothing else is
written outside the run directory.
"""

from __future__ import annotations

import argparse
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
import torch.optim as optim
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from mamma_mia_env.plumbing.files import write_file

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from experiments.common.cleanrl_phases import (  # noqa: E402
    CURVE_SEED,
    FINAL_SEED,
    check_agents,
    check_init_policy,
    export_policy,
    final_evaluation,
    load_actor,
    opponent_pool,
    plot_wall_curve,
    short_name,
    warm_start,
)
from experiments.common.evaluation import play_learner_games  # noqa: E402
from experiments.common.output import RESULTS, RUNS  # noqa: E402
from experiments.common.ppo_loop import Run, loop, thinned, throughput  # noqa: E402
from experiments.common.ppo_steps import Agent, Buffer, Legal, Live  # noqa: E402
from experiments.common.training import dataclass_parser, plot_panels, set_threads  # noqa: E402
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv  # noqa: E402
from mamma_mia_env.game.symmetry import obs_scale  # noqa: E402
from mamma_mia_env.plumbing.provenance import provenance  # noqa: E402

__all__ = ["PRESETS", "Args", "main", "parse_args", "train"]


@dataclass
class Args:
    name: str = "cleanrl_ppo"
    """the run's name: outputs go to runs/<name>/"""
    seed: int = 1
    """seed of torch, of the env's deal generator and of the evaluation"""
    torch_deterministic: bool = True
    threads: int = 1
    """torch's and numba's threads (1: the env's kernels and torch share few cores; on a
    loaded 2-core machine 2 threads made the update several times slower)"""

    # the game
    num_players: int = 2
    opponent: str = "builder"
    """the opponents' policy: a bundled bot name, 'random' or an import path
    ('package.module:factory'); several, comma-separated, are a pool from which each
    training game draws its opponents uniformly"""
    eval_opponent: str = ""
    """the opponent of the learning curve's and the final evaluations (empty: --opponent,
    which must then be one)"""
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

    # a start from a trained policy (fine-tuning), or the imitation warm start
    init_policy: str = ""
    """a policy file (.npz, e.g. a run's policy.npz) whose actor the agent starts from:
    two tanh hidden layers of --hidden units, or of fewer (the extra units are added with
    zero outgoing weights: the same policy, room to learn); the critic starts fresh
    (empty: the random initialisation)"""
    warm_start_games: int = 0
    """games of the teacher playing itself whose decisions the agent is first fitted to
    (behaviour cloning; 0: none, PPO from the random initialisation)"""
    warm_start_teacher: str = "builder"
    warm_start_epochs: int = 2
    """passes of the behaviour cloning over the teacher's decisions"""
    wall_minutes: float = 0.0
    """stop training when this much wall time has passed since the start, the warm
    start included (0: no budget; the run is sized in env steps, this is the backstop)"""

    # evaluation
    eval_games: int = 256
    curve_every: int = 0
    """env steps between the learning curve's evaluations (0: none; the first comes
    before PPO starts, after the warm start)"""
    curve_games: int = 400
    """duplicate-deal games of each learning-curve evaluation"""
    final_games: int = 0
    """duplicate-deal games of the exported policy against --opponent after training
    (0: none), at a seed no training uses (cleanrl_phases.FINAL_SEED)"""

    # filled in at runtime
    batch_size: int = 0
    minibatch_size: int = 0
    num_iterations: int = 0


#: Named settings (``--preset NAME``; a flag given with it still wins). ``ten-minutes``:
#: the "minutes to a good policy" goal, a 2-player policy against builder in at most
#: 10 minutes of wall time on the 2-core machine, evaluated on 2,000 duplicate deals
#: (docs/TRAINING.md: the A/B behind each setting).
PRESETS: dict[str, dict[str, Any]] = {
    "ten-minutes": {
        "name": "2p_ten_minutes",
        "num_players": 2,
        "opponent": "builder",
        "total_timesteps": 6_000_000,
        "num_envs": 128,
        "warm_start_games": 10_000,
        "warm_start_epochs": 2,
        "wall_minutes": 10.0,
        "curve_every": 500_000,
        "final_games": 2000,
    },
    # the plain network against the search bot, in two legs of PPO fine-tuning
    # from the ten-minute policy (about an hour in all on the 2-core machine): first
    # against a cheap search it can learn to beat, then, widened to 256 units, against a
    # pool of that and the full search bot; both evaluated against the full search bot
    "vs-search-1": {
        "name": "2p_vs_search_1",
        "num_players": 2,
        "opponent": "experiments.common.opponents:search_4x3",
        "eval_opponent": "search",
        "init_policy": "experiments/results/cleanrl_ppo_2p_ten_minutes.npz",
        "total_timesteps": 6_000_000,
        "learning_rate": 3e-4,
        "update_epochs": 4,
        "num_envs": 128,
        "threads": 2,
        "wall_minutes": 35.0,
        "curve_every": 500_000,
        "final_games": 2000,
    },
    "vs-search-2": {
        "name": "2p_vs_search_2",
        "num_players": 2,
        "opponent": "experiments.common.opponents:search_4x3,search",
        "eval_opponent": "search",
        "init_policy": "experiments/results/cleanrl_ppo_2p_vs_search_1.npz",
        "hidden": 256,  # the first leg's 128 units widened (the same policy to start)
        "seed": 2,
        "total_timesteps": 3_000_000,
        "learning_rate": 3e-4,
        "update_epochs": 4,
        "num_envs": 128,
        "threads": 2,
        "wall_minutes": 25.0,
        "curve_every": 250_000,
        "final_games": 2000,
    },
}


def parse_args(argv: list[str] | None = None) -> tuple[Args, argparse.Namespace]:
    """Every ``Args`` field as ``--field-name``, a ``--preset`` of them; checked before
    anything runs."""
    runtime = {"batch_size", "minibatch_size", "num_iterations"}
    parser = dataclass_parser(
        __doc__.split("\n\n")[0], Args, PRESETS, argv,
        "also copy result.json and the curve to experiments/results/", skip=runtime,
    )  # fmt: skip
    from experiments.common.arguments import checked  # every flag checked

    ns = checked(parser).parse_args(argv)
    fields = {f.name for f in dataclasses.fields(Args)} - runtime
    args = Args(**{k: getattr(ns, k) for k in fields})
    problems = [
        f"--{name.replace('_', '-')} must be positive"
        for name in ("total_timesteps", "num_envs", "num_steps", "num_minibatches")
        + ("update_epochs", "hidden", "eval_games", "threads", "curve_games")
        + ("warm_start_epochs",)
        if getattr(args, name) < 1
    ]
    problems += check_agents(args)
    problems += check_init_policy(args)
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

    names = opponent_pool(args)
    # one opponent: the agent itself ('random': the env's own uniform policy); several:
    # a pool, each new game drawing its opponents from it uniformly
    opponents: Any = [load_agent(name) for name in names]
    if len(names) == 1:
        opponents = None if names[0] == "random" else opponents[0]
    return MammaMiaLearnerVectorEnv(
        num_envs,
        opponents=opponents,
        learner_seat=args.learner_seat,
        opponent_delivery_penalty=args.opponent_delivery_penalty,
        num_players=args.num_players,
        reward_mode=args.reward_mode,
    )


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
    """The run: the warm start (if any), the PPO loop (until ``total_timesteps`` or the
    wall budget), then :func:`finish`; returns the result document (also written to
    ``out``)."""
    started, cpu_started = time.perf_counter(), time.process_time()  # the budget's start
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)  # minibatch shuffling
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    # torch's and numba's threads both: the teacher's games and the tournaments of the
    # evaluations run the engine's parallel kernels, whose OpenMP threads otherwise also
    # became torch's, and on a busy machine every torch operation then waited for a
    # descheduled thread (the rollouts ran ten times slower after a warm start)
    set_threads(args.threads)
    device = torch.device("cpu")

    envs = RecordEpisodeStatistics(make_env(args, args.num_envs))
    obs_dim = envs.single_observation_space.shape[0]
    n_actions = int(envs.single_action_space.n)
    agent = Agent(obs_dim, n_actions, args.hidden).to(device)
    scale = obs_scale(args.num_players, "recall")  # what the env's observations are divided by
    run = Run(started=started, scale=scale, cpu_started=cpu_started)
    if args.init_policy:
        load_actor(agent, args.init_policy)
    if args.warm_start_games:
        run.bc_rows, run.bc = warm_start(args, agent, scale)
    run.bc_seconds = time.perf_counter() - started
    # fused: one kernel for every parameter's step instead of a dozen list operations
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5, fused=True)
    buf = Buffer.empty(args, obs_dim)

    next_obs_np, info = envs.reset(seed=args.seed)  # the first call loads the kernels
    now = Live(
        obs=torch.as_tensor(next_obs_np),
        mask=torch.as_tensor(info["action_mask"] != 0),
        done=torch.zeros(args.num_envs),
    )
    Legal.from_mask(now.mask)  # compiles the legal lists' function: setup, not the loop
    loop_started = time.perf_counter()  # throughput from here: imports and setup excluded
    # streamed as the run goes (to follow it live) into a file of its own, renamed over
    # progress.csv at the end: a run that stops half-way never truncates an earlier one
    partial = out / "progress.csv.partial"
    with open(partial, "w", newline="") as fh:
        loop(args, envs, agent, optimizer, buf, now, rng, run, fh)
    os.replace(partial, out / "progress.csv")
    train_time = time.perf_counter() - loop_started - run.curve_seconds
    return finish(args, agent, out, run, now, train_time)


def finish(
    args: Args, agent: Agent, out: Path, run: Run, now: Live, train_time: float
) -> dict[str, Any]:
    """Save the model and the policy file, evaluate both (the sampled policy and random
    play on the script's own deals; the policy file on duplicate deals, ``--final-games``),
    plot the curves and write ``result.json`` (returned)."""
    training_wall, training_cpu = run.wall(), run.cpu()
    model = io.BytesIO()
    torch.save(agent.state_dict(), model)
    write_file(out / "model.pt", model.getvalue(), "model")
    export_policy(args, agent, run.scale, now.global_step).save(out / "policy.npz")
    eval_seed = args.seed + 10_000
    t0 = time.perf_counter()
    trained = evaluate(args, agent, args.eval_games, eval_seed)
    random_play = evaluate(args, None, args.eval_games, eval_seed)
    evaluation: dict[str, Any] = {"seed": eval_seed, "trained": trained, "random": random_play}
    if args.final_games:
        evaluation["final"] = final_evaluation(args, out / "policy.npz")
    seeds = {"seed": args.seed, "eval_seed": eval_seed}  # the deals of every evaluation
    seeds |= {"curve_seed": CURVE_SEED} if args.curve_every else {}
    seeds |= {"final_seed": FINAL_SEED} if args.final_games else {}
    title = f"CleanRL-style PPO, {args.num_players}p vs {short_name(args.opponent)}"
    plot_panels(
        run.rows,
        "global_step",
        (("episodic_return", "mean episodic return"), ("win", "mean win share (finished games)")),
        title,
        out / "learning_curve.png",
    )
    plot_wall_curve(args, run.rows, run.curve, run.bc_seconds, f"{title}, over wall time",
                    out / "wall_curve.png")  # fmt: skip
    doc = {
        "args": dataclasses.asdict(args),
        "iterations": thinned(run.rows),  # progress.csv has every row
        "warm_start": {"epochs": run.bc_rows, **run.bc, "seconds": run.bc_seconds},
        "curve": run.curve,
        "evaluation": evaluation,
        "wall": {
            "training_seconds": training_wall,  # warm start, PPO and curve: the budget's
            "training_cpu_seconds": training_cpu,
            "warm_start_seconds": run.bc_seconds,
            "ppo_seconds": train_time,
            "curve_eval_seconds": run.curve_seconds,
            "evaluation_seconds": time.perf_counter() - t0,
            "stopped_by": run.stopped,
            "load_average": list(os.getloadavg()),
        },
        "throughput": throughput(now, train_time),
        "provenance": provenance(seeds=seeds, wall_time=run.wall()),
    }
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
    if "final" in ev:
        f, wall = ev["final"], doc["wall"]
        print(
            f"final: win rate vs {f['opponent']} {100 * f['win_rate']:.1f}% "
            f"[{100 * f['win_rate_low']:.1f}, {100 * f['win_rate_high']:.1f}] on {f['games']:,} "
            f"duplicate deals; trained in {wall['training_seconds'] / 60:.1f} min wall "
            f"({doc['throughput']['env_steps']:,} env steps, stopped by {wall['stopped_by']})"
        )
    if ns.export:
        RESULTS.mkdir(parents=True, exist_ok=True)
        made = [("result.json", "json"), ("learning_curve.png", "png")]
        if args.curve_every:
            made.append(("wall_curve.png", "wall_curve.png"))
        if args.final_games:
            made.append(("policy.npz", "npz"))
        for name, ext in made:
            data = (out / name).read_bytes()
            write_file(RESULTS / f"cleanrl_ppo_{args.name}.{ext}", data, "exported result")
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "experiments/cleanrl_ppo.py"))
