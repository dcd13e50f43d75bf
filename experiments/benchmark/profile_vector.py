"""Where a vector-env step spends its time: a per-part split at one batch size.

    python -m experiments.benchmark.profile_vector --batch 4096 --seconds 3
    python -m experiments.benchmark.profile_vector --observation-mode fixed --players 5

Plays random masked games in ``MammaMiaVectorEnv`` until the batch is mid-play, then
times, per game and turn: the harness's action sampling, the env's action check, the
fused numba step (rules + autoreset + observation + mask), and, on the same states,
the serial kernels that the fused step is made of (observation, mask, rules). A
profiler such as py-spy sees only "inside numba"; this is the split it cannot give.
Prints a table and writes ``runs/profile_vector/profile_vector.json`` (``--export``:
``experiments/results/profile_vector/``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from experiments.common.output import add_output_args, output_dir, write_json
from experiments.common.samplers import machine, sample_parallel, sample_serial
from mamma_mia_env.envs.vector import MammaMiaVectorEnv
from mamma_mia_env.game import kernels
from mamma_mia_env.game.config import OBSERVATION_MODES
from mamma_mia_env.game.engine import PARALLEL_MIN_BATCH
from mamma_mia_env.plumbing.provenance import provenance


def per_call(fn: Callable[[], object], seconds: float) -> float:
    """Mean seconds per call of ``fn`` over about ``seconds``."""
    fn()
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        calls += 1
    return (time.perf_counter() - start) / calls


def profile(
    batch: int, seconds: float, num_players: int = 4, seed: int = 0, mode: str = "recall"
) -> dict:
    venv = MammaMiaVectorEnv(batch, num_players=num_players, copy=False, observation_mode=mode)
    _obs, info = venv.reset(seed=seed)
    parallel = batch >= PARALLEL_MIN_BATCH
    sample = sample_parallel if parallel else sample_serial
    rng = np.random.default_rng(seed)
    actions = np.zeros(batch, dtype=np.int64)
    for _ in range(300):  # mid-play: ovens filled, some games past their first round
        sample(info["action_mask"], rng.random(batch), actions)
        _obs, _r, _te, _tr, info = venv.step(actions)

    t_sample = t_check = t_kernel = 0.0
    steps = 0
    eng = venv.engine
    while t_sample + t_check + t_kernel < seconds:
        u = rng.random(batch)
        t0 = time.perf_counter()
        sample(venv._mask, u, actions)
        t1 = time.perf_counter()
        acts = venv._check(actions)
        t2 = time.perf_counter()
        venv._run(acts)
        t3 = time.perf_counter()
        t_sample += t1 - t0
        t_check += t2 - t1
        t_kernel += t3 - t2
        steps += 1
    turns = steps * batch

    # the parts, serial, on a frozen copy of the batch
    data = venv.state.data
    seats = data["seat"].astype(np.int64)
    obs = np.empty_like(venv._obs)
    mask = np.empty_like(venv._mask)
    sample(venv._mask, rng.random(batch), actions)
    scratch = data.copy()
    delivered = np.zeros_like(venv._delivered)
    active = np.ones(batch, dtype=np.bool_)
    S = kernels.SERIAL
    n = np.full(batch, num_players, dtype=np.int64)
    table = eng.params_by_count
    t_obs = per_call(lambda: S.observe(data, seats, n, eng.obs_mode, obs), seconds)
    t_mask = per_call(lambda: S.masks(data, n, table, eng.play, eng.need, mask), seconds)
    t_copy = per_call(lambda: scratch.__setitem__(slice(None), data), seconds)

    def copy_and_step() -> None:
        scratch[:] = data
        S.step(scratch, actions, active, n, table, eng.play, eng.need, delivered)

    # the copy is timed apart and taken off (in a very short run noise can exceed it)
    t_rules = max(per_call(copy_and_step, seconds) - t_copy, 0.0)
    us = 1e6 / batch
    return {
        "batch": batch,
        "num_players": num_players,
        "observation_mode": mode,
        "parallel": parallel,
        "mean_oven_len": float(data["oven_len"].mean()),
        "check_and_kernel_turns_per_s": turns / (t_check + t_kernel),
        "sampling_us_per_turn": t_sample / turns * 1e6,
        "check_us_per_turn": t_check / turns * 1e6,
        "fused_kernel_us_per_turn": t_kernel / turns * 1e6,
        "serial_observe_us_per_game": t_obs * us,
        "serial_mask_us_per_game": t_mask * us,
        "serial_rules_us_per_game": t_rules * us,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--observation-mode", default="recall", choices=OBSERVATION_MODES)
    add_output_args(ap, "profile_vector")
    from experiments.common.arguments import checked  # every flag checked

    args = checked(ap).parse_args(argv)
    t0 = time.perf_counter()
    res = profile(args.batch, args.seconds, args.players, mode=args.observation_mode)
    res["machine"] = machine()
    for key, value in res.items():
        if isinstance(value, float):
            print(f"{key:30s} {value:>12,.3f}")
        else:
            print(f"{key:30s} {value!s:>12}")
    out = output_dir(args, "profile_vector")
    write_json(out / "profile_vector.json", res, provenance(wall_time=time.perf_counter() - t0))
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.profile_vector"))
