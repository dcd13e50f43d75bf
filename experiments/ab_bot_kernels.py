"""The heuristic bots' decision kernels of two checkouts, timed on the same positions.

A change to ``agents/compiled/`` must leave every decision as it was and should make
it faster; on a shared machine the speed is only comparable measured in alternation.
This loads the base checkout's ``agents/compiled/`` as a second module next to the
installed one, collects positions of four-player (and two-player) games in a vector
env, and times each version's serial batch kernel (one thread, CPU time of the
process) over the same positions in interleaved slices. Every slice also checks that
both versions chose the same action at every position.

Kernels from before the CPU-independent powers take numpy's power table and a mode for
fractional powers; those are computed with ``powf`` here (mode 0).

    git archive <commit> agents | tar -x -C /tmp/base
    python experiments/ab_bot_kernels.py --base /tmp/base --base-commit <commit> --out ab.json
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import mamma_mia_agents.compiled as new_compiled  # noqa: E402
from mamma_mia_agents import load_agent  # noqa: E402
from mamma_mia_env.envs.vector import MammaMiaVectorEnv  # noqa: E402
from mamma_mia_env.plumbing.provenance import provenance  # noqa: E402


def load_base(base: Path):
    """The base checkout's ``agents/compiled.py`` as the module ``compiled_base``.

    The base must come from before the kernels were split into the package
    ``agents/compiled/`` (one file can be loaded beside the installed package; a
    package's absolute imports would load the installed one instead)."""
    path = base / "agents" / "compiled.py"
    if not path.is_file():
        raise SystemExit(
            f"--base: no agents/compiled.py under {base} (a checkout from before the "
            "kernels became the package agents/compiled/)"
        )
    spec = importlib.util.spec_from_file_location("compiled_base", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["compiled_base"] = module
    spec.loader.exec_module(module)
    return module


def positions(players: int, mode: str, batch: int, steps: int, every: int, seed: int) -> tuple:
    """Observations (``mode``), masks and seats of the vector env played by ``builder``
    (``recall``) or ``forgetful`` (``top_card``): every ``every``-th step of ``steps``,
    all games; games reset as they end."""
    venv = MammaMiaVectorEnv(batch, num_players=players, observation_mode=mode, copy=False)
    obs, info = venv.reset(seed=seed)
    bot = load_agent("builder" if mode == "recall" else "forgetful")
    rng = np.random.default_rng(seed)
    kept: list[tuple] = []
    for i in range(steps):
        if i % every == 0:
            kept.append((obs.copy(), info["action_mask"].copy(), info["seat"].astype(np.int64)))
        obs, _, _, _, info = venv.step(bot.act_batch(obs, info["action_mask"], rng, info["seat"]))
    return tuple(np.concatenate([k[j] for k in kept]) for j in range(3))


class Kernel:
    """One version's serial decision kernel for one bot and player count."""

    def __init__(self, module, bot, players: int, doubles: bool = False) -> None:
        self.fn = module.DECIDE_SERIAL
        params = inspect.signature(module.decide).parameters
        self.checks = "check" in params
        self.tables: tuple = (
            module.layout_vector(players, bot.observation_mode, doubles),
            *(t.astype(np.int64) for t in _info_tables(players, doubles)),
            module.params_vector(bot.params),
        )
        if "pw" in params:  # an older kernel: numpy's power table, powf for the rest
            self.tables += (module.pow_table(bot.params.gamble), np.zeros((1, 1), np.float32), 0)

    def __call__(self, obs, masks, seats, out) -> None:
        extra = (False,) if self.checks else ()
        self.fn(obs, masks, seats, *self.tables, *extra, out)


def _info_tables(players: int, doubles: bool) -> tuple:
    """The play and order-need tables the kernels read (the engine's)."""
    from mamma_mia_env import Config, Engine

    eng = Engine(Config(num_players=players, double_ingredients=doubles))
    return eng.play, eng.need


def cpu_per_decision(kernel: Kernel, obs, masks, seats, out, seconds: float) -> float:
    """CPU microseconds per decision over whole passes of the positions."""
    calls, start = 0, time.process_time()
    while True:
        kernel(obs, masks, seats, out)
        calls += 1
        used = time.process_time() - start
        if used >= seconds:
            return used / (calls * len(obs)) * 1e6


def compare(versions: dict, pos: tuple, args: argparse.Namespace, bar: tqdm) -> dict:
    """The two kernels on the same positions: whether they choose the same actions, and
    their CPU time per decision in ``--repeats`` interleaved slices (medians, ratios)."""
    o, m, s = pos
    outs = {k: np.empty(len(o), np.int64) for k in versions}
    for k, kern in versions.items():  # compile, and compare once
        kern(o, m, s, outs[k])
    same = bool((outs["base"] == outs["new"]).all())
    t: dict[str, list[float]] = {"base": [], "new": []}
    ratios = []
    for i in range(args.repeats):
        order = ("base", "new") if i % 2 == 0 else ("new", "base")
        got = {k: cpu_per_decision(versions[k], o, m, s, outs[k], args.seconds) for k in order}
        same = same and bool((outs["base"] == outs["new"]).all())
        for k in got:
            t[k].append(got[k])
        ratios.append(got["new"] / got["base"])
        bar.update()
    q = statistics.quantiles(ratios, n=4)
    return {
        "positions": len(o),
        "same_actions": same,
        "base_cpu_us_per_decision": round(statistics.median(t["base"]), 4),
        "new_cpu_us_per_decision": round(statistics.median(t["new"]), 4),
        "ratio_median": round(statistics.median(ratios), 4),
        "ratio_quartiles": [round(x, 4) for x in q],
        "samples": t,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the base checkout")
    parser.add_argument("--base-commit", default="unknown", help="its revision, recorded")
    parser.add_argument("--bots", default="builder,counter,hoarder,forgetful")
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=120, help="vector env steps played")
    parser.add_argument("--every", type=int, default=12, help="keep every n-th step")
    parser.add_argument("--repeats", type=int, default=11, help="slices per version and row")
    parser.add_argument("--seconds", type=float, default=0.5, help="CPU seconds per slice")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the report (JSON)")
    from experiments.common.arguments import checked  # every flag checked

    args = checked(parser).parse_args(argv)
    for name in ("batch", "steps", "every", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1")
    if not args.seconds > 0:
        parser.error("--seconds must be > 0")
    players = [int(x) for x in args.players.split(",")]
    if any(not 2 <= n <= 5 for n in players):
        parser.error("--players must be numbers 2-5")
    bots = [load_agent(b) for b in args.bots.split(",")]
    start = time.perf_counter()
    old = load_base(args.base)
    report: dict = {}
    rows = [(b, n) for n in players for b in bots]
    with tqdm(total=len(rows) * args.repeats, unit="pair") as bar:
        for n in players:
            seen: dict[str, tuple] = {}
            for bot in bots:
                mode = bot.observation_mode
                if mode not in seen:
                    seen[mode] = positions(n, mode, args.batch, args.steps, args.every, args.seed)
                versions = {"base": Kernel(old, bot, n), "new": Kernel(new_compiled, bot, n)}
                report[f"{bot.name} {n}p"] = compare(versions, seen[mode], args, bar)
    for row, r in report.items():
        print(
            f"{row}: base {r['base_cpu_us_per_decision']:.3f} us, new "
            f"{r['new_cpu_us_per_decision']:.3f} us per decision, new/base "
            f"{r['ratio_median']:.3f} ({r['ratio_quartiles'][0]:.3f}-"
            f"{r['ratio_quartiles'][2]:.3f}), same actions: {r['same_actions']}"
        )
    if not all(r["same_actions"] for r in report.values()):
        print("the two versions chose different actions", file=sys.stderr)
    if args.out is not None:
        from experiments.common.output import write_json

        given = {"out": os.fspath(args.out), "base": os.fspath(args.base)}
        doc = {"args": vars(args) | given | {"base_commit": args.base_commit}}
        doc["report"] = report
        write_json(args.out, doc, provenance(wall_time=time.perf_counter() - start))
    return 0 if all(r["same_actions"] for r in report.values()) else 1


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "experiments/ab_bot_kernels.py"))
