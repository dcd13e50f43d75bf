"""What a MaskablePPO run keeps and reports (``train_ppo.py``): the selected policy, the
summary, and the ``--export`` copies into the repository.

A run's directory holds everything; only ``--export`` copies the policy and the result
files to the paths its config names, so that no run touches a tracked file by accident.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

from experiments.common.output import ROOT
from mamma_mia_env.plumbing.files import write_file
from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["export_run", "select_policy", "write_summary"]


def select_policy(
    model: Any, cfg: dict, out: Path, meta: dict, scale: Any, state: dict, timings: dict
) -> tuple[Any, dict]:
    """Phase 3: save the model and the last policy, keep the best checkpoint (or the
    last: ``eval.select``) as ``policy.npz``; returns it and its metadata."""
    from experiments.common.policy_export import policy_from_sb3
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

    model.save(out / "model.zip")
    policy_from_sb3(model.policy, meta, scale).save(out / "last_policy.npz")
    chosen = "last"
    if cfg["eval"].get("select") == "best" and (out / "best_policy.npz").exists():
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
    policy = NumpyPolicy.load(out / "policy.npz")
    policy.meta.update(policy_meta)
    policy.save(out / "policy.npz")
    return policy, policy_meta


def write_summary(
    cfg: dict,
    out: Path,
    state: dict,
    timings: dict,
    policy_meta: dict,
    final: dict,
    bc_rows: list[dict],
) -> dict[str, Any]:
    """``summary.json``: timings, the selection, the evaluations, the imitation fit and
    the provenance of the run."""
    import torch

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
        "selected": policy_meta["selected"],
        "selected_timesteps": policy_meta["selected_timesteps"],
        "best_periodic_eval": state.get("best"),
        "final_eval": final,
        "bc": bc_rows,
        "provenance": provenance(seeds=int(cfg["seed"]), wall_time=timings.get("train_seconds")),
    }
    write_file(out / "summary.json", json.dumps(summary, indent=2) + "\n", "summary")
    return summary


def export_run(cfg: dict, out: Path) -> None:
    """``--export``: copy the policy and the results to the config's ``export`` paths."""
    export = cfg.get("export", {})
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
