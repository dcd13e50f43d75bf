"""Train a Mamma Mia! agent with sb3-contrib's MaskablePPO.

    python experiments/train_ppo.py --config experiments/configs/ppo_2p.json
    python experiments/train_ppo.py --config experiments/configs/ppo_2p.json \\
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
playable with ``mamma_mia_agents.ppo_agent.PPOAgent``), ``model.zip`` (the SB3 model),
``logs/`` (TensorBoard events and SB3's ``progress.csv``), ``eval.csv``, ``bc.csv``,
``final_eval.json``, ``learning_curve.png`` and ``summary.json`` (timings, throughput,
results, provenance). Nothing else is written unless asked: with ``--export``, the
config's ``export.policy`` / ``export.results`` copy the policy and the results to the
repository (``agents/policies/``, ``experiments/results/``).
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mamma_mia_env.plumbing.provenance import provenance  # noqa: E402

DEFAULTS: dict[str, Any] = {
    "name": "ppo",
    "seed": 0,
    "env": {
        "num_players": 2,
        "n_envs": 256,
        "reward_mode": "delivered_win_loss",
        "opponent_delivery_penalty": 1.0,
        "learner_seat": None,
        "rules": {},
    },
    "opponents": {"pool": ["builder"], "probs": None},
    "bc": {
        "enabled": True,
        "teacher": "builder",
        "games": 10000,
        "epochs": 4,
        "batch_size": 1024,
        "learning_rate": 1e-3,
        "vf_coef": 0.5,
        "holdout": 0.05,
    },
    "ppo": {
        "total_timesteps": 1_000_000,
        "n_steps": 64,
        "batch_size": 4096,
        "n_epochs": 4,
        "learning_rate": 1e-4,
        "learning_rate_end": None,
        "gamma": 0.995,
        "gae_lambda": 0.95,
        "clip_range": 0.1,
        "ent_coef": 0.003,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "target_kl": None,
        "net_arch": [256, 256],
        "activation": "tanh",
    },
    "self_play": {"enabled": False, "snapshot_every": 200_000, "pool_size": 5, "bot_weight": 0.5},
    "eval": {
        "every": 200_000,
        "games": 400,
        "seed": 1,
        "bots": ["counter", "builder", "hoarder", "forgetful"],
        "target": "builder",
        "final_games": 2000,
        "final_seed": 2,
        "final_bots": ["counter", "builder", "hoarder", "forgetful"],
        "select": "best",
    },
    "export": {"policy": None, "results": None},
    "threads": 1,
}


# -- config ----------------------------------------------------------------------------------------
def deep_update(base: dict, new: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_update(out[k], v)
        else:
            out[k] = v
    return out


def apply_override(cfg: dict, text: str) -> None:
    """``a.b.c=value`` (value parsed as JSON, else kept as a string)."""
    key, _, raw = text.partition("=")
    if not key or not _:
        raise SystemExit(f"--set needs key=value, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    node = cfg
    parts = key.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value


#: Config sections whose keys are free (rule flags, checked by ``Config``).
OPEN_SECTIONS = {"env.rules"}


def check_keys(cfg: dict, defaults: dict = DEFAULTS, path: str = "") -> None:
    """Refuse keys the script does not know (a typo would otherwise be ignored)."""
    import difflib

    for key, value in cfg.items():
        name = f"{path}{key}"
        if key not in defaults:
            close = difflib.get_close_matches(key, list(defaults), n=1)
            hint = f" (did you mean '{path}{close[0]}'?)" if close else ""
            raise SystemExit(f"unknown config key {name!r}{hint}")
        known = defaults[key]
        if isinstance(known, dict) and name not in OPEN_SECTIONS:
            if not isinstance(value, dict):
                raise SystemExit(f"config key {name!r} must be a section (a JSON object)")
            check_keys(value, known, f"{name}.")


def load_config(path: str | None, overrides: list[str] = ()) -> dict:
    cfg = copy.deepcopy(DEFAULTS)
    if path:
        with open(path) as fh:
            cfg = deep_update(cfg, json.load(fh))
    for o in overrides:
        apply_override(cfg, o)
    check_keys(cfg)
    return cfg


def game_config(cfg: dict):
    from mamma_mia_env import Config

    env = cfg["env"]
    return Config.from_kwargs(
        num_players=env["num_players"], reward_mode=env["reward_mode"], **env.get("rules", {})
    )


def set_threads(n: int) -> None:
    import torch

    torch.set_num_threads(n)
    try:
        import numba

        numba.set_num_threads(n)
    except Exception:  # pragma: no cover
        pass


# -- imitation warm start --------------------------------------------------------------------------
def teacher_games(
    config, teacher, games: int, seed: int, gamma: float, penalty: float, batch: int = 1000
) -> dict[str, np.ndarray]:
    """Every decision of ``games`` teacher self-play games, in the canonical frame.

    Returns ``obs`` (uint8 raw canonical observations), ``masks`` (bit-packed),
    ``actions`` (canonical) and ``returns`` (discounted, per decision of the acting
    seat, with the env's reward definition).
    """
    from mamma_mia_env import Engine
    from mamma_mia_env.state import OVER
    from mamma_mia_env.symmetry import SeatCanonicalizer

    eng = Engine(config)
    canon = SeatCanonicalizer(config)
    n = config.num_players
    rng = np.random.default_rng([seed, 7])
    out: dict[str, list[np.ndarray]] = {"obs": [], "masks": [], "actions": [], "returns": []}
    for lo in range(0, games, batch):
        b = min(batch, games - lo)
        seeds = rng.integers(0, 2**63, size=b, dtype=np.uint64)
        state = eng.reset(seeds=seeds)
        steps: list[tuple] = []
        while True:
            live = state.data["phase"] != OVER
            if not live.any():
                break
            rows = np.flatnonzero(live)
            seats = state.data["seat"].astype(np.int64)
            sub = state[rows]
            obs = eng.observe(sub)
            masks = eng.legal_masks(sub)
            acts = np.asarray(teacher.act_batch(obs, masks, rng, seats[rows]), dtype=np.int64)
            full = np.zeros(b, dtype=np.int64)
            full[rows] = acts
            delivered = eng.step(state, full, active=live)
            r = state.data["rewards"][:, :n].astype(np.float64)
            r[~live] = 0.0
            if penalty and n > 1:
                tot = delivered.sum(axis=1, keepdims=True)
                r -= penalty * (tot - delivered) / (n - 1)
            s = seats[rows]
            steps.append(
                (
                    rows,
                    s,
                    canon.obs(obs, s).astype(np.uint8),
                    np.packbits(canon.masks(masks, s) != 0, axis=1),
                    canon.to_canonical_actions(acts, s),
                    r,
                )
            )
        # returns: backwards, per seat, rewards between a seat's decisions belong to it
        acc = np.zeros((b, n))
        run = np.zeros((b, n))
        rets = [None] * len(steps)
        for t in range(len(steps) - 1, -1, -1):
            rows, s, _, _, _, r = steps[t]
            acc += r
            g = acc[rows, s] + gamma * run[rows, s]
            run[rows, s] = g
            acc[rows, s] = 0.0
            rets[t] = g
        for t, (_, _, o, m, a, _) in enumerate(steps):
            out["obs"].append(o)
            out["masks"].append(m)
            out["actions"].append(a)
            out["returns"].append(rets[t].astype(np.float32))
    return {k: np.concatenate(v) for k, v in out.items()}


def behaviour_clone(
    model,
    data: dict[str, np.ndarray],
    scale: np.ndarray,
    bc: dict,
    seed: int,
    log_rows: list[dict],
    progress: bool = True,
) -> None:
    """Fit the policy's actor to the teacher's actions and its critic to the returns."""
    import torch
    import torch.nn.functional as F  # noqa: N812

    policy = model.policy
    n_actions = model.action_space.n
    rng = np.random.default_rng([seed, 11])
    total = len(data["actions"])
    idx = rng.permutation(total)
    n_hold = max(1, int(total * bc["holdout"]))
    hold, train = idx[:n_hold], idx[n_hold:]
    scale_t = torch.as_tensor(scale)
    opt = torch.optim.Adam(policy.parameters(), lr=bc["learning_rate"])
    epochs = int(bc["epochs"])
    bs = int(bc["batch_size"])
    steps_total = epochs * ((len(train) + bs - 1) // bs)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.0 - i / max(1, steps_total))

    def tensors(sel: np.ndarray):
        obs = torch.as_tensor(data["obs"][sel].astype(np.float32)) / scale_t
        mask = np.unpackbits(data["masks"][sel], axis=1, count=n_actions).astype(bool)
        return (
            obs,
            torch.as_tensor(mask),
            torch.as_tensor(data["actions"][sel]),
            torch.as_tensor(data["returns"][sel]),
        )

    def forward(obs, mask):
        feats = policy.extract_features(obs)
        pi, vf = policy.mlp_extractor(feats)
        logits = policy.action_net(pi).masked_fill(~mask, -1e8)
        return logits, policy.value_net(vf).squeeze(-1)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=steps_total, desc="imitation", unit="batch")
    policy.set_training_mode(True)
    for epoch in range(epochs):
        perm = rng.permutation(train)
        sums = np.zeros(3)
        for lo in range(0, len(perm), bs):
            obs, mask, act, ret = tensors(perm[lo : lo + bs])
            logits, values = forward(obs, mask)
            pi_loss = F.cross_entropy(logits, act)
            vf_loss = F.mse_loss(values, ret)
            loss = pi_loss + bc["vf_coef"] * vf_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            sched.step()
            sums += [pi_loss.item(), vf_loss.item(), 1]
            if bar is not None:
                bar.update(1)
        policy.set_training_mode(False)
        with torch.no_grad():
            accs, pls, vls = [], [], []
            for lo in range(0, len(hold), 8192):
                obs, mask, act, ret = tensors(hold[lo : lo + 8192])
                logits, values = forward(obs, mask)
                accs.append((logits.argmax(1) == act).float().mean().item())
                pls.append(F.cross_entropy(logits, act).item())
                vls.append(F.mse_loss(values, ret).item())
        policy.set_training_mode(True)
        row = {
            "epoch": epoch + 1,
            "train_pi_loss": sums[0] / sums[2],
            "train_vf_loss": sums[1] / sums[2],
            "holdout_pi_loss": float(np.mean(pls)),
            "holdout_vf_loss": float(np.mean(vls)),
            "holdout_accuracy": float(np.mean(accs)),
        }
        log_rows.append(row)
        if bar is not None:
            bar.set_postfix(
                acc=f"{row['holdout_accuracy']:.3f}", vf=f"{row['holdout_vf_loss']:.2f}"
            )
    policy.set_training_mode(False)
    if bar is not None:
        bar.close()


# -- evaluation ------------------------------------------------------------------------------------
def evaluate(
    agent,
    bots: list[str],
    num_players: int,
    games: int,
    seed: int,
    rules: dict | None = None,
    workers: int = 1,
) -> dict[str, dict]:
    """Win rate of ``agent`` against each bot on duplicate deals (seats rotated).

    Two players: ``agent`` vs the bot. More: the agent against ``num_players - 1``
    copies of the bot. Returns per bot the tournament row of the agent.
    """
    from mamma_mia_agents import load_agent
    from mamma_mia_agents.tournament import run_tournament

    out = {}
    for name in bots:
        bot = load_agent(name)
        lineup = [agent] + [bot] * (num_players - 1)
        res = run_tournament(
            lineup,
            num_players=num_players,
            games=games,
            seed=seed,
            workers=workers,
            progress=False,
            **(rules or {}),
        )
        row = next(r for r in res.table if r["agent"] == res.names[0])
        out[name] = {
            "games": res.games,
            "win_rate": row["win_rate"],
            "win_rate_low": row["win_rate_low"],
            "win_rate_high": row["win_rate_high"],
            "mean_delivered": row["mean_delivered"],
            "elapsed": res.elapsed,
        }
    return out


def make_callbacks(cfg: dict, venv, out: Path, meta: dict, scale: np.ndarray, state: dict):
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure

    from mamma_mia_agents import load_agent
    from mamma_mia_agents.ppo_agent import PPOAgent, policy_from_sb3

    # evaluations get a TensorBoard run of their own ("logs/eval"), written at the step
    # they measured (SB3's logger would file them under its next rollout's step)
    eval_log = configure(str(out / "logs" / "eval"), ["tensorboard"])
    ev = cfg["eval"]
    sp = cfg["self_play"]
    n = cfg["env"]["num_players"]
    rules = cfg["env"].get("rules", {})
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

    def run_eval(model, t: int) -> None:
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

    return Train(), run_eval


def env_throughput(cfg: dict, seconds: float) -> dict[str, Any]:
    """Steps/s of ``MammaMiaSB3VecEnv`` alone: uniformly random learner actions against
    the config's opponents (the opponents' moves and the canonical views included)."""
    set_threads(int(cfg.get("threads", 1)))
    from mamma_mia_agents import load_agent
    from mamma_mia_env.sb3_vec_env import MammaMiaSB3VecEnv

    env_cfg = cfg["env"]
    venv = MammaMiaSB3VecEnv(
        int(env_cfg["n_envs"]),
        opponents=[load_agent(a) for a in cfg["opponents"]["pool"]],
        opponent_probs=cfg["opponents"].get("probs"),
        opponent_delivery_penalty=float(env_cfg["opponent_delivery_penalty"]),
        seed=int(cfg["seed"]),
        config=game_config(cfg),
    )
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


def bot_sources() -> dict[str, str]:
    """SHA-256 (first 12 hex digits) of the bot sources: which bots a run trained against."""
    import hashlib

    out = {}
    for f in sorted((ROOT / "agents").glob("*.py")):
        out[f.name] = hashlib.sha256(f.read_bytes()).hexdigest()[:12]
    return out


def git_revision() -> str | None:
    """The repository's commit, with "+dirty" if tracked files differ from it."""
    import subprocess

    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return rev + ("+dirty" if dirty else "")


