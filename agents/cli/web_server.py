"""The browser game's HTTP side: the server (bounded connections and games, loopback
host names only) and the request handler (every request checked, answered with JSON, a
bad one a 4xx with a one-line message that leaves the game as it was). The page receives
only ``WebGame.page()``, so the save file is written on the server's side.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from mamma_mia_agents.cli.options import PROG
from mamma_mia_agents.cli.session import AgentFailure, Game, SaveError
from mamma_mia_agents.cli.web_game import FormError, MoveError, WebGame, new_game
from mamma_mia_env.plumbing.arguments import parse_digits
from mamma_mia_env.plumbing.files import parse_json

#: The largest request body read (bytes): every request of the page is far smaller.
MAX_BODY = 4096
#: A game left alone this long (seconds) may make room for a new one when full.
IDLE_SECONDS = 15 * 60
#: connections served at once; more are answered 503 at once (a page uses one or two)
MAX_CONNECTIONS = 32
#: The page's files: name -> content type (nothing else is served from disk).
STATIC = {"index.html": "text/html", "app.js": "text/javascript", "style.css": "text/css"}
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
_GAME_PATH = re.compile(r"^/api/games/([A-Za-z0-9_-]{8,64})(?:/(act|step|undo|save))?$")


def is_loopback(host: str) -> bool:
    """``localhost`` or an address of the loopback network (127.0.0.0/8, ``::1``)."""
    address = _ip(host)
    return host.lower() == "localhost" or (address is not None and address.is_loopback)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an IP address (``[::1]`` too), or None for a name."""
    try:
        return ipaddress.ip_address(host[1:-1] if host.startswith("[") else host)
    except ValueError:
        return None


