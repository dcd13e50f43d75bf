"""Train a Mamma Mia! agent with sb3-contrib's MaskablePPO.

    python -m experiments.train.train_ppo --config experiments/configs/ppo_2p.json
    python -m experiments.train.train_ppo --config experiments/configs/ppo_2p.json \\
        --set ppo.total_timesteps=20000 --set bc.games=200 --out runs/smoke

One run, all settings in a JSON config (``experiments/configs/``), every random choice
seeded from ``seed``:

1. **Imitation warm start** (optional, ``bc``): the teacher bot plays itself on
   ``bc.games`` deals; the policy is fitted to its choices (cross-entropy over the
   legal actions) and the value head to the discounted returns those games gave, in
   the canonical frame, so every seat's decisions are examples.
2. **MaskablePPO** on ``MammaMiaSB3VecEnv``: ``env.n_envs`` games in one engine
   batch, the learner in a random seat of each, the other seats played by the
   opponent pool (``opponents``) and, with ``self_play.enabled``, by frozen snapshots
   of the policy taken every ``self_play.snapshot_every`` steps (the last
   ``self_play.pool_size``; bots keep ``self_play.bot_weight`` of the opponent draws).
3. **Evaluation** every ``eval.every`` steps against each heuristic bot on duplicate
   deals (the tournament runner: every deal played with the seats rotated), logged
   to TensorBoard and ``eval.csv``; the checkpoint with the best win rate against
   ``eval.target`` is kept. The final policy is evaluated on ``eval.final_games``
   games with a different seed.

Outputs in ``--out`` (default ``runs/<name>``): ``policy.npz`` (the exported actor,
playable with ``mamma_mia_agents.bots.ppo_agent.PPOAgent``), ``model.zip`` (the SB3 model),
``logs/`` (TensorBoard events and SB3's ``progress.csv``), ``eval.csv``, ``bc.csv``,
``final_eval.json``, ``learning_curve.png`` and ``summary.json`` (timings, throughput,
results, provenance). Nothing else is written unless asked: with ``--export``, the
config's ``export.policy`` / ``export.results`` copy the policy and the results to the
repository (``agents/policies/``, ``experiments/results/ppo/``).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from experiments.common.config import load_config as load_with_defaults
from experiments.common.evaluation import evaluate
from experiments.common.imitation import behaviour_clone, sb3_clonable, teacher_games
from experiments.common.output import RESULTS, ROOT, RUNS, write_csv
from experiments.common.policy_export import policy_from_mlp
from experiments.common.provenance import bot_sources, git_revision
from experiments.common.training import save_figure, set_threads, subplots
from mamma_mia_env.plumbing.files import write_file
from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["DEFAULTS", "load_config", "main", "train"]

# -- the config: every key a run has, with its default ---------------------------------------------
DEFAULTS: dict[str, Any] = {
    "name": "ppo",  # the run's name: runs/<name>/, and the prefix of exported results
    "seed": 0,  # every random choice of the run derives from it
    "env": {
        "num_players": 2,
        "n_envs": 256,  # games in one engine batch (the learner in one seat of each)
        "reward_mode": "delivered_win_loss",  # Config.reward_mode
        "opponent_delivery_penalty": 1.0,  # minus this x the opponents' mean deliveries
        "learner_seat": None,  # None: a random seat per game
        "rules": {},  # rule flags for Config (free keys, checked by Config)
    },
    # the bots in the other seats, drawn per game with probabilities `probs` (None: equal)
    "opponents": {"pool": ["builder"], "probs": None},
    "bc": {  # imitation warm start: fit the policy to the teacher's self-play
        "enabled": True,
        "teacher": "builder",
        "games": 10000,
        "epochs": 4,
        "batch_size": 1024,
        "learning_rate": 1e-3,
        "vf_coef": 0.5,  # weight of the critic's loss on the teacher games' returns
        "holdout": 0.05,  # share of the decisions held out to measure the fit
    },
    "ppo": {  # MaskablePPO's arguments (SB3's names), and the network
        "total_timesteps": 1_000_000,
        "n_steps": 64,
        "batch_size": 4096,
        "n_epochs": 4,
        "learning_rate": 1e-4,
        "learning_rate_end": None,  # a number: linear decay to it over the run
        "gamma": 0.995,
        "gae_lambda": 0.95,
        "clip_range": 0.1,
        "ent_coef": 0.003,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "target_kl": None,
        "net_arch": [256, 256],  # hidden layers of the actor and of the critic
        "activation": "tanh",  # or "relu"
    },
    # frozen snapshots of the policy join the opponents every `snapshot_every` steps (the
    # last `pool_size`); the bots keep `bot_weight` of the opponent draws
    "self_play": {"enabled": False, "snapshot_every": 200_000, "pool_size": 5, "bot_weight": 0.5},
    "eval": {  # duplicate-deal evaluations against the heuristic bots
        "every": 200_000,  # steps between evaluations (0: none during training)
        "games": 400,
        "seed": 1,
        "bots": ["counter", "builder", "hoarder", "forgetful"],
        "target": "builder",  # the best checkpoint is the one that beats this bot most
        "final_games": 2000,  # the final evaluation, on other deals
        "final_seed": 2,
        "final_bots": ["counter", "builder", "hoarder", "forgetful"],
        "select": "best",  # the policy kept: "best" checkpoint or "last"
    },
    # with --export: copy the policy (agents/policies/...) and results (experiments/results/ppo/)
    "export": {"policy": None, "results": None},
    "threads": 1,  # torch and numba threads
}
#: Config sections whose keys are free (rule flags, checked by ``Config``).
OPEN_SECTIONS = {"env.rules"}


def load_config(path: str | None, overrides: Iterable[str] = ()) -> dict:
    """:data:`DEFAULTS`, updated by the JSON file ``path`` and the ``--set`` overrides."""
    return load_with_defaults(DEFAULTS, path, overrides, OPEN_SECTIONS)


def game_config(cfg: dict[str, Any]) -> Any:
    """The game's ``Config`` of a run's ``env`` section (players, reward, rule flags)."""
    from mamma_mia_env import Config

    env = cfg["env"]
    return Config.from_kwargs(
        num_players=env["num_players"], reward_mode=env["reward_mode"], **env["rules"]
    )


# -- the run ---------------------------------------------------------------------------------------
def train(
    cfg: dict, out: Path, progress: bool = True, verbose: int = 0, export: bool = False
) -> dict:
    """One training run into ``out``: imitation, PPO with periodic evaluations, the
    policy's selection and final evaluation, the summary; returns the summary."""
    set_threads(int(cfg["threads"]))
    from mamma_mia_env.game.symmetry import obs_scale

    out.mkdir(parents=True, exist_ok=True)
    write_file(out / "config.json", json.dumps(cfg, indent=2) + "\n", "run config")
    config = game_config(cfg)
    scale = obs_scale(config.num_players, config.observation_mode)
    meta = {
        "num_players": config.num_players,
        "observation_mode": config.observation_mode,
        "double_ingredients": config.double_ingredients,
        "trained_with": {"config": cfg["name"], "seed": int(cfg["seed"])},
    }
    # the bots and the code as they are when training starts
    started = {"bot_sources": bot_sources(), "git": git_revision()}
    timings: dict[str, float] = {}
    t_start = time.perf_counter()
    cpu_start = time.process_time()  # this process's CPU time: wall time on a shared
    # machine also counts the time other jobs held the cores

    model, venv = make_model(cfg, config, out, verbose)
    bc_rows = imitation_warm_start(model, cfg, config, scale, out, timings, progress)
    run = make_callback(cfg, venv, out, meta, scale, t_start, progress)
    run_ppo(model, cfg, run, timings)
    timings["train_seconds"] = time.perf_counter() - t_start
    timings["train_cpu_seconds"] = time.process_time() - cpu_start
    policy, policy_meta = select_policy(model, cfg, out, meta, run, timings)
    final = final_evaluation(policy, cfg, out, timings)
    plot_curves(cfg, out, run.eval_rows)
    record = {**started, "best_periodic_eval": run.best}
    summary = write_summary(cfg, out, record, timings, policy_meta, final, bc_rows)
    if export:  # only an explicit --export touches the repository's tracked files
        export_run(cfg, out)
    venv.close()
    return summary


