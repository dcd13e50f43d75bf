"""Whole games inside one compiled loop: observe, decide, step, a bot per seat.

``play_out`` plays games on with a ``CompiledBots`` table per seat: the heuristic bots'
decisions (``decisions.decide_one``) or the uniform random policy
(``game.kernels.random_pick`` on its own SplitMix64 stream, ``splitmix_uniform``). It
reads plain arrays only: an agent enters as the ``KernelBot`` its ``kernel_bot()``
method returns (see ``tables.KernelBot``), so no module of this package imports an
agent class.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np

from mamma_mia_agents.compiled.decisions import decide_one
from mamma_mia_agents.compiled.jit import CHUNKS, workspace
from mamma_mia_agents.compiled.tables import (
    L_DOUBLES,
    L_N,
    N_PRM,
    KernelBot,
    layout_vector,
)
from mamma_mia_env.game.actions import n_turn_actions
from mamma_mia_env.game.cards import N_REVEAL_ACTIONS
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.kernels import random_pick
from mamma_mia_env.game.observe import (
    FIXED,
    MODE_CODES,
    OBS_DTYPE,
    TOP_CARD,
    observation_size,
    observe_game,
)
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.rng import GAMMA, splitmix_output
from mamma_mia_env.game.rules import legal_mask_game, step_game
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.jit_cache import njit

RANDOM_BOT = -1  # the bot id of the uniform random policy in ``play_bots``


@njit(inline="always")
def splitmix_uniform(states, g) -> float:
    """The next uniform in [0, 1) of ``states[g]``: SplitMix64 (``game.rng``) on the
    random policy's own stream, not the game's."""
    s = states[g] + GAMMA
    states[g] = s
    return float(splitmix_output(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def _make_play(parallel: bool):
    loop = nb.prange if parallel else range

    @njit(parallel=parallel)
    def play_bots(
        data, bot_of_seat, params, play, need, n, prms, modes, lays, obs_dims, rstates,
        max_steps, steps_taken,
    ):  # fmt: skip
        """Play every game of ``data`` on (until over, or ``max_steps`` actions each).

        ``bot_of_seat[g, s]``: the bot id of seat s in game g (a row of ``prms`` and
        ``modes``) or ``RANDOM_BOT``; ``lays[m]`` / ``obs_dims[m]``:
        the layout and size of observation mode code m (``observe.MODE_CODES``). ``rstates[g]``:
        game g's SplitMix64 state for the random policy. ``steps_taken[g]``: actions
        taken (a game resumes from its count).
        """
        g_total = data.shape[0]
        chunks = min(g_total, CHUNKS)
        n_actions = n_turn_actions(play.shape[0]) + N_REVEAL_ACTIONS
        for c in loop(chunks):
            ws, wd, wi = workspace()
            mk = np.empty(n_actions, np.int8)
            # uint8 as the envs observe: act_batch and this loop share the compiled decisions
            ob_all = np.empty(obs_dims.max(), OBS_DTYPE)
            dl = np.zeros(8, np.int32)
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
                        ob = ob_all[: obs_dims[m]]
                        observe_game(r, seat, n, m, ob)
                        a = decide_one(ob, mk, seat, lays[m], play, need, prms[bot], ws, wd, wi)
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
    ``RandomAgent.act_batch``'s. The heuristic bots decide as ``act_batch`` does.
    """

    def __init__(self, agents: Sequence[object], num_players: int, doubles: bool) -> None:
        self.agents = list(agents)
        self.ids = np.empty(len(self.agents), np.int64)
        prms: list[np.ndarray] = []
        modes: list[int] = []
        for i, agent in enumerate(self.agents):
            bot = kernel_bot(agent)
            if bot is None:
                raise ValueError(
                    f"agent {agent!r} has no compiled kernel (only the bundled heuristic "
                    "bots, HeuristicAgent and RandomAgent do)"
                )
            if bot.prm is None:  # the random policy
                self.ids[i] = RANDOM_BOT
                continue
            self.ids[i] = len(prms)
            prms.append(bot.prm)
            modes.append(FIXED if bot.remembers else TOP_CARD)
        if not prms:  # keep the arrays two-dimensional for the kernel
            prms, modes = [np.zeros(N_PRM)], [FIXED]
        self.prms = np.array(prms, np.float64)
        self.modes = np.array(modes, np.int64)
        # by the observer's mode code (``observe.MODE_CODES``)
        names = sorted(MODE_CODES, key=MODE_CODES.__getitem__)
        self.lays = np.stack([layout_vector(num_players, m, doubles) for m in names])
        self.obs_dims = np.array([observation_size(m) for m in names], np.int64)


def play_out(
    engine: Engine,
    state: GameState,
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
        rstates = np.uint64(seed) * GAMMA + np.arange(g, dtype=np.uint64)
    steps = np.zeros(g, np.int64)
    kernel = PLAY_PARALLEL if g >= 64 else PLAY_SERIAL
    play, need = engine.play.astype(np.int64), engine.need.astype(np.int64)
    max_steps = int(min(max_steps, 1 << 62))
    kernel(
        state.data, bot_of_seat, engine.params, play, need, n, bots.prms, bots.modes,
        bots.lays, bots.obs_dims, rstates, max_steps, steps,
    )  # fmt: skip
    return steps
