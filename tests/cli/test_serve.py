"""``mamma-mia serve`` at the HTTP level: every route, whole games, undo, save and
resume, the bound on live games, and bad requests (each answered with a 4xx and a
message, leaving the game as it was). The JSON the page receives is checked against
the real state: the person's own hand only, no seed, no agent's legal moves."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest
from serve_client import REVEAL_SEED, call, person_move, request, running_server

from mamma_mia_agents import REGISTRY
from mamma_mia_agents.cli.web_server import IDLE_SECONDS, MAX_BODY, GameServer
from mamma_mia_env.render.svg import table_svg
from mamma_mia_env.render.view import table_view

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIG_SEED = 918273645546372819  # digits that cannot turn up by chance


def _keys(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _keys(v)


def check_private(server: GameServer, page: dict) -> None:
    """The page's JSON shows the person's own hand (as in the real state) and no other
    hand, no seed and no legal moves but the person's own."""
    game = server.games[page["id"]].game
    rec, n, seat = game.rec, game.config.num_players, game.seat
    text = json.dumps(page)
    assert "seed" not in set(_keys(page))
    if game.seed > 10**12:  # a seed too long to turn up by chance
        assert str(game.seed) not in text
    for s, shown in enumerate(page["view"]["seats"]):
        assert shown["hand_size"] == int(rec["hand"][s].sum() + rec["orders_hand"][s].sum())
        if s == seat:
            real = [[k, int(rec["hand"][s][k]), int(rec["hand"][s][5 + k])] for k in range(5)]
            assert shown["hand"] == [r for r in real if r[1] or r[2]]
            assert shown["order_types"] == [int(t) for t in np.flatnonzero(rec["orders_hand"][s])]
        else:
            assert shown["hand"] is None and shown["orders"] is None
            assert shown["order_types"] is None
    own = table_view(rec, n, seat, game.config.observation_mode == "fixed")
    assert page["view"] == own and page["svg"] == table_svg(own)
    if page["status"] != "you":
        assert page["question"] is None
    else:
        legal = set(np.flatnonzero(game.legal()).tolist())
        assert {o["action"] for o in page["question"]["options"]} == legal


def play_to_end(server: GameServer, page: dict, undo_at: int | None = None) -> tuple[dict, int]:
    """Play with ``person_move`` to the end, checking every page; the number of
    person's reveal decisions met."""
    gid, reveals, moves = page["id"], 0, 0
    while page["status"] != "over":
        check_private(server, page)
        if page["status"] == "agent":
            page = call(server, "POST", f"/api/games/{gid}/step", {})
            continue
        reveals += page["question"]["kind"] == "reveal"
        page = call(
            server,
            "POST",
            f"/api/games/{gid}/act",
            {"action": person_move(page["question"])["action"]},
        )
        moves += 1
        if moves == undo_at:
            page = _undo_and_replay(server, page)
    check_private(server, page)
    return page, reveals


def _undo_and_replay(server: GameServer, page: dict) -> dict:
    """Undo goes back to the person's previous decision: the same question, the same
    view, the actions cut before it; playing the same move again gives the same game."""
    web = server.games[page["id"]]
    actions, actors = list(web.game.actions), [step.seat for step in web.game.steps]
    i = max(j for j, s in enumerate(actors) if s == web.game.seat)
    while page["status"] == "agent":  # the agents' moves after it are undone too
        page = call(server, "POST", f"/api/games/{page['id']}/step", {})
    after = list(web.game.actions)
    back = call(server, "POST", f"/api/games/{page['id']}/undo", {})
    assert server.games[page["id"]].game.actions == actions[:i] and back["status"] == "you"
    # the move list is the game's own: the undone moves are gone from it
    assert [m["n"] for m in back["moves"]] == list(range(i))
    check_private(server, back)
    page = call(server, "POST", f"/api/games/{page['id']}/act", {"action": actions[i]})
    while page["status"] == "agent" and len(server.games[page["id"]].game.actions) < len(after):
        page = call(server, "POST", f"/api/games/{page['id']}/step", {})
    assert server.games[page["id"]].game.actions == after
    return page


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    save = tmp_path_factory.mktemp("serve") / "save.json"
    flags = ["--players", "2", "--agents", "builder", "--seed", str(BIG_SEED), "--save", str(save)]
    with running_server(*flags, "--max-games", "20") as srv:
        yield srv