def make_model(cfg: dict, config: Any, out: Path, verbose: int) -> tuple[Any, Any]:
    """The training env (``MammaMiaSB3VecEnv``: ``env.n_envs`` games against the
    opponent pool) and the MaskablePPO model on it, logging to ``out/logs``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    venv = training_env(cfg, config, cfg["env"]["learner_seat"])
    ppo = dict(cfg["ppo"])
    net_arch = ppo.pop("net_arch")
    activation = ppo.pop("activation")
    ppo.pop("total_timesteps")
    lr_end = ppo.pop("learning_rate_end", None)
    if lr_end is not None:  # linear decay over the run (progress_remaining: 1 -> 0)
        lr0, lr1 = float(ppo["learning_rate"]), float(lr_end)
        ppo["learning_rate"] = lambda remaining: lr1 + (lr0 - lr1) * remaining
    act_fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        seed=int(cfg["seed"]),
        verbose=verbose,
        device="cpu",
        policy_kwargs={
            "net_arch": {"pi": list(net_arch), "vf": list(net_arch)},
            "activation_fn": act_fn,
        },
        **ppo,
    )
    log_formats = ["csv", "tensorboard"] + (["stdout"] if verbose else [])
    model.set_logger(configure(str(out / "logs"), log_formats))
    return model, venv


def training_env(cfg: dict, config: Any, learner_seat: int | None) -> Any:
    """``MammaMiaSB3VecEnv`` of ``env.n_envs`` games against the config's opponent pool."""
    from mamma_mia_agents import load_agent
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    return MammaMiaSB3VecEnv(
        int(cfg["env"]["n_envs"]),
        opponents=[load_agent(a) for a in cfg["opponents"]["pool"]],
        opponent_probs=cfg["opponents"]["probs"],
        learner_seat=learner_seat,
        opponent_delivery_penalty=float(cfg["env"]["opponent_delivery_penalty"]),
        seed=int(cfg["seed"]),
        config=config,
    )


