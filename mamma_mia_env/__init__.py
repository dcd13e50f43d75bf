"""mamma-mia-env: Uwe Rosenberg's Mamma Mia! as a reinforcement-learning environment."""

from .actions import ActionCodec, RevealAction, TurnAction
from .config import Config, ConfigError
from .engine import Engine, IllegalActionError
from .state import GameState, StateError

__all__ = [
    "ActionCodec",
    "Config",
    "ConfigError",
    "Engine",
    "GameState",
    "IllegalActionError",
    "RevealAction",
    "StateError",
    "TurnAction",
]
