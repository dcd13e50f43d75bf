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
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from experiments.common.config import game_config
from experiments.common.config import load_config as load_with_defaults
from experiments.common.evaluation import evaluate_policy_file, final_results
from experiments.common.imitation import behaviour_clone, sb3_clonable, teacher_games
from experiments.common.output import RESULTS, RUNS, write_csv
from experiments.common.ppo_outputs import export_run, select_policy, write_summary
from experiments.common.provenance import bot_sources, git_revision
from experiments.common.sb3_ppo import env_throughput, make_callbacks, plot_curves, training_env
from experiments.common.training import set_threads
from mamma_mia_env.plumbing.files import write_file

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


# -- the run ---------------------------------------------------------------------------------------
def train(
    cfg: dict, out: Path, progress: bool = True, verbose: int = 0, export: bool = False
) -> dict:
    """One training run into ``out``: imitation, PPO with periodic evaluations, the
    policy's selection and final evaluation, the summary; returns the summary."""
    set_threads(int(cfg.get("threads", 1)))
    from mamma_mia_env.game.symmetry import obs_scale

    out.mkdir(parents=True, exist_ok=True)
    write_file(out / "config.json", json.dumps(cfg, indent=2) + "\n", "run config")
    seed = int(cfg["seed"])
    config = game_config(cfg)
    n = config.num_players
    scale = obs_scale(n, config.observation_mode)
    meta = {
        "num_players": n,
        "observation_mode": config.observation_mode,
        "double_ingredients": config.double_ingredients,
        "trained_with": {"config": cfg["name"], "seed": seed},
    }
    state: dict[str, Any] = {"eval_rows": [], "eval_seconds": 0.0, "progress": progress}
    state["bot_sources"] = bot_sources()  # the bots as they are when training starts
    state["git"] = git_revision()
    timings: dict[str, float] = {}
    state["t_start"] = time.perf_counter()
    cpu_start = time.process_time()  # this process's CPU time: wall time on a shared
    # machine also counts the time other jobs held the cores

    model, venv = make_model(cfg, config, out, verbose)
    bc_rows = imitation_warm_start(model, cfg, config, scale, out, timings, progress)
    run_ppo(model, cfg, venv, out, meta, scale, state, timings)
    timings["train_seconds"] = time.perf_counter() - state["t_start"]
    timings["train_cpu_seconds"] = time.process_time() - cpu_start
    policy, policy_meta = select_policy(model, cfg, out, meta, scale, state, timings)
    final = final_evaluation(policy, cfg, out, timings)
    plot_curves(
        out,
        state["eval_rows"],
        out / "logs" / "progress.csv",
        cfg["eval"]["target"],
        f"MaskablePPO, {n} players ({cfg['name']}, seed {seed})",
        num_players=n,
    )
    summary = write_summary(cfg, out, state, timings, policy_meta, final, bc_rows)
    if export:  # only an explicit --export touches the repository's tracked files
        export_run(cfg, out)
    venv.close()
    return summary


def make_model(cfg: dict, config: Any, out: Path, verbose: int) -> tuple[Any, Any]:
    """The training env (``env.n_envs`` games against the opponent pool) and the
    MaskablePPO model on it, logging to ``out/logs``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    seed = int(cfg["seed"])
    venv = training_env(cfg, config, cfg["env"].get("learner_seat"))
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
        seed=seed,
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


def imitation_warm_start(
    model: Any, cfg: dict, config: Any, scale: Any, out: Path, timings: dict, progress: bool
) -> list[dict]:
    """Phase 1 (``bc``): the teacher's self-play games, the policy fitted to them;
    returns the per-epoch rows of ``bc.csv`` (none if imitation is off)."""
    from mamma_mia_agents import load_agent

    bc = cfg["bc"]
    bc_rows: list[dict] = []
    if not (bc.get("enabled") and int(bc["games"]) > 0):
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


def run_ppo(
    model: Any, cfg: dict, venv: Any, out: Path, meta: dict, scale: Any, state: dict, timings: dict
) -> None:
    """Phase 2: ``ppo.total_timesteps`` of MaskablePPO, evaluated before, every
    ``eval.every`` steps and at the end; the time spent evaluating is kept apart."""
    callback, run_eval = make_callbacks(cfg, venv, out, meta, scale, state)
    evaluating = int(cfg["eval"]["every"]) > 0
    if evaluating:
        run_eval(model, 0)
    t0 = time.perf_counter()
    eval_before = state["eval_seconds"]
    model.learn(total_timesteps=int(cfg["ppo"]["total_timesteps"]), callback=callback)
    ppo_wall = time.perf_counter() - t0
    timings["ppo_seconds_incl_eval"] = ppo_wall
    timings["ppo_seconds"] = ppo_wall - (state["eval_seconds"] - eval_before)
    timings["ppo_timesteps"] = int(model.num_timesteps)
    timings["ppo_steps_per_second"] = model.num_timesteps / max(timings["ppo_seconds"], 1e-9)
    if evaluating and (
        not state["eval_rows"] or state["eval_rows"][-1]["timesteps"] != model.num_timesteps
    ):
        run_eval(model, model.num_timesteps)


def final_evaluation(policy: Any, cfg: dict, out: Path, timings: dict) -> dict[str, Any]:
    """Phase 4: the kept policy on ``eval.final_games`` other deals (``final_eval.json``)."""
    ev = cfg["eval"]
    if int(ev.get("final_games", 0)) <= 0:
        return {}
    t0 = time.perf_counter()
    final = final_results(cfg, policy, int(ev.get("workers", 1)))
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
