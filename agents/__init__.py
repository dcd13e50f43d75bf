"""Agents for mamma-mia-env: the interface, the bundled bots and the tournament runner.

    >>> from mamma_mia_agents import load_agent
    >>> bot = load_agent("counter")                 # a bundled bot by name
    >>> mine = load_agent("mypkg.mybot:MyBot")      # any Agent by import path

The package is layered, each layer importing only the ones before it:

* ``compiled/``: the bots' numba kernels (plain arrays in, actions out);
* ``bots/``: the ``Agent`` interface and the bundled bots;
* ``tournament/``: many games between agents, locally or on Ray, and their results;
* ``cli/``: the ``mamma-mia`` command (tournament, play, replay).

See docs/AGENTS.md.
"""

from __future__ import annotations

import sys
from typing import Any

if __name__ != "mamma_mia_agents":
    # The folder run as ``python -m agents`` from a checkout: one package under its
    # installed name, so the absolute imports below load this folder, not an install.
    sys.modules.setdefault("mamma_mia_agents", sys.modules[__name__])

from mamma_mia_agents._moved import MOVED
from mamma_mia_agents.bots.base import Agent, GameInfo, game_info
from mamma_mia_agents.bots.builder import BuilderAgent
from mamma_mia_agents.bots.champion import ChampionAgent
from mamma_mia_agents.bots.counter import CounterAgent
from mamma_mia_agents.bots.forgetful import ForgetfulAgent
from mamma_mia_agents.bots.hoarder import HoarderAgent
from mamma_mia_agents.bots.loading import (
    AgentLoadError,
    agent_factory,
    agent_name,
    resolve_agent,
)
from mamma_mia_agents.bots.ppo_agent import PPOAgent
from mamma_mia_agents.bots.random_agent import RandomAgent
from mamma_mia_agents.bots.roster import COMPILED_BOTS, HEURISTICS
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_env.plumbing.moved import install

install(MOVED)

#: Bundled agents by name.
REGISTRY: dict[str, type[Agent]] = {
    **COMPILED_BOTS,  # random, counter, builder, hoarder, forgetful
    "ppo": PPOAgent,  # the shipped trained policies (agents/policies/), numpy only
    "search": SearchAgent,  # determinized Monte Carlo over sampled worlds (bots/search.py)
    "champion": ChampionAgent,  # search with a tuned budget and the ppo prior (bots/champion.py)
}


def load_agent(spec: str | Agent | Any) -> Agent:
    """An agent from a bundled name (``"counter"``) or an import path (``"pkg.mod:Name"``).

    ``Name`` may be an ``Agent`` subclass (instantiated without arguments), an agent
    instance, or a function returning one. Any object with ``act_batch(observations,
    masks, rng, seats=None)`` is accepted; ``Agent`` subclasses get ``act`` for free.
    """
    return resolve_agent(spec, REGISTRY)


__all__ = [
    "HEURISTICS",
    "REGISTRY",
    "Agent",
    "AgentLoadError",
    "BuilderAgent",
    "ChampionAgent",
    "CounterAgent",
    "ForgetfulAgent",
    "GameInfo",
    "HoarderAgent",
    "PPOAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_factory",
    "agent_name",
    "game_info",
    "load_agent",
]
