"""The game and environment configuration, validated once at construction."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

OBSERVATION_MODES = ("recall", "top_card")
REWARD_MODES = ("win_loss", "delivered", "delivered_win_loss")
MAX_TURNS_LIMIT = 2**31 - 2


class ConfigError(ValueError):
    """A configuration value is unknown or out of range; the message names the field."""


@dataclass(frozen=True)
class Config:
    """Rules (defaults and variants, see docs/RULES.md) and environment options.

    Every field is also a keyword argument of ``mamma_mia_env.env(...)``.
    """

    num_players: int = 4
    mamma_mia_in_deal: bool = False
    pass_may_play_order: bool = False
    strict_minimale: bool = False
    double_ingredients: bool = False
    random_start_player: bool = False
    auto_reveal: bool = False
    idle_cycle_guard: bool = True
    max_turns: int | None = None
    observation_mode: str = "recall"
    reward_mode: str = "win_loss"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise ConfigError(f"{f.name} must be a bool, got {value!r}")
            if isinstance(value, np.integer) and not isinstance(value, bool):
                object.__setattr__(self, f.name, int(value))  # same value, plain int
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int):
            raise ConfigError(f"num_players must be an int, got {self.num_players!r}")
        if not 2 <= self.num_players <= 5:
            raise ConfigError(f"num_players must be 2-5, got {self.num_players}")
        if self.max_turns is not None:
            if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int):
                raise ConfigError(f"max_turns must be an int or None, got {self.max_turns!r}")
            if not 1 <= self.max_turns <= MAX_TURNS_LIMIT:
                raise ConfigError(
                    f"max_turns must be in 1-{MAX_TURNS_LIMIT} (the turn counter is 32-bit), "
                    f"got {self.max_turns}"
                )
        if not self.idle_cycle_guard and self.max_turns is None:
            raise ConfigError(
                "idle_cycle_guard=False needs max_turns: without the guard a game can stall"
            )
        mode = self.observation_mode
        if not isinstance(mode, str) or mode not in OBSERVATION_MODES:
            raise ConfigError(
                f"observation_mode must be one of {OBSERVATION_MODES}, "
                f"got {self.observation_mode!r}"
            )
        if not isinstance(self.reward_mode, str) or self.reward_mode not in REWARD_MODES:
            raise ConfigError(
                f"reward_mode must be one of {REWARD_MODES}, got {self.reward_mode!r}"
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