class RequestError(Exception):
    """A request refused with ``status`` and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class GameServer(ThreadingHTTPServer):
    """The server and its games: at most ``max_games`` live, each behind its own lock."""

    daemon_threads = True

    def __init__(self, addr: tuple[str, int], settings: dict[str, Any]) -> None:
        super().__init__(addr, Handler)
        self.settings = settings
        self.games: dict[str, WebGame] = {}
        self.games_lock = threading.Lock()
        self.opened: str | None = None  # the game --resume opened
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread per connection, at most ``MAX_CONNECTIONS`` at once: beyond that a
        connection gets a 503 and is closed, so idle sockets cannot pile up threads."""
        if not self.slots.acquire(blocking=False):
            body = json.dumps({"error": "the server is busy: try again"}).encode()
            head = (
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            with contextlib.suppress(OSError):
                request.sendall(head.encode() + body)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def add(self, game: Game) -> str:
        """Keep ``game`` under a fresh random id (never derived from its seed); when
        full, the least recently used finished or idle game makes room, else a 503."""
        with self.games_lock:
            if len(self.games) >= self.settings["max_games"]:
                idle = time.monotonic() - IDLE_SECONDS
                done = [k for k, w in self.games.items() if w.game.over() or w.touched < idle]
                if not done:
                    n = self.settings["max_games"]
                    raise RequestError(
                        503,
                        f"{n} games are being played (--max-games): finish one, wait "
                        f"{IDLE_SECONDS // 60} minutes or restart with a larger --max-games",
                    )
                del self.games[min(done, key=lambda k: self.games[k].touched)]
            key = secrets.token_urlsafe(16)
            self.games[key] = WebGame(game)
            return key

    def get(self, key: str) -> WebGame:
        """The game ``key``, touched: the least recently used make room first (``add``)."""
        with self.games_lock:
            web = self.games.get(key)
        if web is None:
            raise RequestError(404, "no such game (it may have ended and been removed)")
        web.touched = time.monotonic()
        return web


class Handler(BaseHTTPRequestHandler):
    server: GameServer
    timeout = 30  # seconds a connection may stay silent
    server_version = "mamma-mia"
    sys_version = ""
    # what the base class answers itself (a malformed request line, an unknown method):
    # JSON too, with the fixed text of the status (no request text in it)
    error_content_type = "application/json; charset=utf-8"
    error_message_format = '{"error": "%(code)d %(explain)s"}'

    def do_GET(self) -> None:
        self._answer(self._get)

    def do_POST(self) -> None:
        self._answer(self._post)

    def _refuse_method(self) -> None:
        self._answer(lambda: _raise(405, f"method {self.command} is not allowed"))

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _refuse_method

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass  # errors are logged one line each in _answer; successes are not

    def _answer(self, route: Any) -> None:
        """Run ``route``; whatever happens, answer JSON with a one-line message."""
        try:
            self._check_host()
            status, body, ctype = route()
        except RequestError as exc:
            status, body, ctype = exc.status, {"error": str(exc)}, "application/json"
        except AgentFailure as exc:
            status, body, ctype = 500, {"error": str(exc)}, "application/json"
        except Exception as exc:  # never a traceback page: one line in the log instead
            msg = f"internal error: {type(exc).__name__}: {exc}"
            status, body, ctype = 500, {"error": msg}, "application/json"
        if status >= 400:
            line = f"{status} {self.command} {self.path[:200]}: {body['error']}"
            printable = "".join(c if c.isprintable() else "?" for c in line)
            sys.stderr.write(f"{PROG} serve: {printable}\n")
            self.close_connection = True
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", f"{ctype}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in HEADERS.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _check_host(self) -> None:
        """Only requests naming this server are answered, not a web page's DNS name
        pointed at its address (DNS rebinding): a loopback name or address, and with
        ``--allow-remote`` any IP address or the name given as ``--host``."""
        host = self.headers.get("Host") or ""
        host = host[: host.find("]") + 1] if host.startswith("[") else host.split(":")[0]
        bound = self.server.settings["host"]
        remote = not is_loopback(bound) and (_ip(host) is not None or host == bound)
        if not (is_loopback(host) or remote):
            raise RequestError(403, f"host {host[:80]!r} is not this server")

    # -- routes ------------------------------------------------------------------------
    def _get(self) -> tuple[int, Any, str]:
        path = self.path.split("?", 1)[0]
        name = "index.html" if path == "/" else path.lstrip("/")
        if name in STATIC:
            page = resources.files("mamma_mia_agents.cli").joinpath("web", name).read_bytes()
            return 200, page, STATIC[name]
        if path == "/api/setup":
            return 200, self._setup(), "application/json"
        m = _GAME_PATH.match(path)
        if m and not m.group(2):
            web = self.server.get(m.group(1))
            with web.lock:
                return 200, web.page(m.group(1)), "application/json"
        if m or path in ("/api/games", "/api/resume"):
            raise RequestError(405, f"{path[:80]!r} takes POST")
        raise RequestError(404, f"no page {path[:80]!r}")

    def _setup(self) -> dict[str, Any]:
        s = self.server.settings
        return {
            "agents": s["choices"],
            "plays": s["plays"],
            "players": s["players"],
            "seat": s["seat"],
            "others": s["agents"],
            "delay_ms": int(s["delay"] * 1000),
            "open": self.server.opened,
            "save": s["save"],
        }

    def _post(self) -> tuple[int, Any, str]:
        path = self.path.split("?", 1)[0]
        m = _GAME_PATH.match(path)
        if path == "/api/games":
            body = self._body({"players", "agents", "seat"})
            try:
                return self._created(new_game(self.server.settings, body))
            except FormError as exc:
                raise RequestError(400, str(exc)) from None
        if path == "/api/resume":
            self._body(set())
            return self._created(resume_game(self.server.settings))
        if (m and not m.group(2)) or path in ("/", "/api/setup") or path.lstrip("/") in STATIC:
            raise RequestError(405, f"{path[:80]!r} takes GET")
        if not m:
            raise RequestError(404, f"no action at {path[:80]!r}")
        key, verb = m.group(1), m.group(2)
        body = self._body({"action"} if verb == "act" else set())
        web = self.server.get(key)
        with web.lock:
            try:
                if verb == "act":
                    if "action" not in body:
                        raise RequestError(400, "field 'action' is missing")
                    web.act(body["action"])
                elif verb == "step":
                    web.step()
                elif verb == "undo":
                    web.undo()
                else:
                    return 200, _save(web, self.server.settings), "application/json"
            except MoveError as exc:
                raise RequestError(409, str(exc)) from None
            return 200, web.page(key), "application/json"

    def _created(self, game: Game) -> tuple[int, Any, str]:
        key = self.server.add(game)
        web = self.server.get(key)
        with web.lock:
            return 201, web.page(key), "application/json"

    def _body(self, fields: set[str]) -> dict[str, Any]:
        """The request's JSON object, of at most ``MAX_BODY`` bytes and only ``fields``."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise RequestError(415, "send the request body as application/json")
        if self.headers.get("Transfer-Encoding"):
            raise RequestError(411, "send a Content-Length, not a chunked body")
        try:
            size = parse_digits(self.headers.get("Content-Length") or "0", "Content-Length", 0)
        except ValueError as exc:
            raise RequestError(400, str(exc)) from None
        if size > MAX_BODY:
            raise RequestError(413, f"the body is {size} bytes; at most {MAX_BODY} are read")
        raw = self.rfile.read(size)
        try:
            body = parse_json(raw, "request body") if raw.strip() else {}
        except ValueError as exc:  # not JSON or UTF-8, a bad number, a lone surrogate
            raise RequestError(400, str(exc)[:160]) from None
        if not isinstance(body, dict):
            raise RequestError(400, "the body must be a JSON object")
        extra = sorted(set(body) - fields)
        if extra:
            raise RequestError(400, f"unexpected field {extra[0][:40]!r}")
        return body


def _raise(status: int, message: str) -> Any:
    raise RequestError(status, message)


def resume_game(s: dict[str, Any]) -> Game:
    """The saved game the settings name (``--resume``, else ``--save``)."""
    path = s["resume"] or s["save"]
    try:
        return Game.load(path, s["resume_agents"])
    except SaveError as exc:
        raise RequestError(400, str(exc)[:300]) from None


def _save(web: WebGame, s: dict[str, Any]) -> dict[str, Any]:
    """Save on the server's side: the save file holds the seed and every hand, which
    the browser may not see."""
    path = s["resume"] or s["save"]
    try:
        return {"saved": path, "message": f"{web.game.save(path)}; Resume continues it."}
    except SaveError as exc:
        raise RequestError(500, str(exc)[:300]) from None
