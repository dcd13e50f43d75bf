"""Turning an agent spec (a name, an import path, an object) into an agent.

``resolve_agent(spec, registry)`` is the machinery behind ``mamma_mia_agents.load_agent``
with the registry passed in, so that a bot that loads other bots by name (the search
bot's rollout policy) can use it without importing the package's full registry, which
lists that bot itself.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from typing import Any

from mamma_mia_agents.bots.base import Agent


class AgentLoadError(ValueError):
    """An agent spec names no bundled agent and no importable Agent."""


def resolve_agent(spec: str | Agent | Any, registry: Mapping[str, type[Agent]]) -> Agent:
    """An agent from a name in ``registry`` or an import path (``"pkg.mod:Name"``).

    ``Name`` may be an ``Agent`` subclass (instantiated without arguments), an agent
    instance, or a function returning one. Any object with ``act_batch(observations,
    masks, rng, seats=None)`` is accepted as it is.
    """
    if isinstance(spec, Agent) or callable(getattr(spec, "act_batch", None)):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise AgentLoadError(f"an agent spec must be a name or 'module:Class', got {spec!r}")
    spec = spec.strip()
    if ":" not in spec:
        return _bundled(spec, registry)
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


def _bundled(name: str, registry: Mapping[str, type[Agent]]) -> Agent:
    if name in registry:
        return registry[name]()
    close = difflib.get_close_matches(name, list(registry), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise AgentLoadError(
        f"unknown agent {name!r}{hint}; bundled agents: {', '.join(registry)}; "
        "or give an import path 'package.module:ClassName'"
    )


def agent_name(agent: object) -> str:
    """The display name of an agent (its ``name`` attribute, else its class name)."""
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name and name != "agent" else type(agent).__name__
