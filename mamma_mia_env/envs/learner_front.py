"""What every learner-seat front (``MammaMiaGymEnv``, ``MammaMiaLearnerVectorEnv``,
``MammaMiaSB3VecEnv``) hands straight to its ``LearnerGames``: one copy of those calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mamma_mia_env.envs.learner import LearnerGames


class LearnerFront:
    """What every learner-seat front (``MammaMiaGymEnv``, ``MammaMiaLearnerVectorEnv``,
    ``MammaMiaSB3VecEnv``) hands straight to its ``LearnerGames``, ``games``."""

    games: LearnerGames
    _masks: np.ndarray | None = None  # the legal masks of the current step, made once

    def set_opponents(self, opponents: Any, probs: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (games dealt from now on draw from it): self-play."""
        self.games.set_opponents(opponents, probs)

    def action_masks(self) -> np.ndarray:
        """``(B, n_actions)`` bool: each game's legal learner actions."""
        if self._masks is None:
            self._masks = self.games.action_masks()
        return self._masks

    @property
    def learner_seats(self) -> np.ndarray:
        """Each game's learner seat."""
        return self.games.seat.copy()

    # -- for the experimenter (never in info: a seed determines every hidden card) ------
    def game_seeds(self) -> np.ndarray:
        """The engine seed of the game in progress in each slot."""
        return self.games.game_seeds()

    def final_game_seeds(self) -> np.ndarray:
        """The engine seed of the last game that finished in each slot (0: none yet);
        read it when that slot's game ended to replay it."""
        return self.games.final_seeds.copy()

    def game_counts(self) -> np.ndarray:
        """The player count of the game in progress in each slot (also in
        ``info["num_players"]`` when the counts are per game)."""
        return self.games.counts.copy()

    def final_game_counts(self) -> np.ndarray:
        """The player count of the last game that finished in each slot."""
        return self.games.final_counts.copy()
