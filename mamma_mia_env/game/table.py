"""One game record's cards on the move: the rules' small helpers and their parameters.

``params`` is the config as an int64 array, one slot per declared parameter
(``config.PARAMETERS``) and then the play table's size: rule code reads
``params[P.<name>]``. The kernels see ``P`` as constants; the compiled-code cache is
keyed on every source file (``plumbing.jit_cache``), so a changed declaration never
runs stale kernels. The helpers move cards between the supply, hands, stacks and the
oven of one record ``r``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from mamma_mia_env.game.cards import (
    MAMMA_MIA,
    N_KINDS,
    N_ORDER_TYPES,
)
from mamma_mia_env.game.config import PARAMETERS, REWARD_MODES, Config
from mamma_mia_env.plumbing.jit_cache import njit

_SLOTS = [p.name for p in PARAMETERS] + ["n_play"]
#: The slot of each parameter in ``params`` (``P.strict_minimale``, ..., ``P.n_play``).
P: Any = namedtuple("ParameterSlots", _SLOTS)(*range(len(_SLOTS)))
N_PARAMS = len(_SLOTS)
REWARD_WIN_LOSS, REWARD_DELIVERED, REWARD_BOTH = (
    REWARD_MODES.index(mode) for mode in ("win_loss", "delivered", "delivered_win_loss")
)


def parameter_vector(config: Config, n_play: int) -> np.ndarray:
    """The compiled parameter table of ``config`` (its play table has ``n_play`` rows)."""
    codes = [p.code(getattr(config, p.name)) for p in PARAMETERS]
    return np.array([*codes, n_play], dtype=np.int64)


_jit = njit()


# -- small helpers ----------------------------------------------------------------------
@_jit
def hand_size(r, seat: int) -> int:
    return int(r.hand[seat].sum() + r.orders_hand[seat].sum())


@_jit
def pile_value(r, k: int) -> int:
    return int(r.piles[k] + 2 * r.piles[N_KINDS + k])


@_jit
def hand_value(r, seat: int, k: int) -> int:
    return int(r.hand[seat, k] + 2 * r.hand[seat, N_KINDS + k])


@_jit
def oven_push(r, who: int, what: int, s: int, d: int) -> None:
    i = r.oven_len
    if i < 0 or i >= r.oven_who.shape[0]:  # only a corrupt state gets here: never write past
        raise IndexError("oven_push: the oven is full (oven_len out of range; corrupt state)")
    r.oven_who[i] = who
    r.oven_what[i] = what
    r.oven_s[i] = s
    r.oven_d[i] = d
    r.oven_len = i + 1


@_jit
def stack_pop(r, seat: int) -> int:
    t = r.stack[seat, r.stack_head[seat]]
    r.stack_head[seat] = (r.stack_head[seat] + 1) % N_ORDER_TYPES
    r.stack_len[seat] -= 1
    if r.stack_known[seat] > r.stack_len[seat]:  # a failed order everyone saw go under
        r.stack_known[seat] = r.stack_len[seat]
        r.orders_shown[seat, t] = 1
    return t


@_jit
def stack_push_bottom(r, seat: int, t: int) -> None:
    """A failed order goes under its owner's stack, in everyone's sight (R4)."""
    r.stack[seat, (r.stack_head[seat] + r.stack_len[seat]) % N_ORDER_TYPES] = t
    r.stack_len[seat] += 1
    r.stack_known[seat] += 1


@_jit
def draw_supply_card(r, seat: int) -> bool:
    """Draw one ingredient card (skipping over the Mamma Mia! card); False if none left."""
    while r.supply_pos < r.supply_len:
        c = r.supply[r.supply_pos]
        r.supply_pos += 1
        if c == MAMMA_MIA:
            r.mm_holder = seat  # placed face up; the drawer at once draws a replacement
        else:
            r.hand[seat, c] += 1
            r.drawn[seat, c] += 1
            return True
    return False
