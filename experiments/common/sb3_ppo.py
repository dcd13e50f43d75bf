"""The MaskablePPO run's pieces around stable-baselines3 (``train_ppo.py``).

SB3 drives the training loop; these hook into it and report on it: the callback that
logs episode results, evaluates every ``eval.every`` steps (keeping the best policy)
and refreshes the self-play opponents, the learning-curve figure, and a measurement of
the training env's own speed. SB3 and torch are imported inside the functions, so that
importing this module stays cheap.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.config import game_config
from experiments.common.evaluation import evaluate
from experiments.common.output import write_csv
from experiments.common.training import set_threads
from mamma_mia_env.plumbing.files import write_figure

__all__ = ["env_throughput", "make_callbacks", "plot_curves", "training_env"]


def make_callbacks(
    cfg: dict, venv: Any, out: Path, meta: dict, scale: np.ndarray, state: dict
) -> tuple[Any, Any]:
    """The SB3 callback of a run and its ``run_eval(model, timesteps)``.

    ``state`` is shared with the caller: ``eval_rows``, ``eval_seconds``, ``best`` and
    ``best_timesteps`` are filled in here; ``t_start`` and ``progress`` are read."""
    from stable_baselines3.common.logger import configure

    # evaluations get a TensorBoard run of their own ("logs/eval"), written at the step
    # they measured (SB3's logger would file them under its next rollout's step)
    eval_log = configure(str(out / "logs" / "eval"), ["tensorboard"])
    run_eval = _eval_runner(cfg, out, meta, scale, state, eval_log)
    return _train_callback(cfg, venv, meta, scale, state, run_eval), run_eval


def _train_callback(
    cfg: dict, venv: Any, meta: dict, scale: np.ndarray, state: dict, run_eval: Any
) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    from experiments.common.policy_export import policy_from_sb3
    from mamma_mia_agents import load_agent
    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    ev = cfg["eval"]
    sp = cfg["self_play"]
    total = int(cfg["ppo"]["total_timesteps"])

    class Train(BaseCallback):
        """Progress bar, episode results, periodic evaluation, self-play snapshots."""

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = int(ev["every"])
            self.next_snap = int(sp["snapshot_every"])
            self.results: list[dict] = []
            self.snapshots: list[Any] = []
            self.bar = None

        def _on_training_start(self) -> None:
            if state.get("progress", True):
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc="PPO", unit="step", smoothing=0.05)
            self.t0 = time.perf_counter()

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "result" in info:
                    self.results.append(info["result"])
            if self.bar is not None:
                self.bar.update(self.training_env.num_envs)
            return True

        def _on_rollout_end(self) -> None:
            if self.results:
                self.logger.record("rollout/win_rate", np.mean([r["win"] for r in self.results]))
                self.logger.record(
                    "rollout/delivered", np.mean([r["delivered"] for r in self.results])
                )
                self.logger.record(
                    "rollout/opp_delivered", np.mean([r["opp_delivered"] for r in self.results])
                )
                self.results = []
            t = self.num_timesteps
            if sp["enabled"] and int(sp["snapshot_every"]) > 0 and t >= self.next_snap:
                self.next_snap += int(sp["snapshot_every"])
                pol = policy_from_sb3(self.model.policy, meta, scale)
                self.snapshots = (self.snapshots + [PPOAgent(pol, deterministic=False)])[
                    -int(sp["pool_size"]) :
                ]
                bots = [load_agent(b) for b in cfg["opponents"]["pool"]]
                bw = float(sp["bot_weight"])
                bot_p = np.asarray(cfg["opponents"].get("probs") or [1.0] * len(bots), float)
                probs = list(bw * bot_p / bot_p.sum()) + [(1 - bw) / len(self.snapshots)] * len(
                    self.snapshots
                )
                venv.set_opponents(bots + self.snapshots, probs)
                self.logger.record("self_play/pool_size", len(self.snapshots))
            if int(ev["every"]) > 0 and t >= self.next_eval:
                while self.next_eval <= t:
                    self.next_eval += int(ev["every"])
                run_eval(self.model, t)

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    return Train()


def _eval_runner(
    cfg: dict, out: Path, meta: dict, scale: np.ndarray, state: dict, eval_log: Any
) -> Any:
    """``run_eval(model, t)``: evaluate the current policy, log it (TensorBoard and
    ``eval.csv``) and keep it as ``best_policy.npz`` if it beats ``eval.target`` best."""
    from experiments.common.policy_export import policy_from_sb3
    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    ev = cfg["eval"]
    n = cfg["env"]["num_players"]
    rules = cfg["env"].get("rules", {})

    def run_eval(model: Any, t: int) -> None:
        t0 = time.perf_counter()
        pol = policy_from_sb3(model.policy, meta, scale)
        res = evaluate(PPOAgent(pol), ev["bots"], n, int(ev["games"]), int(ev["seed"]), rules)
        row = {"timesteps": t, "wall_seconds": round(time.perf_counter() - state["t_start"], 1)}
        for bot, r in res.items():
            row[f"win_{bot}"] = r["win_rate"]
            row[f"win_{bot}_low"] = r["win_rate_low"]
            row[f"win_{bot}_high"] = r["win_rate_high"]
            row[f"delivered_{bot}"] = r["mean_delivered"]
            eval_log.record(f"eval/win_vs_{bot}", r["win_rate"])
        eval_log.dump(t)
        state["eval_rows"].append(row)
        write_csv(out / "eval.csv", state["eval_rows"])
        target = res[ev["target"]]["win_rate"] if ev["target"] in res else None
        if target is not None and target > state.get("best", -1.0):
            state["best"] = target
            state["best_timesteps"] = t
            pol.save(out / "best_policy.npz")
        state["eval_seconds"] += time.perf_counter() - t0
        msg = ", ".join(f"{b} {100 * r['win_rate']:.1f}%" for b, r in res.items())
        print(f"[eval @ {t:,} steps] win rate vs {msg}", flush=True)

    return run_eval


def training_env(cfg: dict, config: Any, learner_seat: int | None) -> Any:
    """``MammaMiaSB3VecEnv`` of ``env.n_envs`` games against the config's opponent pool."""
    from mamma_mia_agents import load_agent
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    return MammaMiaSB3VecEnv(
        int(cfg["env"]["n_envs"]),
        opponents=[load_agent(a) for a in cfg["opponents"]["pool"]],
        opponent_probs=cfg["opponents"].get("probs"),
        learner_seat=learner_seat,
        opponent_delivery_penalty=float(cfg["env"]["opponent_delivery_penalty"]),
        seed=int(cfg["seed"]),
        config=config,
    )


