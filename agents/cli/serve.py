"""``mamma-mia serve``: play Mamma Mia! in the browser against agents.

    mamma-mia serve --players 3 --agents builder,search
    mamma-mia serve --port 0 --resume mamma-mia-save.json

This module reads and checks the flags; the server, on 127.0.0.1 by default, is
``web_server``'s and the game the page sees is ``web_game``'s.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mamma_mia_agents import REGISTRY, load_agent
from mamma_mia_agents.bots.base import player_counts
from mamma_mia_agents.cli.options import PROG, add_game_flags, rule_config, spec_list
from mamma_mia_agents.cli.session import DEFAULT_SAVE, Game
from mamma_mia_agents.cli.web_server import (
    GameServer,
    RequestError,
    is_loopback,
    resume_game,
)
from mamma_mia_env.game.config import Config
from mamma_mia_env.plumbing.arguments import add_int_flag, out_file_flag

SUMMARY = "play a game in the browser against agents (a local web page)"
DESCRIPTION = (
    "Start a local web page where you play Mamma Mia! against agents. "
    "The flags set the new-game form's defaults."
)


def add_flags(p: argparse.ArgumentParser) -> None:
    """The ``serve`` command's flags."""
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s); an address other than this "
        "computer's own (loopback) needs --allow-remote",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that other computers can reach (0.0.0.0: every interface): "
        "anyone who reaches it can play and save",
    )
    add_int_flag(
        p, "--port", 0, 65535, default=8000, help="port (default: %(default)s; 0 picks a free one)"
    )
    add_game_flags(
        p,
        seed_help="the seed of every new game (default: a fresh one per game)",
        delay=0.8,
        max_delay=10,
    )
    add_int_flag(
        p, "--max-games", 1, 1000, default=8, help="live games kept at once (default: %(default)s)"
    )
    p.add_argument(
        "--save",
        type=out_file_flag("--save"),
        default=DEFAULT_SAVE,
        help="where the page's Save writes the game",
    )
    p.add_argument(
        "--resume",
        metavar="FILE",
        type=out_file_flag("--resume"),  # it is saved back there: checked before the server starts
        help="open this saved game (then saved there)",
    )


def settings_from(args: argparse.Namespace) -> dict[str, Any]:
    """The server's settings from the command line, each checked (usage errors)."""
    parser = args.subparser
    check_host(parser, args.host, args.allow_remote)
    specs = spec_list(parser, "--agents", args.agents or "builder")
    config = {"observation_mode": args.observation_mode, **rule_config(args)}
    try:
        Game(Config.from_kwargs(num_players=args.players, **config), args.seat, specs, 0, [])
    except ValueError as exc:  # ConfigError and AgentLoadError among them
        parser.error(str(exc))
    choices = list(dict.fromkeys([*REGISTRY, *specs]))
    counts = {c: player_counts(load_agent(c), config) for c in choices}  # the form offers
    return {
        "host": args.host,
        "players": args.players,
        "seat": args.seat,
        "agents": specs,
        "choices": choices,
        "plays": {c: [n for n, why in counts[c].items() if why is None] for c in choices},
        "seed": args.seed,
        "config": config,
        "delay": args.delay,
        "max_games": args.max_games,
        "save": args.save,
        "resume": args.resume,
        "resume_agents": specs if args.agents else None,
    }


def check_host(parser: argparse.ArgumentParser, host: str, allow_remote: bool) -> None:
    """A loopback ``--host`` unless ``--allow-remote`` says otherwise; never an empty
    one (which listens on every interface without saying so)."""
    if not host.strip() or host != host.strip():
        parser.error(f"--host needs an address, got {host!r} (0.0.0.0 is every interface)")
    if not (host.isprintable() and host.isascii()):
        parser.error(f"--host {host!r:.60} is not an address or a host name")
    if not is_loopback(host) and not allow_remote:
        parser.error(
            f"--host {host} is not a loopback address: other computers could reach the "
            "server; add --allow-remote if that is what you want"
        )


def make_server(settings: dict[str, Any], port: int = 0) -> GameServer:
    """A server on ``settings['host']`` and ``port`` (0: a free one), not yet serving;
    with ``settings['resume']`` the saved game is opened first."""
    server = GameServer((settings["host"], port), settings)
    if settings["resume"]:
        try:
            server.opened = server.add(resume_game(settings))
        except RequestError:
            server.server_close()
            raise
    return server


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    try:
        server = make_server(settings, args.port)
    except RequestError as exc:
        args.subparser.error(str(exc))
    except OSError as exc:
        args.subparser.error(
            f"--host/--port: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        )
    host, port = str(server.server_address[0]), server.server_address[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"Open http://{shown}:{port}/ in your browser (Ctrl+C stops the server)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print(f"\n{PROG} serve: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
