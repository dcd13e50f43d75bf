"""env()'s wrapper chain behaves exactly like PettingZoo's stock chain."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils import wrappers as pz

import mamma_mia_env as mm
from mamma_mia_env.envs.aec import raw_env
from mamma_mia_env.envs.wrappers import HOT_ATTRIBUTES


def stock_env(**config):
    e = raw_env(**config)
    e = pz.TerminateIllegalWrapper(e, illegal_reward=-1.0)
    e = pz.AssertOutOfBoundsWrapper(e)
    return pz.OrderEnforcingWrapper(e)


def test_chain_is_pettingzoos_wrappers() -> None:
    e = mm.env(num_players=3)
    assert isinstance(e, pz.OrderEnforcingWrapper)
    assert isinstance(e.env, pz.AssertOutOfBoundsWrapper)
    assert isinstance(e.env.env, pz.TerminateIllegalWrapper)
    assert isinstance(e.unwrapped, raw_env)


@pytest.mark.parametrize("name", ["rewards", "terminations", "truncations", "infos",
                                  "agent_selection", "agents"])  # fmt: skip
def test_attributes_refused_before_reset(name: str) -> None:
    with pytest.raises(AttributeError, match="before reset"):
        getattr(mm.env(num_players=2), name)


def test_private_attributes_stay_private() -> None:
    e = mm.env(num_players=2)
    e.reset(seed=0)
    with pytest.raises(AttributeError, match="private"):
        _ = e._seat


def test_attributes_are_the_unwrapped_envs_and_assignment_reaches_it() -> None:
    e = mm.env(num_players=2)
    e.reset(seed=0)
    for layer in (e, e.env, e.env.env):
        for name in HOT_ATTRIBUTES:
            assert getattr(layer, name) is getattr(e.unwrapped, name)
    e.env.infos = {"player_0": {"x": 1}, "player_1": {}}
    assert e.unwrapped.infos["player_0"] == {"x": 1}


@pytest.mark.parametrize("action", [-1, 655, 10**20, 1.5, "3", None])
def test_out_of_bounds_actions_assert_like_the_stock_chain(action) -> None:
    for make in (mm.env, stock_env):
        e = make(num_players=2)
        e.reset(seed=0)
        with pytest.raises(AssertionError, match="not in action space"):
            e.step(action)


def test_same_game_as_the_stock_chain_including_an_illegal_move() -> None:
    """Every observation, reward, flag and info agrees, turn by turn."""
    for seed in range(5):
        envs = [mm.env(num_players=4), stock_env(num_players=4)]
        for e in envs:
            e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        illegal_at = 30 if seed == 4 else -1
        for turn, _agent in enumerate(envs[0].agent_iter()):
            got = [e.last() for e in envs]
            assert envs[0].agent_selection == envs[1].agent_selection
            (o0, r0, te0, tr0, i0), (o1, r1, te1, tr1, i1) = got
            np.testing.assert_array_equal(o0["observation"], o1["observation"])
            np.testing.assert_array_equal(o0["action_mask"], o1["action_mask"])
            assert (r0, te0, tr0, i0) == (r1, te1, tr1, i1)
            if te0 or tr0:
                action = None
            elif turn == illegal_at:
                action = int(np.flatnonzero(o0["action_mask"] == 0)[0])
            else:
                legal = np.flatnonzero(o0["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            for e in envs:
                e.step(action)
            assert envs[0]._cumulative_rewards == envs[1]._cumulative_rewards
            if turn == illegal_at:  # the game ends: offender -1, the others 0
                assert all(envs[0].terminations.values())
                assert sorted(envs[0]._cumulative_rewards.values()) == [-1.0, 0.0, 0.0, 0.0]
        assert not envs[1].agents and not envs[0].agents