def imitation_warm_start(
    model: Any, cfg: dict, config: Any, scale: Any, out: Path, timings: dict, progress: bool
) -> list[dict]:
    """Phase 1 (``bc``): the teacher's self-play games, the policy fitted to them;
    returns the per-epoch rows of ``bc.csv`` (none if imitation is off)."""
    from mamma_mia_agents import load_agent

    bc = cfg["bc"]
    bc_rows: list[dict] = []
    if not (bc["enabled"] and int(bc["games"]) > 0):
        return bc_rows
    seed = int(cfg["seed"])
    t0 = time.perf_counter()
    data = teacher_games(
        config,
        load_agent(bc["teacher"]),
        int(bc["games"]),
        seed,
        float(cfg["ppo"]["gamma"]),
        float(cfg["env"]["opponent_delivery_penalty"]),
    )
    timings["bc_data_seconds"] = time.perf_counter() - t0
    timings["bc_samples"] = int(len(data["actions"]))
    t0 = time.perf_counter()
    behaviour_clone(sb3_clonable(model), data, scale, bc, seed, bc_rows, progress)
    timings["bc_train_seconds"] = time.perf_counter() - t0
    write_csv(out / "bc.csv", bc_rows)
    print(
        f"[imitation] {timings['bc_samples']:,} decisions of {bc['games']:,} games in "
        f"{timings['bc_data_seconds']:.0f} s, fitted in {timings['bc_train_seconds']:.0f} s; "
        f"holdout accuracy {bc_rows[-1]['holdout_accuracy']:.3f}",
        flush=True,
    )
    return bc_rows


