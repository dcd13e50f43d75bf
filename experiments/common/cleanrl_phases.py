"""The phases around ``cleanrl_ppo.py``'s PPO loop: the imitation warm start before it,
the learning curve's evaluations during it (against wall time) and the exported
policy's final duplicate-deal evaluation after it.

The goal is "minutes to a good policy": a 2-player policy trained from scratch to
60% against ``builder`` within 10 minutes of wall time, the warm start included, with a
learning curve over wall time. So every phase here is timed from the same start, and
every evaluation plays the policy as it ships: exported to the numpy policy file
(``policy_export.policy_from_cleanrl``) and played by ``PPOAgent`` (most likely legal
action) through the tournament runner, on duplicate deals (seats rotated, the luck of
the deal cancels out).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.evaluation import evaluate, policy_against
from experiments.common.imitation import behaviour_clone, teacher_games
from experiments.common.policy_export import policy_from_cleanrl
from mamma_mia_env.plumbing.files import write_figure

__all__ = ["BC_SETTINGS", "CURVE_SEED", "FINAL_SEED", "check_agents", "curve_point"]
__all__ += ["eval_opponent", "opponent_pool", "short_name"]
__all__ += ["final_evaluation"]
__all__ += ["check_init_policy", "export_policy", "load_actor", "plot_wall_curve", "warm_start"]

#: The deals of the learning curve's evaluations and of the final evaluation: constants
#: that no training run uses (the training's deals come from ``--seed`` through the env's
#: generator, the teacher's from ``[seed, 7]``), and different from each other, so that
#: the final figure is measured on deals the run never chose anything by.
CURVE_SEED = 230_001
FINAL_SEED = 230_023
#: The behaviour cloning's settings (``imitation.behaviour_clone``'s ``bc``): those of
#: ``train_ppo.py``'s config (experiments/configs/ppo_2p.json) but for the epochs, a flag.
BC_SETTINGS = {"batch_size": 1024, "learning_rate": 1e-3, "vf_coef": 0.5, "holdout": 0.05}


def opponent_pool(args: Any) -> list[str]:
    """``--opponent`` as a list of specs: one, or several comma-separated (a pool; each
    training game draws its opponents from it, uniformly)."""
    return [name.strip() for name in args.opponent.split(",")]


def eval_opponent(args: Any) -> str:
    """The opponent of the learning curve's and the final evaluations: ``--eval-opponent``,
    or else ``--opponent`` (then one, not a pool: :func:`check_agents`)."""
    return args.eval_opponent or args.opponent


def check_agents(args: Any) -> list[str]:
    """The opponents and the teacher must be agents that exist (before anything runs),
    and the evaluations need one opponent."""
    from mamma_mia_agents import load_agent

    pool = opponent_pool(args)
    if "" in pool:
        return [f"--opponent {args.opponent!r}: an empty name in the comma-separated list"]
    names = [("--opponent", name) for name in pool]
    if args.eval_opponent:
        names.append(("--eval-opponent", args.eval_opponent))
    elif len(pool) > 1:
        return ["--opponent is a pool: give the evaluations' opponent (--eval-opponent)"]
    if args.warm_start_games:
        names.append(("--warm-start-teacher", args.warm_start_teacher))
    problems = []
    for flag, name in names:
        try:
            load_agent(name)
        except (ValueError, ImportError, AttributeError, TypeError) as exc:
            problems.append(f"{flag}: {str(exc).splitlines()[0]}")
    return problems


def _init_problem(args: Any, policy: Any) -> str | None:
    """Why the policy file cannot be the agent's starting actor (None: it can)."""
    from mamma_mia_env.game.symmetry import obs_scale

    widths = [w.shape[1] for w, _ in policy.layers]
    if policy.num_players != args.num_players:
        return f"it plays {policy.num_players} players, the run {args.num_players}"
    if policy.observation_mode != "recall" or not policy.canonical or policy.select is not None:
        return "it does not read the learner's whole canonical recall observation"
    if policy.meta.get("double_ingredients", False):
        return "it was trained with the double-ingredients variant"
    if (
        policy.meta["activation"] != "tanh"
        or len(widths) != 2
        or widths[0] != widths[1]
        or widths[0] > args.hidden
    ):
        return (f"its hidden layers are {widths} ({policy.meta['activation']}), the agent's "
                f"two of --hidden {args.hidden} (tanh; a file's may be narrower, of equal "
                "widths)")  # fmt: skip
    if not np.allclose(policy.scale, obs_scale(args.num_players, "recall")):
        return "its observation scale is not the learner env's"
    return None


