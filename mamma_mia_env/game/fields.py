"""The observations, named: ``observation_fields(mode)`` lists the parts of a mode's
observation and ``decode(obs)`` cuts an observation (or a batch) of either mode into them.

A network sees a flat uint8 vector; a person debugging it, a feature extractor or a
test wants "the hand by ingredient" or "what seat slot 2 has delivered". Both read the
one layout of ``observe.observation_layout`` (this module adds names, shapes, value
ranges and meanings, never another layout), and docs/ENV.md's table of the
observation is generated from ``observation_fields()`` (``python -m experiments docs``).

    >>> from mamma_mia_env import Config, Engine
    >>> from mamma_mia_env.game.fields import decode
    >>> eng = Engine(Config(num_players=3, observation_mode="fixed"))
    >>> parts = decode(eng.observe(eng.reset(seeds=[1, 2])))
    >>> parts["hand"].shape, parts["seat_hand_size"].shape  # (games, single/double, kind)
    ((2, 2, 5), (2, 5))

Seat slot j is the seat j places after the observer (slot 0: the observer); slots N to
4 are empty (``seat_present`` 0). Card counts are ``[single, double] x ingredient``
(ingredient order: ``cards.INGREDIENTS``). The value bounds follow from the deck (13
cards of each ingredient, 2 of them doubles with the expansion), the 8 order types and
the oven's and supply's capacities, so every one is at most 255: a uint8 holds each
value exactly (``tests/game/test_fields.py`` checks the bounds over whole games).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mamma_mia_env.game.cards import (
    CARDS_PER_KIND,
    DOUBLES_PER_KIND,
    N_KINDS,
    N_ORDER_TYPES,
    OVEN_CAPACITY,
    SUPPLY_CAPACITY,
)
from mamma_mia_env.game.observe import (
    ORDER_SLOT_FEATURES,
    SEAT_FEATURES,
    observation_layout,
    observation_slices,
)
from mamma_mia_env.game.record import MAX_SEATS
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_array

S, K, T = MAX_SEATS, N_KINDS, N_ORDER_TYPES
CARDS = (2, K)  # [single, double] x ingredient
VALUE_HIGH = CARDS_PER_KIND + DOUBLES_PER_KIND  # an ingredient's value: singles + 2 x doubles
HAND_HIGH = K * CARDS_PER_KIND + T  # every ingredient card and every order card


@dataclass(frozen=True)
class Field:
    """One named part of an observation: every value is in ``0..high``."""

    name: str
    shape: tuple[int, ...]
    high: int
    meaning: str
    section: str  # the layout section (``observe.observation_layout``) it is read from
    section_shape: tuple[int, ...]  # the section reshaped so that ``index`` picks the field
    index: tuple[Any, ...]  # applied after the batch axes


def _field(name: str, high: int, meaning: str, section: str = "", shape=None, index=()) -> Field:
    """A field; by default the whole section of its name, of ``shape`` (flat if None)."""
    section = section or name
    size = dict(observation_layout("fixed") + observation_layout("top_card"))[section]
    full = tuple(shape) if shape is not None else (size,)
    picked = np.zeros(full)[(Ellipsis, *index)].shape
    return Field(name, picked, high, meaning, section, full, tuple(index))


_SEAT_MEANINGS = {
    "hand_size": "cards in hand, ingredient and order cards",
    "orders_in_hand": "order cards in hand",
    "stack_size": "order cards in the order stack",
    "delivered": "orders delivered",
    "mm_holder": "1 if it holds the Mamma Mia! card",
    "to_act": "1 if it is to act",
}
_SEAT_HIGHS = {"hand_size": HAND_HIGH, "mm_holder": 1, "to_act": 1}


def _fields() -> tuple[Field, ...]:
    seats = [
        _field(
            f"seat_{feature}",
            _SEAT_HIGHS.get(feature, T),
            f"per seat slot: {_SEAT_MEANINGS[feature]}",
            "seats",
            (S, len(SEAT_FEATURES)),
            (k,),
        )
        for k, feature in enumerate(SEAT_FEATURES)
    ]
    oven_orders = (S, T, ORDER_SLOT_FEATURES)
    return (
        _field("seat_present", 1, "per seat slot: 1 if it holds a seat (slots 0 to N-1)"),
        _field("hand", CARDS_PER_KIND, "own ingredient cards", shape=CARDS),
        _field("orders_in_hand", 1, "per order type: 1 if in the own hand"),
        _field("orders_in_stack", 1, "per order type: 1 if in the own order stack"),
        *seats,
        _field("delivered", 1, "per seat slot and order type: 1 if delivered", shape=(S, T)),
        _field("piles", CARDS_PER_KIND, "cards on the face-up piles", shape=CARDS),
        _field("used", CARDS_PER_KIND, "cards on this round's used stack", shape=CARDS),
        _field("supply_size", SUPPLY_CAPACITY, "cards left in the supply", index=(0,)),
        _field("round", 1, "one-hot: the round (0-2)"),
        _field("phase", 1, "one-hot: taking a turn, making a reveal decision"),
        _field(
            "pending_owner",
            1,
            "in a reveal decision: the order's owner, one-hot by seat slot",
            "pending_order",
            index=(slice(0, S),),
        ),
        _field(
            "pending_type",
            1,
            "in a reveal decision: the order's type, one-hot",
            "pending_order",
            index=(slice(S, S + T),),
        ),
        _field("oven_totals", CARDS_PER_KIND, "cards played into the oven this round", shape=CARDS),
        _field(
            "oven_by_seat",
            VALUE_HIGH,
            "per seat slot and ingredient: value played into the oven this round",
            shape=(S, K),
        ),
        _field(
            "oven_order_played",
            1,
            "per seat slot and order type: 1 if in the oven this round",
            "oven_orders",
            oven_orders,
            (0,),
        ),
        _field(
            "oven_order_index",
            OVEN_CAPACITY - 1,
            "per seat slot and order type: its place in the oven (0: first card)",
            "oven_orders",
            oven_orders,
            (1,),
        ),
        _field(
            "oven_value_before",
            VALUE_HIGH,
            "per seat slot, order type and ingredient: value in the oven before that order",
            "oven_orders",
            oven_orders,
            (slice(2, 2 + K),),
        ),
        _field("oven_len", OVEN_CAPACITY, "cards in the oven", "oven_progress", (2,), (0,)),
        _field("reveal_pos", OVEN_CAPACITY, "oven cards revealed", "oven_progress", (2,), (1,)),
        _field("personal", 1, "one-hot: the observer's personal ingredient (= its seat)"),
    )


def _top_card_fields() -> tuple[Field, ...]:
    """The ``top_card`` section: the oven's top card (all zero when the oven is empty
    and during a reveal, as the kernel writes it)."""
    top = (S + K + T + 2,)
    parts = (
        ("owner", 1, "who played it, one-hot by seat slot", slice(0, S)),
        ("ingredient", 1, "its ingredient, one-hot", slice(S, S + K)),
        ("order", 1, "its order type, one-hot", slice(S + K, S + K + T)),
        ("singles", CARDS_PER_KIND, "its single cards", S + K + T),
        ("doubles", DOUBLES_PER_KIND, "its double cards", S + K + T + 1),
    )
    return tuple(
        _field(f"top_card_{name}", high, f"the oven's top card: {meaning}", "top_card", top, (at,))
        for name, high, meaning, at in parts
    )


def _mode_fields(mode: str) -> tuple[Field, ...]:
    """The fields of ``mode``'s layout, in layout order."""
    sections = [name for name, _ in observation_layout(mode)]
    every = _fields()[:-1] + _top_card_fields() + _fields()[-1:]
    kept = [f for f in every if f.section in sections]
    return tuple(sorted(kept, key=lambda f: sections.index(f.section)))


