"""Recorded games for viewers: an HTML page of an event log.

The page is one self-contained file (CSS and JavaScript inline, no network). It embeds,
for every position of the game, the picture of the view ``render.view.table_view``
gives each viewer (all hands, and each seat's own view), as ``render.svg.table_shapes``
lays it out, in a compact form (each distinct group of shapes stored once,
``page_data``); its script only draws the picture picked in the menu. So the page holds
no game logic and no layout of its own, and a seat's picture is drawn from exactly what
``table_view`` lets that seat see. The words are written here, in Python: the captions
with the one wording of moves and reveals (``render.text.move_text``, ``reveal_lines``,
as the games say them; a replay names every order played, as the oven shows them), the
menu, legend and result; the final ranks are ``game.outcome``'s.

Everything that comes from a log (agent names above all: they are user input) is put
into the page escaped: the title through ``html.escape``, the data as JSON with ``<``,
``>`` and ``&`` written as ``\\u003c``-style escapes (no ``</script>`` or ``<!--`` can
end the data), and the script only ever sets text with ``textContent``. The log is
read and checked by ``game.log.load_log``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from html import escape
from importlib import resources
from typing import Any

from mamma_mia_env.game.actions import ActionCodec
from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.observe import remembers
from mamma_mia_env.game.outcome import delivered_and_cards, finishing_ranks
from mamma_mia_env.game.record import REVEAL
from mamma_mia_env.render.svg import KIND_COLOURS, SHORT, WIDTH, Shapes, ink, table_shapes
from mamma_mia_env.render.text import move_text, result_lines, reveal_lines
from mamma_mia_env.render.view import seat_label, seat_name, table_view


def step_caption(log: dict[str, Any], i: int) -> str:
    """Words for position ``i``: the action that led to it and what the reveal did."""
    names = log.get("agents")
    if i == 0:
        n = Config.from_kwargs(**log["config"]).num_players
        seats = ", ".join(f"{seat_label(s, names)}: {INGREDIENTS[s]}" for s in range(n))
        return f"Deal. Personal ingredients: {seats}"
    ev = log["events"][i - 1]
    act = _codec(Config.from_kwargs(**log["config"])).decode(ev["action"])
    text = f"Round {ev['round']}: " + move_text(act, seat_label(ev["seat"], names), ev["seat"])
    reveal = reveal_lines(ev.get("reveal", []), ev.get("cards_taken"), names)
    return "\n".join([text, *reveal])


def ending_text(log: dict[str, Any]) -> str | None:
    """Why the log stops, for a game that did not end: cut off mid-game (a saved
    unfinished game, a truncated file) or stopped at the turn limit (``max_turns``).
    ``None`` for a finished game, whose result is its winners. A replay says this at
    its last step instead of "Game over", so no unfinished game is shown as won."""
    result = log["result"]
    if result["terminated"]:
        return None
    why = "stopped at the turn limit" if result["truncated"] else "the log ends"
    return f"Game not finished: {why} after move {len(log['actions'])}."


@lru_cache(maxsize=8)
def _codec(config: Config) -> ActionCodec:
    return ActionCodec(Engine(config))


def reveal_starts(log: dict[str, Any]) -> list[int]:
    """Positions at which a round's reveal is under way or was resolved at once."""
    out = []
    events = log["events"]
    states = log["_states"]
    for i in range(1, len(states)):
        ev = events[i - 1]
        entered = states[i]["phase"] == REVEAL and states[i - 1]["phase"] != REVEAL
        if entered or (ev["decision"] == "turn" and "reveal" in ev):
            out.append(i)
    return out


def _encode(shapes: Shapes, pieces: dict[str, tuple[int, list]]) -> int:
    """``shapes`` as an index into ``pieces`` (each distinct item list stored once, by
    its text): its items as lists, a placed group as ``["g", x, y, index]``, so a card
    or a seat drawn again is stored once. The page's script draws them (``draw``),
    placed as ``Shapes.flat`` places them."""
    items = []
    for item in shapes.items:
        if item[0] == "group":
            items.append(["g", item[1], item[2], _encode(item[3], pieces)])
        else:
            items.append(list(item))
    return pieces.setdefault(repr(items), (len(pieces), items))[0]


def result_text(log: dict[str, Any]) -> str:
    """The last step's line, the page's and the terminal replay's: a finished game's
    delivered orders and winners; for an unfinished one (``ending_text``) where it
    stops, and the orders delivered so far."""
    r, names = log["result"], log.get("agents")
    labels = [seat_label(s, names) for s in range(len(r["delivered"]))]
    unfinished = ending_text(log)
    if unfinished is not None:
        scores = ", ".join(f"{labels[s]} {d}" for s, d in enumerate(r["delivered"]))
        return f"{unfinished} Delivered orders so far: {scores}."
    return " ".join(result_lines(r, labels))


