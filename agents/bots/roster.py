"""The bundled bots that have compiled twins: the random policy and the heuristics.

The package registry (``mamma_mia_agents.REGISTRY``) lists these first, then the bots
built on them (``ppo``, ``search``); the search bot picks its rollout policy here.
"""

from __future__ import annotations

from mamma_mia_agents.bots.base import Agent
from mamma_mia_agents.bots.builder import BuilderAgent
from mamma_mia_agents.bots.counter import CounterAgent
from mamma_mia_agents.bots.forgetful import ForgetfulAgent
from mamma_mia_agents.bots.hoarder import HoarderAgent
from mamma_mia_agents.bots.random_agent import RandomAgent

#: The bundled bots the compiled game loop can play, by name.
COMPILED_BOTS: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "counter": CounterAgent,
    "builder": BuilderAgent,
    "hoarder": HoarderAgent,
    "forgetful": ForgetfulAgent,
}
#: The bundled heuristic bots (everything here but random).
HEURISTICS: tuple[str, ...] = ("counter", "builder", "hoarder", "forgetful")
