"""The cost of the bots' input check in their ``act_batch``.

The bots' input check reads every observation entry, so that no negative count, NaN
or out-of-space value reaches the compiled bots. Since the bots became kernels the compiled
heuristic bots do it inside their decision kernel, row by row (``decide(check=True)``,
called by ``bots.heuristic``), and ``agents.base.check_batch`` checks the shapes, dtypes
and seats; other bots (``ppo``) keep the numpy check in ``check_batch``. This
measures what the check adds, in one process, interleaved in short slices on a shared
machine: ``act_batch`` of a bot with the check as it is (``new``) and without the value
check (``base``: shapes and seats only, as before the value check), on the same batch of real
observations. Reported per bot: the median calls/s of each and the median of the
per-slice ratios new / base.

    python experiments/ab_bot_check.py --bots builder,counter --batch 4096 --out ab.json
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import mamma_mia_agents.bots.base as base  # noqa: E402
import mamma_mia_agents.bots.heuristic as heuristic  # noqa: E402  (where the bots call decide_kernel)
from mamma_mia_agents import load_agent  # noqa: E402
from mamma_mia_env import Config, Engine  # noqa: E402
from mamma_mia_env.plumbing.provenance import provenance  # noqa: E402

NEW_CHECK = base.check_batch
CHECKED_DECIDE = heuristic.decide_kernel


def base_check(observations, masks, seats, values=True):  # type: ignore[no-untyped-def]
    """``check_batch`` as it was before the fixes (commit 479b5d9): shapes and seats."""
    if observations.ndim != 2 or masks.ndim != 2 or len(observations) != len(masks):
        raise ValueError("shapes")
    info = base.game_info(observations.shape[1], masks.shape[1])
    if seats is not None:
        seats = np.asarray(seats, dtype=np.int64).reshape(-1)
        if seats.shape != (len(observations),):
            raise ValueError("seats")
        if (seats < 0).any() or (seats >= info.num_players).any():
            raise ValueError("seats")
    return info, seats


def unchecked_decide(*args, check=False):  # type: ignore[no-untyped-def]
    """``decide`` with the kernel's row check off (the base version)."""
    return CHECKED_DECIDE(*args, check=False)


def rate(bot, obs, masks, seats, check, seconds: float) -> float:
    """Calls of ``bot.act_batch`` per second with ``check`` in place (``NEW_CHECK``: the
    code as it is; ``base_check``: no value check, neither in numpy nor in the kernel)."""
    for module in (base, sys.modules[type(bot).act_batch.__module__]):
        if hasattr(module, "check_batch"):
            module.check_batch = check
    heuristic.decide_kernel = CHECKED_DECIDE if check is NEW_CHECK else unchecked_decide
    rng = np.random.default_rng(0)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        bot.act_batch(obs, masks, rng, seats)
        calls += 1
    return calls / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="builder,counter")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=15, help="slices per version and bot")
    parser.add_argument("--seconds", type=float, default=1.0, help="per slice")
    parser.add_argument("--out", type=Path, default=None, help="write the samples (JSON)")
    from experiments.common.arguments import checked  # every flag checked

    args = checked(parser).parse_args(argv)
    start = time.perf_counter()
    eng = Engine(Config(num_players=args.players))
    state = eng.reset(seeds=0, batch_size=args.batch)
    rng = np.random.default_rng(1)
    for _ in range(40):  # mid-game positions, not only first moves
        masks = eng.legal_masks(state)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        eng.step(state, acts, active=state.data["phase"] != 2)
    if (state.data["phase"] == 2).any():
        raise SystemExit("a game ended during the warm-up: use fewer steps")
    obs, masks = eng.observe(state), eng.legal_masks(state)
    seats = state.data["seat"].astype(np.int64)
    report, samples = {}, {}
    bots = args.bots.split(",")
    with tqdm(total=len(bots) * args.repeats, unit="pair") as bar:
        for name in bots:
            bot = load_agent(name)
            for check in (base_check, NEW_CHECK):  # warm up (compilation) both
                rate(bot, obs, masks, seats, check, 0.2)
            b, n, ratios = [], [], []
            for i in range(args.repeats):
                order = (base_check, NEW_CHECK) if i % 2 == 0 else (NEW_CHECK, base_check)
                got = {c: rate(bot, obs, masks, seats, c, args.seconds) for c in order}
                b.append(got[base_check])
                n.append(got[NEW_CHECK])
                ratios.append(got[NEW_CHECK] / got[base_check])
                bar.update()
            rate(bot, obs, masks, seats, NEW_CHECK, 0.0)  # leave the real check in place
            q = statistics.quantiles(ratios, n=4)
            report[name] = {
                "base_calls_per_s": statistics.median(b),
                "new_calls_per_s": statistics.median(n),
                "ratio_median": statistics.median(ratios),
                "ratio_quartiles": [q[0], q[1], q[2]],
            }
            samples[name] = {"base": b, "new": n}
    for name, r in report.items():
        print(
            f"{name}: base {r['base_calls_per_s']:.1f} calls/s, new {r['new_calls_per_s']:.1f}, "
            f"new/base {r['ratio_median']:.3f} "
            f"({r['ratio_quartiles'][0]:.3f}-{r['ratio_quartiles'][2]:.3f})"
        )
    if args.out is not None:
        from experiments.common.output import write_json

        doc = {"args": vars(args) | {"out": os.fspath(args.out)}, "report": report}
        doc["samples"] = samples
        write_json(args.out, doc, provenance(wall_time=time.perf_counter() - start))
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "experiments/ab_bot_check.py"))