def _final(log: dict[str, Any], n: int) -> dict[str, Any]:
    """The result: its line, the final ranks (``game.outcome``) and the winners."""
    won, ranks = log["result"]["winners"], None
    cells = ["unfinished"] * n
    if log["result"]["terminated"]:
        delivered, cards = delivered_and_cards(log["_states"][-1][None], n)
        ranks = [int(r) for r in finishing_ranks(delivered, cards)[0]]
        cells = [f"{r}" + " ★ winner" * (s in won) for s, r in enumerate(ranks)]
    unfinished = ending_text(log)
    text = result_text(log)
    return {
        "winners": won,
        "ranks": ranks,
        "rank_cells": cells,
        "unfinished": unfinished,
        "text": text,
    }


#: The legend's notes on reading the cards.
NOTES = (
    'A card shows its count; "+1x2" counts double cards (worth 2 each).',
    'Orders: "4 X + 1 P": four X and one of the owner\'s personal ingredient P.',
    '"1 of each": one card of each of the five ingredients.',
    "Pizza Bombastica: 15 or more ingredients of any kind.",
    "Pizza Monotoni: 1 P + exactly 6 J, one other ingredient the owner names.",
    'Pizza Minimale: 1 P + 3 "?", the ingredient with the fewest face-up cards.',
    "Oven plays are framed in the colour of the seat that played them.",
)


def page_data(log: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    """Everything the page shows: per position, every viewer's picture (``table_shapes``
    of its ``table_view``, each distinct group stored once: ``_encode``) with its
    height, the scoreboard's counts, the captions, the reveals, the words of the menu,
    legend and result; ``seat``: the view the page opens in (``None``: all hands)."""
    cfg = Config.from_kwargs(**log["config"])
    n, history = cfg.num_players, remembers(cfg.observation_mode)
    names = log.get("agents")
    pieces: dict[str, tuple[int, list]] = {}
    steps, board = [], []
    for rec in log["_states"]:
        views = [table_view(rec, n, v, history) for v in (None, *range(n))]
        pictures = [table_shapes(view, names) for view in views]
        steps.append([[_encode(shapes, pieces), height] for shapes, height in pictures])
        board.append([[len(s["delivered"]), s["hand_size"], s["stack"]] for s in views[0]["seats"]])
    legend = [
        [
            KIND_COLOURS[k],
            f"{name} ({SHORT[k]})"
            + (f" — personal ingredient of {seat_label(k, names)}" if k < n else ""),
        ]
        for k, name in enumerate(INGREDIENTS)
    ]
    return {
        "width": WIDTH,
        "names": [seat_name(s, names) for s in range(n)],
        "personal": list(INGREDIENTS[:n]),
        "colours": list(KIND_COLOURS[:n]),
        "inks": [ink(s) for s in range(n)],
        "viewers": ["All hands", *(f"{seat_label(s, names)}'s view" for s in range(n))],
        "legend": legend,
        "notes": list(NOTES),
        "pieces": [items for _, items in pieces.values()],
        "steps": steps,
        "board": board,
        "captions": [step_caption(log, i) for i in range(len(steps))],
        "reveals": reveal_starts(log),
        "final": _final(log, n),
        "start_view": 0 if seat is None else 1 + int(seat),
    }


def script_json(value: Any) -> str:
    """``value`` as JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&``
    (so no ``</script>`` or ``<!--``), and no line separators JavaScript would split."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _asset(name: str) -> str:
    return resources.files("mamma_mia_env.render").joinpath(name).read_text(encoding="utf-8")


def replay_html(
    log: dict[str, Any], title: str | None = None, source: str = "", seat: int | None = None
) -> str:
    """One self-contained HTML page animating ``log`` (from ``load_log``); ``source``
    (the log's file name) is shown under the title; ``seat``: the view it opens in (the
    other views stay one click away). The result is hidden until the last step or a
    click on "Show the result", so the page does not give the game away."""
    names = log.get("agents")  # "Mamma Mia! replay: builder vs counter"
    if title is None:
        title = "Mamma Mia! replay" + (": " + " vs ".join(names) if names else "")
    sub = f"{source}, " if source else ""
    sub += f"{len(log['actions'])} moves, seed {log['seed']}"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{_asset('replay_page.css')}</style></head>"
        f"<body><h1 id='title'>{escape(title)}</h1><p id='sub'>{escape(sub)}</p>"
        "<p><button id='showresult'>Show the result</button><span id='result'></span></p>"
        "<div id='bar'><button id='first' title='start'>|&lt;</button>"
        "<button id='back' title='back a step (left arrow)'>&lt; Back</button>"
        "<button id='fwd' title='forward a step (right arrow)'>Forward &gt;</button>"
        "<button id='last' title='end'>&gt;|</button>"
        "<button id='prevrev'>&lt;&lt; Reveal</button><button id='nextrev'>Reveal &gt;&gt;</button>"
        "<button id='play'>Play</button><label>View <select id='view'></select></label>"
        "<span id='pos'></span></div>"
        "<div id='main'><div id='table'></div><div id='side'>"
        "<div id='caption'></div><h3>Scoreboard</h3><table id='score'></table>"
        "<h3>Legend</h3><div id='legend'></div></div></div>"
        f"<script id='data' type='application/json'>{script_json(page_data(log, seat))}</script>"
        f"<script>{_asset('replay_page.js')}</script></body></html>"
    )
