"""The tournament runner: statistics against known cases, seating, duplicate deals,
reproducibility, outputs and the command line."""

from __future__ import annotations

import csv
import json
import math
import textwrap

import numpy as np
import pytest

from mamma_mia_agents import load_agent
from mamma_mia_agents.cli.commands import main
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_agents.tournament.matches import AgentError, play_games
from mamma_mia_agents.tournament.results import (
    cluster_mean_interval,
    mean_interval,
    plackett_luce_ratings,
    wilson_interval,
)
from mamma_mia_agents.tournament.schedule import deal_seeds, seating_schedule
from mamma_mia_env import Config, Engine
from mamma_mia_env.game.outcome import finishing_ranks, win_shares


# -- statistics -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # textbook values (Newcombe 1998, Table I; Wilson 1927), 95%
        (0, 10, 0.0, 0.2775),
        (1, 10, 0.0179, 0.4042),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
    ],
)
def test_wilson_interval_known_cases(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(2.5, 10)  # fractional (shared) wins are allowed
    assert 0 < lo < 0.25 < hi < 1
    # symmetric around 1/2, narrower with more games, contains the estimate
    a = wilson_interval(30, 100)
    b = wilson_interval(70, 100)
    assert a[0] == pytest.approx(1 - b[1]) and a[1] == pytest.approx(1 - b[0])
    assert np.diff(wilson_interval(300, 1000)) < np.diff(a)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_wilson_interval_coverage() -> None:
    """About 95% of intervals from simulated binomial draws contain the true p."""
    rng = np.random.default_rng(0)
    for p, n in [(0.05, 200), (0.3, 100), (0.5, 50)]:
        draws = rng.binomial(n, p, size=4000)
        hit = np.mean([lo <= p <= hi for lo, hi in (wilson_interval(k, n) for k in draws)])
        assert 0.93 <= hit <= 0.975, (p, n, hit)


def test_mean_intervals() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    m, lo, hi = mean_interval(x)
    half = 1.959963984540054 * np.std(x, ddof=1) / math.sqrt(5)
    assert (m, lo, hi) == pytest.approx((3.0, 3.0 - half, 3.0 + half))
    # one observation per cluster: the cluster interval is the plain one
    assert cluster_mean_interval(x, np.arange(5)) == pytest.approx((m, lo, hi))
    # identical copies within clusters: as wide as the clusters alone, not narrower
    xs = np.repeat(x, 4)
    _, clo, chi = cluster_mean_interval(xs, np.repeat(np.arange(5), 4))
    _, nlo, nhi = mean_interval(xs)
    assert chi - clo > 1.5 * (nhi - nlo)
    assert chi - clo == pytest.approx(hi - lo, rel=1e-9)  # the 5 clusters, nothing more


def test_ranks_and_win_shares() -> None:
    delivered = np.array([[5, 3, 5, 1], [2, 2, 2, 2], [4, 6, 0, 6]])
    cards = np.array([[2, 7, 2, 0], [1, 3, 3, 0], [0, 1, 7, 1]])
    np.testing.assert_array_equal(
        finishing_ranks(delivered, cards), [[1, 3, 1, 4], [3, 1, 1, 4], [3, 1, 4, 1]]
    )
    np.testing.assert_allclose(
        win_shares(delivered, cards),
        [[0.5, 0, 0.5, 0], [0, 0.5, 0.5, 0], [0, 0.5, 0, 0.5]],
    )


def test_plackett_luce_ratings_order_agents() -> None:
    # agent 0 always beats 1, which always beats 2; seats rotate
    assign = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]] * 30)
    rank_of = {0: 1, 1: 2, 2: 3}
    ranks = np.vectorize(rank_of.get)(assign)
    mu, sigma = plackett_luce_ratings(assign, ranks, 3)
    assert mu[0] > mu[1] > mu[2]
    assert (sigma < 25 / 3).all()
    # an agent in two seats of a game gets one (averaged) update
    mu2, _ = plackett_luce_ratings(np.array([[0, 1, 0]]), np.array([[1, 3, 2]]), 2)
    assert mu2[0] > 25 > mu2[1]


