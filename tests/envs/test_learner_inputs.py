"""The learner core's input checks (``envs/learner_inputs.py``), called directly: each
bad value is refused with a message naming it, good values come back typed."""

from __future__ import annotations

import numpy as np
import pytest

from mamma_mia_env import Config, Engine
from mamma_mia_env.envs.learner_inputs import checked_actions, checked_reset
from mamma_mia_env.game.engine import IllegalActionError
from mamma_mia_env.plumbing.arguments import ArgumentTypeError

CFG = Config(num_players=3)


def test_good_reset_inputs_come_back_checked() -> None:
    start = Engine(CFG).reset(np.arange(2)).data
    seed, seeds, seats, state = checked_reset(CFG, 2, 5, [1, 2], np.array([0, 2]), start)
    assert seed == 5 and seeds.tolist() == [1, 2] and seats.tolist() == [0, 2]
    assert state is not None and state.batch_size == 2
    assert checked_reset(CFG, 2, None, None, None, None) == (None, None, None, None)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"seed": -1}, ValueError, "seed"),
        ({"game_seeds": [1, 2, 3]}, ValueError, "game_seeds must hold 2 seeds"),
        ({"seats": np.array([0.0, 1.0])}, ValueError, "seats must be 2 integer seats"),
        ({"seats": np.array([0, 3])}, ValueError, "learner seats must be in 0-2"),
        ({"start": [1, 2]}, ArgumentTypeError, "start must be a numpy array"),
    ],
)
def test_bad_reset_inputs_are_refused(kwargs, error, message) -> None:
    args = {"seed": None, "game_seeds": None, "seats": None, "start": None} | kwargs
    with pytest.raises(error, match=message):
        checked_reset(CFG, 2, args["seed"], args["game_seeds"], args["seats"], args["start"])


def test_a_start_of_another_size_is_refused() -> None:
    start = Engine(CFG).reset(np.arange(3)).data
    with pytest.raises(ValueError, match="start must hold 2 games, got 3"):
        checked_reset(CFG, 2, None, None, None, start)


def test_actions_are_checked() -> None:
    assert checked_actions(np.array([1, 2], np.int32), 2, 10).dtype == np.int64
    for bad, message in [
        (np.array([1, 2, 3]), r"shape \(2,\)"),
        (np.array([1.0, 2.0]), r"shape \(2,\)"),
        (np.array([-1, 2]), "must be in 0-9"),
        (np.array([1, 10]), "must be in 0-9"),
    ]:
        with pytest.raises(IllegalActionError, match=message):
            checked_actions(bad, 2, 10)