def env_throughput(cfg: dict, seconds: float) -> dict[str, Any]:
    """Steps/s of ``MammaMiaSB3VecEnv`` alone: uniformly random learner actions against
    the config's opponents (the opponents' moves and the canonical views included)."""
    set_threads(int(cfg.get("threads", 1)))
    env_cfg = cfg["env"]
    venv = training_env(cfg, game_config(cfg), learner_seat=None)
    venv.reset()
    rng = np.random.default_rng(0)
    steps = episodes = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        masks = venv.action_masks()
        cs = masks.cumsum(axis=1)
        pick = (rng.random(len(cs)) * cs[:, -1]).astype(np.int64)
        _, _, dones, _ = venv.step(np.argmax(cs > pick[:, None], axis=1))
        steps += venv.num_envs
        episodes += int(dones.sum())
    elapsed = time.perf_counter() - t0
    return {
        "n_envs": venv.num_envs,
        "num_players": env_cfg["num_players"],
        "opponents": cfg["opponents"]["pool"],
        "learner_steps": steps,
        "games_finished": episodes,
        "seconds": round(elapsed, 2),
        "learner_steps_per_second": round(steps / elapsed, 1),
        "games_per_second": round(episodes / elapsed, 2),
    }


def plot_curves(
    out: Path,
    eval_rows: list[dict],
    progress_csv: Path,
    target: str,
    title: str,
    num_players: int | None = None,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    ax = axes[0]
    if eval_rows:
        t = np.array([r["timesteps"] for r in eval_rows])
        bots = [
            k[4:]
            for k in eval_rows[0]
            if k.startswith("win_") and not k.endswith(("_low", "_high"))
        ]
        for bot in bots:
            y = np.array([r[f"win_{bot}"] for r in eval_rows]) * 100
            line = ax.plot(t, y, marker="o", ms=3, label=bot, lw=2 if bot == target else 1)
            if bot == target:
                lo = np.array([r[f"win_{bot}_low"] for r in eval_rows]) * 100
                hi = np.array([r[f"win_{bot}_high"] for r in eval_rows]) * 100
                ax.fill_between(t, lo, hi, color=line[0].get_color(), alpha=0.2)
    if num_players:
        ax.axhline(100 / num_players, ls="--", color="grey", lw=1, label="parity")
    ax.set_xlabel("PPO environment steps (learner decisions)")
    ax.set_ylabel("win rate of the policy (%)")
    ax.set_title("evaluation on duplicate deals (95% CI for the target bot)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax = axes[1]
    if progress_csv.exists():
        with open(progress_csv) as fh:
            rows = list(csv.DictReader(fh))
        t = [float(r["time/total_timesteps"]) for r in rows if r.get("rollout/win_rate")]
        w = [100 * float(r["rollout/win_rate"]) for r in rows if r.get("rollout/win_rate")]
        ret = [float(r["rollout/ep_rew_mean"]) for r in rows if r.get("rollout/win_rate")]
        ax.plot(t, w, color="tab:blue", label="training win rate (%)")
        ax.set_ylabel("training win rate vs the opponent pool (%)")
        ax2 = ax.twinx()
        ax2.plot(t, ret, color="tab:orange", alpha=0.7, label="episode return")
        ax2.set_ylabel("episode return", color="tab:orange")
        ax.set_xlabel("PPO environment steps")
        ax.set_title("training episodes")
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    write_figure(fig, out / "learning_curve.png", "plot", dpi=110)
    plt.close(fig)
