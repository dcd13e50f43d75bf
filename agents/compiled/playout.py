"""Whole games inside one compiled loop: observe, decide, step, a bot per seat.

``play_out`` plays games on with a ``CompiledBots`` table per seat: the heuristic bots'
decisions (``decisions.decide_one``, numpy's powers included) or the uniform random
policy (its own SplitMix64 stream, ``random_picks``). It reads plain arrays only: an
agent enters as the ``KernelBot`` its ``kernel_bot()`` method returns (see
``tables.KernelBot``), so no module of this package imports an agent class.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from mamma_mia_agents.compiled.decisions import decide_one
from mamma_mia_agents.compiled.jit import CHUNKS, T, workspace
from mamma_mia_agents.compiled.random_picks import random_pick, splitmix_uniform
from mamma_mia_agents.compiled.tables import (
    I_GAMBLE,
    L_DOUBLES,
    L_N,
    N_POW,
    N_PRM,
    KernelBot,
    layout_vector,
)
from mamma_mia_env.game.observe import observation_size, observe_game
from mamma_mia_env.game.rules import legal_mask_game, step_game
from mamma_mia_env.game.state import OVER
from mamma_mia_env.plumbing.jit_cache import njit

RANDOM_BOT = -1  # the bot id of the uniform random policy in ``play_bots``


def _make_play(parallel: bool):
    loop = nb.prange if parallel else range

    @njit(parallel=parallel)
    def play_bots(
        data, bot_of_seat, params, play, need, n, prms, pws, modes, exact, lays, obs_dims,
        rstates, max_steps, steps_taken, ubuf, paused,
    ):  # fmt: skip
        """Play every game of ``data`` on (until over, or ``max_steps`` actions each).

        ``bot_of_seat[g, s]``: the bot id of seat s in game g (a row of ``prms``,
        ``pws``, ``modes``, ``exact``) or ``RANDOM_BOT``; ``lays[m]`` / ``obs_dims[m]``:
        the layout and size of observation mode m (0 recall, 1 top_card). ``rstates[g]``:
        game g's SplitMix64 state for the random policy. ``steps_taken[g]``: actions
        taken (a game resumes from its count).

        A bot with ``exact[bot]`` may need numpy's powers (see the module doc): its
        decision runs ``decide``'s first pass into ``ubuf[g]``; if a fractional power
        came up, the game stops there with ``paused[g] = 1``, the caller fills
        ``ubuf[g]`` with numpy's powers and calls again, and the game resumes with the
        second pass.
        """
        g_total = data.shape[0]
        chunks = min(g_total, CHUNKS)
        n_actions = play.shape[0] * 18 + 7
        for c in loop(chunks):
            ws, wd, wi = workspace()
            mk = np.empty(n_actions, np.int8)
            ob0 = np.empty(obs_dims[0], np.float32)
            ob1 = np.empty(obs_dims[1], np.float32)
            dl = np.zeros(8, np.int32)
            u0 = np.zeros(1, np.float32)
            for g in range(c * g_total // chunks, (c + 1) * g_total // chunks):
                r = data[g]
                k = steps_taken[g]
                while r.phase != OVER and k < max_steps:
                    seat = r.seat
                    bot = bot_of_seat[g, seat]
                    legal_mask_game(r, params, play, need, mk)
                    if bot < 0:
                        a = random_pick(mk, splitmix_uniform(rstates, g))
                    else:
                        m = modes[bot]
                        ob = ob0 if m == 0 else ob1
                        observe_game(r, seat, n, m, ob)
                        if exact[bot]:
                            u = ubuf[g]
                            if paused[g]:
                                umode = 2
                                paused[g] = 0
                            else:
                                umode = 1
                                u[u.shape[0] - 1] = 0
                        else:
                            u = u0
                            umode = 0
                        a = decide_one(
                            ob, mk, seat, lays[m], play, need, prms[bot], pws[bot], u, umode,
                            ws, wd, wi,
                        )  # fmt: skip
                        if umode == 1 and u[u.shape[0] - 1] != 0:
                            paused[g] = 1  # wait for numpy's powers
                            break
                    step_game(r, a, params, play, need, dl)
                    k += 1
                steps_taken[g] = k

    return play_bots


PLAY_SERIAL = _make_play(False)
PLAY_PARALLEL = _make_play(True)


def kernel_bot(agent: object) -> KernelBot | None:
    """The ``KernelBot`` an agent plays as in the compiled loop, or None if it has none.

    Asked of the agent (``Agent.kernel_bot``: the bots know how they translate into
    kernel arguments), so this package never imports an agent class."""
    if isinstance(agent, KernelBot):
        return agent
    method = getattr(agent, "kernel_bot", None)
    return method() if callable(method) else None


def compilable(agent: object) -> bool:
    """Whether ``play_out`` can run ``agent`` inside its compiled loop."""
    return kernel_bot(agent) is not None


class CompiledBots:
    """The kernel tables of a list of agents (or ``KernelBot`` s), for ``play_out``.

    Accepts every agent with a ``kernel_bot()``: the bundled heuristic bots (and
    ``HeuristicAgent`` with any ``Params``) and ``RandomAgent``; ``compilable(agent)``
    says whether an agent can be used. The random policy inside the loop draws from its
    own SplitMix64 stream, not from a numpy generator: games it plays differ from
    ``RandomAgent.act_batch``'s. The heuristic bots decide as ``act_batch`` does,
    numpy's powers included (``exact``).
    """

    def __init__(self, agents: list[object], num_players: int, doubles: bool) -> None:
        self.agents = list(agents)
        self.ids = np.empty(len(self.agents), np.int64)
        prms, pws, modes = [], [], []
        for i, agent in enumerate(self.agents):
            bot = kernel_bot(agent)
            if bot is None:
                raise ValueError(
                    f"agent {agent!r} has no compiled kernel (only the bundled heuristic "
                    "bots, HeuristicAgent and RandomAgent do)"
                )
            if bot.is_random:
                self.ids[i] = RANDOM_BOT
                continue
            self.ids[i] = len(prms)
            prms.append(bot.prm)
            pws.append(bot.pw)
            modes.append(0 if bot.recall else 1)
        if not prms:  # keep the arrays two-dimensional for the kernel
            prms, pws, modes = [np.zeros(N_PRM)], [np.ones(N_POW, np.float32)], [0]
        self.prms = np.array(prms, np.float64)
        self.pws = np.array(pws, np.float32)
        self.modes = np.array(modes, np.int64)
        # as ``decide``: one pass for recall bots and bots that do not gamble
        self.exact = (self.prms[:, I_GAMBLE] != 0) & (self.modes != 0)
        self.lays = np.stack(
            [layout_vector(num_players, m, doubles) for m in ("recall", "top_card")]
        )
        self.obs_dims = np.array(
            [observation_size(num_players, m) for m in ("recall", "top_card")], np.int64
        )


def play_out(
    engine: object,
    state: object,
    bots: CompiledBots,
    seat_agents: np.ndarray,
    seed: int = 0,
    max_steps: int = 1 << 30,
    rstates: np.ndarray | None = None,
) -> np.ndarray:
    """Play the games of ``state`` on in place, seat s of game g by agent
    ``seat_agents[g, s]`` (an index into ``bots.agents``); returns the actions taken
    per game. ``max_steps`` cuts every game after that many actions (rollouts);
    ``seed`` (or per-game SplitMix64 states ``rstates``) drives the random agent."""
    g = state.batch_size
    n = engine.num_players
    seat_agents = np.asarray(seat_agents)
    if seat_agents.shape != (g, n) or seat_agents.dtype.kind not in "iu":
        raise ValueError(f"seat_agents must be ({g}, {n}) integers, got {seat_agents.shape}")
    if g and (seat_agents.min() < 0 or seat_agents.max() >= len(bots.agents)):
        raise ValueError(f"seat_agents must index the {len(bots.agents)} agents")
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    if bots.lays[0, L_N] != n or bool(bots.lays[0, L_DOUBLES]) != engine.config.double_ingredients:
        raise ValueError("the CompiledBots were made for another game")
    bot_of_seat = np.zeros((g, 5), np.int64)
    bot_of_seat[:, :n] = bots.ids[seat_agents]
    if rstates is None:
        rstates = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.arange(g, dtype=np.uint64)
    steps = np.zeros(g, np.int64)
    kernel = PLAY_PARALLEL if g >= 64 else PLAY_SERIAL
    exact = bots.exact[np.maximum(bot_of_seat, 0)] & (bot_of_seat >= 0)
    width = int(engine.play.shape[0]) * T + 1
    ubuf = np.zeros((g if exact.any() else 1, width), np.float32)
    paused = np.zeros(g, np.int8)
    play, need = engine.play.astype(np.int64), engine.need.astype(np.int64)
    max_steps = int(min(max_steps, 1 << 62))
    while True:
        kernel(
            state.data, bot_of_seat, engine.params, play, need, n, bots.prms, bots.pws,
            bots.modes, bots.exact, bots.lays, bots.obs_dims, rstates, max_steps, steps, ubuf,
            paused,
        )  # fmt: skip
        rows = np.flatnonzero(paused)
        if not len(rows):
            return steps
        # numpy's powers for the paused decisions, computed as ``decide`` does
        d = state.data[rows]
        bot = bot_of_seat[rows, d["seat"].astype(np.int64)]
        for b in np.unique(bot):
            sel = rows[bot == b]
            ub = ubuf[sel]
            u = ub[:, :-1]
            ub[:, :-1] = np.where(u > 0, np.float32(bots.prms[b, I_GAMBLE]) ** u, 0)
            ubuf[sel] = ub
