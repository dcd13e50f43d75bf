"""Build any position from a readable description, to study it or to test a bot on it.

A description is a plain dict (JSON-friendly). Every key is optional; cards that the
description does not place go, by default, to the supply (ingredients and the Mamma
Mia! card) and to the bottom of their owner's order stack (orders), so a
description need only name what matters:

    {
      "config": {"num_players": 4},          # or pass a Config to build_position
      "seat": 3,                             # seat to act (default 0)
      "round": 0,                            # 0, 1 or 2
      "hands": {"3": {"salami": 3, "olive": 3}},      # per seat; "double olive": 1 ...
      "orders_in_hand": {"3": [0]},          # order types (docs/SPEC.md, Numbering)
      "stacks": {"3": [5, 6, 7]},            # top first; the given list is the whole stack
      "delivered": {"0": [1, 2]},
      "piles": {"pepper": 1, "salami": 2, "pineapple": 3, "mushroom": 4},
      "used": {},
      "oven": [[3, "3 salami"], [3, "order 0"], [1, "1 double olive"]],
      "supply": ["olive", "mamma_mia", "salami"],   # top first; the whole supply
      "mm_holder": null,
      "turns": 0, "idle": 0, "seed": 0,     # seed: generator state for later shuffles
      "reveal": false                        # true: turn the oven over now
    }

When "supply" or a seat's "stacks" entry is given it is the whole pile, and cards
placed nowhere are an error (naming them): the position must hold every card once.
When omitted, the unplaced cards fill it in canonical order (see docs/ENV.md).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from mamma_mia_env.game import kernels
from mamma_mia_env.game.cards import (
    INGREDIENTS,
    MAMMA_MIA,
    N_CARD_TYPES,
    N_KINDS,
    N_ORDER_TYPES,
    SUPPLY_CAPACITY,
    card_name,
    deck_counts,
)
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.consistency import TURNS_LIMIT
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.record import PLAY
from mamma_mia_env.game.state import GameState, StateError, check_state
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_int
from mamma_mia_env.plumbing.files import FileError, read_json

_KEYS = {
    "config",
    "seat",
    "round",
    "hands",
    "orders_in_hand",
    "stacks",
    "delivered",
    "piles",
    "used",
    "oven",
    "supply",
    "mm_holder",
    "turns",
    "idle",
    "seed",
    "reveal",
}


def card_code(name: str, where: str = "card") -> int:
    """'salami' -> 0, 'double salami' -> 5, 'mamma_mia' -> 10; an error names ``where``
    the name was read (``piles``, ``hands[2]``, ...)."""
    if not isinstance(name, str):
        raise StateError(f"{where}: a card is named by a string, got {name!r:.80}")
    text = name.strip().lower()
    if text in ("mamma_mia", "mamma mia", "mamma mia!"):
        return MAMMA_MIA
    if text.startswith("double "):
        return N_KINDS + _kind(text[len("double ") :], where)
    return _kind(text, where)


def _kind(name: str, where: str) -> int:
    if name not in INGREDIENTS:
        raise StateError(f"{where}: unknown ingredient {name!r:.80}; one of {INGREDIENTS}")
    return INGREDIENTS.index(name)


def _per_seat(desc: dict, key: str, n: int) -> dict[int, Any]:
    raw = desc.get(key, {})
    if isinstance(raw, list):
        raw = dict(enumerate(raw))
    if not isinstance(raw, dict):
        raise StateError(f"'{key}' must map seats to values")
    out = {}
    for seat, value in raw.items():
        where = f"'{key}' seat"
        s = _digits(seat, where) if isinstance(seat, str) else _int(seat, where)
        if not 0 <= s < n:
            raise StateError(f"'{key}': seat {s} is not in 0-{n - 1}")
        if s in out:
            raise StateError(f"'{key}': seat {s} is given twice")
        out[s] = value
    return out


def _counts(spec: Any, where: str) -> np.ndarray:
    counts = np.zeros(N_CARD_TYPES, dtype=np.int64)
    if not isinstance(spec, dict):
        raise StateError(f"{where} must map card names to counts")
    for name, count in spec.items():
        c = card_code(name, where)
        if c == MAMMA_MIA:
            raise StateError(f"{where}: the Mamma Mia! card is placed with 'mm_holder'/'supply'")
        count = _int(count, f"{where}[{name!r}]")
        if count < 0:
            raise StateError(f"{where}: negative count for {name}")
        if count > SUPPLY_CAPACITY:
            raise StateError(
                f"{where}: {count} {name} cards; the game has at most {SUPPLY_CAPACITY}"
            )
        counts[c] += count
    return counts


def _int(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    try:
        return as_int(value, where, lo, hi)
    except ValueError as exc:
        raise StateError(str(exc)) from None


def _digits(text: str, where: str) -> int:
    """A whole number written in a string ("3 salami", seat keys of JSON objects)."""
    if not (isinstance(text, str) and text.isascii() and text.isdigit()):
        raise StateError(f"{where}: expected a whole number, got {text!r}")
    return int(text)


def _list(value: Any, where: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise StateError(f"{where} must be a list, got {type(value).__name__}")
    return list(value)


def _parse_oven_entry(entry: Any, i: int, n: int) -> tuple[int, int, int, int]:
    if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
        raise StateError(f"oven[{i}] must be [seat, 'N ingredient' | 'order T']")
    if not isinstance(entry[1], str):
        raise StateError(f"oven[{i}]: the play must be a string, got {entry[1]!r}")
    seat, text = _int(entry[0], f"oven[{i}] seat"), entry[1].strip().lower()
    if not 0 <= seat < n:
        raise StateError(f"oven[{i}]: seat {seat} is not in 0-{n - 1}")
    if text.startswith("order "):
        if len(text.split()) != 2:
            raise StateError(f"oven[{i}]: cannot read {text!r} (e.g. 'order 2')")
        return seat, N_KINDS + _digits(text.split()[1], f"oven[{i}] order type"), 0, 0
    words = text.split()
    if len(words) == 2:
        return seat, _kind(words[1], f"oven[{i}]"), _digits(words[0], f"oven[{i}] count"), 0
    if len(words) == 3 and words[1] == "double":
        return seat, _kind(words[2], f"oven[{i}]"), 0, _digits(words[0], f"oven[{i}] count")
    raise StateError(f"oven[{i}]: cannot read {text!r} (e.g. '3 salami', '1 double olive')")


def build_position(description: dict, config: Config | None = None) -> GameState:
    """A batch of one game in the described position (validated: every card once); a
    number that is not an int (or a seat's digit string) is refused, never rounded."""
    if not isinstance(description, dict):
        raise StateError(f"a position description is a dict, got {type(description).__name__}")
    unknown = sorted(set(description) - _KEYS, key=str)
    if unknown:
        raise StateError(f"unknown position keys {unknown}; known: {sorted(_KEYS)}")
    config = _config(description, config)
    reveal = description.get("reveal", False)
    if not isinstance(reveal, bool):
        raise StateError(f"'reveal' must be true or false, got {reveal!r}")
    state = GameState.empty(config, 1)
    r = state.data[0]
    b = _Builder(config, r)
    for section in (b.scalars, b.cards, b.orders, b.oven, b.stacks, b.supply):
        section(description)
    state.data[0] = r

    problems = check_state(state)
    if problems:
        raise StateError("position is inconsistent: " + "; ".join(problems))
    if (state.data["supply_len"] == 0).any() and not reveal:
        raise StateError("supply: empty during play (the round would already have ended)")
    if reveal:
        engine = Engine(config)
        delivered = np.zeros((1, config.num_players), dtype=np.int32)
        kernels.begin_reveal(state.data, engine.params, engine.need, delivered)
    return state


def load_position(path: str | os.PathLike[str], config: Config | None = None) -> GameState:
    """``build_position`` of the description in a JSON file; every refusal is a
    ``StateError`` starting with the file's name."""
    try:
        description = read_json(path, "position")
    except FileError as exc:
        raise StateError(str(exc)) from None
    try:
        return build_position(description, config)
    except ValueError as exc:  # StateError, and ConfigError from the 'config' field
        raise StateError(f"{os.fspath(path)}: {exc}") from None


def _config(description: dict, config: Config | None) -> Config:
    """The given config, or the description's ``config`` dict read as one."""
    if config is None:
        cfg = description.get("config", {})
        if not isinstance(cfg, dict):
            raise StateError(f"'config' must be a dict of Config fields, got {cfg!r}")
        try:
            return Config.from_kwargs(**cfg)
        except TypeError as exc:  # non-string keys
            raise StateError(f"'config': {exc}") from None
    if not isinstance(config, Config):
        raise ArgumentTypeError(f"config must be a Config, got {type(config).__name__}")
    return config


class _Builder:
    """Fills one record from a description, section by section, keeping count of the
    cards not placed yet (``remaining``) and each seat's orders not placed yet, so a
    card placed twice is named where it happens."""

    def __init__(self, config: Config, r: np.void) -> None:
        self.config, self.r, self.n = config, r, config.num_players
        self.remaining = deck_counts(self.n, config.double_ingredients).astype(np.int64)
        self.orders_left = [set(range(N_ORDER_TYPES)) for _ in range(self.n)]

    def place(self, counts: np.ndarray, where: str) -> None:
        self.remaining = self.remaining - counts
        if (self.remaining < 0).any():
            c = int(np.flatnonzero(self.remaining < 0)[0])
            raise StateError(f"{where}: more {card_name(c)} cards than the game has")

    def take_order(self, seat: int, t: int, where: str) -> None:
        if not 0 <= t < N_ORDER_TYPES:
            raise StateError(f"{where}: order type {t} is not in 0-7")
        if t not in self.orders_left[seat]:
            raise StateError(f"{where}: seat {seat}'s order {t} is placed twice")
        self.orders_left[seat].discard(t)

    def scalars(self, description: dict) -> None:
        r, n, config = self.r, self.n, self.config
        seed = _int(description.get("seed", 0), "'seed'", 0, 2**64 - 1)
        r["seed"] = seed
        r["rng"] = seed
        r["round"] = _int(description.get("round", 0), "'round'", 0, 2)
        r["seat"] = _int(description.get("seat", 0), "'seat'", 0, n - 1)
        r["last_seat"] = (int(r["seat"]) + n - 1) % n
        turns_limit = config.max_turns - 1 if config.max_turns is not None else TURNS_LIMIT
        r["turns"] = _int(description.get("turns", 0), "'turns'", 0, turns_limit)
        r["idle"] = _int(description.get("idle", 0), "'idle'", 0, 127)
        r["phase"] = PLAY
        holder = description.get("mm_holder")
        r["mm_holder"] = -1 if holder is None else _int(holder, "'mm_holder'", 0, n - 1)

    def cards(self, description: dict) -> None:
        r = self.r
        for seat, spec in _per_seat(description, "hands", self.n).items():
            counts = _counts(spec, f"hands[{seat}]")
            self.place(counts, f"hands[{seat}]")
            r["hand"][seat] = counts
        for key in ("piles", "used"):
            r[key] = _counts(description.get(key, {}), key)
            self.place(r[key].astype(np.int64), key)

    def orders(self, description: dict) -> None:
        for key, field in (("orders_in_hand", "orders_hand"), ("delivered", "delivered")):
            for seat, types in _per_seat(description, key, self.n).items():
                for t in _list(types, f"{key}[{seat}]"):
                    t = _int(t, f"{key}[{seat}]")
                    self.take_order(seat, t, f"{key}[{seat}]")
                    self.r[field][seat, t] = 1

    def oven(self, description: dict) -> None:
        r = self.r
        oven = _list(description.get("oven", []), "'oven'")
        if len(oven) > r["oven_who"].shape[0]:
            raise StateError("oven: too many entries")
        for i, entry in enumerate(oven):
            seat, what, s, d = _parse_oven_entry(entry, i, self.n)
            if what >= N_KINDS:
                self.take_order(seat, what - N_KINDS, f"oven[{i}]")
            else:
                counts = np.zeros(N_CARD_TYPES, dtype=np.int64)
                counts[what] += s
                counts[N_KINDS + what] += d
                if s + d == 0:
                    raise StateError(f"oven[{i}]: an ingredient entry holds at least one card")
                self.place(counts, f"oven[{i}]")
            r["oven_who"][i], r["oven_what"][i], r["oven_s"][i], r["oven_d"][i] = seat, what, s, d
        r["oven_len"] = len(oven)

    def stacks(self, description: dict) -> None:
        r = self.r
        stacks = _per_seat(description, "stacks", self.n)
        for seat in range(self.n):
            if seat in stacks:
                given = _list(stacks[seat], f"stacks[{seat}]")
                types = [_int(t, f"stacks[{seat}]") for t in given]
                for t in types:
                    self.take_order(seat, t, f"stacks[{seat}]")
                if self.orders_left[seat]:
                    raise StateError(
                        f"seat {seat}'s orders {sorted(self.orders_left[seat])} are placed nowhere"
                    )
            else:
                types = sorted(self.orders_left[seat])
            r["stack"][seat, : len(types)] = types
            r["stack_head"][seat] = 0
            r["stack_len"][seat] = len(types)

    def supply(self, description: dict) -> None:
        r, remaining = self.r, self.remaining
        if "supply" in description:
            supply = _list(description["supply"], "'supply'")
            cards = [card_code(c, f"supply[{j}]") for j, c in enumerate(supply)]
            ingredients = [c for c in cards if c != MAMMA_MIA]
            self.place(np.bincount(ingredients, minlength=N_CARD_TYPES), "supply")
            remaining = self.remaining
            if remaining.any():
                c = int(np.flatnonzero(remaining)[0])
                raise StateError(
                    f"supply: {int(remaining[c])} {card_name(c)} card(s) are placed nowhere (a "
                    "given 'supply' is the whole supply)"
                )
        else:
            cards = [c for c in range(N_CARD_TYPES) for _ in range(int(remaining[c]))]
            if r["mm_holder"] < 0:
                cards.append(MAMMA_MIA)
        if len(cards) > r["supply"].shape[0]:
            raise StateError("supply: too many cards")
        r["supply"][: len(cards)] = cards
        r["supply_len"] = len(cards)
        r["supply_pos"] = 0
