"""The learner's options (``LearnerOptions``): the one list every learner-seat front
(gym env, learner vector env, SB3's VecEnv) takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from mamma_mia_env.game.config import Config
from mamma_mia_env.plumbing.arguments import ArgumentTypeError


@dataclass(frozen=True)
class LearnerOptions:
    """How the learner's games are set up: the one list of options every learner-seat
    front shares (``MammaMiaGymEnv``, ``MammaMiaLearnerVectorEnv``, ``MammaMiaSB3VecEnv``
    and ``LearnerGames`` itself). Each front also takes the fields as keywords, which
    build one of these, so a new option is added here once.

    * ``opponents``: one policy or a pool (list); each opponent seat of each new game
      draws one from the pool (``opponent_probs``, default uniform); default uniform
      random play.
    * ``learner_seat``: an int (fixed seat) or ``None`` (drawn per game, uniformly).
    * ``opponent_delivery_penalty``: subtracted from the learner's reward per order the
      opponents deliver, divided by the N - 1 opponents.
    * ``canonical`` (default True): observations, masks and actions in the learner's
      canonical frame (``mamma_mia_env.game.symmetry``: every seat looks like seat 0);
      ``normalize`` (default True): observations divided by ``obs_scale``.

    Checked when the games are built (``LearnerGames``), not here.
    """

    opponents: Any = None
    opponent_probs: Sequence[float] | None = None
    learner_seat: int | None = None
    opponent_delivery_penalty: float = 0.0
    canonical: bool = True
    normalize: bool = True

    @classmethod
    def split(
        cls, options: LearnerOptions | None, kwargs: dict[str, Any]
    ) -> tuple[LearnerOptions, dict[str, Any]]:
        """The options of a front's call, and the keywords left (``Config`` fields).

        ``options`` or the option keywords among ``kwargs``, not both.
        """
        names = {f.name for f in fields(cls)}
        given = {k: v for k, v in kwargs.items() if k in names}
        rest = {k: v for k, v in kwargs.items() if k not in names}
        if options is None:
            return cls(**given), rest
        if not isinstance(options, LearnerOptions):
            raise ArgumentTypeError(
                f"options must be a LearnerOptions, got {type(options).__name__}"
            )
        if given:
            raise ValueError(
                "give either options=LearnerOptions(...) or its fields as keywords, not "
                f"both (got {sorted(given)})"
            )
        return options, rest

    @classmethod
    def with_config(
        cls, options: LearnerOptions | None, config: Config | None, kwargs: dict[str, Any]
    ) -> tuple[LearnerOptions, Config]:
        """A front's options (``split``) and its ``Config``: ``config`` or the ``Config``
        fields among ``kwargs``, not both."""
        options, config_kwargs = cls.split(options, kwargs)
        if config is not None and config_kwargs:
            raise ValueError("give either config=Config(...) or config keywords, not both")
        return options, config if config is not None else Config.from_kwargs(**config_kwargs)
