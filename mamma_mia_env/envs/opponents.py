"""The learner's opponents: a pool of policies, who plays which seat, and their moves.

``OpponentPool`` checks a pool (every opponent can play the game's config), keeps the
weights new games draw opponents by, and remembers every opponent it ever held (games
in progress keep theirs when the pool changes). Their moves go through
``policy.policy_actions``, the one seat-policy loop; a failure is named here in the
learner env's own errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine, IllegalActionError
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_float
from mamma_mia_env.policy import PolicyFailure, UniformRandomPolicy, observers_for, policy_actions


class OpponentError(RuntimeError):
    """An opponent policy raised inside ``step`` / ``reset``; the message names it.

    The call that ran it is undone: the env is as it was before the call.
    """


def _as_pool(opponents: Any) -> list[Any]:
    if opponents is None:
        return [UniformRandomPolicy()]  # the default: a uniformly random legal action
    pool = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
    if not pool:
        raise ValueError("opponents must name at least one opponent")
    for opp in pool:
        if not callable(getattr(opp, "act_batch", None)):
            raise TypeError(
                f"opponent {opp!r} has no act_batch(observations, masks, rng, seats) method"
            )
    return pool


class OpponentPool:
    """The opponent policies of a learner's games (see the module doc)."""

    def __init__(self, config: Config, engine: Engine) -> None:
        self.config = config
        #: one engine per observation mode the opponents read (the learner's own first)
        self.observers: dict[str, Engine] = {config.observation_mode: engine}
        #: every opponent ever in the pool; games refer to these by index, so a new pool
        #: changes the opponents of games dealt later, never of games in progress
        self.registry: list[Any] = []
        self.pool: list[Any] = []
        self.probs = np.zeros(0)
        self.ids = np.zeros(0, dtype=np.int64)  # registry index of each pool entry

    def set(self, opponents: Any, probs: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (takes effect for games dealt from now on).

        Everything is checked before anything changes: a refused call keeps the pool.
        """
        pool = _as_pool(opponents)
        for opp in pool:
            check = getattr(opp, "check_config", None)
            if check is not None:
                try:
                    check(self.config)
                except ValueError as exc:
                    raise ValueError(f"opponent {opp!r} cannot play this game: {exc}") from exc
        if probs is None:
            pool_p = np.full(len(pool), 1.0 / len(pool))
        else:
            if isinstance(probs, (str, bytes, dict, set)) or not hasattr(probs, "__len__"):
                raise ArgumentTypeError(
                    f"opponent_probs must be a list of weights, one per opponent, got {probs!r:.80}"
                )
            p = np.array(
                [as_float(w, f"opponent_probs[{i}]", 0.0) for i, w in enumerate(probs)],
                dtype=np.float64,
            )
            if p.shape != (len(pool),) or p.sum() <= 0:
                raise ValueError(
                    f"opponent_probs must be {len(pool)} non-negative weights (one per "
                    f"opponent) with a positive sum, got {p.tolist()}"
                )
            pool_p = p / p.sum()
        observers = observers_for(self.config, pool, self.config.observation_mode, self.observers)
        for opp in pool:  # identity, not ==: each object its own registry entry
            if not any(o is opp for o in self.registry):
                self.registry.append(opp)
        ids = [next(i for i, o in enumerate(self.registry) if o is opp) for opp in pool]
        self.pool, self.probs, self.observers = pool, pool_p, observers
        self.ids = np.asarray(ids, dtype=np.int64)

    def draw(self, rng: np.random.Generator, k: int, num_players: int) -> np.ndarray:
        """Registry indices of the opponents of ``k`` new games, ``(k, num_players)``."""
        return self.ids[rng.choice(len(self.pool), size=(k, num_players), p=self.probs)]

    def actions(
        self, who: np.ndarray, state: GameState, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """The opponents' actions where ``who`` names one (a ``registry`` index), else 0;
        a failing opponent is named in an ``OpponentError`` / ``IllegalActionError``."""
        try:  # the opponent gets copies: nothing it writes reaches the games
            return policy_actions(
                self.registry, who, state, masks, rng, self.observers,
                default_mode=self.config.observation_mode,
            )  # fmt: skip
        except PolicyFailure as failure:
            opp = self.registry[failure.policy]
            if failure.kind == "raised":
                exc = failure.error
                assert exc is not None
                raise OpponentError(
                    f"opponent {opp!r} raised {type(exc).__name__} in act_batch: {exc}"
                ) from exc
            if failure.kind == "shape":
                chosen = np.asarray(failure.chosen)
                raise IllegalActionError(
                    f"opponent {opp!r} returned {chosen.dtype} actions of shape "
                    f"{chosen.shape} for {len(failure.rows)} games"
                ) from None
            raise IllegalActionError(
                f"opponent {opp!r} chose illegal action {failure.action} in game {failure.game}"
            ) from None
