"""Env steps/s of the learner-seat entry points, measured interleaved in one process.

Three ways to run B learner-seat games against the same opponent bot:

* ``learner_vector``: ``MammaMiaLearnerVectorEnv`` (gymnasium ``VectorEnv``);
* ``sb3_vecenv``: ``MammaMiaSB3VecEnv`` (stable-baselines3 ``VecEnv``), the same
  ``LearnerGames`` core underneath;
* ``sync_vector_gym``: gymnasium's ``SyncVectorEnv`` of B single-game
  ``MammaMiaGymEnv`` (SAME_STEP autoreset, so every call is one learner step per game).

An env step is one learner decision in one game (the opponents' moves up to the next
decision included). Random legal learner actions are drawn outside the timing. The
rows alternate in short slices (``--seconds``) for ``--repeats`` rounds so that a slow
patch of a shared machine hits every row alike; reported: the median steps/s per row
and the median ratio to ``sync_vector_gym`` (each ratio from adjacent slices).

    python -m experiments.benchmark.learner_env_speed            # into runs/
    python -m experiments.benchmark.learner_env_speed --export   # experiments/results/

Two players against ``builder``. File: ``2p_b<batch>.json``. At B >= 256 the engine
steps with its parallel (multi-threaded) kernels; on a machine whose cores are busy
with other work those threads wait for each other, so compare rows at one batch size.
With ``NUMBA_NUM_THREADS`` set to less than the core count the file name ends in
``_t<threads>``.
"""

from __future__ import annotations

import os
import statistics
import time
from functools import partial
from typing import Any

import numpy as np
from tqdm import tqdm

from experiments.common.speed import Run, benchmark_parser, interleaved, parse, random_legal, ratios

ROWS = ("learner_vector", "sb3_vecenv", "sync_vector_gym")
STEM = "learner_env_speed"
PLAYERS, OPPONENT, SEED = 2, "builder", 0


class Row:
    """One entry point; ``run(seconds)`` returns learner env steps/s (stepping only)."""

    def __init__(self, kind: str, batch: int, opponent: Any, seed: int = SEED) -> None:
        self.kind, self.batch, self.rng = kind, batch, np.random.default_rng(seed)
        reward = "delivered_win_loss"
        if kind == "learner_vector":
            from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv

            self.env: Any = MammaMiaLearnerVectorEnv(
                batch, opponents=opponent, num_players=PLAYERS, reward_mode=reward
            )
            _obs, info = self.env.reset(seed=seed)
            self.masks = info["action_mask"]
        elif kind == "sb3_vecenv":
            from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

            self.env = MammaMiaSB3VecEnv(
                batch, opponents=opponent, seed=seed, num_players=PLAYERS, reward_mode=reward
            )
            self.env.reset()
            self.masks = self.env.action_masks()
        else:  # sync_vector_gym
            import gymnasium as gym

            from mamma_mia_env.envs.gym_env import MammaMiaGymEnv

            self.env = gym.vector.SyncVectorEnv(
                [
                    lambda: MammaMiaGymEnv(
                        opponents=opponent, num_players=PLAYERS, reward_mode=reward
                    )
                    for _ in range(batch)
                ],
                autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
            )
            _obs, info = self.env.reset(seed=seed)
            self.masks = info["action_mask"]
        self.run(0.3)  # warm-up

    def run(self, seconds: float) -> float:
        stepping = 0.0
        steps = 0
        while stepping < seconds:
            actions = random_legal(self.masks, self.rng)
            t0 = time.perf_counter()
            if self.kind == "sb3_vecenv":
                self.env.step(actions)
                self.masks = self.env.action_masks()
            else:
                info = self.env.step(actions)[4]
                self.masks = info["action_mask"]
            stepping += time.perf_counter() - t0
            steps += 1
        return steps * self.batch / stepping


def report(samples: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Per row the median steps/s and the median ratio to the SyncVectorEnv row."""
    out = {}
    for k, runs in samples.items():
        ratio = ratios(runs, samples["sync_vector_gym"])["median"]
        out[k] = {"median_steps_per_s": statistics.median(runs),
                  "median_ratio_to_sync_vector_gym": ratio}  # fmt: skip
        print(f"{k:16s} {statistics.median(runs):>10,.0f} steps/s  x{ratio:.1f}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = benchmark_parser(__doc__, STEM)
    parser.add_argument("--batch", type=int, default=256, help="games per env (B)")
    parser.add_argument("--repeats", type=int, default=11, help="slices per row")
    parser.add_argument("--seconds", type=float, default=1.0, help="per slice")
    args, out = parse(parser, argv, STEM, positive=("batch", "repeats", "seconds"))
    import numba

    from mamma_mia_agents import load_agent

    threads = numba.get_num_threads()  # numba's default: NUMBA_NUM_THREADS
    run, opponent = Run(), load_agent(OPPONENT)
    rows = {k: Row(k, args.batch, opponent) for k in tqdm(ROWS, desc="building")}
    timed = {k: partial(row.run, args.seconds) for k, row in rows.items()}
    samples = interleaved(timed, args.repeats, "interleaved slices")
    doc = {
        "settings": {
            "batch": args.batch,
            "players": PLAYERS,
            "opponent": OPPONENT,
            "repeats": args.repeats,
            "seconds_per_slice": args.seconds,
            "reward_mode": "delivered_win_loss",
            "numba_threads": threads,
        },
        "report": report(samples),
        "samples": samples,
    }
    stem = f"{PLAYERS}p_b{args.batch}"
    if threads != os.cpu_count():  # NUMBA_NUM_THREADS set: another file
        stem += f"_t{threads}"
    run.write(out / f"{stem}.json", doc, seeds=SEED)
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.learner_env_speed"))
