"""The ``fixed`` observation layout against ``recall``: bytes, turns/s, write bound.

``fixed`` (uint8, 462 values for every player count) was made to cut the bytes an
observation costs; this run measures what it buys, for 2-5 players at each batch size:

* bytes per observation of each layout, and per step (observation and mask) per game;
* the all-seat vector env's turns/s (``MammaMiaVectorEnv``, uniformly random legal
  actions, sampled outside the timing) and the learner vector env's learner steps/s
  (``MammaMiaLearnerVectorEnv``, random opponents, ``normalize=False`` on both sides so
  that the layout is all that differs), each as the ratio fixed / recall;
* the write bound: the turns/s of a compiled kernel that only writes a step's
  observation and mask bytes (the env's buffers' shapes and dtypes, on the env's
  threads: parallel from ``PARALLEL_MIN_BATCH`` games), and the vector env's fraction
  of it.

Every slice is timed interleaved: per round, each cell's recall and fixed slices (and
their write-bound slices) one after the other, the side that goes first alternating
round by round, so that a slow patch of a shared machine hits both alike. Each ratio
is taken from the two slices of one round; reported are their median and quartiles.

    python -m experiments.benchmark.layout_speed --export   # experiments/results/layout_speed/
    python -m experiments.benchmark.layout_speed --quick    # a smoke test
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import numba as nb
import numpy as np
from tqdm import tqdm

from experiments.common.output import add_output_args, output_dir, write_json
from experiments.common.samplers import machine, sample_parallel, sample_serial
from mamma_mia_env.game.engine import PARALLEL_MIN_BATCH
from mamma_mia_env.plumbing.provenance import provenance

LAYOUTS = ("recall", "fixed")
KINDS = ("vector", "learner")
STEM = "layout_speed"


def _make_writer(parallel: bool) -> Any:
    loop = nb.prange if parallel else range

    @nb.njit(cache=True, parallel=parallel)
    def write(obs, mask, value):
        """Every byte of a step's observations and masks, row by row (a game per row)."""
        for b in loop(obs.shape[0]):
            obs[b, :] = value
            mask[b, :] = value

    return write


_WRITE = {False: _make_writer(False), True: _make_writer(True)}


def _rate(step: Any, batch: int, seconds: float) -> float:
    """Turns/s of ``step()`` (which returns seconds spent in the timed part) over a slice."""
    spent, steps = 0.0, 0
    while spent < seconds:
        spent += step()
        steps += 1
    return steps * batch / spent


class Cell:
    """One env and its write bound: ``kind`` at ``players`` and ``batch`` in ``layout``."""

    def __init__(self, kind: str, players: int, batch: int, layout: str) -> None:
        self.batch = batch
        self.sample = sample_parallel if batch >= PARALLEL_MIN_BATCH else sample_serial
        self.rng = np.random.default_rng(0)
        self.actions = np.zeros(batch, dtype=np.int64)
        if kind == "vector":
            from mamma_mia_env.envs.vector import MammaMiaVectorEnv

            self.env: Any = MammaMiaVectorEnv(
                batch, num_players=players, observation_mode=layout, copy=False
            )
        else:
            from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv

            self.env = MammaMiaLearnerVectorEnv(
                batch, num_players=players, observation_mode=layout, normalize=False
            )
        obs, info = self.env.reset(seed=0)
        self.mask = info["action_mask"]
        self.obs_bytes = obs.itemsize * obs.shape[1]
        self.mask_bytes = self.mask.itemsize * self.mask.shape[1]
        self.obs_dtype = str(obs.dtype)
        # the write bound's buffers: the env's shapes and dtypes
        self.write_obs, self.write_mask = np.zeros_like(obs), np.zeros_like(self.mask)
        self.writer = _WRITE[batch >= PARALLEL_MIN_BATCH]
        self.writes = 0
        for _ in range(20):  # warm-up (the kernels compile on first use)
            self.step()
            self.write()

    def step(self) -> float:
        """One env step on random legal actions; returns the seconds of the step alone."""
        self.sample(self.mask, self.rng.random(self.batch), self.actions)
        t0 = time.perf_counter()
        self.mask = self.env.step(self.actions)[4]["action_mask"]
        return time.perf_counter() - t0

    def write(self) -> float:
        """One step's observation and mask bytes written; returns the seconds."""
        self.writes += 1
        t0 = time.perf_counter()
        self.writer(self.write_obs, self.write_mask, self.writes & 0x7F)
        return time.perf_counter() - t0


def _spread(values: list[float]) -> dict[str, Any]:
    quartiles = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return {
        "median": round(statistics.median(values), 4),
        "quartiles": [round(q, 4) for q in (quartiles[0], quartiles[2])],
        "each": [round(v, 4) for v in values],
    }


def measure(
    players: list[int], batches: list[int], kinds: list[str], rounds: int, seconds: float
) -> list[dict[str, Any]]:
    """The interleaved run: per (kind, players, batch) the rates of both layouts."""
    keys = [(k, n, b) for k in kinds for n in players for b in batches]
    cells = {
        (*key, layout): Cell(*key, layout)
        for key in tqdm(keys, desc="building envs")
        for layout in LAYOUTS
    }
    rates: dict[tuple, list[float]] = {(*key, part): [] for key in cells for part in "ew"}
    for r in tqdm(range(rounds), desc="interleaved rounds"):
        order = LAYOUTS if r % 2 == 0 else LAYOUTS[::-1]
        for key in keys:
            for layout in order:
                cell = cells[(*key, layout)]
                rates[(*key, layout, "e")].append(_rate(cell.step, cell.batch, seconds))
                if key[0] == "vector":
                    rates[(*key, layout, "w")].append(_rate(cell.write, cell.batch, seconds))
    return [_row(key, cells, rates) for key in keys]


