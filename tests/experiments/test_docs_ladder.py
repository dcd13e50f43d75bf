"""experiments/docs/ladder.py: the leaderboard's ratings refitted from scorecard files,
and the champion's stored anchors agreeing with its committed scorecards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.docs.ladder import RESULTS, ladder_ratings, scorecard_fits
from mamma_mia_agents.tournament.ladder_rating import Result, fit_rating
from mamma_mia_agents.tournament.scorecard import ANCHORS


def _card(path: Path, agent: str, n: int, pairings: list[tuple[str, float, int]]) -> None:
    ladder = [{"name": o, "spec": o, "anchors": {str(n): ANCHORS[o][n]}} for o, _, _ in pairings]
    rows = [{"opponent": o, "wins": w, "games": g} for o, w, g in pairings]
    doc = {"agent": {"name": agent}, "ladder": ladder, "players": {str(n): {"pairings": rows}}}
    path.write_text(json.dumps(doc))


def test_an_agents_scorecards_at_a_count_are_fitted_together(tmp_path: Path) -> None:
    (tmp_path / "scorecards").mkdir()
    _card(tmp_path / "scorecards" / "x_2p_builder.json", "x", 2, [("builder", 1200.0, 2000)])
    _card(tmp_path / "scorecards" / "x_2p_search.json", "x", 2, [("search", 700.0, 2000)])
    _card(tmp_path / "scorecards" / "x_4p_builder.json", "x", 4, [("builder", 600.0, 2000)])
    fits = scorecard_fits(tmp_path)
    both = fit_rating(
        [
            Result(ANCHORS["builder"][2], 2, 1200.0, 2000),
            Result(ANCHORS["search"][2], 2, 700.0, 2000),
        ]
    )
    assert fits["x"][2]["fit"] == both
    assert fits["x"][2]["files"] == ["scorecards/x_2p_builder.json", "scorecards/x_2p_search.json"]
    assert fits["x"][4]["fit"] == fit_rating([Result(ANCHORS["builder"][4], 4, 600.0, 2000)])
    # between the two rungs it played: stronger than builder, weaker than search
    assert ANCHORS["builder"][2] < both.value < ANCHORS["search"][2]


def test_the_champions_anchors_are_its_committed_scorecards_fit() -> None:
    fits = scorecard_fits(RESULTS)
    for n, anchor in ANCHORS["champion"].items():
        assert anchor == pytest.approx(round(fits["champion"][n]["fit"].value, 1), abs=0.05)
        assert len(fits["champion"][n]["files"]) == 2  # against builder and against search


def test_the_table_lists_every_rung_best_first() -> None:
    lines = ladder_ratings().splitlines()[2:]
    names = [line.split("|")[1].strip() for line in lines]
    assert set(ANCHORS) <= set(names) and names[0] == "champion" and names[-1] == "random"


def test_the_anchors_table_is_the_stored_anchors_with_their_sources() -> None:
    from experiments.docs.ladder import anchors_table
    from mamma_mia_agents.tournament.scorecard import ANCHOR_SOURCES

    rows = {line.split("|")[1].strip(" `"): line for line in anchors_table().splitlines()[2:]}
    assert set(rows) == set(ANCHORS)
    for rung, by_count in ANCHORS.items():
        cells = [c.strip() for c in rows[rung].split("|")[2:-2]]
        assert cells == [f"{by_count[n]:g}" if n in by_count else "" for n in (2, 3, 4, 5)]
        assert rows[rung].rstrip(" |").endswith(ANCHOR_SOURCES[rung])
