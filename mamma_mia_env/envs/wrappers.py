"""PettingZoo's standard wrapper chain, with attribute lookups that skip the chain.

``env()`` wraps ``raw_env`` the way PettingZoo's classic games are wrapped:
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw_env)))``.
Their behaviour is right, but in pettingzoo 1.27 every attribute read on a wrapper
(``agent_selection``, ``terminations``, ``infos``, ...) goes through
``BaseWrapper.__getattr__`` once per layer. A turn of the standard agent loop reads
about a dozen of them; the wrappers took two thirds of ``env()``'s time per turn, most
of it in those lookups, not in the game (docs/PERFORMANCE.md).

The classes here are subclasses of the three PettingZoo wrappers (so ``isinstance``
checks and PettingZoo's own tests see the standard chain) that keep every check the
originals make and differ only in where they read the hot attributes from: straight
from the unwrapped env, which owns them. Assigning one on a wrapper assigns it on the
unwrapped env, as ``BaseWrapper`` never stores them itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils import wrappers

from mamma_mia_env.game.engine import IllegalActionError
from mamma_mia_env.plumbing.arguments import require_reset

#: The attributes the AEC loop reads every turn; all live on the unwrapped env.
HOT_ATTRIBUTES = (
    "agent_selection",
    "agents",
    "possible_agents",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "_cumulative_rewards",
)
#: Those OrderEnforcingWrapper refuses to give before reset (as the original does).
_NEED_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}
)


def _forward(name: str, check_reset: bool) -> property:
    def get(self: Any) -> Any:
        if check_reset and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._base, name)

    def set_(self: Any, value: Any) -> None:
        setattr(self._base, name, value)

    return property(get, set_, doc=f"``{name}`` of the unwrapped env.")


class _Direct:
    """Mixin: the hot attributes read from the unwrapped env in one step."""

    _check_reset = False
    env: Any  # the wrapped env (the wrapper class this is mixed into sets it)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in HOT_ATTRIBUTES:
            setattr(cls, name, _forward(name, cls._check_reset and name in _NEED_RESET))

    def __init__(self, env: Any, **kwargs: Any) -> None:
        super().__init__(env, **kwargs)  # type: ignore[call-arg]  # the PettingZoo wrapper's
        # a plain instance attribute: found without __getattr__, and kept private
        self.__dict__["_base"] = self.env.unwrapped


class TerminateIllegalWrapper(_Direct, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with direct attribute reads."""


class OutOfBoundsActionError(IllegalActionError, AssertionError):
    """An action outside the action space, refused by ``env()``'s bounds wrapper.

    An ``AssertionError``, as PettingZoo's wrapper raises (code written for PettingZoo
    catches that), and an ``IllegalActionError`` (a ``ValueError``) naming the agent and
    the action, as every other refusal of this package; raised also under ``python -O``.
    """


class AssertOutOfBoundsWrapper(_Direct, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with direct attribute reads.

    A plain Python ``int`` is checked against the ``Discrete`` bounds directly
    (``Discrete.contains`` builds ``np.iinfo`` on every call); a bool is refused
    (``contains`` would take ``True`` for action 1); anything else goes to
    ``contains`` as before. An action outside raises ``OutOfBoundsActionError``.
    """

    def step(self, action: Any) -> None:
        base = self._base
        agent = base.agent_selection
        space = base.action_space(agent)
        if type(action) is int:
            ok = space.start <= action < space.start + space.n
        elif isinstance(action, (bool, np.bool_)):
            ok = False  # ``Discrete.contains(True)`` says yes: a bool is no action
        else:
            dead = base.terminations[agent] or base.truncations[agent]
            ok = (action is None and dead) or space.contains(action)
        if not ok:
            raise OutOfBoundsActionError(
                f"{agent}: action {action!r:.100} is not in action space {space}"
            )
        self.env.step(action)


class OrderEnforcingWrapper(_Direct, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with direct attribute reads (the
    before-reset checks kept)."""

    _check_reset = True

    def last(self, observe: bool = True) -> Any:
        require_reset(self._has_reset, "last")
        return super().last(observe)
