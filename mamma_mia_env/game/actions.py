"""The action codec: integers to readable tuples and strings, and back.

Actions are one ``Discrete(n_actions)`` space (docs/SPEC.md): first the joint turn
actions ``(play * 9 + order) * 2 + draw``, then the seven reveal actions. This module
owns that encoding: the compiled kernels (rules, trace, the bots) build and read turn
actions only through its helpers ``turn_index``, ``play_of``, ``order_slot_of``,
``draw_of`` and ``n_turn_actions``, and ``ActionCodec`` is the public way to build and
read them:

    >>> codec = ActionCodec(Engine(Config()))
    >>> a = codec.encode_turn(kind="salami", singles=3, order=2, draw="stack")
    >>> codec.to_str(a)
    'play 3 salami, order type 2, draw stack'
    >>> codec.from_str('play 3 salami, order type 2, draw stack') == a
    True
"""

from __future__ import annotations

import re
from typing import NamedTuple, Protocol

import numpy as np

from mamma_mia_env.game.cards import (
    DECLINE,
    DELIVER,
    DELIVER_AS,
    INGREDIENTS,
    N_KINDS,
    N_ORDER_TYPES,
    order_name,
)
from mamma_mia_env.game.record import OVER, REVEAL
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_int, is_int
from mamma_mia_env.plumbing.jit_cache import njit

DRAWS = ("supply", "stack")
N_DRAWS = len(DRAWS)
DRAW_SUPPLY, DRAW_STACK = 0, 1  # the draw part of a turn action (an index into DRAWS)
NO_ORDER = 0  # the order slot of a turn action without an order; type t is slot 1 + t
ORDER_SLOTS = N_ORDER_TYPES + 1
ACTIONS_PER_PLAY = ORDER_SLOTS * N_DRAWS  # turn actions per row of the play table


# -- the encoding, compiled (callable from Python too) -----------------------------------
@njit(inline="always")
def turn_index(play: int, order_slot: int, draw: int) -> int:
    """The turn action of play-table row ``play``, ``order_slot`` (``NO_ORDER`` or
    1 + order type) and ``draw`` (``DRAW_SUPPLY`` or ``DRAW_STACK``)."""
    return (play * ORDER_SLOTS + order_slot) * N_DRAWS + draw


@njit(inline="always")
def play_of(action: int) -> int:
    """The play-table row of turn action ``action``."""
    return action // ACTIONS_PER_PLAY


