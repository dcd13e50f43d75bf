"""Event logs for viewers, tournament logs, agent names in logs, and the HTML replay's
data (the browser tests are in ``test_replay_browser``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from replay_logs import HOSTILE, assert_offline, cut_log, tournament_log

import mamma_mia_env as mm
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env.game.log import MAX_AGENT_NAME, LogError, load_log
from mamma_mia_env.render.html import page_data, replay_html, step_caption
from mamma_mia_env.render.svg import table_shapes
from mamma_mia_env.render.view import table_view


def _random_game(num_players: int = 3, seed: int = 3) -> mm.raw_env:
    e = mm.raw_env(num_players=num_players)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while e.game.data["phase"][0] != 2:
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    return e


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_event_log_outcomes_account_for_every_delivery(seed):
    log = _random_game(seed=seed).event_log()
    outcomes = [o for ev in log["events"] for o in ev.get("reveal", [])]
    per_seat = [0, 0, 0]
    for o in outcomes:
        per_seat[o["seat"]] += o["delivered"]
    assert per_seat == log["result"]["delivered"]
    for ev in log["events"]:  # every event has these keys
        assert {"round", "seat", "decision", "action", "text", "delivered", "rewards"} <= set(ev)
        if "reveal" in ev:
            assert ev["failed"] == [o for o in ev["reveal"] if not o["delivered"]]
            if any(o["delivered"] for o in ev["reveal"]):
                assert sum(ev["cards_taken"].values()) > 0
        if ev["decision"] == "reveal":  # the decided order comes first
            assert ev["reveal"][0]["by"] == "owner" and ev["reveal"][0]["order"] == ev["order"]
        for o in ev.get("reveal", [])[1:]:
            assert o["by"] != "owner"
    json.dumps(log)


def test_every_delivery_names_its_cards():
    log = _random_game(seed=3).event_log()
    done = [o for ev in log["events"] for o in ev.get("reveal", []) if o["delivered"]]
    assert done
    for o in done:
        if o["order"].startswith("4 "):  # a simple order takes 4 + 1 cards' worth
            assert sum(o["cards_taken"].values()) >= 2


def test_load_log_checks_what_comes_in(tmp_path):
    log = _random_game().event_log()
    good = tmp_path / "g.json"
    good.write_text(json.dumps(log))
    assert len(load_log(good)["_states"]) == len(log["actions"]) + 1
    bad = dict(log, actions=[*log["actions"][:5], 10**6])
    with pytest.raises(LogError, match=r"actions\[5\] must be in 0-"):
        load_log(bad)
    with pytest.raises(LogError, match="format"):
        load_log(dict(log, format="x"))
    with pytest.raises(LogError, match="seed"):
        load_log(dict(log, seed="abc"))
    with pytest.raises(LogError, match="config"):
        load_log(dict(log, config={"num_players": 9}))
    with pytest.raises(LogError, match="after the end"):
        load_log(dict(log, actions=[*log["actions"], 0]))
    (tmp_path / "t.json").write_text("{")
    with pytest.raises(LogError, match="not valid JSON"):
        load_log(tmp_path / "t.json")


def test_tournament_logs_are_the_games_played():
    res = run_tournament(
        ["builder", "counter", "random"], num_players=3, games=6, workers=1,
        progress=False, save_logs=2,
    )  # fmt: skip
    assert len(res.logs) == 2
    for k, log in enumerate(res.logs):
        assert log["result"]["delivered"] == [int(x) for x in res.delivered[k]]
        assert log["agents"] == [res.names[a] for a in res.assign[k]]
        load_log(log)


def test_cli_replay_html_is_self_contained(tmp_path):
    log = _random_game().event_log()
    (tmp_path / "g.json").write_text(json.dumps(log))
    out = tmp_path / "g.html"
    r = subprocess.run(
        [sys.executable, "-m", "mamma_mia_agents", "replay", str(tmp_path / "g.json"),
         "--html", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    page = out.read_text(encoding="utf-8")
    assert_offline(page)
    assert page.count("id='data'") == 1
    assert "<title>Mamma Mia! replay</title>" in page and "g.json" in page
    assert page_data_of(page)["start_view"] == 0
    r = subprocess.run(
        [sys.executable, "-m", "mamma_mia_agents", "replay", str(tmp_path / "g.json"),
         "--html", str(out), "--seat", "1"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert page_data_of(out.read_text(encoding="utf-8"))["start_view"] == 2  # seat 1's view


def page_data_of(page: str) -> dict:
    """The JSON the page embeds (its ``<script id='data'>``)."""
    start = page.index("<script id='data' type='application/json'>")
    body = page[page.index(">", start) + 1 : page.index("</script>", start)]
    return json.loads(body)


def test_cli_replay_refuses_a_bad_log(tmp_path):
    (tmp_path / "b.json").write_text('{"format": "nope"}')
    r = subprocess.run(
        [sys.executable, "-m", "mamma_mia_agents", "replay", str(tmp_path / "b.json")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 2 and "format" in r.stderr


# -- agent names in logs ----------------------------------------------------------------
def test_logs_record_agent_names_and_check_them():
    e = _random_game(num_players=2, seed=5)
    names = ["alice", "bob"]
    log = mm.replay_events(e.config, e.seed_used, e.actions_taken, agents=names)
    assert log["agents"] == names
    assert load_log(json.loads(json.dumps(log)))["agents"] == names
    assert "agents" not in load_log(e.event_log())  # a log without names still loads
    for bad, why in (
        (["alice"], "2 names"),
        (["alice", 7], r"agents\[1\]"),
        (["", "bob"], r"agents\[0\]"),
        (["a" * (MAX_AGENT_NAME + 1), "bob"], r"agents\[0\]"),
        ("alice,bob", "2 names"),
    ):
        with pytest.raises(LogError, match=f"field 'agents'.*{why}"):
            load_log(dict(log, agents=bad))
        with pytest.raises(ValueError, match=why):
            mm.replay_events(e.config, e.seed_used, e.actions_taken, agents=bad)


def picture_items(data: dict, i: int, v: int) -> list[list]:
    """The rectangles and text of view ``v`` (0: all hands, 1 + s: seat s) at position
    ``i`` of ``page_data``, placed as the page's script places them (``draw``)."""

    def flat(index: int, dx: float, dy: float) -> list[list]:
        out = []
        for kind, x, y, *rest in data["pieces"][index]:
            if kind == "g":
                out += flat(rest[0], dx + x, dy + y)
            else:
                out.append([kind, dx + x, dy + y, *rest])
        return out

    return flat(data["steps"][i][v][0], 0, 0)


