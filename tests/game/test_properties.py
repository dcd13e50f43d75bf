"""Property tests (hypothesis): any config, any seed, any sequence of legal choices."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.state import check_state

configs = st.builds(
    Config,
    num_players=st.integers(2, 5),
    mamma_mia_in_deal=st.booleans(),
    pass_may_play_order=st.booleans(),
    strict_minimale=st.booleans(),
    double_ingredients=st.booleans(),
    random_start_player=st.booleans(),
    auto_reveal=st.booleans(),
    observation_mode=st.sampled_from(["fixed", "top_card"]),
    reward_mode=st.sampled_from(["win_loss", "delivered", "delivered_win_loss"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=configs,
    seed=st.integers(0, 2**64 - 1),
    choices=st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=400),
)
def test_any_legal_play_keeps_the_state_consistent(config, seed, choices) -> None:
    engine = Engine(config)
    state = engine.reset(seeds=[seed])
    for u in choices:
        if state.data["phase"][0] == OVER:
            break
        mask = engine.legal_masks(state)[0]
        legal = np.flatnonzero(mask)
        assert len(legal) > 0
        engine.step(state, np.array([legal[int(u * len(legal))]]))
        assert check_state(state) == []
        assert GameState.from_json(state.to_json()).equals(state)
        obs = engine.observe(state)
        assert np.isfinite(obs).all() and (obs >= 0).all() and (obs <= 255).all()
        hands = state.data["hand"][0, : config.num_players].sum(axis=1)
        orders = state.data["orders_hand"][0, : config.num_players].sum(axis=1)
        assert (hands + orders <= 7).all()


@settings(max_examples=200, deadline=None)
@given(config=configs, seed=st.integers(0, 2**64 - 1))
def test_setup_deals_six_ingredients_and_one_order_to_everyone(config, seed) -> None:
    state = Engine(config).reset(seeds=[seed])
    n = config.num_players
    assert (state.data["hand"][0, :n].sum(axis=1) == 6).all()
    assert (state.data["orders_hand"][0, :n].sum(axis=1) == 1).all()
    assert (state.data["stack_len"][0, :n] == 7).all()
    assert check_state(state) == []