# -- the loop: SB3 drives it, the callback hooks into it -----------------------------------------
def run_ppo(model: Any, cfg: dict, run: Any, timings: dict) -> None:
    """Phase 2: ``ppo.total_timesteps`` of MaskablePPO, evaluated before, every
    ``eval.every`` steps and at the end; the time spent evaluating is kept apart."""
    evaluating = int(cfg["eval"]["every"]) > 0
    if evaluating:
        run.evaluate(model, 0)
    t0 = time.perf_counter()
    eval_before = run.eval_seconds
    model.learn(total_timesteps=int(cfg["ppo"]["total_timesteps"]), callback=run)
    ppo_wall = time.perf_counter() - t0
    timings["ppo_seconds_incl_eval"] = ppo_wall
    timings["ppo_seconds"] = ppo_wall - (run.eval_seconds - eval_before)
    timings["ppo_timesteps"] = int(model.num_timesteps)
    timings["ppo_steps_per_second"] = model.num_timesteps / max(timings["ppo_seconds"], 1e-9)
    if evaluating and (not run.eval_rows or run.eval_rows[-1]["timesteps"] != model.num_timesteps):
        run.evaluate(model, model.num_timesteps)


#: the training episodes' results logged per rollout: (result key, ``rollout/`` name)
ROLLOUT_RECORDS = (
    ("win", "win_rate"),
    ("delivered", "delivered"),
    ("opp_delivered", "opp_delivered"),
)