def check_init_policy(args: Any) -> list[str]:
    """``--init-policy`` must be a policy file the agent's actor can take (before anything
    runs), and is not combined with the warm start (which would overwrite it)."""
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy, PolicyFileError

    if not args.init_policy:
        return []
    if args.warm_start_games:
        return ["--init-policy and --warm-start-games both set the starting actor: give one"]
    try:
        policy = NumpyPolicy.load(args.init_policy)
    except (OSError, PolicyFileError) as exc:
        return [f"--init-policy: {str(exc).splitlines()[0]}"]
    problem = _init_problem(args, policy)
    return [f"--init-policy {args.init_policy}: {problem}"] if problem else []


def load_actor(agent: Any, path: str) -> None:
    """Copy the policy file's layers into ``agent.actor`` (checked by
    :func:`check_init_policy`): fine-tuning a trained policy, e.g. against a stronger
    opponent. The critic keeps its fresh initialisation.

    A file with narrower hidden layers than the agent's is widened (as Net2Net widens a
    network, with zeros instead of copies): its weights fill the first units, the extra
    units keep their fresh incoming weights, and every weight leaving an extra unit
    starts at 0, so the widened actor computes exactly the file's policy and the extra
    units join in as their outgoing weights learn."""
    import torch

    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

    policy = NumpyPolicy.load(path)
    linears = [m for m in agent.actor if isinstance(m, torch.nn.Linear)]
    pairs = [*policy.layers, (policy.w_out, policy.b_out)]
    with torch.no_grad():
        for k, (lin, (w, b)) in enumerate(zip(linears, pairs, strict=True)):
            fan_in, fan_out = w.shape
            if k > 0:  # the weights from the extra units of the layer below: 0
                lin.weight[:, fan_in:] = 0.0
            lin.weight[:fan_out, :fan_in] = torch.from_numpy(np.ascontiguousarray(w.T))
            lin.bias[:fan_out] = torch.from_numpy(b)


def warm_start(args: Any, agent: Any, scale: np.ndarray) -> tuple[list[dict], dict[str, float]]:
    """``args.warm_start_games`` games of ``args.warm_start_teacher`` playing itself, the
    agent's actor fitted to its choices and its critic to the returns
    (``imitation.behaviour_clone``, ``args.warm_start_epochs`` epochs); returns the
    per-epoch rows and the timings (seconds making the games, fitting; decisions)."""
    from mamma_mia_agents import load_agent
    from mamma_mia_env.game.config import Config

    config = Config(num_players=args.num_players, reward_mode=args.reward_mode)
    t0 = time.perf_counter()
    data = teacher_games(
        config,
        load_agent(args.warm_start_teacher),
        args.warm_start_games,
        args.seed,
        args.gamma,
        args.opponent_delivery_penalty,
    )
    t1 = time.perf_counter()
    rows: list[dict] = []
    bc = {**BC_SETTINGS, "epochs": args.warm_start_epochs}
    behaviour_clone(agent.clonable(), data, scale, bc, args.seed, rows, progress=True)
    timings = {
        "bc_data_seconds": t1 - t0,
        "bc_fit_seconds": time.perf_counter() - t1,
        "bc_decisions": int(len(data["actions"])),
    }
    return rows, timings


def export_policy(args: Any, agent: Any, scale: np.ndarray, trained_steps: int) -> Any:
    """The agent's actor as a ``NumpyPolicy`` (the ``.npz`` file ``PPOAgent`` plays)."""
    meta = {
        "num_players": args.num_players,
        "observation_mode": "recall",
        "double_ingredients": False,
        "trained_with": {"script": "cleanrl_ppo.py", "name": args.name, "seed": args.seed,
                         "env_steps": trained_steps},
    }  # fmt: skip
    return policy_from_cleanrl(agent, meta, scale)


def _against(args: Any, policy: Any, games: int, seed: int) -> dict[str, float]:
    return policy_against(policy, eval_opponent(args), args.num_players, games, seed)


