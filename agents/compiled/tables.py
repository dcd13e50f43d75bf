"""The plain arrays the bot kernels read: weight vector and observation layout.

A heuristic bot reaches the kernels as numbers only: its ``Params`` (its weights, defined
here beside the vector they become) as a float64 vector (``I_*`` indices) and the offsets
of the observation sections it reads (``L_*`` indices). ``KernelBot`` bundles what the
compiled game loop needs of one bot; agents build theirs (``Agent.kernel_bot``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mamma_mia_agents.compiled.jit import T
from mamma_mia_env.game.actions import n_turn_actions
from mamma_mia_env.game.cards import play_table
from mamma_mia_env.game.observe import (
    ORDER_SLOT_FEATURES,
    SEAT_FEATURES,
    observation_slices,
    remembers,
)
from mamma_mia_env.game.record import MAX_SEATS


@dataclass(frozen=True)
class Params:
    """The weights of a heuristic bot (docs/AGENTS.md, "How the heuristic bots score");
    ``mamma_mia_agents.bots.heuristic`` exports it with the bots that use it."""

    proven: bool = False  # count only on what the oven holds whatever anyone decides
    rival_cover: float = 1.0  # rivals' orders short by this much are assumed delivered
    cover_credit: float = 0.0  # worth of an order that needs cards from hand (vs 1 if met)
    cover_cost: float = 0.0  # per unit of value the hand must add
    gamble: float = 0.0  # an order the hand cannot cover yet: cover_credit * gamble**gap
    gamble_max: float = 3.0  # ... only if the gap is at most this
    order_floor: float = 0.5  # worth of playing no order (an order must beat it)
    type_bonus: tuple[float, ...] = (0.0,) * T  # per type, added when playable
    card_cost: float = 0.0  # per ingredient card played
    build: float = 0.0  # per unit played of an ingredient our orders still need
    drain: float = 0.0  # per unit played of an ingredient rivals need (as a penalty)
    drain_take: float = 0.0  # per unit our order takes of what rivals need (a bonus)
    reserve_penalty: float = 2.0  # per unit of reserved hand value played away
    keep: float = 0.0  # per unit played of what our orders in hand need
    target_orders: float = 2.0  # orders wanted in hand after drawing
    orders_weight: float = 0.1  # squared distance from target_orders
    min_cards: float = 3.0  # ingredient cards wanted in hand after drawing
    cards_weight: float = 0.3  # per card below min_cards
    tempo: float = 0.0  # per supply card drawn (> 0: hurry the round's end)
    stack_w: float = 0.5  # weight of orders in the stack in our demand
    forget: float = 0.5  # (no memory) share of the guessed oven counted on


# -- the parameter vector (Params as float64) ---------------------------------------------------
(
    I_PROVEN, I_RIVAL_COVER, I_COVER_CREDIT, I_COVER_COST, I_GAMBLE, I_GAMBLE_MAX,
    I_ORDER_FLOOR,
) = range(7)  # fmt: skip
I_TYPE_BONUS = 7  # 8 values
(
    I_CARD_COST, I_BUILD, I_DRAIN, I_DRAIN_TAKE, I_RESERVE_PENALTY, I_KEEP, I_TARGET_ORDERS,
    I_ORDERS_WEIGHT, I_MIN_CARDS, I_CARDS_WEIGHT, I_TEMPO, I_STACK_W, I_FORGET,
) = range(15, 28)  # fmt: skip
N_PRM = 28

# -- the observation layout vector --------------------------------------------------------------
(
    L_N, L_MEMORY, L_DOUBLES, L_NTURN, L_NPLAY, L_HAND, L_OH, L_OS, L_SEATS, L_DELIV,
    L_PILES, L_SUPPLY, L_PENDING_TYPE, L_TOT, L_OO,
) = range(15)  # fmt: skip
N_LAYOUT = 15

# -- inside the sections: a seat's features, an order slot's features ------------------------
SEAT_WIDTH = len(SEAT_FEATURES)
SEAT_HAND_SIZE = SEAT_FEATURES.index("hand_size")  # ingredient cards and orders
SEAT_ORDERS = SEAT_FEATURES.index("orders_in_hand")
SEAT_STACK = SEAT_FEATURES.index("stack_size")
SEAT_MM = SEAT_FEATURES.index("mm_holder")
OO_WIDTH = ORDER_SLOT_FEATURES
OO_PRESENT, OO_INDEX, OO_BEFORE = 0, 1, 2  # in the oven; its oven index; the value before it


def params_vector(params: Params) -> np.ndarray:
    """A ``Params`` as the float64 vector the kernels read (``I_*`` indices)."""
    prm = np.zeros(N_PRM, np.float64)
    prm[I_PROVEN] = float(params.proven)
    prm[I_RIVAL_COVER] = params.rival_cover
    prm[I_COVER_CREDIT] = params.cover_credit
    prm[I_COVER_COST] = params.cover_cost
    prm[I_GAMBLE] = params.gamble
    prm[I_GAMBLE_MAX] = params.gamble_max
    prm[I_ORDER_FLOOR] = params.order_floor
    if len(params.type_bonus) != T:
        raise ValueError(f"Params.type_bonus needs {T} values, got {len(params.type_bonus)}")
    prm[I_TYPE_BONUS : I_TYPE_BONUS + T] = params.type_bonus
    prm[I_CARD_COST] = params.card_cost
    prm[I_BUILD] = params.build
    prm[I_DRAIN] = params.drain
    prm[I_DRAIN_TAKE] = params.drain_take
    prm[I_RESERVE_PENALTY] = params.reserve_penalty
    prm[I_KEEP] = params.keep
    prm[I_TARGET_ORDERS] = params.target_orders
    prm[I_ORDERS_WEIGHT] = params.orders_weight
    prm[I_MIN_CARDS] = params.min_cards
    prm[I_CARDS_WEIGHT] = params.cards_weight
    prm[I_TEMPO] = params.tempo
    prm[I_STACK_W] = params.stack_w
    prm[I_FORGET] = params.forget
    if not np.isfinite(prm).all():
        raise ValueError(f"heuristic parameters must be finite, got {params}")
    return prm


def layout_vector(num_players: int, mode: str, doubles: bool) -> np.ndarray:
    """Offsets of the observation sections the kernels read (``L_*`` indices).

    The kernels loop over the game's ``num_players`` seats of the ``MAX_SEATS`` seat
    slots; ``top_card`` has no oven history, used stack or own stack (offset -1)."""
    s = observation_slices(mode)
    memory = remembers(mode)
    n_play = int(play_table(doubles).shape[0])
    lay = np.zeros(N_LAYOUT, np.int64)
    lay[L_N] = num_players
    lay[L_MEMORY] = int(memory)
    lay[L_DOUBLES] = int(doubles)
    lay[L_NTURN] = n_turn_actions(n_play)
    lay[L_NPLAY] = n_play
    lay[L_HAND] = s["hand"].start
    lay[L_OH] = s["orders_in_hand"].start
    lay[L_OS] = s["orders_in_stack"].start if memory else -1
    lay[L_SEATS] = s["seats"].start
    lay[L_DELIV] = s["delivered"].start
    lay[L_PILES] = s["piles"].start
    lay[L_SUPPLY] = s["supply_size"].start
    # the pending order's type one-hot, after its owner's (one flag per seat slot)
    lay[L_PENDING_TYPE] = s["pending_order"].start + MAX_SEATS
    lay[L_TOT] = s["oven_totals"].start if memory else -1
    lay[L_OO] = s["oven_orders"].start if memory else -1
    return lay


@dataclass(frozen=True, eq=False)
class KernelBot:
    """One bot as the compiled game loop (``playout.play_out``) plays it.

    ``prm``: the weights (``params_vector``), ``remembers``: it reads the ``fixed``
    observation (else ``top_card``). ``prm is None`` is the uniform random policy
    (``RANDOM_POLICY``).
    """

    prm: np.ndarray | None = None
    remembers: bool = True

    @property
    def is_random(self) -> bool:
        return self.prm is None


#: The uniform random policy of the compiled loop (its own SplitMix64 stream).
RANDOM_POLICY = KernelBot()


def heuristic_bot(params: Params, observation_mode: str) -> KernelBot:
    """The ``KernelBot`` of a heuristic bot with ``params``."""
    return KernelBot(params_vector(params), remembers(observation_mode))
