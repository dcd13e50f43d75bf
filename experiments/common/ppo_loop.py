"""The PPO loop of ``cleanrl_ppo.py`` and what a run records on the way.

:func:`loop` runs the iterations (``ppo_steps``: rollout, GAE, update) until the step
count or the wall budget (``--wall-minutes``, counted from the run's start, the
imitation warm start included), one row per iteration, and the learning curve's
evaluations every ``--curve-every`` env steps (``cleanrl_phases.curve_point``); their
wall time is recorded apart so that the throughput is the loop's own.
:func:`throughput` says where the loop's time went.
"""

from __future__ import annotations

import csv
import dataclasses
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch.optim as optim
from tqdm import tqdm

from experiments.common.cleanrl_phases import curve_point, eval_opponent
from experiments.common.ppo_steps import Buffer, Live, gae, rollout, update

__all__ = ["Run", "loop", "thinned", "throughput"]


@dataclass
class Run:
    """What the phases of a run record: its start, the observation scale, the warm
    start's rows and timings, the iterations' rows, the learning curve's points and the
    wall time its evaluations took, and why the PPO loop stopped."""

    started: float
    scale: np.ndarray
    cpu_started: float
    bc_rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    bc: dict[str, float] = dataclasses.field(default_factory=dict)
    bc_seconds: float = 0.0
    rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    curve: list[dict[str, float]] = dataclasses.field(default_factory=list)
    curve_seconds: float = 0.0
    stopped: str = "total_timesteps"

    def wall(self) -> float:
        return time.perf_counter() - self.started

    def cpu(self) -> float:
        """This process's CPU time since the start: on a machine shared with other jobs
        the wall time also counts the time they held the cores; with one torch thread
        the CPU time is close to what the wall time would be on a quiet machine."""
        return time.process_time() - self.cpu_started

    def add_curve_point(self, args: Any, agent: Any, step: int) -> None:
        t0 = time.perf_counter()
        point = curve_point(args, agent, self.scale, step, self.wall())
        self.curve.append(point)
        self.curve_seconds += time.perf_counter() - t0
        tqdm.write(f"[{point['wall_seconds']:.0f} s, {step:,} steps] win rate vs "
                   f"{eval_opponent(args)} {100 * point['win_rate']:.1f}%")  # fmt: skip


def loop(
    args: Any,
    envs: Any,
    agent: Any,
    optimizer: optim.Optimizer,
    buf: Buffer,
    now: Live,
    rng: np.random.Generator,
    run: Run,
    fh: Any,
) -> None:
    """The PPO iterations, one row each into ``run.rows`` and the CSV ``fh``; the
    learning curve's evaluations every ``curve_every`` env steps; stops early (before an
    iteration that would end past it) at the wall budget."""
    writer: csv.DictWriter | None = None
    budget = args.wall_minutes * 60.0
    next_curve = 0 if args.curve_every else None
    last = 0.0  # the last iteration's wall time
    bar = tqdm(range(1, args.num_iterations + 1), desc="PPO iterations")
    for iteration in bar:
        if next_curve is not None and now.global_step >= next_curve:
            run.add_curve_point(args, agent, now.global_step)
            next_curve += args.curve_every
        if budget and run.wall() + last > budget:
            run.stopped = "wall_minutes"
            break
        t_start = time.perf_counter()
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
        last = time.perf_counter() - t_start
        row = {
            "iteration": iteration,
            "global_step": now.global_step,
            "wall_seconds": run.wall(),
            "learning_rate": optimizer.param_groups[0]["lr"],
            **losses,
            "episodes": len(ep_returns),
            "episodic_return": float(np.mean(ep_returns)) if ep_returns else float("nan"),
            "win": float(np.mean(ep_wins)) if ep_wins else float("nan"),
        }
        run.rows.append(row)
        if writer is None:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            writer.writeheader()
        writer.writerow(row)
        fh.flush()
        bar.set_postfix(ret=f"{row['episodic_return']:.2f}", win=f"{row['win']:.2f}")
    bar.close()
    if args.curve_every and (not run.curve or run.curve[-1]["global_step"] < now.global_step):
        run.add_curve_point(args, agent, now.global_step)  # the policy as trained


def throughput(now: Live, train_time: float) -> dict[str, float]:
    """Env steps per second of the training loop (no imports, setup or evaluation):
    overall, in the rollouts (env steps and the policy's forward passes) and inside
    ``envs.step`` alone; the ratio overall / env alone (how close training runs to the
    speed of the game, the target is 0.5) and the share of the wall time
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


def thinned(rows: list[dict[str, Any]], most: int = 200) -> list[dict[str, Any]]:
    """At most ``most`` of ``rows``, evenly spaced, the last included: a run of millions
    of env steps has thousands of iterations, too many for a committed result."""
    if len(rows) <= most:
        return rows
    keep = np.unique(np.linspace(0, len(rows) - 1, most).round().astype(int))
    return [rows[i] for i in keep]