def test_page_files_and_setup(server):
    for path, ctype in (("/", "text/html"), ("/app.js", "text/javascript"),
                        ("/style.css", "text/css")):  # fmt: skip
        status, headers, body = request(server, "GET", path)
        assert status == 200 and headers["Content-Type"].startswith(ctype) and body
        assert "default-src 'self'" in headers["Content-Security-Policy"]
    setup = call(server, "GET", "/api/setup")
    assert setup["players"] == 2 and setup["others"] == ["builder"] and "search" in setup["agents"]
    assert str(BIG_SEED) not in json.dumps(setup)


def test_whole_game_with_undo_never_shows_hidden_cards(server):
    server.settings["seed"] = REVEAL_SEED
    try:
        page = call(server, "POST", "/api/games", {"players": 2, "agents": ["builder"], "seat": 0})
    finally:
        server.settings["seed"] = BIG_SEED
    end, reveals = play_to_end(server, page, undo_at=5)
    assert reveals >= 1  # the person met a reveal decision
    res = end["result"]
    game = server.games[end["id"]].game
    assert res["delivered"] == [len(s["delivered"]) for s in end["view"]["seats"]]
    assert res["winners"] and sum(res["delivered"]) > 0 and game.over()
    assert not end["can_undo"] or end["question"] is None


def test_seat_and_agents_chosen_in_the_form(server):
    page = call(server, "POST", "/api/games", {"players": 3, "agents": ["random"], "seat": 2})
    assert page["seat"] == 2 and page["names"] == ["random", "random", "you"]
    while page["status"] == "agent":
        check_private(server, page)
        page = call(server, "POST", f"/api/games/{page['id']}/step", {})
    check_private(server, page)
    assert page["status"] == "you" and page["view"]["to_act"] == 2


def _snapshot(server, gid):
    return list(server.games[gid].game.actions), call(server, "GET", f"/api/games/{gid}")


def test_bad_requests_leave_the_game_as_it_was(server):
    page = call(server, "POST", "/api/games", {})
    gid = page["id"]
    page = call(
        server, "POST", f"/api/games/{gid}/act", {"action": person_move(page["question"])["action"]}
    )
    while page["status"] == "agent":
        page = call(server, "POST", f"/api/games/{gid}/step", {})
    before = _snapshot(server, gid)
    illegal = int(np.flatnonzero(~server.games[gid].game.legal())[0])
    act = f"/api/games/{gid}/act"
    bad = [
        ("PUT", act, {"action": 0}, None, {}, 405),
        ("DELETE", f"/api/games/{gid}", None, None, {}, 405),
        ("GET", act, None, None, {}, 405),
        ("POST", f"/api/games/{gid}", {}, None, {}, 405),
        ("POST", "/", {}, None, {}, 405),
        ("POST", act, None, b"x" * (MAX_BODY + 1), {}, 413),
        ("POST", act, None, b"{}", {"Content-Length": str(10**9)}, 413),
        ("POST", act, None, b"{not json", {}, 400),
        ("POST", act, None, b"\xff\xfe{}", {}, 400),
        ("POST", act, None, b"[" * 2000 + b"]" * 2000, {}, 400),
        ("POST", act, [1, 2], None, {}, 400),
        ("POST", act, {}, None, {}, 400),
        ("POST", act, {"action": 0, "seat": 1}, None, {}, 400),
        ("POST", act, {"action": illegal}, None, {}, 409),
        ("POST", act, {"action": -1}, None, {}, 409),
        ("POST", act, {"action": 10**30}, None, {}, 409),
        ("POST", act, {"action": True}, None, {}, 409),
        ("POST", act, {"action": "3"}, None, {}, 409),
        ("POST", act, {"action": 3.0}, None, {}, 409),
        ("POST", act, {"action": 0}, None, {"Content-Type": "text/plain"}, 415),
        ("POST", act, {"action": 0}, None, {"Host": "evil.example:80"}, 403),
        ("POST", f"/api/games/{gid}/step", {}, None, {}, 409),  # the person's turn
        ("POST", "/api/games/AAAAAAAAAAAAAAAAAAAAAA/act", {"action": 0}, None, {}, 404),
        ("GET", "/api/games/nosuchgame1234", None, None, {}, 404),
        ("GET", "/../../etc/passwd", None, None, {}, 404),
        ("POST", "/api/games", {"players": 9}, None, {}, 400),
        ("POST", "/api/games", {"players": 2, "seat": 2}, None, {}, 400),
        ("POST", "/api/games", {"agents": ["os:system"]}, None, {}, 400),
        ("POST", "/api/games", {"agents": "builder"}, None, {}, 400),
    ]
    for method, path, body, raw, headers, want in bad:
        status, hdrs, data = request(server, method, path, body, raw=raw, headers=headers)
        assert status == want, (method, path, body, raw and raw[:20], status, data)
        msg = json.loads(data)["error"]
        assert msg and "\n" not in msg and "Traceback" not in msg
        assert hdrs["Content-Type"].startswith("application/json")
        assert _snapshot(server, gid) == before, (method, path, body)


