"""How fast the bots play: compiled kernels against the engine's own speed.

    python -m experiments.benchmark.bot_speed [--rounds 5] [--games 10000] [--export]

Measures, in one run (the machine may be shared: compare the ratios, not the absolute
numbers, and see the load averages recorded):

1. the vector env (B = 4,096, four players) stepped by the random agent and by
   ``builder`` at every seat (interleaved rounds, the median of each);
2. 10,000 four-player games between the four heuristic bots: in the compiled loop
   (``mamma_mia_agents.compiled.playout.play_out``) and through ``run_tournament`` (the
   batched engine with one ``act_batch`` call per agent and step).

3. where a compiled game step's time goes: the CPU time (one thread) of building the
   observation, building the legal mask, the ``builder`` decision (and within it the
   replay of the oven) and the engine step, over the same positions.

Wall-clock rates on a shared machine mostly measure the other processes; each rate
also comes as turns per CPU second of this process (``time.process_time``, all its
threads), which the load moves much less.

Writes ``bot_speed.json`` into ``--out`` (default runs/bot_speed/); ``--export`` writes
it to experiments/results/bot_speed/ instead.
"""

from __future__ import annotations

import time
from functools import partial

import numba as nb
import numpy as np

from experiments.common.speed import Run, benchmark_parser, interleaved, parse
from mamma_mia_agents import BuilderAgent, load_agent
from mamma_mia_agents.bots.roster import HEURISTICS
from mamma_mia_agents.compiled import decisions, jit, oven, tables
from mamma_mia_agents.compiled.playout import CompiledBots, play_out
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.envs.vector import MammaMiaVectorEnv
from mamma_mia_env.game import kernels
from mamma_mia_env.game.record import OVER

POSITIONS, SEED = 4000, 0  # the step profile's positions; the seed of every part


def vector_rates(batch: int, steps: int, rounds: int, seed: int) -> dict:
    """Turns per second of the vector env under each policy, interleaved rounds."""
    venv = MammaMiaVectorEnv(batch, num_players=4, copy=False)
    obs, info = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    policies = {"random": load_agent("random"), "builder": load_agent("builder")}

    def run(name: str, n_steps: int) -> tuple[float, float]:
        nonlocal obs, info
        act = policies[name].act_batch
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(n_steps):
            obs, _, _, _, info = venv.step(act(obs, info["action_mask"], rng, info["seat"]))
        turns = n_steps * batch
        return turns / (time.perf_counter() - start), turns / (time.process_time() - cpu)

    for name in policies:  # compile and warm up
        run(name, 3)
    samples = interleaved({k: partial(run, k, steps) for k in policies}, rounds, "vector env")
    rates = {k: [wall for wall, _ in v] for k, v in samples.items()}
    cpu_rates = {k: [cpu for _, cpu in v] for k, v in samples.items()}
    med = {k: float(np.median(v)) for k, v in rates.items()}
    cmed = {k: float(np.median(v)) for k, v in cpu_rates.items()}
    return {
        "batch": batch,
        "steps_per_round": steps,
        "rounds": rounds,
        "turns_per_second": {k: [round(x) for x in v] for k, v in rates.items()},
        "median_turns_per_second": {k: round(v) for k, v in med.items()},
        "builder_over_random": round(med["builder"] / med["random"], 3),
        "turns_per_cpu_second": {k: [round(x) for x in v] for k, v in cpu_rates.items()},
        "median_turns_per_cpu_second": {k: round(v) for k, v in cmed.items()},
        "builder_over_random_cpu": round(cmed["builder"] / cmed["random"], 3),
    }


def game_rates(games: int, seed: int) -> dict:
    """10,000 four-player games between the heuristic bots, two ways."""
    agents = [load_agent(a) for a in HEURISTICS]
    cfg = Config(num_players=4)
    eng = Engine(cfg)
    bots = CompiledBots(agents, 4, False)
    seats = (np.arange(games)[:, None] + np.arange(4)[None]) % 4  # every rotation
    w = min(64, games)  # compiled before the timing, on at most the games asked for
    warm = eng.reset(seeds=np.arange(w))
    play_out(eng, warm, bots, seats[:w])
    state = eng.reset(seeds=np.arange(games, dtype=np.uint64) + np.uint64(seed << 32))
    start, cpu = time.perf_counter(), time.process_time()
    steps = play_out(eng, state, bots, seats)
    fused, fused_cpu = time.perf_counter() - start, time.process_time() - cpu
    assert (state.data["phase"] == OVER).all()
    start = time.perf_counter()
    res = run_tournament(list(HEURISTICS), num_players=4, games=games, seed=seed, progress=True)
    tournament = time.perf_counter() - start
    return {
        "games": games,
        "agents": list(HEURISTICS),
        "numba_threads": nb.get_num_threads(),
        "compiled_loop_seconds": round(fused, 3),
        "compiled_loop_cpu_seconds": round(fused_cpu, 3),
        "compiled_loop_turns_per_second": round(float(steps.sum()) / fused),
        "mean_actions_per_game": round(float(steps.mean()), 2),
        "tournament_games": res.games,
        "tournament_seconds": round(tournament, 3),
        "tournament_play_seconds": round(float(res.elapsed), 3),
        "tournament_workers": res.workers,
    }