# -- seating and duplicate deals ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("k", "n", "seating", "rows"),
    [
        (4, 4, "rotate", 4),
        (2, 4, "rotate", 4),
        (5, 4, "rotate", 20),
        (5, 2, "rotate", 20),
        (3, 3, "permute", 6),
        (2, 4, "permute", 6),
        (1, 3, "rotate", 3),
    ],
)
def test_every_agent_sits_in_every_seat_equally(k: int, n: int, seating: str, rows: int) -> None:
    sched = seating_schedule(k, n, seating)
    assert sched.shape == (rows, n)
    counts = np.array([[np.sum(sched[:, s] == a) for s in range(n)] for a in range(k)])
    for a in range(k):
        assert len(set(counts[a])) == 1, f"agent {a} sits unevenly: {counts[a]}"
    if k >= n:
        assert all(len(set(r)) == n for r in sched.tolist())  # no agent twice at a table
    with pytest.raises(ValueError, match="seating"):
        seating_schedule(2, 2, "shuffle")


def test_duplicate_deals_replay_the_same_shuffles() -> None:
    res = run_tournament(
        ["counter", "builder", "hoarder"],
        num_players=3,
        games=30,
        seed=9,
        workers=1,
        progress=False,
    )
    assert res.games == 30 and res.deals == 10 and len(res.schedule) == 3
    seeds = deal_seeds(9, res.deals)
    assert int(seeds[3]) == (9 << 32) + 3
    eng = Engine(Config(num_players=3))
    for d in range(res.deals):
        games = np.flatnonzero(res.deal == d)
        assert len(games) == 3
        # every seating of the deal: same seed, so the same deal card for card
        start = eng.reset(seeds=[int(seeds[d])] * 3)
        assert all(start.data[0].tobytes() == start.data[i].tobytes() for i in (1, 2))
        # each agent sits in each seat once over the deal
        assert sorted(map(tuple, res.assign[games].T.tolist())) == sorted(
            map(tuple, seating_schedule(3, 3).T.tolist())
        )


def test_same_agent_in_every_seat_plays_the_same_game_each_rotation() -> None:
    """A deterministic bot everywhere: rotating the seats replays one game per deal."""
    res = run_tournament(
        ["builder"] * 4, num_players=4, games=40, seed=1, workers=1, progress=False
    )
    d = res.delivered.reshape(res.deals, 4, 4)
    assert (d == d[:, :1]).all()
    assert (res.turns.reshape(res.deals, 4) == res.turns.reshape(res.deals, 4)[:, :1]).all()


def test_a_game_replays_alone() -> None:
    cfg = Config(num_players=4)
    agents = [load_agent(a) for a in ("counter", "builder", "hoarder", "forgetful")]
    sched = seating_schedule(4, 4)
    seeds = np.repeat(deal_seeds(3, 5), 4)
    assign = np.tile(sched, (5, 1))
    whole = play_games(cfg, agents, assign, seeds, np.random.default_rng(0))
    for g in (0, 7, 13):
        alone = play_games(cfg, agents, assign[[g]], seeds[[g]], np.random.default_rng(0))
        np.testing.assert_array_equal(alone["delivered"][0], whole["delivered"][g])
        assert alone["turns"][0] == whole["turns"][g]


def test_tournament_is_reproducible_and_independent_of_workers() -> None:
    kw = dict(num_players=2, games=120, seed=4, progress=False)
    a = run_tournament(["random", "counter", "builder"], workers=1, **kw)
    b = run_tournament(["random", "counter", "builder"], workers=1, **kw)
    np.testing.assert_array_equal(a.delivered, b.delivered)
    assert a.table == b.table
    # deterministic agents: the same games whatever the number of processes
    # (small batches, so that there is more than one batch to hand to the processes)
    c = run_tournament(["counter", "builder", "forgetful"], workers=1, batch_size=32, **kw)
    d = run_tournament(["counter", "builder", "forgetful"], workers=2, batch_size=32, **kw)
    assert d.workers == 2
    np.testing.assert_array_equal(c.delivered, d.delivered)
    np.testing.assert_array_equal(c.cards, d.cards)


def test_table_statistics_are_consistent() -> None:
    res = run_tournament(
        ["random", "counter", "builder", "hoarder", "forgetful"],
        num_players=5,
        games=50,
        seed=2,
        workers=1,
        progress=False,
    )
    table = res.table
    assert [r["rank"] for r in table] == [1, 2, 3, 4, 5]
    assert sum(r["wins"] for r in table) == pytest.approx(res.games)
    for r in table:
        assert r["seat_games"] == res.games  # five agents, five seats
        assert r["win_rate_low"] <= r["win_rate"] <= r["win_rate_high"]
        assert r["delivered_low"] <= r["mean_delivered"] <= r["delivered_high"]
        assert r["rating_low"] < r["rating_mu"] < r["rating_high"]
    rates = [r["win_rate"] for r in table]
    assert rates == sorted(rates, reverse=True)


