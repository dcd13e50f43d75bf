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

from mamma_mia_agents.bots.base import Agent, GameInfo, game_info
from mamma_mia_agents.bots.builder import BuilderAgent
from mamma_mia_agents.bots.champion import ChampionAgent
from mamma_mia_agents.bots.counter import CounterAgent
from mamma_mia_agents.bots.loading import agent_factory, resolve_agent
from mamma_mia_agents.bots.ppo_agent import PPOAgent
from mamma_mia_agents.bots.random_agent import RandomAgent
from mamma_mia_agents.bots.roster import COMPILED_BOTS
from mamma_mia_agents.bots.search import SearchAgent

#: Bundled agents by name.
REGISTRY: dict[str, type[Agent]] = {
    **COMPILED_BOTS,  # random, counter, builder, hoarder, forgetful
    "ppo": PPOAgent,  # the shipped trained policies (agents/policies/), numpy only
    "search": SearchAgent,  # determinized Monte Carlo over sampled worlds (bots/search.py)
    "champion": ChampionAgent,  # search with a tuned budget and the ppo prior (bots/champion.py)
}


def load_agent(spec: object) -> Agent:
    """An agent from a bundled name (``"counter"``) or an import path (``"pkg.mod:Name"``).

    ``Name`` may be an ``Agent`` subclass (instantiated without arguments), an agent
    instance, or a function returning one. Any object with ``act_batch(observations,
    masks, rng, seats=None)`` is accepted; ``Agent`` subclasses get ``act`` for free.
    """
    return resolve_agent(spec, REGISTRY)


__all__ = [
    "REGISTRY",
    "Agent",
    "BuilderAgent",
    "ChampionAgent",
    "CounterAgent",
    "GameInfo",
    "PPOAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_factory",
    "game_info",
    "load_agent",
]
