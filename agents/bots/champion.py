"""The champion: the search bot with a tuned budget per player count, the network's
choice among its candidates (docs/AGENTS.md, "champion").

``experiments/train/tune_champion.py`` writes the winning settings of a tuning to
``agents/policies/champion_<N>p.json``; ``ChampionAgent`` plays those of the game's
player count (or of the one file it is given). A settings file is data: it names the
budget and bundled bots only (the rollout bot by a bundled name; the prior none or
``"ppo"``, the shipped network); nothing in it is imported or run, and anything else
is refused with a message naming the file and the field.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from mamma_mia_agents.bots.base import Agent
from mamma_mia_agents.bots.roster import COMPILED_BOTS
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.files import FileError, read_json

POLICY_DIR = Path(__file__).resolve().parents[1] / "policies"  # agents/policies/
FORMAT = "mamma-mia-champion/1"
#: The settings a file may hold: name -> (type, lowest, highest); None: no bound.
SETTINGS: dict[str, tuple[type, float, float]] = {
    "worlds": (int, 1, 4096),
    "candidates": (int, 1, 64),
    "margin": (float, 0.0, 10.0),
}
PRIORS = (None, "ppo")
MAX_FILE_BYTES = 64 * 1024


class ChampionFileError(ValueError):
    """A champion settings file that is not one (the message names the file and field)."""


def default_settings_path(num_players: int) -> Path:
    return POLICY_DIR / f"champion_{num_players}p.json"


def read_settings(path: str | os.PathLike) -> dict[str, Any]:
    """The checked settings of a champion file: ``num_players`` and the search bot's
    keyword arguments (``worlds``, ``candidates``, ``margin``, ``rollout``, ``prior``)."""
    where = os.fspath(path)

    def fail(problem: str) -> ChampionFileError:
        return ChampionFileError(f"champion file {where!r}: {problem}")

    try:
        doc = read_json(path, "champion file", MAX_FILE_BYTES)
    except FileError as exc:
        raise ChampionFileError(str(exc)) from None
    if not isinstance(doc, dict):
        raise fail("the document must be a JSON object")
    if doc.get("format") != FORMAT:
        raise fail(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    n = doc.get("num_players")
    if type(n) is not int or not 2 <= n <= 5:
        raise fail(f"num_players must be an integer 2-5, got {n!r}")
    search = doc.get("search")
    if not isinstance(search, dict):
        raise fail("'search' must be an object of the search bot's settings")
    allowed = {*SETTINGS, "rollout", "prior"}
    extra = sorted(set(search) - allowed)
    if extra:
        raise fail(f"unknown search setting(s) {extra}; allowed: {sorted(allowed)}")
    kwargs: dict[str, Any] = {}
    for key, (kind, lo, hi) in SETTINGS.items():
        value: Any = search.get(key)
        ok = type(value) is int if kind is int else type(value) in (int, float)
        if not ok or not lo <= value <= hi:
            raise fail(f"search.{key} must be a{'n integer' if kind is int else ' number'} "
                       f"in [{lo}, {hi}], got {value!r}")  # fmt: skip
        kwargs[key] = kind(value)
    rollout = search.get("rollout", "builder")
    if not isinstance(rollout, str) or rollout not in COMPILED_BOTS or rollout == "random":
        raise fail(f"search.rollout must be a bundled heuristic bot name, got {rollout!r}")
    prior = search.get("prior")
    if not (prior is None or isinstance(prior, str)) or prior not in PRIORS:
        raise fail(f"search.prior must be one of {list(PRIORS)}, got {prior!r}")
    return {"num_players": n, **kwargs, "rollout": rollout, "prior": prior}


class ChampionAgent(Agent):
    """The search bot tuned for each player count, with a policy network's choice.

    It plays the settings of ``agents/policies/champion_<N>p.json`` for the game's
    player count (or of the one file ``path``)."""

    name = "champion"
    needs_state = True

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"ChampionAgent path must be a settings file path, got {path!r}")
        self._path = path
        self._bots: dict[int, SearchAgent] = {}
        self.settings: dict[int, dict[str, Any]] = {}
        if path is not None:
            self._load(path)

    def _load(self, path: str | os.PathLike) -> None:
        settings = read_settings(path)
        n = settings.pop("num_players")
        self.settings[n] = settings
        self._bots[n] = SearchAgent(**settings)

    def search(self, num_players: int) -> SearchAgent:
        """The search bot that plays ``num_players``-player games."""
        if num_players not in self._bots:
            if self._path is not None:
                raise ValueError(
                    f"the champion file {os.fspath(self._path)!r} is tuned for "
                    f"{next(iter(self._bots))} players, not {num_players}"
                )
            path = default_settings_path(num_players)
            if not path.exists():
                shipped = sorted(p.name for p in POLICY_DIR.glob("champion_*p.json"))
                counts = " or ".join(p.split("_")[1].removesuffix("p.json") for p in shipped)
                raise ValueError(
                    f"no shipped champion for {num_players} players (it is tuned for "
                    f"{counts or 'no'} players): play the champion in a {counts}-player "
                    f"game, tune one for "
                    f"{num_players} players (experiments/train/tune_champion.py), or choose "
                    "another agent (search plays every player count)"
                )
            self._load(path)
        return self._bots[num_players]

    def check_config(self, config: Config) -> None:
        self.search(config.num_players).check_config(config)

    def act_states(self, state: GameState, rng: np.random.Generator) -> np.ndarray:
        """The action of the seat to act in every game of ``state`` (not changed)."""
        if not isinstance(state, GameState):
            raise TypeError(f"state must be a GameState, got {type(state).__name__}")
        return self.search(state.config.num_players).act_states(state, rng)

    def __repr__(self) -> str:
        return f"ChampionAgent({os.fspath(self._path) if self._path is not None else ''})"
