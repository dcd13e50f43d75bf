"""How long a state-reading bot takes per decision, on one core.

The search bot and the champion are judged by their time per decision (at most
20 ms on one core). Both the search-strength curves and the champion's tuning measure it
here, the same way: ``act_states`` on positions of builder games at random depths, numba
held to one thread, each position decided once untimed before the timed pass (a kernel
that only some positions reach is loaded there, not timed: one such load took seconds
and made a mean of 25 ms out of a median of 3). Each call is timed twice: by the wall
clock and by this process's CPU time (``time.process_time``), which another process on
a shared machine moves much less than the wall clock.
"""

from __future__ import annotations

import time
from typing import Any

import numba as nb
import numpy as np

from mamma_mia_agents import load_agent
from mamma_mia_agents.compiled.playout import CompiledBots, play_out
from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.game.record import OVER
from mamma_mia_env.policy import information_set

__all__ = ["decision_times"]


def decision_times(num_players: int, bot: Any, positions: int, seed: int) -> dict[str, Any]:
    """Milliseconds per decision of ``bot`` (an agent with ``act_states``) on
    ``positions`` positions of builder games (at random depths, unfinished), one numba
    thread; the bot gets each position as its seat knows it (``information_set``)."""
    eng = Engine(Config(num_players=num_players))
    builder = CompiledBots([load_agent("builder")], num_players, False)
    rng = np.random.default_rng(seed)
    states: list[GameState] = []
    for _ in range(20 * positions):  # a drawn depth may lie past the game's end: draw again
        if len(states) == positions:
            break
        depth = int(rng.integers(0, 120))
        st = eng.reset(seeds=[int(rng.integers(0, 2**32))])
        play_out(eng, st, builder, np.zeros((1, num_players), np.int64), max_steps=depth)
        if st.data["phase"][0] != OVER:
            states.append(information_set(st))
    if not states:
        raise RuntimeError(f"no unfinished position in {20 * positions} builder games")
    threads = nb.get_num_threads()
    nb.set_num_threads(1)
    try:
        for st in states:  # untimed: every kernel any position needs is loaded first
            bot.act_states(st, rng)
        wall, cpu = [], []
        for st in states:
            w0, c0 = time.perf_counter(), time.process_time()
            bot.act_states(st, rng)
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
    finally:
        nb.set_num_threads(threads)
    t, c = np.array(wall) * 1e3, np.array(cpu) * 1e3
    return {
        "positions": len(t),
        "median_ms": round(float(np.median(t)), 2),
        "mean_ms": round(float(t.mean()), 2),
        "p90_ms": round(float(np.percentile(t, 90)), 2),
        "cpu_median_ms": round(float(np.median(c)), 2),
        "cpu_mean_ms": round(float(c.mean()), 2),
        "cpu_p90_ms": round(float(np.percentile(c, 90)), 2),
    }
