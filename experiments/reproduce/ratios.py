"""Timing ratios that do not depend on the machine's absolute speed: each function maps
a parsed timing file to named ratios, which ``--check --full`` compares with the committed
file's (within ``TIMING_TOLERANCE``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path


def benchmark_ratios(name: str, path: Path) -> dict[str, float]:
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    speed = {(r["env"], int(r["batch"])): float(r["turns_per_s"]) for r in rows}
    vec = {b: v for (env, b), v in speed.items() if env.startswith("mamma_mia vector")}
    out = {}
    if 1 in vec and 4096 in vec:
        out["vector B=4096 / B=1"] = vec[4096] / vec[1]
    for kind in ("env()", "raw_env"):
        ours = speed.get((f"mamma_mia {kind} (AEC, 4 players)", 1))
        c4 = speed.get((f"connect_four_v3 {kind} (AEC)", 1))
        if ours and c4:
            out[f"AEC {kind} mamma_mia / connect_four"] = ours / c4
    return out


def speed_ratios(name: str, path: Path) -> dict[str, float]:
    doc = json.loads(path.read_text())
    # absolute, so loose: games/s per core against a 10,000-game run's committed value
    return {"games/s per core": doc["games_per_second"] / max(1, doc["cores"])}


def bot_speed_ratios(name: str, path: Path) -> dict[str, float]:
    doc = json.loads(path.read_text())
    v, g = doc["vector_env"], doc["games"]
    return {
        "vector env builder / random turns/s": v["builder_over_random"],
        "10,000 games tournament / compiled loop s": (
            g["tournament_seconds"] / g["compiled_loop_seconds"]
        ),
    }


def decision_speed_ratios(name: str, path: Path) -> dict[str, float]:
    rows = json.loads(path.read_text())["rows"]
    ms = {(r["bot"], r["players"]): r["cpu_mean_ms"] for r in rows}
    return {
        f"champion / search CPU ms per decision, {n}p": ms["champion", n] / ms["search", n]
        for (bot, n) in ms
        if bot == "champion" and ("search", n) in ms
    }


def learner_env_speed_ratios(name: str, path: Path) -> dict[str, float]:
    rep = json.loads(path.read_text())["report"]
    return {
        f"{k} / SyncVectorEnv": rep[k]["median_ratio_to_sync_vector_gym"]
        for k in ("learner_vector", "sb3_vecenv")
    }
