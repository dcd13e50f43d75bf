"""Agents for mamma-mia-env: the interface, the bundled bots and the tournament runner.

    >>> from mamma_mia_agents import load_agent
    >>> bot = load_agent("counter")                 # a bundled bot by name
    >>> mine = load_agent("mypkg.mybot:MyBot")      # any Agent by import path

See docs/AGENTS.md.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

from .base import Agent, GameInfo, game_info
from .builder import BuilderAgent
from .counter import CounterAgent
from .forgetful import ForgetfulAgent
from .hoarder import HoarderAgent
from .ppo_agent import PPOAgent
from .random_agent import RandomAgent
from .search import SearchAgent

#: Bundled agents by name.
REGISTRY: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "counter": CounterAgent,
    "builder": BuilderAgent,
    "hoarder": HoarderAgent,
    "forgetful": ForgetfulAgent,
    "ppo": PPOAgent,  # the shipped trained policies (agents/policies/), numpy only
    "search": SearchAgent,  # determinized Monte Carlo over sampled worlds (agents/search.py)
}
#: The bundled heuristic bots (everything but random).
HEURISTICS: tuple[str, ...] = ("counter", "builder", "hoarder", "forgetful")


class AgentLoadError(ValueError):
    """An agent spec names no bundled agent and no importable Agent."""


def load_agent(spec: str | Agent | Any) -> Agent:
    """An agent from a bundled name (``"counter"``) or an import path (``"pkg.mod:Name"``).

    ``Name`` may be an ``Agent`` subclass (instantiated without arguments), an agent
    instance, or a function returning one. Any object with ``act_batch(observations,
    masks, rng, seats=None)`` is accepted; ``Agent`` subclasses get ``act`` for free.
    """
    if isinstance(spec, Agent) or callable(getattr(spec, "act_batch", None)):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise AgentLoadError(f"an agent spec must be a name or 'module:Class', got {spec!r}")
    spec = spec.strip()
    if ":" not in spec:
        if spec in REGISTRY:
            return REGISTRY[spec]()
        close = difflib.get_close_matches(spec, list(REGISTRY), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise AgentLoadError(
            f"unknown agent {spec!r}{hint}; bundled agents: {', '.join(REGISTRY)}; "
            "or give an import path 'package.module:ClassName'"
        )
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise AgentLoadError(
            f"agent import path {spec!r} must look like 'package.module:ClassName'"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentLoadError(
            f"cannot import module {module_name!r} for agent {spec!r}: {exc}"
        ) from exc
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentLoadError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "act_batch")):
        try:
            obj = obj()
        except TypeError as exc:
            raise AgentLoadError(f"cannot create agent {spec!r} without arguments: {exc}") from exc
    if not callable(getattr(obj, "act_batch", None)):
        raise AgentLoadError(
            f"{spec!r} is not an agent: it needs an act_batch(observations, masks, rng, "
            "seats=None) method (subclass mamma_mia_agents.Agent)"
        )
    return obj


def agent_name(agent: object) -> str:
    """The display name of an agent (its ``name`` attribute, else its class name)."""
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name and name != "agent" else type(agent).__name__


__all__ = [
    "HEURISTICS",
    "REGISTRY",
    "Agent",
    "AgentLoadError",
    "BuilderAgent",
    "CounterAgent",
    "ForgetfulAgent",
    "GameInfo",
    "HoarderAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_name",
    "game_info",
    "load_agent",
]
