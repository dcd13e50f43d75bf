"""How fast the bots play: compiled kernels against the engine's own speed (issue 12).

    PYTHONPATH=. python experiments/bot_speed.py [--rounds 5] [--games 10000] [--export]

Measures, in one run (the machine may be shared: compare the ratios, not the absolute
numbers, and see the load averages recorded):

1. the vector env (B = 4,096, four players) stepped by the random agent and by
   ``builder`` at every seat (interleaved rounds, the median of each), plus the
   numpy reference ``builder`` for a few steps (the speed before the kernels);
2. 10,000 four-player games between the four heuristic bots: in the compiled loop
   (``mamma_mia_agents.compiled.play_out``) and through ``run_tournament`` (the batched engine
   with one ``act_batch`` call per agent and step).

Writes ``bot_speed.json`` into ``--out`` (default: a temporary directory); ``--export``
writes it to experiments/results/ instead.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numba as nb  # noqa: E402
import numpy as np  # noqa: E402
from mamma_mia_agents import HEURISTICS, load_agent  # noqa: E402
from mamma_mia_agents.compiled import CompiledBots, play_out  # noqa: E402
from mamma_mia_agents.tournament import run_tournament  # noqa: E402
from tqdm import tqdm  # noqa: E402

from mamma_mia_env import Config, Engine  # noqa: E402
from mamma_mia_env.state import OVER  # noqa: E402
from mamma_mia_env.vector import MammaMiaVectorEnv  # noqa: E402


def provenance() -> dict:
    """The code and versions that made a result."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE, check=True
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "status", "--porcelain"], capture_output=True, text=True, cwd=HERE
            ).stdout.strip()
        )
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = "unknown", None
    return {
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": nb.__version__,
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "numba_threads": nb.get_num_threads(),
    }


def vector_rates(batch: int, steps: int, rounds: int, seed: int) -> dict:
    """Turns per second of the vector env under each policy, interleaved rounds."""
    venv = MammaMiaVectorEnv(batch, num_players=4, copy=False)
    obs, info = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    policies = {"random": load_agent("random"), "builder": load_agent("builder")}
    reference = load_agent("builder")

    def run(name: str, n_steps: int) -> float:
        nonlocal obs, info
        agent = policies.get(name, reference)
        act = agent.act_batch_reference if name == "builder_numpy" else agent.act_batch
        start = time.perf_counter()
        for _ in range(n_steps):
            actions = act(obs, info["action_mask"], rng, info["seat"])
            obs, _, _, _, info = venv.step(actions)
        return n_steps * batch / (time.perf_counter() - start)

    for name in policies:  # compile and warm up
        run(name, 3)
    rates: dict[str, list[float]] = {"random": [], "builder": [], "builder_numpy": []}
    for _ in tqdm(range(rounds), desc="vector env rounds"):
        rates["random"].append(run("random", steps))
        rates["builder"].append(run("builder", steps))
        rates["builder_numpy"].append(run("builder_numpy", max(2, steps // 20)))
    med = {k: float(np.median(v)) for k, v in rates.items()}
    return {
        "batch": batch,
        "steps_per_round": steps,
        "rounds": rounds,
        "turns_per_second": {k: [round(x) for x in v] for k, v in rates.items()},
        "median_turns_per_second": {k: round(v) for k, v in med.items()},
        "builder_over_random": round(med["builder"] / med["random"], 3),
        "compiled_over_numpy_builder": round(med["builder"] / med["builder_numpy"], 1),
    }


def game_rates(games: int, seed: int) -> dict:
    """10,000 four-player games between the heuristic bots, two ways."""
    agents = [load_agent(a) for a in HEURISTICS]
    cfg = Config(num_players=4)
    eng = Engine(cfg)
    bots = CompiledBots(agents, 4, False)
    seats = (np.arange(games)[:, None] + np.arange(4)[None]) % 4  # every rotation
    warm = eng.reset(seeds=np.arange(64))
    play_out(eng, warm, bots, seats[:64])
    state = eng.reset(seeds=np.arange(games, dtype=np.uint64) + np.uint64(seed << 32))
    start = time.perf_counter()
    steps = play_out(eng, state, bots, seats)
    fused = time.perf_counter() - start
    assert (state.data["phase"] == OVER).all()
    start = time.perf_counter()
    res = run_tournament(list(HEURISTICS), num_players=4, games=games, seed=seed, progress=True)
    tournament = time.perf_counter() - start
    return {
        "games": games,
        "agents": list(HEURISTICS),
        "compiled_loop_seconds": round(fused, 3),
        "compiled_loop_turns_per_second": round(float(steps.sum()) / fused),
        "mean_actions_per_game": round(float(steps.mean()), 2),
        "tournament_games": res.games,
        "tournament_seconds": round(tournament, 3),
        "tournament_workers": res.workers,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=40, help="vector env steps per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="output directory (default: a temp dir)")
    ap.add_argument("--export", action="store_true", help="write to experiments/results/")
    args = ap.parse_args(argv)
    for name in ("batch", "steps", "rounds", "games"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be >= 1")
    out_dir = (
        os.path.join(HERE, "results")
        if args.export
        else (args.out or tempfile.mkdtemp(prefix="bot_speed_"))
    )
    record = {"experiment": "bot_speed", "load_average_before": os.getloadavg()}
    record["vector_env"] = vector_rates(args.batch, args.steps, args.rounds, args.seed)
    record["games"] = game_rates(args.games, args.seed)
    record["load_average_after"] = os.getloadavg()
    record["provenance"] = provenance()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "bot_speed.json")
    with open(path, "w") as fh:
        json.dump(record, fh, indent=2)
        fh.write("\n")
    v, g = record["vector_env"], record["games"]
    print(
        f"vector env B={v['batch']}: random {v['median_turns_per_second']['random']:,} turns/s, "
        f"builder {v['median_turns_per_second']['builder']:,} "
        f"({v['builder_over_random']:.0%} of random; numpy builder "
        f"{v['median_turns_per_second']['builder_numpy']:,})\n"
        f"{g['games']:,} 4-player games: compiled loop {g['compiled_loop_seconds']} s, "
        f"tournament {g['tournament_seconds']} s\nwrote {path}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