def test_outputs(tmp_path) -> None:
    res = run_tournament(
        ["random", "builder"],
        num_players=2,
        games=20,
        seed=0,
        workers=1,
        progress=False,
        command="mamma-mia tournament ...",
    )
    paths = res.write(tmp_path, "t")
    assert [p.rsplit("/", 1)[1] for p in paths] == ["t.csv", "t.json", "t.png"]
    rows = list(csv.DictReader((tmp_path / "t.csv").read_text().splitlines()))
    assert [r["agent"] for r in rows] == [r["agent"] for r in res.table]
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["games"] == 20 and doc["command"] == "mamma-mia tournament ..."
    assert doc["results"][0]["agent"] == res.table[0]["agent"]
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = res.format_table()
    assert "win rate" in text and "builder" in text
    assert res.format_markdown().startswith("| # | agent")


def test_illegal_agent_is_named() -> None:
    class Cheater:
        name = "cheater"

        def act_batch(self, observations, masks, rng, seats=None):
            return np.full(len(masks), masks.shape[1] - 1)  # a reveal action, mid-turn

    with pytest.raises(AgentError, match="cheater.*illegal action"):
        run_tournament([Cheater(), "random"], num_players=2, games=2, workers=1, progress=False)


def test_variant_rules_reach_the_engine() -> None:
    res = run_tournament(
        ["random", "builder"],
        num_players=3,
        games=6,
        workers=1,
        progress=False,
        double_ingredients=True,
        max_turns=30,
    )
    assert res.config.double_ingredients and res.config.max_turns == 30
    assert res.truncated.all()
    with pytest.raises(ValueError, match="unknown config field"):
        run_tournament(["random"], num_players=2, games=2, workers=1, progress=False, bogus=1)


# -- the command line -----------------------------------------------------------------------------
def _run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tournament", "--agents", "random,countr"], "unknown agent 'countr' (did you mean"),
        (["tournament", "--agents", "random,nosuchpkg.mod:Bot"], "cannot import module"),
        (["tournament", "--agents", "random,"], "comma-separated list"),
        (["tournament", "--agents", "random", "--players", "6"], "--players must be 2-5"),
        (["tournament", "--agents", "random", "--players", "four"], "must be an integer"),
        (["tournament", "--agents", "random", "--games", "0"], "--games must be 1-1000000"),
        (["tournament", "--agents", "random", "--seating", "shuffle"], "invalid choice"),
        (["tournament", "--agents", "random", "--no-idle-cycle-guard"], "needs max_turns"),
        (["tournament", "--agents", "random", "--bogus"], "unrecognized arguments: --bogus"),
        (["tournament"], "the following arguments are required: --agents"),
        (["tourney"], "invalid choice: 'tourney'"),
        (
            ["tournament", "--agents", "ppo,builder", "--players", "3", "--double-ingredients"],
            "agent 'ppo' cannot play this game: the policy ",
        ),
        ([], "required: COMMAND"),
    ],
)
def test_cli_errors(capsys, argv: list[str], message: str) -> None:
    code, out, err = _run_cli(capsys, *argv)
    assert code == 2
    assert message in err, err
    assert "Traceback" not in err


def test_cli_runs_a_tournament_with_a_third_party_agent(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "cli_bots.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from mamma_mia_agents import Agent

            class LastLegal(Agent):
                name = "last-legal"
                def act_batch(self, observations, masks, rng, seats=None):
                    return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out_dir = tmp_path / "out"
    argv = "tournament --players 3 --games 12 --agents builder,cli_bots:LastLegal --workers 1"
    argv += " --no-plot --no-progress --seed 5 --out"
    code, out, err = _run_cli(capsys, *argv.split(), str(out_dir))
    assert code == 0, err
    assert "last-legal" in out and "builder" in out and "win rate" in out
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "tournament.csv",
        "tournament.csv.meta.json",
        "tournament.json",
    ]
    doc = json.loads((out_dir / "tournament.json").read_text())
    assert doc["command"].startswith("mamma-mia tournament --players 3")
    assert doc["num_players"] == 3 and doc["games"] == 12


def test_cli_json_and_agents_list(capsys) -> None:
    argv = "tournament --players 2 --games 4 --agents random,counter --json --no-progress"
    code, out, _ = _run_cli(capsys, *argv.split(), "--workers", "1")
    assert code == 0
    assert json.loads(out)["format"] == "mamma-mia-tournament/1"
    code, out, _ = _run_cli(capsys, "agents")
    assert code == 0
    for name in ("random", "counter", "builder", "hoarder", "forgetful"):
        assert name in out