@nb.njit
def _time_decide(obs, masks, seats, lay, play, need, prm):
    ws, wd, wi = jit.workspace()
    t = 0
    for g in range(obs.shape[0]):
        t += decisions.decide_one(obs[g], masks[g], seats[g], lay, play, need, prm, ws, wd, wi)
    return t


@nb.njit
def _time_oven(obs, seats, lay, need, prm):
    ws, wd, wi = jit.workspace()
    hv = np.zeros(5, np.float32)
    pv = np.zeros(5, np.float32)
    pool = np.zeros(5, np.float32)
    reserve = np.zeros(5, np.float32)
    o_h, o_p = lay[tables.L_HAND], lay[tables.L_PILES]
    t = 0.0
    for g in range(obs.shape[0]):
        ob = obs[g]
        for k in range(5):
            hv[k] = ob[o_h + k] + np.float32(2.0) * ob[o_h + 5 + k]
            pv[k] = ob[o_p + k] + np.float32(2.0) * ob[o_p + 5 + k]
        oven.simulate_oven(
            ob, lay, seats[g], need, prm[tables.I_RIVAL_COVER], pv, hv, pool, reserve, ws, wd, wi
        )
        t += pool[0]
    return t


def step_profile(positions: int, seed: int, reps: int = 5) -> dict:
    """CPU microseconds per position of each piece of a compiled ``builder`` step."""
    n = 4
    eng = Engine(Config(num_players=n))
    builder = load_agent("builder")
    assert isinstance(builder, BuilderAgent)  # its parameters are the kernel's
    bots = CompiledBots([builder], n, False)
    rng = np.random.default_rng(seed)
    parts = []
    for depth in range(0, 100, 5):  # positions from the whole game (~99 actions)
        st = eng.reset(seeds=rng.integers(0, 2**32, positions // 20))
        play_out(eng, st, bots, np.zeros((st.batch_size, n), np.int64), max_steps=depth)
        parts.append(st.data[st.data["phase"] != OVER])
    data = np.concatenate(parts)
    state = GameState(eng.config, data)
    obs = eng.observe(state)
    masks = eng.legal_masks(state).astype(np.int8)
    seats = data["seat"].astype(np.int64)
    lay, play, need, prm = (
        tables.layout_vector(n, "fixed", False),
        eng.play.astype(np.int64),
        eng.need.astype(np.int64),
        tables.params_vector(builder.params),
    )
    actions = builder.act_batch(obs, masks, rng, seats)
    serial, counts, table = kernels.SERIAL, np.full(len(data), n, np.int64), eng.params_by_count
    fobs = obs.astype(np.float32)  # what ``compiled.decide`` hands the kernel
    obs_out, mask_out = np.empty_like(obs), np.empty_like(eng.legal_masks(state))
    delivered = np.zeros((len(data), 8), np.int32)
    steps = [data.copy() for _ in range(reps + 1)]  # the engine step moves its copy
    pieces = {  # the engine's own serial kernels (one thread) and the bot's
        "observe": lambda r: serial.observe(data, seats, counts, eng.obs_mode, obs_out),
        "legal_mask": lambda r: serial.masks(data, counts, table, eng.play, eng.need, mask_out),
        "builder_decision": lambda r: _time_decide(fobs, masks, seats, lay, play, need, prm),
        "of_which_oven_replay": lambda r: _time_oven(fobs, seats, lay, need, prm),
        "engine_step": lambda r: serial.step(
            steps[r], actions, counts > 0, counts, table, eng.play, eng.need, delivered
        ),
    }
    out: dict = {"positions": len(data), "reps": reps}
    for name, f in pieces.items():
        f(reps)  # compile
        cpu = time.process_time()
        for r in range(reps):
            f(r)
        out[f"{name}_us"] = round((time.process_time() - cpu) / (reps * len(data)) * 1e6, 3)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = benchmark_parser(__doc__, "bot_speed")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=40, help="vector env steps per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=10000)
    args, out = parse(ap, argv, "bot_speed", positive=("batch", "steps", "rounds", "games"))
    run = Run()
    v = vector_rates(args.batch, args.steps, args.rounds, SEED)
    g = game_rates(args.games, SEED)
    profile = step_profile(POSITIONS, SEED)
    print(
        f"vector env B={v['batch']}: random {v['median_turns_per_second']['random']:,} turns/s, "
        f"builder {v['median_turns_per_second']['builder']:,} "
        f"({v['builder_over_random']:.0%} of random)\n"
        f"(per CPU second: {v['builder_over_random_cpu']:.0%})\n"
        f"{g['games']:,} 4-player games: compiled loop {g['compiled_loop_seconds']} s "
        f"({g['compiled_loop_cpu_seconds']} CPU s), tournament {g['tournament_seconds']} s\n"
        f"profile (CPU us per position): {profile}"
    )
    record = {
        "experiment": "bot_speed",
        "load_average_before": run.load_before,
        "vector_env": v,
        "games": g,
        "step_profile_cpu": profile,
    }
    run.write(out / "bot_speed.json", record, seeds=SEED)
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.bot_speed"))
