"""The heuristic bots and the random policy as numba kernels, split by job.

* ``tables``: the plain arrays the kernels read (weights, observation layout)
  and ``KernelBot``, one bot as the compiled game loop plays it;
* ``jit``: compile options, scratch space and constants every kernel shares;
* ``oven`` and ``decisions``: one heuristic decision in one game;
* ``batch``: ``decide``, a bot's decisions over a batch (``HeuristicAgent.act_batch``);
* ``random_picks``: the random policy's pick of a legal action;
* ``playout``: ``play_out``, whole games inside one compiled loop (tournaments, search).

Every kernel is compiled through ``mamma_mia_env.plumbing.jit_cache.njit``: one cache
keyed on every source file of both packages, so no kernel runs stale rules (``jit``).
Nothing here imports an agent class: agents hand the kernels plain arrays
(``Agent.kernel_bot``). This ``__init__`` keeps the names of the old single module
``mamma_mia_agents.compiled``.

The kernels' short argument names, shared by every module of this package:

* ``ob`` / ``obs``: one game's observation / a batch of them (float32, the acting
  seat's view); ``mk`` / ``masks``: the legal-action mask(s) (int8);
* ``personal`` / ``seats``: the acting seat, which is also its personal ingredient;
* ``lay``: the observation layout (``tables.L_*`` offsets, ``tables.layout_vector``);
* ``play``, ``need``: the engine's play table (n_play, 3) and order-need table
  (5 personal, 5 types, 5 kinds), int64;
* ``prm``: the bot's weights (``tables.I_*``, ``tables.params_vector``);
* ``ws``, ``wd``, ``wi``: scratch (float32, float64, int64; ``jit.workspace``), cut
  into the named parts of ``jit``'s layout table (``jit.part``); ``sbuf``: where
  ``turn_action`` writes every legal action's score (one slot: none wanted);
* ``pv``, ``hv``: value per ingredient face up / in hand (a double counts 2); ``pool``:
  what an order played now will meet; ``rel``: a seat relative to the acting one.
"""

from mamma_mia_agents.compiled.batch import (
    BAD_OBSERVATION,
    DECIDE_PARALLEL,
    DECIDE_SERIAL,
    PARALLEL_MIN_BATCH,
    check_values,
    decide,
)
from mamma_mia_agents.compiled.decisions import decide_one, turn_scores_one
from mamma_mia_agents.compiled.jit import BIG32, BIG64, CHUNKS, F32, K, T, per_game, workspace
from mamma_mia_agents.compiled.playout import (
    PLAY_PARALLEL,
    PLAY_SERIAL,
    RANDOM_BOT,
    CompiledBots,
    compilable,
    kernel_bot,
    play_out,
)
from mamma_mia_agents.compiled.random_picks import random_actions
from mamma_mia_agents.compiled.tables import (
    I_BUILD,
    I_CARD_COST,
    I_CARDS_WEIGHT,
    I_COVER_COST,
    I_COVER_CREDIT,
    I_DRAIN,
    I_DRAIN_TAKE,
    I_FORGET,
    I_GAMBLE,
    I_GAMBLE_MAX,
    I_KEEP,
    I_MIN_CARDS,
    I_ORDER_FLOOR,
    I_ORDERS_WEIGHT,
    I_PROVEN,
    I_RESERVE_PENALTY,
    I_RIVAL_COVER,
    I_STACK_W,
    I_TARGET_ORDERS,
    I_TEMPO,
    I_TYPE_BONUS,
    L_DELIV,
    L_DOUBLES,
    L_HAND,
    L_N,
    L_NPLAY,
    L_NTURN,
    L_OH,
    L_OO,
    L_OS,
    L_PENDING,
    L_PILES,
    L_RECALL,
    L_SEATS,
    L_SUPPLY,
    L_TOT,
    N_LAYOUT,
    N_PRM,
    RANDOM_POLICY,
    KernelBot,
    heuristic_bot,
    layout_vector,
    params_vector,
)

__all__ = [
    "I_PROVEN",
    "I_RIVAL_COVER",
    "I_COVER_CREDIT",
    "I_COVER_COST",
    "I_GAMBLE",
    "I_GAMBLE_MAX",
    "I_ORDER_FLOOR",
    "I_TYPE_BONUS",
    "I_CARD_COST",
    "I_BUILD",
    "I_DRAIN",
    "I_DRAIN_TAKE",
    "I_RESERVE_PENALTY",
    "I_KEEP",
    "I_TARGET_ORDERS",
    "I_ORDERS_WEIGHT",
    "I_MIN_CARDS",
    "I_CARDS_WEIGHT",
    "I_TEMPO",
    "I_STACK_W",
    "I_FORGET",
    "L_N",
    "L_RECALL",
    "L_DOUBLES",
    "L_NTURN",
    "L_NPLAY",
    "L_HAND",
    "L_OH",
    "L_OS",
    "L_SEATS",
    "L_DELIV",
    "L_PILES",
    "L_SUPPLY",
    "L_PENDING",
    "L_TOT",
    "L_OO",
    "BAD_OBSERVATION",
    "BIG32",
    "BIG64",
    "CHUNKS",
    "DECIDE_PARALLEL",
    "DECIDE_SERIAL",
    "F32",
    "K",
    "N_LAYOUT",
    "N_PRM",
    "PARALLEL_MIN_BATCH",
    "PLAY_PARALLEL",
    "PLAY_SERIAL",
    "RANDOM_BOT",
    "RANDOM_POLICY",
    "T",
    "CompiledBots",
    "KernelBot",
    "check_values",
    "compilable",
    "decide",
    "decide_one",
    "heuristic_bot",
    "kernel_bot",
    "layout_vector",
    "params_vector",
    "per_game",
    "play_out",
    "random_actions",
    "turn_scores_one",
    "workspace",
]