def write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        return
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


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
    fig.savefig(out / "learning_curve.png", dpi=110)
    plt.close(fig)


# -- main ------------------------------------------------------------------------------------------
def train(
    cfg: dict, out: Path, progress: bool = True, verbose: int = 0, export: bool = False
) -> dict:
    set_threads(int(cfg.get("threads", 1)))
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from mamma_mia_agents import load_agent
    from mamma_mia_agents.ppo_agent import PPOAgent, policy_from_sb3
    from mamma_mia_env.sb3_vec_env import MammaMiaSB3VecEnv
    from mamma_mia_env.symmetry import obs_scale

    out.mkdir(parents=True, exist_ok=True)
    with open(out / "config.json", "w") as fh:
        json.dump(cfg, fh, indent=2)
    seed = int(cfg["seed"])
    env_cfg = cfg["env"]
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
    t_start = state["t_start"] = time.perf_counter()
    cpu_start = time.process_time()  # this process's CPU time: wall time on a shared
    # machine also counts the time other jobs held the cores

    opp_cfg = cfg["opponents"]
    pool = [load_agent(a) for a in opp_cfg["pool"]]
    venv = MammaMiaSB3VecEnv(
        int(env_cfg["n_envs"]),
        opponents=pool,
        opponent_probs=opp_cfg.get("probs"),
        learner_seat=env_cfg.get("learner_seat"),
        opponent_delivery_penalty=float(env_cfg["opponent_delivery_penalty"]),
        seed=seed,
        config=config,
    )
    ppo = dict(cfg["ppo"])
    net_arch = ppo.pop("net_arch")
    activation = ppo.pop("activation")
    total = int(ppo.pop("total_timesteps"))
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

    bc = cfg["bc"]
    bc_rows: list[dict] = []
    if bc.get("enabled") and int(bc["games"]) > 0:
        t0 = time.perf_counter()
        teacher = load_agent(bc["teacher"])
        data = teacher_games(
            config,
            teacher,
            int(bc["games"]),
            seed,
            float(ppo["gamma"]),
            float(env_cfg["opponent_delivery_penalty"]),
        )
        timings["bc_data_seconds"] = time.perf_counter() - t0
        timings["bc_samples"] = int(len(data["actions"]))
        t0 = time.perf_counter()
        behaviour_clone(model, data, scale, bc, seed, bc_rows, progress)
        timings["bc_train_seconds"] = time.perf_counter() - t0
        write_csv(out / "bc.csv", bc_rows)
        del data
        print(
            f"[imitation] {timings['bc_samples']:,} decisions of {bc['games']:,} games in "
            f"{timings['bc_data_seconds']:.0f} s, fitted in {timings['bc_train_seconds']:.0f} s; "
            f"holdout accuracy {bc_rows[-1]['holdout_accuracy']:.3f}",
            flush=True,
        )

    callback, run_eval = make_callbacks(cfg, venv, out, meta, scale, state)
    if int(cfg["eval"]["every"]) > 0:
        run_eval(model, 0)
    t0 = time.perf_counter()
    eval_before = state["eval_seconds"]
    model.learn(total_timesteps=total, callback=callback)
    ppo_wall = time.perf_counter() - t0
    timings["ppo_seconds_incl_eval"] = ppo_wall
    timings["ppo_seconds"] = ppo_wall - (state["eval_seconds"] - eval_before)
    timings["ppo_timesteps"] = int(model.num_timesteps)
    timings["ppo_steps_per_second"] = model.num_timesteps / max(timings["ppo_seconds"], 1e-9)
    if int(cfg["eval"]["every"]) > 0 and (
        not state["eval_rows"] or state["eval_rows"][-1]["timesteps"] != model.num_timesteps
    ):
        run_eval(model, model.num_timesteps)
    timings["train_seconds"] = time.perf_counter() - t_start
    timings["train_cpu_seconds"] = time.process_time() - cpu_start
    model.save(out / "model.zip")
    last = policy_from_sb3(model.policy, meta, scale)
    last.save(out / "last_policy.npz")
    ev = cfg["eval"]
    chosen = "last"
    if ev.get("select") == "best" and (out / "best_policy.npz").exists():
        chosen = "best"
        shutil.copy(out / "best_policy.npz", out / "policy.npz")
    else:
        shutil.copy(out / "last_policy.npz", out / "policy.npz")
    policy_meta = {
        **meta,
        "selected": chosen,
        "selected_timesteps": (
            state.get("best_timesteps") if chosen == "best" else int(model.num_timesteps)
        ),
        "train_seconds": round(timings["train_seconds"], 1),
    }
    from mamma_mia_agents.ppo_agent import NumpyPolicy

    final_pol = NumpyPolicy.load(out / "policy.npz")
    final_pol.meta.update(policy_meta)
    final_pol.save(out / "policy.npz")

    final: dict[str, Any] = {}
    if int(ev.get("final_games", 0)) > 0:
        t0 = time.perf_counter()
        final = evaluate(
            PPOAgent(final_pol),
            ev["final_bots"],
            n,
            int(ev["final_games"]),
            int(ev["final_seed"]),
            env_cfg.get("rules", {}),
            workers=int(ev.get("workers", 1)),
        )
        timings["final_eval_seconds"] = time.perf_counter() - t0
        with open(out / "final_eval.json", "w") as fh:
            json.dump(final, fh, indent=2)
        for bot, r in final.items():
            print(
                f"[final] {r['games']:,} duplicate-deal games vs {bot}: win rate "
                f"{100 * r['win_rate']:.1f}% ({100 * r['win_rate_low']:.1f}-"
                f"{100 * r['win_rate_high']:.1f}%)",
                flush=True,
            )
    plot_curves(
        out,
        state["eval_rows"],
        out / "logs" / "progress.csv",
        ev["target"],
        f"MaskablePPO, {n} players ({cfg['name']}, seed {seed})",
        num_players=n,
    )
    summary = {
        "name": cfg["name"],
        "bot_sources": state["bot_sources"],
        "git": state["git"],
        "command": " ".join(sys.argv) if sys.argv else None,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "torch_threads": torch.get_num_threads(),
        },
        "timings": {k: (round(v, 2) if isinstance(v, float) else v) for k, v in timings.items()},
        "selected": chosen,
        "selected_timesteps": policy_meta["selected_timesteps"],
        "best_periodic_eval": state.get("best"),
        "final_eval": final,
        "bc": bc_rows,
        "provenance": provenance(seeds=seed, wall_time=timings.get("train_seconds")),
    }
    with open(out / "summary.json", "w") as fh:
        json.dump(summary, fh, indent=2)
    # only an explicit --export touches the repository's tracked files
    export = cfg.get("export", {}) if export else {}
    if export.get("policy"):
        dst = ROOT / export["policy"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(out / "policy.npz", dst)
    if export.get("results"):
        dst = ROOT / export["results"]
        dst.mkdir(parents=True, exist_ok=True)
        for f in ("eval.csv", "bc.csv", "final_eval.json", "summary.json", "learning_curve.png"):
            if (out / f).exists():
                shutil.copy(out / f, dst / f"{cfg['name']}_{f}")
        if (out / "logs" / "progress.csv").exists():
            shutil.copy(out / "logs" / "progress.csv", dst / f"{cfg['name']}_progress.csv")
    venv.close()
    return summary


def main(argv: list[str] | None = None) -> int:
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
    args = ap.parse_args(argv)
    cfg = load_config(args.config, args.set)
    if args.throughput:
        print(json.dumps(env_throughput(cfg, args.throughput), indent=1))
        return 0
    if args.evaluate:
        from mamma_mia_agents.ppo_agent import PPOAgent

        ev = cfg["eval"]
        t0 = time.perf_counter()
        res = evaluate(
            PPOAgent(args.evaluate),
            ev["final_bots"],
            cfg["env"]["num_players"],
            int(ev["final_games"]),
            int(ev["final_seed"]),
            cfg["env"].get("rules", {}),
            workers=args.workers,
        )
        if args.out or args.export:  # the same table as the training's final_eval.json
            dst = Path(args.out) if args.out else ROOT / "experiments" / "results"
            dst.mkdir(parents=True, exist_ok=True)
            record = provenance(seeds=int(ev["final_seed"]), wall_time=time.perf_counter() - t0)
            with open(dst / f"{cfg['name']}_final_eval.json", "w") as fh:
                json.dump({**res, "provenance": record}, fh, indent=2)
                fh.write("\n")
        print(
            json.dumps(
                {
                    "policy": args.evaluate,
                    "num_players": cfg["env"]["num_players"],
                    "seed": int(ev["final_seed"]),
                    "results": res,
                    "seconds": round(time.perf_counter() - t0, 1),
                    "bot_sources": bot_sources(),
                    "git": git_revision(),
                    "provenance": provenance(
                        seeds=int(ev["final_seed"]), wall_time=time.perf_counter() - t0
                    ),
                },
                indent=1,
            )
        )
        return 0
    if args.seed is not None:
        cfg["seed"] = args.seed
    out = Path(args.out) if args.out else ROOT / "runs" / cfg["name"]
    summary = train(
        cfg, out, progress=not args.no_progress, verbose=args.verbose, export=args.export
    )
    print(json.dumps({k: summary[k] for k in ("timings", "final_eval")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
