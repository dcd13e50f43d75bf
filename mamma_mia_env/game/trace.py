"""One step of one game, traced: which cards each revealed order took, and who chose.

The event log needs this for every order turned over; the engine's step does not keep
it (it would cost every game of every batch), so the log writer replays the step here
on a copy with the same rule functions, each ``resolve`` framed by a look at the piles
and the owner's hand, and checks that it ends in the engine's record byte for byte.

``trace`` (int64, a row per oven slot, ``TRACE_WIDTH`` columns): ``trace[i]`` describes
oven entry ``i`` (an order resolved in this step, else zeros): ``T_HOW`` (``HOW_OWNER``,
``HOW_AUTO``: the automatic policy, ``HOW_FORCED``: one legal choice), ``T_CHOICE`` (the
reveal action's offset), ``T_WHO`` / ``T_WHAT`` (the oven entry), and per card type the
cards taken from the piles (``T_PILES``) and the owner's hand (``T_HAND``).
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.actions import n_turn_actions
from mamma_mia_env.game.cards import N_CARD_TYPES, N_REVEAL_ACTIONS
from mamma_mia_env.game.record import PLAY, REVEAL
from mamma_mia_env.game.reveal import resolve, settled_choice
from mamma_mia_env.game.rules import take_turn
from mamma_mia_env.game.table import P
from mamma_mia_env.plumbing.jit_cache import njit

HOW_OWNER, HOW_AUTO, HOW_FORCED = 1, 2, 3
HOW_NAMES = {HOW_OWNER: "owner", HOW_AUTO: "auto", HOW_FORCED: "forced"}
T_HOW, T_CHOICE, T_WHO, T_WHAT = 0, 1, 2, 3
T_PILES = 4
T_HAND = T_PILES + N_CARD_TYPES
TRACE_WIDTH = T_HAND + N_CARD_TYPES

_jit = njit()


@_jit
def _traced_resolve(r, choice: int, how: int, params, need, out_delivered, trace) -> None:
    """``resolve`` one order, writing what it took into ``trace[reveal_pos]``."""
    i = r.reveal_pos
    owner = r.oven_who[i]
    piles = r.piles.copy()
    hand = r.hand[owner].copy()
    resolve(r, choice, params, need, out_delivered)
    trace[i, T_HOW] = how
    trace[i, T_CHOICE] = choice
    trace[i, T_WHO] = owner
    trace[i, T_WHAT] = r.oven_what[i]
    for c in range(N_CARD_TYPES):
        trace[i, T_PILES + c] = piles[c] - r.piles[c]
        trace[i, T_HAND + c] = hand[c] - r.hand[owner, c]


@_jit
def _traced_reveal(r, params, need, out_delivered, trace) -> None:
    """``reveal.continue_reveal`` with every resolution traced."""
    legal = np.zeros(N_REVEAL_ACTIONS, np.int8)
    choice = settled_choice(r, params, need, legal)
    while choice >= 0:
        how = HOW_FORCED if legal.sum() == 1 else HOW_AUTO
        _traced_resolve(r, choice, how, params, need, out_delivered, trace)
        choice = settled_choice(r, params, need, legal)


@_jit
def traced_step(data, a: int, params, play, need, out_delivered, trace) -> None:
    """``rules.step_game`` on ``data[0]`` (a legal action), tracing its reveal."""
    r = data[0]
    trace[:] = 0
    r.rewards[:] = 0.0
    if r.phase == PLAY:
        if take_turn(r, a, params, play):
            r.reveal_pos = 0
            _traced_reveal(r, params, need, out_delivered, trace)
    elif r.phase == REVEAL:
        r.phase = PLAY
        choice = a - n_turn_actions(params[P.n_play])
        _traced_resolve(r, choice, HOW_OWNER, params, need, out_delivered, trace)
        _traced_reveal(r, params, need, out_delivered, trace)
