"""A ``mamma-mia serve`` server in a thread and a small JSON client for its tests."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

from mamma_mia_agents.cli.commands import build_parser
from mamma_mia_agents.cli.serve import make_server, settings_from
from mamma_mia_agents.cli.web_server import GameServer

#: 2 players against builder: with ``person_move`` the person meets a reveal decision.
REVEAL_SEED = 4


@contextlib.contextmanager
def running_server(*flags: str) -> Iterator[GameServer]:
    """A server on a free port of 127.0.0.1 with ``mamma-mia serve`` ``flags``."""
    args = build_parser().parse_args(["serve", *flags])
    server = make_server(settings_from(args), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def request(
    server: GameServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of one request (``body`` as JSON, or ``raw`` bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=120)
    hdrs = {"Content-Type": "application/json"} if (body is not None or raw is not None) else {}
    hdrs.update(headers or {})
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    try:
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def call(server: GameServer, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """The JSON of a request that must succeed."""
    status, _, data = request(server, method, path, body)
    assert status in (200, 201), (status, data)
    return json.loads(data)


def person_move(question: dict[str, Any]) -> dict[str, Any]:
    """The option a test plays: at a reveal the first delivery; on a turn the first
    ingredients and, with them, an order card when one can be played."""
    opts = question["options"]
    if question["kind"] == "reveal":
        return next(o for o in opts if o["label"].startswith("deliver"))
    rest = [o for o in opts if o["play"] == opts[0]["play"]]
    return next((o for o in rest if o["order"] != "no order card"), rest[0])
