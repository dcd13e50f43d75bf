"""mamma-mia-env: Uwe Rosenberg's Mamma Mia! as a reinforcement-learning environment."""

from mamma_mia_env.plumbing.jit_cache import configure_cache
from mamma_mia_env.plumbing.threads import configure_threads
from mamma_mia_env._version import __version__

configure_cache()  # the source-keyed cache directory, before any kernel is defined
configure_threads()  # OpenMP workers sleep between kernels instead of spinning

from mamma_mia_env._moved import MOVED
from mamma_mia_env.plumbing.moved import install

install(MOVED)  # old import paths of moved modules: the new module, with a warning

from mamma_mia_env.game.actions import ActionCodec, RevealAction, TurnAction
from mamma_mia_env.plumbing.arguments import ArgumentTypeError
from mamma_mia_env.game.config import Config, ConfigError
from mamma_mia_env.game.engine import Engine, IllegalActionError
from mamma_mia_env.game.state import GameState, StateError

__all__ = [
    "__version__",
    "ActionCodec",
    "ArgumentTypeError",
    "Config",
    "ConfigError",
    "Engine",
    "GameState",
    "IllegalActionError",
    "RevealAction",
    "StateError",
    "TurnAction",
]

from mamma_mia_env.envs.aec import Decision, Phase, env, raw_env
from mamma_mia_env.game.log import replay, replay_events
from mamma_mia_env.game.positions import build_position

__all__ += ["Decision", "Phase", "build_position", "env", "raw_env", "replay", "replay_events"]

from mamma_mia_env.envs.registration import register_envs

register_envs()  # gymnasium.make("MammaMia-v0"); records entry points only
