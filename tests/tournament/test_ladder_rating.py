"""The ladder rating (``tournament/ladder_rating.py``): Elo with Luce's rule, fitted by
maximum likelihood against anchored rungs."""

from __future__ import annotations

import math

import pytest

from mamma_mia_agents.tournament.ladder_rating import (
    Result,
    fit_rating,
    log_likelihood,
    win_probability,
)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_equal_ratings_win_at_chance(players: int) -> None:
    assert win_probability(250.0, 250.0, players) == pytest.approx(1 / players)


def test_two_players_is_elos_curve() -> None:
    """400 points: 10-to-1 odds; the curve is symmetric."""
    assert win_probability(400.0, 0.0, 2) == pytest.approx(10 / 11)
    assert win_probability(-400.0, 0.0, 2) == pytest.approx(1 / 11)
    assert win_probability(1e5, 0.0, 4) == pytest.approx(1.0)  # no overflow far out


@pytest.mark.parametrize("players", [2, 4])
def test_an_agent_equal_to_a_rung_gets_its_anchor(players: int) -> None:
    games = 400 * players
    fit = fit_rating([Result(anchor=612.5, players=players, wins=games / players, games=games)])
    assert fit is not None and fit.value == pytest.approx(612.5, abs=1e-4)
    assert fit.low < 612.5 < fit.high


def test_the_fit_recovers_the_rating_the_results_were_made_from() -> None:
    """Win shares exactly as the model predicts for R, against three rungs at two
    player counts: the maximum-likelihood rating is R."""
    truth = 830.0
    results = []
    for players, anchor, games in [(2, 0.0, 2000), (2, 700.0, 2000), (4, 0.0, 2000),
                                   (4, 700.0, 2000), (4, 1100.0, 1000)]:  # fmt: skip
        p = win_probability(truth, anchor, players)
        results.append(Result(anchor, players, p * games, games))
    fit = fit_rating(results)
    assert fit is not None and fit.value == pytest.approx(truth, abs=1e-3)
    # the estimate is the maximum of the likelihood
    top = log_likelihood(fit.value, results)
    assert top > log_likelihood(truth + 5, results) and top > log_likelihood(truth - 5, results)


def test_more_wins_mean_a_higher_rating_and_more_games_a_narrower_interval() -> None:
    values = []
    for wins in (100, 300, 500, 700, 900):
        fit = fit_rating([Result(0.0, 2, wins, 1000), Result(500.0, 4, wins / 4, 1000)])
        assert fit is not None and fit.value is not None
        values.append(fit.value)
    assert values == sorted(values) and len(set(values)) == len(values)
    small = fit_rating([Result(0.0, 2, 60, 100)])
    large = fit_rating([Result(0.0, 2, 600, 1000)])
    assert small is not None and large is not None
    assert small.value == pytest.approx(large.value)
    assert large.high - large.low < small.high - small.low  # type: ignore[operator]


def test_the_interval_is_the_likelihood_ratio_interval() -> None:
    results = [Result(0.0, 2, 700, 1000)]
    fit = fit_rating(results)
    assert fit is not None and fit.value is not None
    top = log_likelihood(fit.value, results)
    for end in (fit.low, fit.high):
        assert 2 * (top - log_likelihood(end, results)) == pytest.approx(3.841, abs=1e-3)
    # at two players, one rung: the closed form of Elo
    assert fit.value == pytest.approx(400 * math.log10(0.7 / 0.3), abs=1e-4)


def test_every_game_won_or_lost_is_off_the_scale() -> None:
    above = fit_rating([Result(0.0, 4, 200, 200), Result(300.0, 4, 100, 100)])
    below = fit_rating([Result(0.0, 2, 0, 50)])
    assert above is not None and above.value is None and above.off_scale == "above"
    assert below is not None and below.value is None and below.off_scale == "below"
    assert above.to_dict()["rating"] is None
    assert fit_rating([]) is None


def test_a_result_that_cannot_be_is_refused() -> None:
    with pytest.raises(ValueError, match="not a result to rate"):
        fit_rating([Result(0.0, 2, 11, 10)])
    with pytest.raises(ValueError, match="not a result to rate"):
        fit_rating([Result(float("nan"), 2, 1, 10)])
