"""Mamma Mia! as an OpenSpiel game (``python_mamma_mia``), so OpenSpiel's algorithms run on it.

    >>> from mamma_mia_env.integrations.openspiel import load_game
    >>> game = load_game(num_players=2)              # registers the game on first use
    >>> state = game.new_initial_state()             # a chance node: the deal

``pyspiel`` is imported only when ``load_game`` (or ``register``) is called: the package
works without OpenSpiel. The model (docs/AGENTS.md, "OpenSpiel"): one chance node over
``num_deals`` equally likely deals, every later shuffle drawn by the game's own generator
seeded by the deal: a faithful stochastic game whose deals are a finite sample of all
shuffles (a node per card drawn is not what the engine computes). The information state
and observation come from ``observe.py``, never from hidden fields.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from mamma_mia_env.game.actions import ActionCodec
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.observe import OBS_DTYPE
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.sampling import sample_world
from mamma_mia_env.game.state import GameState

SHORT_NAME = "python_mamma_mia"
MAX_GAME_LENGTH = 5000


@cache
def _engines(config: Config) -> tuple[Engine, Engine]:
    """The fixed and top_card engines of a config (cached: engines are read-only)."""
    fixed = Engine(config.replace(observation_mode="fixed"))
    return fixed, Engine(config.replace(observation_mode="top_card"))


@cache
def register() -> Any:
    """Define and register the game with pyspiel (once); returns the game class."""
    try:
        import pyspiel
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the OpenSpiel adapter needs pyspiel: pip install open_spiel") from exc

    defaults = {
        "num_players": 2,
        "double_ingredients": False,
        "num_deals": 1024,
        "deal_base": 0,
    }
    game_type = pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Mamma Mia! (mamma-mia-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=5,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )

    class MammaMiaGame(pyspiel.Game):
        """The game for one config (``num_players``, ``double_ingredients``)."""

        def __init__(self, params: dict | None = None) -> None:
            p = {**defaults, **(params or {})}
            unknown = sorted(set(p) - set(defaults))
            if unknown:
                raise ValueError(f"unknown parameters {unknown}; known: {sorted(defaults)}")
            if not 1 <= int(p["num_deals"]) <= 2**31 - 1:
                raise ValueError(f"num_deals must be in 1-{2**31 - 1}, got {p['num_deals']}")
            if int(p["deal_base"]) < 0:
                raise ValueError(f"deal_base must be >= 0, got {p['deal_base']}")
            self.config = Config(
                num_players=int(p["num_players"]),
                double_ingredients=bool(p["double_ingredients"]),
            )
            self.num_deals = int(p["num_deals"])
            self.deal_base = int(p["deal_base"])
            rec, _ = _engines(self.config)
            info = pyspiel.GameInfo(
                num_distinct_actions=rec.n_actions,
                max_chance_outcomes=self.num_deals,
                num_players=self.config.num_players,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=None,
                max_game_length=MAX_GAME_LENGTH,
            )
            super().__init__(game_type, info, p)

        def new_initial_state(self) -> MammaMiaState:
            return MammaMiaState(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            perfect = iig_obs_type is not None and iig_obs_type.perfect_recall
            return MammaMiaObserver(self.config, "fixed" if perfect else "top_card", params)

    class MammaMiaState(pyspiel.State):
        """One game: before the deal a chance node, then the engine's game."""

        def __init__(self, game: MammaMiaGame) -> None:
            super().__init__(game)
            self.config = game.config
            self.num_deals = game.num_deals
            self.deal_base = game.deal_base
            self.state: GameState | None = None
            self.totals = np.zeros(self.config.num_players)

        def current_player(self) -> int:
            if self.state is None:
                return pyspiel.PlayerId.CHANCE
            if self.state.data["phase"][0] == OVER:
                return pyspiel.PlayerId.TERMINAL
            return int(self.state.data["seat"][0])

        def _legal_actions(self, player: int) -> list[int]:
            rec, _ = _engines(self.config)
            assert self.state is not None  # dealt: chance nodes have no legal actions here
            return np.flatnonzero(rec.legal_masks(self.state)[0]).tolist()

        def chance_outcomes(self) -> list[tuple[int, float]]:
            p = 1.0 / self.num_deals
            return [(d, p) for d in range(self.num_deals)]

        def _apply_action(self, action: int) -> None:
            rec, _ = _engines(self.config)
            if self.state is None:
                self.state = rec.reset(seeds=[self.deal_base + int(action)])
                return
            rec.step(self.state, np.array([action], np.int64))
            self.totals += self.state.data["rewards"][0, : self.config.num_players]

        def _action_to_string(self, player: int, action: int) -> str:
            if player == pyspiel.PlayerId.CHANCE:
                return f"deal {self.deal_base + action}"
            return ActionCodec(_engines(self.config)[0]).to_str(action, player)

        def is_terminal(self) -> bool:
            return self.state is not None and self.state.data["phase"][0] == OVER

        def returns(self) -> list[float]:
            return self.totals.tolist()

        def resample_from_infostate(self, player_id: int, probability_sampler) -> MammaMiaState:
            """A state ``player_id`` cannot tell from this one (``sample_world``)."""
            out = self.clone()
            if self.state is not None:
                seed = int(probability_sampler() * 2**53)
                out.state = sample_world(self.state, player_id, np.random.default_rng(seed))
            return out

        def __str__(self) -> str:
            if self.state is None:
                return "chance: the deal"
            d = self.state.data[0]
            n = self.config.num_players
            return (
                f"round {int(d['round']) + 1}, seat {int(d['seat'])} to act, delivered "
                f"{d['delivered'][:n].sum(1).tolist()}"
            )

    class MammaMiaObserver:
        """Our observer as OpenSpiel's PyObserver (``tensor``, ``dict``, ``set_from``)."""

        def __init__(self, config: Config, mode: str, params: Any) -> None:
            if params:
                raise ValueError(f"observation parameters are not supported, got {params}")
            self.config = config
            self.engine = _engines(config)[0 if mode == "fixed" else 1]
            self.raw = np.zeros((1, self.engine.obs_dim), OBS_DTYPE)  # what the engine writes
            self.tensor = np.zeros(self.engine.obs_dim, np.float32)
            self.dict = {name: self.tensor[s] for name, s in self.engine.obs_slices.items()}

        def set_from(self, state: MammaMiaState, player: int) -> None:
            if state.state is None:
                self.tensor.fill(0)
                return
            self.engine.observe(state.state, np.array([player]), out=self.raw)
            self.tensor[:] = self.raw[0]

        def string_from(self, state: MammaMiaState, player: int) -> str:
            self.set_from(state, player)
            return f"p{player}:" + self.tensor.astype(np.int64).tobytes().hex()

    pyspiel.register_game(game_type, MammaMiaGame)
    return MammaMiaGame


def load_game(**params: Any) -> Any:
    """The registered game with these parameters (``num_players``,
    ``double_ingredients``, ``num_deals``, ``deal_base``)."""
    register()
    import pyspiel

    return pyspiel.load_game(SHORT_NAME, params)


__all__ = ["MAX_GAME_LENGTH", "SHORT_NAME", "load_game", "register"]
