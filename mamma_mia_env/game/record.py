"""The game record's layout (below everything that reads a record) and the phase codes."""

from __future__ import annotations

import numpy as np

from mamma_mia_env.game.cards import N_CARD_TYPES, N_ORDER_TYPES, OVEN_CAPACITY, SUPPLY_CAPACITY

PLAY, REVEAL, OVER = 0, 1, 2
PHASE_NAMES = ("play", "reveal", "over")
MAX_SEATS = 5


def state_dtype() -> np.dtype:
    """The record layout (docs/ENV.md); per-seat fields have room for five seats (unused
    ones stay zero), so one compiled kernel serves every player count."""
    n = MAX_SEATS
    return np.dtype(
        [
            ("seed", np.uint64),  # the seed this game was dealt from
            ("rng", np.uint64),  # SplitMix64 state
            ("hand", np.int8, (n, N_CARD_TYPES)),  # ingredient cards per seat and type
            ("orders_hand", np.int8, (n, N_ORDER_TYPES)),  # 1 = order type in hand
            ("stack", np.int8, (n, N_ORDER_TYPES)),  # order stacks, circular buffers
            ("stack_head", np.int8, (n,)),
            ("stack_len", np.int8, (n,)),
            # public facts of the stacks (everyone saw them): the bottom stack_known
            # entries are failed orders, in the order they went under; orders_shown[s, t]
            # = 1: order t is in seat s's hand, drawn from that known bottom
            ("stack_known", np.int8, (n,)),
            ("orders_shown", np.int8, (n, N_ORDER_TYPES)),
            ("delivered", np.int8, (n, N_ORDER_TYPES)),
            ("supply", np.int8, (SUPPLY_CAPACITY,)),  # card codes, index supply_pos is top
            ("supply_pos", np.int16),
            ("supply_len", np.int16),
            # this round's supply as the seats know it: the used cards it was made of
            # (public, per type) and how many unseen cards it held besides (all of them
            # in round 1; the old supply's rest when the idle guard ended the round)
            ("round_supply", np.int8, (N_CARD_TYPES,)),
            ("round_unseen", np.int8),
            # this round: the cards each seat drew from the supply (its own secret) and
            # put out, in the oven or from its hand in the reveal (public), per type
            ("drawn", np.int8, (n, N_CARD_TYPES)),
            ("played", np.int8, (n, N_CARD_TYPES)),
            # ... of them, put out before the seat's first draw of the round (public: they
            # came from the hand it held at the round's start)
            ("played_early", np.int8, (n, N_CARD_TYPES)),
            ("piles", np.int16, (N_CARD_TYPES,)),  # face-up piles per card type
            ("used", np.int16, (N_CARD_TYPES,)),  # this round's used stack
            ("oven_who", np.int8, (OVEN_CAPACITY,)),
            ("oven_what", np.int8, (OVEN_CAPACITY,)),  # 0-4 ingredient, 5+t order type t
            ("oven_s", np.int8, (OVEN_CAPACITY,)),  # singles in an ingredient entry
            ("oven_d", np.int8, (OVEN_CAPACITY,)),  # doubles in an ingredient entry
            ("oven_len", np.int16),
            ("reveal_pos", np.int16),
            ("mm_holder", np.int8),  # -1: the Mamma Mia! card is in the supply
            ("round", np.int8),
            ("phase", np.int8),
            ("seat", np.int8),  # seat to act (the order's owner in a reveal decision)
            ("last_seat", np.int8),  # seat that took the last play turn
            ("idle", np.int8),  # consecutive turns in which no card moved
            ("turns", np.int32),
            ("terminated", np.bool_),
            ("truncated", np.bool_),
            ("rewards", np.float32, (n,)),  # rewards produced by the last step
        ]
    )
