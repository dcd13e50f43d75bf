"""The OpenSpiel adapter (mamma_mia_env/integrations/openspiel.py), when pyspiel is installed."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")  # the optional dependency: pip install open_spiel

from mamma_mia_env import Config, Engine  # noqa: E402
from mamma_mia_env.integrations.openspiel import SHORT_NAME, load_game  # noqa: E402


@pytest.mark.parametrize("num_players", [2, 4])
def test_random_sim_test(num_players: int) -> None:
    game = load_game(num_players=num_players, num_deals=64)
    assert game.get_type().short_name == SHORT_NAME
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_tensors_are_our_observations_and_resampling_keeps_them() -> None:
    game = load_game(num_players=3, double_ingredients=True, num_deals=16, deal_base=100)
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 16
    state.apply_action(5)
    rng = np.random.default_rng(0)
    cfg = Config(num_players=3, double_ingredients=True)
    fixed = Engine(cfg)  # the perfect-memory information state
    top = Engine(cfg.replace(observation_mode="top_card"))
    for _ in range(60):
        if state.is_terminal():
            break
        p = state.current_player()
        assert state.state.data["seed"][0] == 105
        assert np.array_equal(state.information_state_tensor(p), fixed.observe(state.state)[0])
        assert np.array_equal(state.observation_tensor(p), top.observe(state.state)[0])
        twin = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert twin.information_state_string(p) == state.information_state_string(p)
        assert twin.legal_actions() == state.legal_actions()
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_openspiel_ismcts_plays_a_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = load_game(num_players=2, num_deals=8)
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=3, random_state=rs
    )
    state = game.new_initial_state()
    state.apply_action(0)
    moves = 0
    while not state.is_terminal() and moves < 40:
        action = bot.step(state) if state.current_player() == 0 else state.legal_actions()[0]
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 40 or state.is_terminal()


def test_bad_parameters() -> None:
    with pytest.raises(Exception, match="num_deals"):
        load_game(num_players=2, num_deals=0)
