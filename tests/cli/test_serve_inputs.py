"""``mamma-mia serve``'s inputs beyond the page's own requests: the address it listens
on (loopback unless ``--allow-remote``; never an empty ``--host``), the Host check on
every address, header values read by the one digit checker, and request bodies read by
the project's one JSON reader (no ``1e999``, no lone surrogates). Servers bind
127.0.0.1 only."""

from __future__ import annotations

import json
import threading

import pytest
from serve_client import request, running_server

from mamma_mia_agents.cli.commands import build_parser
from mamma_mia_agents.cli.serve import settings_from
from mamma_mia_agents.cli.web_server import GameServer


@pytest.mark.parametrize(
    "host", ["", " ", "0.0.0.0", "10.1.2.3", "::", "example.org", "127.0.0.1 ", "lo\ncal"]
)
def test_a_host_others_can_reach_needs_allow_remote(host, capsys):
    args = build_parser().parse_args(["serve", "--host", host, "--port", "0"])
    with pytest.raises(SystemExit) as exc:  # before the server is made
        settings_from(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--host" in err and "Traceback" not in err, err


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.4.5", "::1", "localhost", "LOCALHOST"])
def test_loopback_hosts_need_no_flag(host):
    args = build_parser().parse_args(["serve", "--host", host])
    assert settings_from(args)["host"] == host


def test_allow_remote_takes_another_address():
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--allow-remote"])
    assert settings_from(args)["host"] == "0.0.0.0"
    args = build_parser().parse_args(["serve", "--host", "", "--allow-remote"])
    with pytest.raises(SystemExit):  # empty: still refused, 0.0.0.0 says it
        settings_from(args)


def _remote_server() -> GameServer:
    """A server whose settings say ``--host 0.0.0.0 --allow-remote`` but that binds
    127.0.0.1 (tests never listen on other interfaces)."""
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--allow-remote"])
    return GameServer(("127.0.0.1", 0), settings_from(args))


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example", 403),
        ("evil.example:8000", 403),
        ("127.0.0.1.nip.io", 403),
        ("", 403),
        ("127.0.0.1:1", 200),
        ("localhost", 200),
        ("[::1]:80", 200),
        ("192.168.1.20:8000", 200),
        ("0.0.0.0", 200),
    ],
)
def test_the_host_check_stays_on_a_remote_address(host, status):
    server = _remote_server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        got, _, data = request(server, "GET", "/api/setup", headers={"Host": host})
        assert got == status, (host, data)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    save = tmp_path_factory.mktemp("serve") / "save.json"
    with running_server("--players", "2", "--save", str(save)) as srv:
        yield srv


@pytest.mark.parametrize("value", ["²", "٣".encode(), "+2", "2_0", "0x2", "-2", "2.0", "1e3"])
def test_content_length_is_plain_digits(server, value):
    """``"²".isdigit()`` is true (``int`` then refuses it: a 500 before)."""
    status, _, data = request(
        server, "POST", "/api/games", raw=b"{}", headers={"Content-Length": value}
    )
    msg = json.loads(data)["error"]
    assert status == 400 and "Content-Length" in msg, (value, status, msg)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"players": 1e999}',
        b'{"players": ' + b"9" * 4000 + b"}",
        b'{"players": "\\ud800"}',
        b'{"\\udfff": 2}',
        b'{"players": NaN}',
    ],  # fmt: skip
)
def test_a_body_is_read_by_the_json_checker(server, raw):
    status, _, data = request(server, "POST", "/api/games", raw=raw)
    msg = json.loads(data)["error"]
    assert status == 400 and "request body" in msg and "internal" not in msg, (raw[:30], msg)
