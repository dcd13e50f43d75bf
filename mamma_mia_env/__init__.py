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

from .aec import env, raw_env  # noqa: E402
from .log import replay, replay_events  # noqa: E402
from .positions import build_position  # noqa: E402

__all__ += ["build_position", "env", "raw_env", "replay", "replay_events"]
