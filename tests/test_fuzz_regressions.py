"""Regression tests for the defects the fuzz suite found (docs/TESTING.md).

One test per defect, named for what must hold. Those marked ``xfail(strict=True)`` are
holes not fixed yet: the fuzz suite counts inputs that hit them as "known hole"
(``fuzz_harness.KNOWN_HOLES``); when a fix lands the test passes, strict xfail turns
that into a failure, and the marker and the ``KNOWN_HOLES`` line go.
"""

from __future__ import annotations

import numpy as np
import pytest

import mamma_mia_env


def test_tournament_observes_top_card_agents_under_their_own_config() -> None:
    """A ``top_card`` agent (forgetful) is observed through an engine of its own mode,
    and the tournament hands that engine the games under the observer's config (found by
    the CLI fuzz when the engine briefly refused states of another observation mode:
    ``--agents forgetful`` raised "the state was made for another config")."""
    from mamma_mia_agents.tournament import run_tournament

    res = run_tournament(["forgetful", "random"], num_players=2, games=4, progress=False)
    assert res.games == 4
    res = run_tournament(["forgetful"], num_players=3, games=3, workers=1, progress=False)
    assert res.games == 3


@pytest.mark.parametrize("action", [10**9, -1, "3", 1.5, None, np.array([1, 2]), np.float64(2)])
def test_env_out_of_bounds_action_is_a_named_value_error(action) -> None:
    """``env()``'s bounds wrapper raised a bare ``AssertionError`` ("action is not in
    action space", gone under ``python -O``); now an ``IllegalActionError`` (still an
    ``AssertionError`` for PettingZoo code) naming the agent and the action."""
    from mamma_mia_env.engine import IllegalActionError

    e = mamma_mia_env.env(num_players=2)
    e.reset(seed=3)
    before = e.unwrapped.game.data.tobytes()
    with pytest.raises(IllegalActionError, match=r"player_\d: action .* is not in action space"):
        e.step(action)
    with pytest.raises(AssertionError):
        e.step(action)
    assert e.unwrapped.game.data.tobytes() == before


@pytest.mark.xfail(strict=True, reason="hole: LearnerGames reads the penalty with float()")
@pytest.mark.parametrize("penalty", [[], "0.5", True, None, float("nan")])
def test_gym_opponent_delivery_penalty_of_the_wrong_type_is_named(penalty) -> None:
    """``opponent_delivery_penalty=[]`` raised ``TypeError: float() argument must be a
    string or a real number`` (naming nothing); ``"0.5"`` and ``True`` were silently
    read as 0.5 and 1.0. Each must be refused naming the argument."""
    from mamma_mia_env.gym_env import MammaMiaGymEnv

    with pytest.raises((TypeError, ValueError), match="opponent_delivery_penalty"):
        MammaMiaGymEnv(num_players=2, opponent_delivery_penalty=penalty)


@pytest.mark.xfail(strict=True, reason="hole: card names are read without their place")
@pytest.mark.parametrize(
    "description",
    [
        {"piles": {"bogus": 0}},
        {"hands": {"0": {"double bogus": 1}}},
        {"used": {"mamma miaa": 1}},
    ],
)
def test_build_position_names_where_an_unknown_card_name_is(description) -> None:
    """``{"piles": {"bogus": 0}}`` is refused with "unknown ingredient 'bogus'", which
    does not say where the name was (piles, which seat's hand, the oven, ...)."""
    key = next(iter(description))
    with pytest.raises(mamma_mia_env.StateError, match=key):
        mamma_mia_env.build_position(description)


@pytest.mark.xfail(strict=True, reason="hole: np.asarray(seats) raises before the check")
@pytest.mark.parametrize("seats", [[0, []], [[0], 1]])
def test_observe_names_seats_that_are_not_an_array(seats) -> None:
    """``Engine.observe(state, seats=[0, []])`` raised numpy's "setting an array element
    with a sequence ... inhomogeneous shape", which names nothing."""
    eng = mamma_mia_env.Engine(num_players=2)
    state = eng.reset(seeds=[1, 2])
    with pytest.raises((TypeError, ValueError), match="seats"):
        eng.observe(state, seats=seats)


def test_step_names_an_active_mask_that_is_not_an_array() -> None:
    """``Engine.step(state, actions, active=[[], 0])`` raised numpy's "inhomogeneous
    shape" ``ValueError``, naming nothing."""
    eng = mamma_mia_env.Engine(num_players=2)
    state = eng.reset(seeds=[1, 2])
    acts = np.array([np.flatnonzero(m)[0] for m in eng.legal_masks(state)])
    with pytest.raises((TypeError, ValueError), match="active"):
        eng.step(state, acts, active=[[], 0])


@pytest.mark.xfail(strict=True, reason="hole: start= is assigned into the records unchecked")
def test_learner_games_start_names_records_that_are_not_an_array() -> None:
    """``LearnerGames.reset(start=state.data.tolist())`` (records as a list) raised
    numpy's "inhomogeneous shape" ``ValueError``, naming nothing."""
    from mamma_mia_env.gym_env import LearnerGames

    games = LearnerGames(1, mamma_mia_env.Config(num_players=2), learner_seat=0)
    start = mamma_mia_env.Engine(num_players=2).reset(seeds=[4]).data.tolist()
    with pytest.raises((TypeError, ValueError), match="start"):
        games.reset(seed=1, start=start)


@pytest.mark.xfail(strict=True, reason="hole: actions[i] is range-checked by int64 assignment")
@pytest.mark.parametrize("which", ["replay", "replay_events"])
@pytest.mark.parametrize("action", [2**63, -(2**63) - 1, 10**30])
def test_replay_names_an_action_too_large_for_int64(which, action) -> None:
    """``replay(config, seed, [2**63])`` raised ``OverflowError: Python int too large to
    convert to C long``: not a ValueError, and naming nothing."""
    fn = getattr(mamma_mia_env, which)
    with pytest.raises(ValueError, match=r"actions\[0\]"):
        fn(mamma_mia_env.Config(num_players=2), 1, [action])


@pytest.mark.xfail(strict=True, reason="hole: the message names no argument")
def test_encode_turn_names_the_cards_of_a_pass() -> None:
    """``encode_turn(kind=None, doubles=1)`` is refused with "a pass plays no cards",
    which does not name the argument at fault (``singles`` / ``doubles``)."""
    codec = mamma_mia_env.ActionCodec(mamma_mia_env.Engine(num_players=2))
    with pytest.raises(ValueError, match="doubles"):
        codec.encode_turn(kind=None, doubles=1)


@pytest.mark.xfail(strict=True, reason="hole: an empty seed list deals a batch of 0 games")
@pytest.mark.parametrize("seeds", [[], np.zeros(0, np.uint64), ()])
def test_engine_reset_refuses_an_empty_list_of_seeds(seeds) -> None:
    """``Engine.reset(seeds=[])`` returned a batch of 0 games (docs/ENV.md: batch_size
    >= 1), on which ``check_state`` itself then fails ("cannot reshape array of size
    0")."""
    eng = mamma_mia_env.Engine(num_players=2)
    with pytest.raises(ValueError, match="seeds"):
        eng.reset(seeds=seeds)


@pytest.mark.xfail(strict=True, reason="hole: check_state reshapes by len(d) == 0")
def test_check_state_handles_an_empty_batch() -> None:
    """``check_state`` on a batch of 0 games raised "cannot reshape array of size 0 into
    shape (0,newaxis)" instead of returning its (empty) list of problems."""
    from mamma_mia_env.validate import check_state

    assert check_state(mamma_mia_env.GameState.empty(mamma_mia_env.Config(), 0)) == []