_FIELDS = {mode: _mode_fields(mode) for mode in ("fixed", "top_card")}
_SLICES = {mode: observation_slices(mode) for mode in _FIELDS}
_SIZES = {_SLICES[mode]["personal"].stop: mode for mode in _FIELDS}
SIZE = _SLICES["fixed"]["personal"].stop


def observation_fields(mode: str = "fixed") -> tuple[Field, ...]:
    """Every part of the ``mode`` observation (``fixed`` or ``top_card``), in layout
    order: name, shape, value range ``0..high`` and meaning (docs/ENV.md's table is made
    from these)."""
    if mode not in _FIELDS:
        raise ValueError(f"mode must be one of {tuple(_FIELDS)}, got {mode!r}")
    return _FIELDS[mode]


def decode(obs: Any) -> dict[str, np.ndarray]:
    """Cut observations into named, shaped arrays (the mode is told by the size).

    ``obs``: one observation ``(462,)`` (``fixed``; ``top_card``: 147) or a batch
    ``(..., size)`` of raw values (uint8 as the envs give them, or any integer or float
    copy; not ``normalize``-d ones). Returns ``{name: array of shape (*batch,
    *field.shape)}`` in the order of ``observation_fields(mode)``, views of ``obs`` (no
    copy where numpy can make a view). A canonical view (``SeatCanonicalizer``) decodes
    the same way, its ingredients relabelled.
    """
    arr = as_array(obs, "obs")
    if arr.dtype.kind not in "uif":
        raise ArgumentTypeError(f"obs must hold numbers, got dtype {arr.dtype}")
    sizes = " or ".join(f"{size} ({mode})" for size, mode in _SIZES.items())
    if arr.ndim < 1 or arr.shape[-1] not in _SIZES:
        raise ValueError(
            f"obs must be observations of {sizes} values (last axis), got shape {arr.shape}"
        )
    lead, mode = arr.shape[:-1], _SIZES[arr.shape[-1]]
    out = {}
    for f in _FIELDS[mode]:
        section = arr[..., _SLICES[mode][f.section]].reshape(*lead, *f.section_shape)
        out[f.name] = section[(Ellipsis, *f.index)]
    return out
