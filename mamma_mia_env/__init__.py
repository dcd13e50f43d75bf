"""mamma-mia-env: Uwe Rosenberg's Mamma Mia! as a reinforcement-learning environment.

The names here are the ones README.md and docs/ use; everything else is imported from
the module that defines it. The package is layered (docs/ARCHITECTURE.md):

* ``plumbing/``: argument checks, files, the compiled-kernel cache, OpenMP waits,
  provenance, seeding;
* ``game/``: the rules core (numpy and numba only);
* ``policy``: the seat-policy loop the envs and bots share;
* ``render/``: what a viewer may see, drawn as text, SVG, images and HTML replays;
* ``envs/``: the PettingZoo, gymnasium and vector env shells;
* ``integrations/``: adapters to RL libraries (SB3, RLlib, Tianshou, TorchRL, OpenSpiel).

Importing the package defines these names and registers the gymnasium ids (entry point
strings only: ``gymnasium.make("MammaMia-v0")``); it reads no environment variable and
hashes no file. The kernels' cache directory and the OpenMP wait policy are set when the
first kernel is compiled or loaded (``plumbing/jit_cache.py``).
"""

from mamma_mia_env._version import __version__
from mamma_mia_env.envs.aec import Decision, Phase, env, raw_env
from mamma_mia_env.envs.registration import register_envs
from mamma_mia_env.game.actions import ActionCodec
from mamma_mia_env.game.config import Config, ConfigError
from mamma_mia_env.game.engine import Engine, IllegalActionError
from mamma_mia_env.game.log import replay, replay_events
from mamma_mia_env.game.positions import build_position
from mamma_mia_env.game.state import GameState, StateError
from mamma_mia_env.plumbing.arguments import ArgumentTypeError

__all__ = [
    "__version__",
    "ActionCodec",
    "ArgumentTypeError",
    "Config",
    "ConfigError",
    "Decision",
    "Engine",
    "GameState",
    "IllegalActionError",
    "Phase",
    "StateError",
    "build_position",
    "env",
    "raw_env",
    "replay",
    "replay_events",
]

register_envs()  # gymnasium 1.x has no plugin entry points: a package registers on import