def test_undo_before_any_decision_is_refused(server):
    page = call(server, "POST", "/api/games", {"players": 2, "agents": ["builder"], "seat": 1})
    status, _, data = request(server, "POST", f"/api/games/{page['id']}/undo", {})
    assert status == 409 and "nothing to undo" in json.loads(data)["error"]
    assert not page["can_undo"]


def test_save_writes_on_the_server_and_resume_continues(server):
    page = call(server, "POST", "/api/games", {})
    gid = page["id"]
    for _ in range(3):
        page = call(
            server,
            "POST",
            f"/api/games/{gid}/act",
            {"action": person_move(page["question"])["action"]},
        )
        while page["status"] == "agent":
            page = call(server, "POST", f"/api/games/{gid}/step", {})
    saved = call(server, "POST", f"/api/games/{gid}/save", {})
    assert saved["saved"] == server.settings["save"] and "seed" not in saved
    assert str(BIG_SEED) not in json.dumps(saved)
    resumed = call(server, "POST", "/api/resume", {})
    assert resumed["id"] != gid and resumed["view"] == page["view"]
    assert server.games[resumed["id"]].game.actions == server.games[gid].game.actions
    assert resumed["can_undo"]  # who made each action is rebuilt on resume
    check_private(server, resumed)


def test_live_games_are_bounded(tmp_path):
    flags = ("--players", "2", "--seed", "3", "--max-games", "2", "--save", str(tmp_path / "s"))
    with running_server(*flags) as srv:
        first = call(srv, "POST", "/api/games", {})
        play_to_end(srv, first)
        second = call(srv, "POST", "/api/games", {})
        third = call(srv, "POST", "/api/games", {})  # the finished game makes room
        assert first["id"] not in srv.games and third["id"] in srv.games
        status, _, data = request(srv, "GET", f"/api/games/{first['id']}")
        assert status == 404
        status, _, data = request(srv, "POST", "/api/games", {})
        assert status == 503 and "--max-games" in json.loads(data)["error"]
        assert len(srv.games) == 2
        srv.games[third["id"]].touched -= IDLE_SECONDS + 1  # left alone: makes room
        fourth = call(srv, "POST", "/api/games", {})
        assert third["id"] not in srv.games and set(srv.games) == {second["id"], fourth["id"]}