def curve_point(
    args: Any, agent: Any, scale: np.ndarray, step: int, wall: float
) -> dict[str, float]:
    """One point of the learning curve: the policy as it is now, ``args.curve_games``
    duplicate-deal games against the evaluations' opponent (:func:`eval_opponent`),
    always the same deals (``CURVE_SEED``)."""
    t0 = time.perf_counter()
    res = _against(args, export_policy(args, agent, scale, step), args.curve_games, CURVE_SEED)
    return {
        "global_step": step,
        "wall_seconds": round(wall, 2),
        "win_rate": res["win_rate"],
        "win_rate_low": res["win_rate_low"],
        "win_rate_high": res["win_rate_high"],
        "delivered": res["mean_delivered"],
        "eval_seconds": round(time.perf_counter() - t0, 3),
    }


def final_evaluation(args: Any, policy_file: Path) -> dict[str, Any]:
    """The exported policy file against the evaluations' opponent: ``args.final_games``
    duplicate-deal games at ``FINAL_SEED``, its win rate with the Wilson 95% interval."""
    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    t0 = time.perf_counter()
    policy = PPOAgent(policy_file).policy(args.num_players)
    res = _against(args, policy, args.final_games, FINAL_SEED)
    rival = eval_opponent(args)
    sampled = evaluate(PPOAgent(policy, deterministic=False), [rival], args.num_players,
                       args.final_games, FINAL_SEED)[rival]  # fmt: skip
    return {
        "opponent": rival,
        "games": res["games"],
        "seed": FINAL_SEED,
        "play": "deterministic (PPOAgent: the most likely legal action)",
        "win_rate": res["win_rate"],
        "win_rate_low": res["win_rate_low"],
        "win_rate_high": res["win_rate_high"],
        "mean_delivered": res["mean_delivered"],
        # the same deals with actions drawn from the policy (PPOAgent(deterministic=False),
        # the tournament's generator): what the choice of the most likely action is worth
        "sampled": {k: sampled[k] for k in ("win_rate", "win_rate_low", "win_rate_high")},
        "seconds": round(time.perf_counter() - t0, 2),
    }


def short_name(spec: str) -> str:
    """An opponent spec as a plot or a table names it: an import path by its last part
    (``experiments.common.opponents:search_4x3`` -> ``search_4x3``), a pool joined by +."""
    return "+".join(name.rpartition(":")[2] for name in spec.split(","))


def plot_wall_curve(
    args: Any, rows: list[dict], curve: list[dict], bc_seconds: float, title: str, path: Path
) -> None:
    """Two panels: the win rate over wall minutes (the curve's evaluations against the
    evaluations' opponent with their 95% intervals, the share of training games won
    against the training opponents, the warm start and the wall budget, if any), and the
    same over env steps; the dotted line is the ten-minute preset's target against
    ``builder`` (60%) when that is the evaluations' opponent, else chance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rival, budget = eval_opponent(args), args.wall_minutes
    line = 0.6 if rival == "builder" else 1.0 / args.num_players
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    for ax, key, scale, label in ((left, "wall_seconds", 60.0, "wall time (minutes)"),
                                  (right, "global_step", 1.0, "env steps")):  # fmt: skip
        if curve:
            x = np.array([c[key] for c in curve]) / scale
            y = np.array([c["win_rate"] for c in curve])
            err = [y - [c["win_rate_low"] for c in curve], [c["win_rate_high"] for c in curve] - y]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3,
                        label=f"evaluation vs {short_name(rival)} (argmax)")  # fmt: skip
        ax.plot([r[key] / scale for r in rows], [r["win"] for r in rows], alpha=0.5,
                label=f"training games vs {short_name(args.opponent)} (sampled)")  # fmt: skip
        ax.axhline(line, color="k", linestyle=":", linewidth=1)
        ax.set_xlabel(label)
        ax.set_ylabel("win rate")
    if bc_seconds > 0:
        left.axvspan(0, bc_seconds / 60.0, color="grey", alpha=0.2, label="imitation warm start")
    if budget > 0:
        left.axvline(budget, color="r", linestyle="--", linewidth=1, label="wall budget")
    left.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    write_figure(fig, path, "plot", dpi=100)
    plt.close(fig)