def test_page_holds_exactly_each_viewers_picture():
    """Each position's picture for each viewer is ``table_shapes`` of that viewer's
    ``table_view``, and nothing more: a seat's picture draws no other hand."""
    log = load_log(tournament_log(3))
    data = page_data(log)
    for i, rec in enumerate(log["_states"]):
        for v, viewer in enumerate([None, 0, 1, 2]):
            view = table_view(rec, 3, viewer)
            shapes, height = table_shapes(view, log["agents"])
            items = picture_items(data, i, v)
            assert items == [list(item) for item in shapes.flat()]
            assert data["steps"][i][v][1] == height
            hidden = sum(item[3] == "hand not shown in this view" for item in items)
            assert hidden == (0 if viewer is None else 2)
            for seat in view["seats"]:  # a seat's view carries no other hand
                shown = viewer is None or seat["seat"] == viewer
                assert (seat["hand"] is not None) == shown
                assert (seat["orders"] is not None) == shown


def test_captions_name_the_agents_and_every_reveal_outcome():
    log = load_log(tournament_log(4))
    names = log["agents"]
    assert step_caption(log, 0).startswith("Deal. Personal ingredients: builder (seat 0): salami")
    seen_from_hand = False
    for i, ev in enumerate(log["events"], start=1):
        caption = step_caption(log, i)
        who = f"Round {ev['round']}: {names[ev['seat']]} (seat {ev['seat']})"
        assert re.match(rf"{re.escape(who)}(: played|: passed| decided: )", caption), caption
        assert "order type" not in caption and "draw supply" not in caption  # the games' words
        lines = caption.splitlines()[1:]  # one reveal line per order turned over, in order
        for o, line in zip(ev.get("reveal", []), lines, strict=False):
            assert f"reveal: {names[o['seat']]} (seat {o['seat']})'s {o['order']}:" in line
            assert ("delivered" if o["delivered"] else "failed") in line
            for k, c in o["from_hand"].items():
                assert f"{c} {k}" in line.split("added ")[1] and "from hand" in line
                seen_from_hand = True
            for k, c in o["from_piles"].items():
                assert f"{c} {k}" in line.split("took ")[1]
        assert len(lines) >= len(ev.get("reveal", []))
    assert seen_from_hand
    final = page_data(log)["final"]
    assert final["winners"] == log["result"]["winners"]
    assert [final["ranks"][s] for s in final["winners"]] == [1] * len(final["winners"])


def test_names_from_a_log_are_escaped_everywhere():
    log = load_log(dict(tournament_log(4), agents=HOSTILE))
    page = replay_html(log, source="<b>x</b>.json")
    assert "<script>alert" not in page and "</script><!--" not in page
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<!--" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the title, escaped
    raw = re.search(r"type='application/json'>(.*?)</script>", page, re.S)[1]
    assert not set(raw) & set("<>&\u2028\u2029")
    data = json.loads(raw)
    assert data["names"] == HOSTILE  # the data, decoded, is the names as written


def test_a_four_player_page_is_small_and_offline():
    for players, limit in ((2, 400_000), (4, 1_000_000)):
        page = replay_html(load_log(tournament_log(players)))
        assert len(page.encode()) <= limit
        assert_offline(page)


def test_the_page_says_a_cut_log_did_not_finish():
    log = tournament_log(3)
    assert page_data(load_log(log))["final"]["unfinished"] is None  # finished: its winners
    final = page_data(load_log(cut_log(log, 40)))["final"]
    assert final["unfinished"] == "Game not finished: the log ends after move 40."
    assert final["winners"] == [] and final["ranks"] is None


def test_the_end_is_worded_once_with_its_tie_break():
    """``result_lines`` words every game's end (terminal game, browser game, replays):
    the delivered orders, the winners, and the tie-break count when orders tie."""
    from mamma_mia_env.render.text import result_lines

    labels = ["ann (seat 0)", "bob (seat 1)", "cy (seat 2)"]
    clear = {"delivered": [5, 3, 4], "ingredient_cards_in_hand": [1, 2, 3], "winners": [0]}
    assert result_lines(clear, labels) == [
        "Game over. Delivered orders: ann (seat 0) 5, bob (seat 1) 3, cy (seat 2) 4.",
        "Won by ann (seat 0).",
    ]
    tie = {"delivered": [5, 3, 5], "ingredient_cards_in_hand": [1, 2, 1], "winners": [0, 2]}
    assert result_lines(tie, labels)[1] == (
        "Won by ann (seat 0) and cy (seat 2) (a tie on orders goes to the most ingredient "
        "cards in hand: ann (seat 0) 1, bob (seat 1) 2, cy (seat 2) 1)."
    )
