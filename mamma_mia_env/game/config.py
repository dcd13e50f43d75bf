"""The game and environment configuration: every parameter declared once, validated once.

Each field of ``Config`` is the one declaration of a game parameter (name, type, default,
and given to ``parameter(...)`` the values it takes, its help, its rule in docs/RULES.md
and that rule's sources). ``PARAMETERS`` reads the declarations back, and from them
follow the validation below, the compiled parameter table (``game.table.P``), the
command-line flags (``mamma_mia_agents.cli.options``) and the tables of docs/RULES.md and
docs/ENV.md (kept current by ``tests/game/test_parameters.py``). So a new boolean rule
variant is one field here, the rule code that reads ``params[P.<name>]`` and a test.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

OBSERVATION_MODES = ("fixed", "top_card")
REWARD_MODES = ("win_loss", "delivered", "delivered_win_loss")
MAX_TURNS_LIMIT = 2**31 - 2  # the turn counter is 32-bit
KINDS = ("size", "variant", "limit", "option")


class ConfigError(ValueError):
    """A configuration value is unknown or out of range; the message names the field."""


def parameter(
    default: Any,
    *,
    help: str,
    rule: str = "",
    sources: str = "",
    kind: str = "variant",
    allowed: tuple[Any, ...] | range | None = None,
) -> Any:
    """Declare a ``Config`` field as a game parameter of ``kind`` ``"size"``, ``"variant"``
    (a rule every command that starts a game offers), ``"limit"`` (how a game is
    bounded) or ``"option"`` (not a rule: what the agents are shown and paid)."""
    meta = {"help": help, "rule": rule, "sources": sources, "kind": kind, "allowed": allowed}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Config:
    """Rules (docs/RULES.md) and environment options; each field is also a keyword
    argument of ``mamma_mia_env.env(...)``."""

    num_players: int = parameter(
        4,
        kind="size",
        allowed=range(2, 6),
        rule="C2",
        help="number of players; the deck size follows",
    )
    mamma_mia_in_deal: bool = parameter(
        False,
        rule="S2",
        sources="early EN, NL, ZH-b",
        help="the Mamma Mia! card is shuffled in before dealing",
    )
    pass_may_play_order: bool = parameter(
        False,
        rule="T2",
        sources="early EN, ZH",
        help="a player who passes may still play an order",
    )
    strict_minimale: bool = parameter(
        False,
        rule="R7",
        sources="no text: all leave P out",
        help="Minimale's minimum is taken over all non-empty piles, P included",
    )
    double_ingredients: bool = parameter(
        False, rule="D1-D4", sources="ES", help="the Spanish double-ingredients expansion"
    )
    random_start_player: bool = parameter(
        False,
        rule="S4",
        sources="the texts leave it to the table",
        help="round 1's start player is drawn from the seed instead of seat 0",
    )
    auto_reveal: bool = parameter(
        False,
        rule="R8",
        sources="the texts leave the choices to the owner",
        help="the owner's reveal choices are made by the automatic policy",
    )
    idle_cycle_guard: bool = parameter(
        True,
        kind="limit",
        rule="M3",
        sources="house rule",
        help="a whole cycle of turns without a moved card ends the round; off needs max_turns",
    )
    max_turns: int | None = parameter(
        None,
        kind="limit",
        allowed=range(1, MAX_TURNS_LIMIT + 1),
        rule="M4",
        help="truncate the game after this many play turns; None: never",
    )
    observation_mode: str = parameter(
        "fixed",
        kind="option",
        allowed=OBSERVATION_MODES,
        rule="I3",
        help="what an observation shows of the oven: every card (fixed) or the top one "
        "(top_card); both uint8, one size for 2-5 players",
    )
    reward_mode: str = parameter(
        "win_loss",
        kind="option",
        allowed=REWARD_MODES,
        rule="E4",
        help="the reward: the win (+1/0/-1), delivered orders, or both",
    )

    def __post_init__(self) -> None:
        for p in PARAMETERS:
            object.__setattr__(self, p.name, p.check(getattr(self, p.name)))
        if not self.idle_cycle_guard and self.max_turns is None:
            raise ConfigError(
                "idle_cycle_guard=False needs max_turns: without the guard a game can stall"
            )

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> Config:
        """Build a config, naming any unknown keyword instead of ignoring it."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise ConfigError(f"unknown config field(s) {unknown}; known fields: {sorted(known)}")
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> Config:
        return Config.from_kwargs(**{**self.to_dict(), **changes})


@dataclass(frozen=True)
class Parameter:
    """One declared game parameter, read back from its ``Config`` field."""

    name: str
    type: type  # bool, int or str
    default: Any
    allowed: tuple[Any, ...] | range
    optional: bool  # None is allowed too (and means "off")
    kind: str
    rule: str
    help: str
    sources: str

    def check(self, value: Any) -> Any:
        """``value`` (a numpy int as a plain int) or a ``ConfigError`` naming the parameter."""
        if value is None and self.optional:
            return None
        if self.type is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{self.name} must be a bool, got {value!r}")
            return value
        if self.type is int:
            if isinstance(value, np.integer):
                value = int(value)  # the same value, as a plain int
            if isinstance(value, bool) or not isinstance(value, int):
                what = "an int or None" if self.optional else "an int"
                raise ConfigError(f"{self.name} must be {what}, got {value!r}")
            if value not in self.allowed:
                low, high = self.allowed[0], self.allowed[-1]
                raise ConfigError(f"{self.name} must be in {low}-{high}, got {value}")
            return value
        if not isinstance(value, str) or value not in self.allowed:
            raise ConfigError(f"{self.name} must be one of {tuple(self.allowed)}, got {value!r}")
        return value

    def code(self, value: Any) -> int:
        """The value as the compiled parameter table holds it: a bool as 0/1, an int as
        itself (None as 0), a str as its index in ``allowed``."""
        if value is None:
            return 0
        if self.type is str:
            return tuple(self.allowed).index(value)
        return int(value)


def _declared() -> tuple[Parameter, ...]:
    hints = typing.get_type_hints(Config)
    out = []
    for f in fields(Config):
        args = typing.get_args(hints[f.name])
        base = next(a for a in args if a is not type(None)) if args else hints[f.name]
        meta = f.metadata
        if meta.get("kind") not in KINDS or base not in (bool, int, str):
            raise TypeError(f"Config.{f.name} is not declared with parameter(...)")
        allowed = (False, True) if base is bool else meta["allowed"]
        texts = {key: meta[key] for key in ("kind", "rule", "help", "sources")}
        optional = type(None) in args
        out.append(Parameter(f.name, base, f.default, allowed, optional, **texts))
    return tuple(out)


#: Every game parameter, in ``Config``'s field order (the order of the compiled table).
PARAMETERS: tuple[Parameter, ...] = _declared()