def test_resume_of_a_bad_file_is_a_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[" * 100000)
    with running_server("--save", str(bad)) as srv:
        status, _, data = request(srv, "POST", "/api/resume", {})
    assert status == 400 and str(bad) in json.loads(data)["error"]


def _cli(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, "-m", "mamma_mia_agents", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)  # fmt: skip


def test_cli_prints_one_line_with_the_url(tmp_path):
    proc = _cli("serve", "--port", "0", "--players", "2", cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"Open http://127\.0\.0\.1:(\d+)/ in your browser .*\n", line)
        assert m, line
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/api/setup", timeout=60) as r:
            assert json.loads(r.read())["players"] == 2
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--agents", "nosuchagent"], "nosuchagent"),
        (["--port", "70000"], "--port"),
        (["--resume", "missing.json"], "missing.json"),
        (["--delay", "-1"], "--delay"),
    ],
)
def test_cli_refuses_bad_flags_with_a_message(tmp_path, args, needle):
    proc = _cli("serve", "--port", "0", *args, cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and needle in err and "Traceback" not in err, err


@pytest.mark.parametrize("agent", list(REGISTRY))
def test_every_bundled_agent_can_be_played_against(server, agent):
    page = call(server, "POST", "/api/games", {"players": 2, "agents": [agent], "seat": 1})
    assert page["status"] == "agent" and page["names"] == [agent, "you"]
    while page["status"] == "agent":
        page = call(server, "POST", f"/api/games/{page['id']}/step", {})
    check_private(server, page)
    assert page["moves"][0]["text"].startswith(f"{agent} (seat 0): played ")


def test_resume_flag_opens_the_saved_game(tmp_path):
    save = tmp_path / "save.json"
    with running_server("--players", "2", "--seed", "11", "--save", str(save)) as srv:
        page = call(srv, "POST", "/api/games", {})
        page = call(
            srv,
            "POST",
            f"/api/games/{page['id']}/act",
            {"action": person_move(page["question"])["action"]},
        )
        call(srv, "POST", f"/api/games/{page['id']}/save", {})
        actions = list(srv.games[page["id"]].game.actions)
    with running_server("--resume", str(save)) as srv:
        opened = call(srv, "GET", "/api/setup")["open"]
        assert srv.games[opened].game.actions == actions
        again = call(srv, "GET", f"/api/games/{opened}")
        assert again["view"] == page["view"] and again["seat"] == 0
        # the resumed game comes back with its whole move list
        assert again["moves"] == page["moves"] and len(again["moves"]) == len(actions)
        saved = call(srv, "POST", f"/api/games/{opened}/save", {})
        assert saved["saved"] == str(save) and "replacing" in saved["message"]


def test_requests_the_base_class_refuses_are_json_too(server):
    import socket

    requests = (b"FOO / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", b"GET / HTTP/2.0\r\n\r\n",
                b"GARBAGE\r\n\r\n")  # fmt: skip
    for line in requests:
        with socket.create_connection(("127.0.0.1", server.server_address[1]), 30) as sock:
            sock.sendall(line)
            answer = b""
            while chunk := sock.recv(65536):  # the server closes after an error
                answer += chunk
        if answer.startswith(b"HTTP/"):
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.split()[1] in (b"501", b"505") and b"application/json" in head
        else:  # an HTTP/0.9 answer is its body alone
            body = answer
        assert json.loads(body)["error"][:3] in ("400", "501", "505")


def test_connections_are_bounded(tmp_path):
    """Idle connections hold their threads; past the bound a request gets a 503 at
    once, and the server serves again once they close."""
    import socket
    import threading

    with running_server("--save", str(tmp_path / "s")) as srv:
        srv.slots = threading.BoundedSemaphore(2)
        idle = [socket.create_connection(("127.0.0.1", srv.server_address[1])) for _ in range(2)]
        try:
            deadline = time.monotonic() + 10
            while srv.slots._value > 0 and time.monotonic() < deadline:  # both accepted
                time.sleep(0.01)
            status, _, data = request(srv, "GET", "/")
            assert status == 503 and b"busy" in data
        finally:
            for s in idle:
                s.close()
        deadline = time.monotonic() + 10
        while srv.slots._value < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        status, _, _ = request(srv, "GET", "/")
        assert status == 200