def make_callback(
    cfg: dict, venv: Any, out: Path, meta: dict, scale: Any, t_start: float, progress: bool
) -> Any:
    """The run's SB3 callback: progress bar, episode results, periodic evaluation (the
    best policy kept as ``best_policy.npz``), self-play snapshots. Its ``eval_rows``,
    ``eval_seconds``, ``best`` and ``best_timesteps`` are the evaluations' record."""
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure

    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    ev = cfg["eval"]
    sp = cfg["self_play"]

    class Train(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_eval = int(ev["every"])
            self.next_snap = int(sp["snapshot_every"])
            self.results: list[dict] = []
            self.snapshots: list[Any] = []
            self.bar: Any = None
            self.eval_rows: list[dict] = []
            self.eval_seconds = 0.0
            self.best: float | None = None
            self.best_timesteps: int | None = None
            # evaluations get a TensorBoard run of their own ("logs/eval"), written at the
            # step they measured (SB3's logger would file them under its next rollout's step)
            self.eval_log = configure(str(out / "logs" / "eval"), ["tensorboard"])

        def _on_training_start(self) -> None:
            if progress:
                from tqdm.auto import tqdm

                total = int(cfg["ppo"]["total_timesteps"])
                self.bar = tqdm(total=total, desc="PPO", unit="step", smoothing=0.05)

        def _on_step(self) -> bool:
            self.results += [info["result"] for info in self.locals["infos"] if "result" in info]
            if self.bar is not None:
                self.bar.update(self.training_env.num_envs)
            return True

        def _on_rollout_end(self) -> None:
            if self.results:
                for key, name in ROLLOUT_RECORDS:
                    self.logger.record(f"rollout/{name}", np.mean([r[key] for r in self.results]))
                self.results = []
            t = self.num_timesteps
            if sp["enabled"] and int(sp["snapshot_every"]) > 0 and t >= self.next_snap:
                self.next_snap += int(sp["snapshot_every"])
                self.snapshot()
            if int(ev["every"]) > 0 and t >= self.next_eval:
                while self.next_eval <= t:
                    self.next_eval += int(ev["every"])
                self.evaluate(self.model, t)

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

        def policy(self, model: Any) -> Any:
            """The model's actor as a policy file (``NumpyPolicy``) of the run's meta: the
            MLP extractor's policy net and the logits layer, reading the observation
            directly (``FlattenExtractor``), divided by ``scale`` (the env's ``normalize``)."""
            actor = model.policy
            return policy_from_mlp(actor.mlp_extractor.policy_net, actor.action_net, meta, scale)

        def snapshot(self) -> None:
            """The policy joins the opponents (the last ``self_play.pool_size``
            snapshots), the bots keeping ``self_play.bot_weight`` of the draws."""
            from mamma_mia_agents import load_agent

            pol = self.policy(self.model)
            pool = (self.snapshots + [PPOAgent(pol, deterministic=False)])[-int(sp["pool_size"]) :]
            self.snapshots = pool
            bots = [load_agent(b) for b in cfg["opponents"]["pool"]]
            bw = float(sp["bot_weight"])
            bot_p = np.asarray(cfg["opponents"]["probs"] or [1.0] * len(bots), float)
            probs = list(bw * bot_p / bot_p.sum()) + [(1 - bw) / len(pool)] * len(pool)
            venv.set_opponents(bots + pool, probs)
            self.logger.record("self_play/pool_size", len(pool))

        def evaluate(self, model: Any, t: int) -> None:
            """The current policy against ``eval.bots``, logged (TensorBoard and
            ``eval.csv``), kept if it beats ``eval.target`` best."""
            t0 = time.perf_counter()
            pol = self.policy(model)
            n, rules = cfg["env"]["num_players"], cfg["env"]["rules"]
            res = evaluate(PPOAgent(pol), ev["bots"], n, int(ev["games"]), int(ev["seed"]), rules)
            row = {"timesteps": t, "wall_seconds": round(time.perf_counter() - t_start, 1)}
            for bot, r in res.items():
                row[f"win_{bot}"] = r["win_rate"]
                row[f"win_{bot}_low"] = r["win_rate_low"]
                row[f"win_{bot}_high"] = r["win_rate_high"]
                row[f"delivered_{bot}"] = r["mean_delivered"]
                self.eval_log.record(f"eval/win_vs_{bot}", r["win_rate"])
            self.eval_log.dump(t)
            self.eval_rows.append(row)
            write_csv(out / "eval.csv", self.eval_rows)
            target = res[ev["target"]]["win_rate"] if ev["target"] in res else None
            if target is not None and (self.best is None or target > self.best):
                self.best, self.best_timesteps = target, t
                pol.save(out / "best_policy.npz")
            self.eval_seconds += time.perf_counter() - t0
            msg = ", ".join(f"{b} {100 * r['win_rate']:.1f}%" for b, r in res.items())
            print(f"[eval @ {t:,} steps] win rate vs {msg}", flush=True)

    return Train()


# -- what the run keeps and reports ---------------------------------------------------------------
def select_policy(
    model: Any, cfg: dict, out: Path, meta: dict, run: Any, timings: dict
) -> tuple[Any, dict]:
    """Phase 3: save the model and the last policy, keep the best checkpoint (or the
    last: ``eval.select``) as ``policy.npz``; returns it and its metadata."""
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

    model.save(out / "model.zip")
    run.policy(model).save(out / "last_policy.npz")
    chosen = "last"
    if cfg["eval"]["select"] == "best" and (out / "best_policy.npz").exists():
        chosen = "best"
    shutil.copy(out / f"{chosen}_policy.npz", out / "policy.npz")
    policy_meta = {
        **meta,
        "selected": chosen,
        "selected_timesteps": run.best_timesteps if chosen == "best" else int(model.num_timesteps),
        "train_seconds": round(timings["train_seconds"], 1),
    }
    policy = NumpyPolicy.load(out / "policy.npz")
    policy.meta.update(policy_meta)
    policy.save(out / "policy.npz")
    return policy, policy_meta


def final_results(cfg: dict, policy: Any, workers: int = 1) -> dict[str, dict[str, Any]]:
    """A policy (file or network) against a run's ``final_bots`` on its ``final_games``
    duplicate deals at ``final_seed``: the one final evaluation of training and of
    ``--evaluate``."""
    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    ev, env = cfg["eval"], cfg["env"]
    games, seed = int(ev["final_games"]), int(ev["final_seed"])
    return evaluate(PPOAgent(policy), ev["final_bots"], env["num_players"], games, seed,
                    env["rules"], workers)  # fmt: skip


def final_evaluation(policy: Any, cfg: dict, out: Path, timings: dict) -> dict[str, Any]:
    """Phase 4: the kept policy on ``eval.final_games`` other deals (``final_eval.json``)."""
    if int(cfg["eval"]["final_games"]) <= 0:
        return {}
    t0 = time.perf_counter()
    final = final_results(cfg, policy)
    timings["final_eval_seconds"] = time.perf_counter() - t0
    write_file(out / "final_eval.json", json.dumps(final, indent=2) + "\n", "result")
    for bot, r in final.items():
        print(
            f"[final] {r['games']:,} duplicate-deal games vs {bot}: win rate "
            f"{100 * r['win_rate']:.1f}% ({100 * r['win_rate_low']:.1f}-"
            f"{100 * r['win_rate_high']:.1f}%)",
            flush=True,
        )
    return final


def write_summary(
    cfg: dict,
    out: Path,
    record: dict,
    timings: dict,
    policy_meta: dict,
    final: dict,
    bc_rows: list[dict],
) -> dict[str, Any]:
    """``summary.json``: timings, the selection, the evaluations, the imitation fit and
    the provenance of the run (``record``: the bots' sources and the git revision when
    it started, and its ``best_periodic_eval``)."""
    import torch

    summary = {
        "name": cfg["name"],
        "bot_sources": record["bot_sources"],
        "git": record["git"],
        "command": " ".join(sys.argv) if sys.argv else None,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "torch_threads": torch.get_num_threads(),
        },
        "timings": {k: (round(v, 2) if isinstance(v, float) else v) for k, v in timings.items()},
        "selected": policy_meta["selected"],
        "selected_timesteps": policy_meta["selected_timesteps"],
        "best_periodic_eval": record["best_periodic_eval"],
        "final_eval": final,
        "bc": bc_rows,
        "provenance": provenance(seeds=int(cfg["seed"]), wall_time=timings.get("train_seconds")),
    }
    write_file(out / "summary.json", json.dumps(summary, indent=2) + "\n", "summary")
    return summary


