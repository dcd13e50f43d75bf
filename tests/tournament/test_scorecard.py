"""The scorecard (``tournament/scorecard.py``): the ladder, the pairings, the document."""

from __future__ import annotations

import json

import pytest
from helpers import POLICY_FILE

from mamma_mia_agents import REGISTRY, BuilderAgent
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_agents.tournament.matches import AgentMismatchError
from mamma_mia_agents.tournament.scorecard import (
    ANCHORS,
    BATCH,
    EVAL_SEED,
    FORMAT,
    LADDER,
    ScorecardError,
    evaluate,
    format_scorecard,
    reference_ladder,
)
from mamma_mia_env import __version__

SMALL = dict(players=(2, 4), games=8, workers=1, progress=False)


def _numbers(card: dict) -> dict:
    """The scorecard without its provenance (timestamps, load, wall time)."""
    return {k: v for k, v in card.items() if k != "provenance"}


def test_the_ladder_is_random_builder_search_champion_and_champion_once_bundled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert [name for name, _ in LADDER] == ["random", "builder", "search", "champion"]
    monkeypatch.delitem(REGISTRY, "champion", raising=False)
    assert [n for n, _ in reference_ladder()] == ["random", "builder", "search"]
    monkeypatch.setitem(REGISTRY, "champion", BuilderAgent)
    assert [n for n, _ in reference_ladder()] == ["random", "builder", "search", "champion"]


def test_a_scorecard_holds_every_pairing_the_rating_the_seeds_and_the_stamp() -> None:
    card = evaluate("counter", ladder=["random", "builder"], **SMALL)
    assert card["format"] == FORMAT and card["version"] == __version__
    assert card["agent"] == {"spec": "counter", "name": "counter"}
    assert card["seeds"]["tournament_seed"] == EVAL_SEED
    assert card["seeds"]["deals"] == {"2": 4, "4": 2}  # 8 games: 2 and 4 seatings a deal
    assert card["seeds"]["batch_size"] == BATCH == 250
    stamp = card["provenance"]
    assert stamp["seeds"] == EVAL_SEED and "numpy" in stamp["packages"]
    assert set(stamp["git"]) == {"revision", "dirty"}
    for n in ("2", "4"):
        rows = card["players"][n]["pairings"]
        assert [r["opponent"] for r in rows] == ["random", "builder"]
        for r in rows:
            assert r["games"] == 8 and 0 <= r["wins"] <= 8
            assert r["win_rate"] == pytest.approx(r["wins"] / 8)
            assert r["win_rate_low"] <= r["win_rate"] <= r["win_rate_high"]
            assert r["chance"] == pytest.approx(1 / int(n))
    assert card["rating"]["by_players"].keys() == {"2", "4"}
    text = format_scorecard(card)
    assert "evaluation seed 20261125" in text and __version__ in text and "rating" in text


def test_the_rows_are_the_tournaments_own() -> None:
    """At 4 players the agent sits once against three copies of the rung, seats
    rotated, on the deals of the evaluation seed: the same games as the runner's."""
    card = evaluate("builder", ladder=["random"], players=(4,), games=8, workers=1,
                    progress=False)  # fmt: skip
    res = run_tournament(["builder", "random", "random", "random"], num_players=4, games=8,
                         seed=EVAL_SEED, workers=1, progress=False)  # fmt: skip
    row = next(r for r in res.table if r["agent"] == res.names[0])
    got = card["players"]["4"]["pairings"][0]
    assert got["wins"] == row["wins"] and got["mean_delivered"] == row["mean_delivered"]


def test_the_same_seed_gives_the_same_scorecard() -> None:
    first = evaluate("random", ladder=["random", "builder"], **SMALL)
    again = evaluate("random", ladder=["random", "builder"], **SMALL)
    other = evaluate("random", ladder=["random", "builder"], seed=5, **SMALL)
    assert _numbers(first) == _numbers(again)
    assert other["seeds"]["tournament_seed"] == 5
    assert _numbers(other)["players"] != _numbers(first)["players"]


def test_the_rating_uses_the_anchored_rungs_only() -> None:
    """A rung with no anchor plays and is reported, but does not move the rating."""
    with_ppo = evaluate("builder", ladder=["random", "ppo"], **SMALL)
    alone = evaluate("builder", ladder=["random"], **SMALL)
    assert "ppo" not in ANCHORS
    assert with_ppo["rating"]["overall"] == alone["rating"]["overall"]
    assert "no anchor" in format_scorecard(with_ppo)


def test_a_policy_file_for_two_players_skips_four() -> None:
    card = evaluate(str(POLICY_FILE[2]), ladder=["random"], **SMALL)
    assert card["agent"]["name"] == f"ppo:{POLICY_FILE[2].name}"
    assert list(card["players"]) == ["2"]
    assert "plays 2 players, not 4" in card["skipped"]["4"]
    assert "4 players: skipped" in format_scorecard(card)
    with pytest.raises(AgentMismatchError, match="can play none of the player counts"):
        evaluate(str(POLICY_FILE[2]), ladder=["random"], players=(4,), games=4, workers=1,
                 progress=False)  # fmt: skip


def test_the_search_rung_plays() -> None:
    """``search`` on the ladder, at very few games (it is the slow rung)."""
    card = evaluate("builder", ladder=[("search", SearchAgent(worlds=2, candidates=2))],
                    players=(2,), games=2, workers=1, progress=False)  # fmt: skip
    row = card["players"]["2"]["pairings"][0]
    assert row["opponent"] == "search" and row["games"] == 2
    assert row["spec"] == "SearchAgent(worlds=2, candidates=2, rollout='builder')"
    json.dumps(card, allow_nan=False)  # an object rung is recorded as text


def test_the_agent_is_not_played_against_itself() -> None:
    """``evaluate builder`` with builder on the ladder: no mirror match, and it says so."""
    card = evaluate("builder", ladder=["random", "builder"], players=(2,), games=2, workers=1,
                    progress=False)  # fmt: skip
    assert [r["opponent"] for r in card["players"]["2"]["pairings"]] == ["random"]
    assert card["itself"] == ["builder"]
    assert "ladder rung 'builder': the agent itself, not played" in format_scorecard(card)
    with pytest.raises(ScorecardError, match="holds only the agent itself"):
        evaluate("random", ladder=["random"], players=(2,), games=2, progress=False)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(ladder=["random", "random"]), "listed twice"),
        (dict(ladder=["nosuch"]), "ladder rung 'nosuch': unknown agent"),
        (dict(players=(2, 2)), "listed twice"),
        (dict(players=(6,)), "player count must be in 2-5"),
        (dict(games=0), "games must be in"),
    ],
)
def test_bad_arguments_are_refused_before_a_game(kwargs: dict, message: str) -> None:
    args = {**dict(ladder=["random"], players=(2,), games=2, workers=1, progress=False), **kwargs}
    with pytest.raises((ScorecardError, ValueError), match=message):
        evaluate("random", **args)