def _row(key: tuple, cells: dict[tuple, Cell], rates: dict[tuple, list[float]]) -> dict[str, Any]:
    """One (kind, players, batch) row of the result file."""
    kind, n, b = key
    row: dict[str, Any] = {"env": kind, "players": n, "batch": b}
    for layout in LAYOUTS:
        cell, env = cells[(*key, layout)], rates[(*key, layout, "e")]
        row[layout] = {
            "obs_dtype": cell.obs_dtype,
            "obs_bytes": cell.obs_bytes,
            "step_bytes": cell.obs_bytes + cell.mask_bytes,
            "turns_per_s": round(statistics.median(env)),
        }
        write = rates[(*key, layout, "w")]
        if write:
            row[layout]["write_bound_turns_per_s"] = round(statistics.median(write))
            row[layout]["fraction_of_write_bound"] = _spread(
                [e / w for e, w in zip(env, write, strict=True)]
            )
    pairs = zip(rates[(*key, "fixed", "e")], rates[(*key, "recall", "e")], strict=True)
    row["fixed_over_recall"] = _spread([f / r for f, r in pairs])
    row["obs_bytes_fixed_over_recall"] = round(
        row["fixed"]["obs_bytes"] / row["recall"]["obs_bytes"], 4
    )
    row["step_bytes_fixed_over_recall"] = round(
        row["fixed"]["step_bytes"] / row["recall"]["step_bytes"], 4
    )
    return row


def report(rows: list[dict[str, Any]]) -> list[str]:
    """The printed table: one line per row."""
    lines = [
        f"{'env':8s} {'N':>2s} {'B':>5s} {'obs B r/f':>10s} {'step B r/f':>11s} "
        f"{'recall/s':>11s} {'fixed/s':>11s} {'f/r (quartiles)':>22s} {'of write bound r/f':>19s}"
    ]
    for row in rows:
        rc, fx, q = row["recall"], row["fixed"], row["fixed_over_recall"]
        bound = ""
        if "fraction_of_write_bound" in rc:
            bound = (
                f"{rc['fraction_of_write_bound']['median']:.3f}/"
                f"{fx['fraction_of_write_bound']['median']:.3f}"
            )
        lines.append(
            f"{row['env']:8s} {row['players']:>2d} {row['batch']:>5d} "
            f"{rc['obs_bytes']:>5d}/{fx['obs_bytes']:<4d} "
            f"{rc['step_bytes']:>6d}/{fx['step_bytes']:<4d} "
            f"{rc['turns_per_s']:>11,} {fx['turns_per_s']:>11,} "
            f"{q['median']:>7.3f} ({q['quartiles'][0]:.3f}-{q['quartiles'][1]:.3f}) {bound:>19s}"
        )
    return lines


def _ints(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected integers, comma-separated") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one integer")
    return values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=_ints, default=[2, 3, 4, 5], help="counts (2,3,4,5)")
    ap.add_argument("--batches", type=_ints, default=[256, 4096], help="B (256,4096)")
    ap.add_argument("--envs", default=",".join(KINDS), help=f"some of {','.join(KINDS)}")
    ap.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    ap.add_argument("--seconds", type=float, default=0.5, help="one slice, s (default 0.5)")
    ap.add_argument("--quick", action="store_true", help="a tiny run (smoke test)")
    add_output_args(ap, STEM)
    from experiments.common.arguments import checked  # every flag checked

    args = checked(ap).parse_args(argv)
    kinds = [k for k in args.envs.split(",") if k]
    if not kinds or set(kinds) - set(KINDS):
        ap.error(f"--envs: give some of {','.join(KINDS)}")
    if any(not 2 <= n <= 5 for n in args.players):
        ap.error("--players: counts must be 2-5")
    if any(b < 1 for b in args.batches) or args.rounds < 1 or not 0.01 <= args.seconds <= 60:
        ap.error("--batches and --rounds must be positive, --seconds within 0.01-60")
    if args.quick:
        args.players, args.batches, args.rounds, args.seconds = [2], [8, 256], 2, 0.05
    started = time.perf_counter()
    out = output_dir(args, STEM)
    load = [round(os.getloadavg()[0], 2)]
    rows = measure(args.players, args.batches, kinds, args.rounds, args.seconds)
    load.append(round(os.getloadavg()[0], 2))
    print(f"machine: {machine()}")
    print("\n".join(report(rows)))
    settings = {
        "rounds": args.rounds,
        "seconds_per_slice": args.seconds,
        "learner_opponents": "random",
        "load_average_before_after": load,
    }
    record = provenance(wall_time=time.perf_counter() - started)
    write_json(out / f"{STEM}.json", {"settings": settings, "rows": rows}, record)
    print(f"wrote {out / f'{STEM}.json'}")
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.layout_speed"))