def export_run(cfg: dict, out: Path) -> None:
    """``--export``: copy the policy and the results to the config's ``export`` paths."""
    export = cfg["export"]
    if export["policy"]:
        dst = ROOT / export["policy"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(out / "policy.npz", dst)
    if export["results"]:
        dst = ROOT / export["results"]
        dst.mkdir(parents=True, exist_ok=True)
        for f in ("eval.csv", "bc.csv", "final_eval.json", "summary.json", "learning_curve.png"):
            if (out / f).exists():
                shutil.copy(out / f, dst / f"{cfg['name']}_{f}")
        if (out / "logs" / "progress.csv").exists():
            shutil.copy(out / "logs" / "progress.csv", dst / f"{cfg['name']}_progress.csv")


def plot_curves(cfg: dict, out: Path, eval_rows: list[dict]) -> None:
    """``learning_curve.png``: the periodic evaluations (the target bot's with its 95%
    interval) and the training episodes' win rate and return (SB3's ``progress.csv``)."""
    n, target = cfg["env"]["num_players"], cfg["eval"]["target"]
    fig, axes = subplots(1, 2, figsize=(12, 4.2))
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
    ax.axhline(100 / n, ls="--", color="grey", lw=1, label="parity")
    ax.set_xlabel("PPO environment steps (learner decisions)")
    ax.set_ylabel("win rate of the policy (%)")
    ax.set_title("evaluation on duplicate deals (95% CI for the target bot)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _plot_training_episodes(axes[1], out / "logs" / "progress.csv")
    fig.suptitle(f"MaskablePPO, {n} players ({cfg['name']}, seed {int(cfg['seed'])})")
    save_figure(fig, out / "learning_curve.png", dpi=110)


def _plot_training_episodes(ax: Any, progress_csv: Path) -> None:
    """The training episodes' win rate and return over the steps, as SB3 logged them."""
    if not progress_csv.exists():
        return
    with open(progress_csv) as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("rollout/win_rate")]
    t = [float(r["time/total_timesteps"]) for r in rows]
    ax.plot(t, [100 * float(r["rollout/win_rate"]) for r in rows], color="tab:blue",
            label="training win rate (%)")  # fmt: skip
    ax.set_ylabel("training win rate vs the opponent pool (%)")
    ax2 = ax.twinx()
    ax2.plot(t, [float(r["rollout/ep_rew_mean"]) for r in rows], color="tab:orange", alpha=0.7,
             label="episode return")  # fmt: skip
    ax2.set_ylabel("episode return", color="tab:orange")
    ax.set_xlabel("PPO environment steps")
    ax.set_title("training episodes")
    ax.grid(alpha=0.3)


# -- the two measurements without training ---------------------------------------------------------
def env_throughput(cfg: dict, seconds: float) -> dict[str, Any]:
    """Steps/s of ``MammaMiaSB3VecEnv`` alone: uniformly random learner actions against
    the config's opponents (the opponents' moves and the canonical views included)."""
    set_threads(int(cfg["threads"]))
    venv = training_env(cfg, game_config(cfg), learner_seat=None)
    venv.reset()
    rng = np.random.default_rng(0)
    steps = episodes = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        cs = venv.action_masks().cumsum(axis=1)
        pick = (rng.random(len(cs)) * cs[:, -1]).astype(np.int64)
        _, _, dones, _ = venv.step(np.argmax(cs > pick[:, None], axis=1))
        steps += venv.num_envs
        episodes += int(dones.sum())
    elapsed = time.perf_counter() - t0
    return {
        "n_envs": venv.num_envs,
        "num_players": cfg["env"]["num_players"],
        "opponents": cfg["opponents"]["pool"],
        "learner_steps": steps,
        "games_finished": episodes,
        "seconds": round(elapsed, 2),
        "learner_steps_per_second": round(steps / elapsed, 1),
        "games_per_second": round(episodes / elapsed, 2),
    }


def evaluate_policy_file(
    cfg: dict, policy: str, workers: int, out: Path | None = None
) -> dict[str, Any]:
    """``--evaluate``: a policy file's final evaluation as the config sets it
    (``final_bots``, ``final_games``, ``final_seed``); with ``out``, also written there
    as ``<name>_final_eval.json`` (the training's ``final_eval.json`` table)."""
    seed = int(cfg["eval"]["final_seed"])
    t0 = time.perf_counter()
    res = final_results(cfg, policy, workers)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        record = provenance(seeds=seed, wall_time=time.perf_counter() - t0)
        doc = json.dumps({**res, "provenance": record}, indent=2) + "\n"
        write_file(out / f"{cfg['name']}_final_eval.json", doc, "result")
    return {
        "policy": policy,
        "num_players": cfg["env"]["num_players"],
        "seed": seed,
        "results": res,
        "seconds": round(time.perf_counter() - t0, 1),
        "bot_sources": bot_sources(),
        "git": git_revision(),
        "provenance": provenance(seeds=seed, wall_time=time.perf_counter() - t0),
    }


# -- the command line ------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", help="JSON config (experiments/configs/...)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, e.g. --set ppo.total_timesteps=20000",
    )
    ap.add_argument("--out", help="output directory (default runs/<name>)")
    ap.add_argument("--seed", type=int, help="override the config's seed")
    ap.add_argument(
        "--export",
        action="store_true",
        help="copy the policy and results to the config's export paths (tracked files)",
    )
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    ap.add_argument("--verbose", type=int, default=0, help="SB3 verbosity (1: log tables)")
    ap.add_argument(
        "--evaluate",
        metavar="POLICY",
        help="only evaluate a policy file (.npz) against the config's final_bots on "
        "eval.final_games duplicate-deal games, and print the results as JSON (with --out "
        "DIR or --export also write <name>_final_eval.json there)",
    )
    ap.add_argument("--workers", type=int, default=1, help="processes for --evaluate")
    ap.add_argument(
        "--throughput",
        type=float,
        metavar="SECONDS",
        help="only measure the training env's speed for SECONDS (random learner moves "
        "against the config's opponents) and print it as JSON",
    )
    from experiments.common.arguments import checked  # every flag checked

    return checked(ap).parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = load_config(args.config, args.set)
    if args.throughput:
        print(json.dumps(env_throughput(cfg, args.throughput), indent=1))
        return 0
    if args.evaluate:  # the same table as the training's final_eval.json
        dst = Path(args.out) if args.out else RESULTS / "ppo" if args.export else None
        print(json.dumps(evaluate_policy_file(cfg, args.evaluate, args.workers, dst), indent=1))
        return 0
    if args.seed is not None:
        cfg["seed"] = args.seed
    out = Path(args.out) if args.out else RUNS / cfg["name"]
    summary = train(
        cfg, out, progress=not args.no_progress, verbose=args.verbose, export=args.export
    )
    print(json.dumps({k: summary[k] for k in ("timings", "final_eval")}, indent=1))
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.train.train_ppo"))