@njit(inline="always")
def order_slot_of(action: int) -> int:
    """The order slot of turn action ``action``: ``NO_ORDER`` or 1 + the order type."""
    return (action // N_DRAWS) % ORDER_SLOTS


@njit(inline="always")
def draw_of(action: int) -> int:
    """The draw of turn action ``action``: ``DRAW_SUPPLY`` or ``DRAW_STACK``."""
    return action % N_DRAWS


@njit(inline="always")
def n_turn_actions(n_play: int) -> int:
    """How many turn actions a play table of ``n_play`` rows gives; the reveal actions
    follow them."""
    return n_play * ACTIONS_PER_PLAY


class ActionSpace(Protocol):
    """What the codec reads of an ``Engine`` (a protocol: the engine imports this module)."""

    play: np.ndarray
    n_turn_actions: int
    n_actions: int


class TurnAction(NamedTuple):
    kind: str | None  # None: pass
    singles: int
    doubles: int
    order: int | None  # order type 0-7, None: no order
    draw: str  # "supply" or "stack"


class RevealAction(NamedTuple):
    choice: str  # "decline", "deliver" or "deliver_as"
    kind: str | None  # the joker / Minimale ingredient for "deliver_as"


class ActionCodec:
    """Encode and decode actions of one engine's action space."""

    def __init__(self, engine: ActionSpace) -> None:
        self.engine = engine
        self._play_index = {
            (int(k), int(s), int(d)): p for p, (k, s, d) in enumerate(engine.play) if p > 0
        }

    # -- integers <-> tuples ----------------------------------------------------------
    def decode(self, action: int) -> TurnAction | RevealAction:
        eng = self.engine
        a = as_int(action, "action")
        if not 0 <= a < eng.n_actions:
            raise ValueError(f"action {a} is outside 0-{eng.n_actions - 1}")
        if a >= eng.n_turn_actions:
            j = a - eng.n_turn_actions
            if j < DELIVER_AS:
                return RevealAction("decline" if j == DECLINE else "deliver", None)
            return RevealAction("deliver_as", INGREDIENTS[j - DELIVER_AS])
        p, order = play_of(a), order_slot_of(a)
        k, s, d = (int(v) for v in eng.play[p])
        kind = None if p == 0 else INGREDIENTS[k]
        return TurnAction(kind, s, d, None if order == NO_ORDER else order - 1, DRAWS[draw_of(a)])

    def encode_turn(
        self,
        kind: str | int | None = None,
        singles: int = 0,
        doubles: int = 0,
        order: int | None = None,
        draw: str = "supply",
    ) -> int:
        singles = as_int(singles, "singles")
        doubles = as_int(doubles, "doubles")
        if order is not None:
            order = as_int(order, "order (the order type)", 0, N_ORDER_TYPES - 1)
        if not isinstance(draw, str):
            raise ArgumentTypeError(f"draw must be 'supply' or 'stack', got {draw!r}")
        if kind is None:
            if singles or doubles:
                raise ValueError(
                    "a pass (kind=None) plays no cards: singles and doubles must be 0, got "
                    f"singles={singles}, doubles={doubles}"
                )
            p = 0
        else:
            k = _kind_index(kind, "kind")
            key = (k, singles, doubles)
            if key not in self._play_index:
                raise ValueError(
                    f"no play of {singles} singles and {doubles} doubles of {INGREDIENTS[k]}"
                    " in this action space"
                )
            p = self._play_index[key]
        if draw not in DRAWS:
            raise ValueError(f"draw must be 'supply' or 'stack', got {draw!r}")
        return int(turn_index(p, NO_ORDER if order is None else order + 1, DRAWS.index(draw)))

    def encode_reveal(self, choice: str, kind: str | int | None = None) -> int:
        base = self.engine.n_turn_actions
        if not isinstance(choice, str):
            raise ArgumentTypeError(
                f"choice must be decline, deliver or deliver_as, got {choice!r}"
            )
        if choice in ("decline", "deliver"):
            return base + (DECLINE if choice == "decline" else DELIVER)
        if choice == "deliver_as":
            if kind is None:
                raise ValueError("choice='deliver_as' needs kind (the ingredient), got None")
            return base + DELIVER_AS + _kind_index(kind, "kind")
        raise ValueError(f"reveal choice must be decline, deliver or deliver_as, got {choice!r}")

    def encode(self, action: TurnAction | RevealAction) -> int:
        if isinstance(action, TurnAction):
            return self.encode_turn(*action)
        if isinstance(action, RevealAction):
            return self.encode_reveal(*action)
        raise ArgumentTypeError(f"action must be a TurnAction or RevealAction, got {action!r}")

    # -- strings ----------------------------------------------------------------------
    def to_str(self, action: int, personal: int | None = None) -> str:
        """A readable action; with ``personal`` (the actor's seat) orders get names."""
        if personal is not None:
            personal = as_int(personal, "personal", 0, N_KINDS - 1)
        act = self.decode(action)
        if isinstance(act, RevealAction):
            if act.choice == "deliver_as":
                return f"reveal: deliver as {act.kind}"
            return f"reveal: {act.choice}"
        play = "pass"
        if act.kind is not None:
            play = f"play {act.singles} {act.kind}" if act.singles else "play"
            if act.doubles:
                play += (" +" if act.singles else "") + f" {act.doubles} double {act.kind}"
        order = "no order" if act.order is None else f"order type {act.order}"
        if act.order is not None and personal is not None:
            order += f" [{order_name(act.order, personal)}]"
        return f"{play}, {order}, draw {act.draw}"

    _TURN_RE = re.compile(
        r"^(?:pass|play(?: (?P<s>\d+) (?P<k1>[a-z]+))?(?: \+)?"
        r"(?: (?P<d>\d+) double (?P<k2>[a-z]+))?), "
        r"(?:no order|order type (?P<o>\d)(?: \[[^\]]*\])?), draw (?P<draw>supply|stack)$"
    )

    def from_str(self, text: str) -> int:
        """Parse a string produced by ``to_str`` (order names in brackets are ignored)."""
        if not isinstance(text, str):
            raise ArgumentTypeError(f"text must be a str, got {type(text).__name__}")
        t = text.strip().lower()
        if t.startswith("reveal: "):
            rest = t[len("reveal: ") :]
            if rest.startswith("deliver as "):
                return self.encode_reveal("deliver_as", rest[len("deliver as ") :])
            return self.encode_reveal(rest)
        m = self._TURN_RE.match(t)
        if not m:
            raise ValueError(f"cannot parse action {text!r}")
        if t.startswith("pass"):
            kind, s, d = None, 0, 0
        else:
            k1, k2 = m.group("k1"), m.group("k2")
            if k1 and k2 and k1 != k2:
                raise ValueError(f"one play holds one ingredient: {text!r}")
            kind = k1 or k2
            if kind is None:
                raise ValueError(f"cannot parse action {text!r}")
            s = int(m.group("s") or 0)
            d = int(m.group("d") or 0)
        o = m.group("o")
        return self.encode_turn(kind, s, d, None if o is None else int(o), m.group("draw"))


def _kind_index(kind: str | int, name: str) -> int:
    if is_int(kind):
        if not 0 <= int(kind) < N_KINDS:
            raise ValueError(f"{name}: an ingredient index must be 0-4, got {kind}")
        return int(kind)
    if not isinstance(kind, str):
        raise ArgumentTypeError(
            f"{name} must be an ingredient name or index 0-4, got {kind!r:.80} "
            f"({type(kind).__name__})"
        )
    if kind not in INGREDIENTS:
        raise ValueError(f"{name}: unknown ingredient {kind!r:.80}; one of {INGREDIENTS}")
    return INGREDIENTS.index(kind)


def describe_illegal(engine: ActionSpace, state: GameState, game: int, action: int) -> str:
    """Why ``action`` is illegal in game ``game``: the message of IllegalActionError."""
    rec = state.data[game]
    n = engine.n_actions
    if not 0 <= action < n:
        return f"outside the action space 0-{n - 1}"
    if rec["phase"] == OVER:
        return "the game is over"
    codec = ActionCodec(engine)
    act = codec.decode(action)
    seat = int(rec["seat"])
    text = codec.to_str(action, seat)
    if rec["phase"] == REVEAL:
        if isinstance(act, TurnAction):
            return f"'{text}' is a turn action but seat {seat} must make a reveal decision"
        return f"'{text}' is not one of the owner's legal reveal choices here"
    if isinstance(act, RevealAction):
        return f"'{text}' is a reveal decision but seat {seat} is taking a turn"
    hand = rec["hand"][seat]
    if act.kind is None and hand.sum() > 0:
        return f"'{text}': seat {seat} holds ingredient cards and must play at least one"
    if act.kind is not None:
        k = INGREDIENTS.index(act.kind)
        if hand[k] < act.singles or hand[N_KINDS + k] < act.doubles:
            return (
                f"'{text}': seat {seat} holds only {int(hand[k])} single and "
                f"{int(hand[N_KINDS + k])} double {act.kind}"
            )
    if act.order is not None:
        if not rec["orders_hand"][seat, act.order]:
            return f"'{text}': order type {act.order} is not in seat {seat}'s hand"
        if act.kind is None:
            return f"'{text}': a passing player plays no order (pass_may_play_order is off)"
    if act.draw == "stack":
        if rec["stack_len"][seat] == 0:
            return f"'{text}': seat {seat}'s order stack is empty"
        return f"'{text}': the hand is full after this play, so nothing is drawn (use supply)"
    return f"'{text}' is not legal here"
