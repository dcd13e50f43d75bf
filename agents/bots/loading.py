"""Turning an agent spec (a name, an import path, an object) into an agent.

``resolve_agent(spec, registry)`` is the machinery behind ``mamma_mia_agents.load_agent``
with the registry passed in, so that a bot that loads other bots by name (the search
bot's rollout policy) can use it without importing the package's full registry, which
lists that bot itself.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from typing import TypeGuard, TypeVar

from mamma_mia_agents.bots.base import Agent


class AgentLoadError(ValueError):
    """An agent spec names no bundled agent and no importable Agent."""


Factory = TypeVar("Factory", bound=Callable[[], object])


def agent_factory(func: Factory) -> Factory:
    """Mark a function as an agent factory, so that an import path ``"pkg.mod:func"`` may
    name it: ``load_agent`` calls a function only when it carries this mark (any other
    function, ``os:abort`` say, is refused before it is called)."""
    setattr(func, "__mamma_mia_agent_factory__", True)  # noqa: B010 (no such attribute in the type)
    return func


def resolve_agent(spec: object, registry: Mapping[str, type[Agent]]) -> Agent:
    """An agent from a name in ``registry`` or an import path (``"pkg.mod:Name"``).

    ``Name`` may be an agent class (an ``Agent`` subclass, or any class with an
    ``act_batch`` method; instantiated without arguments), an agent instance, or a
    function marked with ``@agent_factory`` that returns one. Anything else the path
    names is refused before it is called. Any object with ``act_batch(observations,
    masks, rng, seats=None)`` is accepted as it is.
    """
    if acts_as_agent(spec):
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
    obj: object = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentLoadError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if _makes_agent(obj):
        try:
            obj = obj()
        except TypeError as exc:
            raise AgentLoadError(f"cannot create agent {spec!r} without arguments: {exc}") from exc
    elif not isinstance(obj, type) and callable(obj) and not hasattr(obj, "act_batch"):
        raise AgentLoadError(
            f"{spec!r} is a function that is not marked as an agent factory: only agent "
            "classes, agent objects and functions decorated with "
            "@mamma_mia_agents.agent_factory are called"
        )
    if isinstance(obj, type) or not acts_as_agent(obj):
        raise AgentLoadError(
            f"{spec!r} is not an agent: it needs an act_batch(observations, masks, rng, "
            "seats=None) method (subclass mamma_mia_agents.Agent)"
        )
    return obj


def acts_as_agent(obj: object) -> TypeGuard[Agent]:
    """An ``Agent``, or any object with a callable ``act_batch``: played as an ``Agent``
    (a game asks nothing else of it; the optional methods are looked up with getattr)."""
    return isinstance(obj, Agent) or callable(getattr(obj, "act_batch", None))


def _makes_agent(obj: object) -> TypeGuard[Callable[[], object]]:
    """A class whose instances are agents, or a marked factory: safe to call."""
    if isinstance(obj, type):
        return callable(getattr(obj, "act_batch", None))
    return bool(getattr(obj, "__mamma_mia_agent_factory__", False)) and callable(obj)


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
