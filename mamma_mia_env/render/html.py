"""Recorded games for viewers: an HTML page of an event log.

The page is one self-contained file (CSS and JavaScript inline, no network). It embeds,
for every position of the game, the views ``render.view.table_view`` gives to each
viewer (all hands, and each seat's own view) in a compact form (each distinct piece
stored once, ``page_data``), and its script draws the view picked in the menu. So the
page holds no game logic, and a seat's view is drawn from exactly what ``table_view``
lets that seat see. The captions are written here, in Python, with the one wording of
moves and reveals (``render.text.move_text``, ``reveal_lines``, as the games say
them; a replay names every order played, as the oven shows them); the final ranks
are ``game.outcome``'s.

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
from mamma_mia_env.game.cards import INGREDIENTS, N_ORDER_TYPES, order_name
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.observe import remembers
from mamma_mia_env.game.outcome import delivered_and_cards, finishing_ranks
from mamma_mia_env.game.record import REVEAL
from mamma_mia_env.render.svg import KIND_COLOURS, ORDER_COLOUR, SHORT, order_lines
from mamma_mia_env.render.text import move_text, reveal_lines, seat_label
from mamma_mia_env.render.view import table_view


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


class _Pieces:
    """Distinct JSON values, each stored once and named by its index."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def __call__(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True)
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


def _encode(view: dict[str, Any], pieces: _Pieces) -> list[Any]:
    """``view`` as ``[top, piles, oven, [seat, ...]]``, each an index into ``pieces``
    (the oven a stored list of stored entries); ``decode_view`` undoes it."""
    top = {k: v for k, v in view.items() if k not in ("piles", "oven", "seats")}
    oven = pieces([pieces(e) for e in view["oven"]])
    return [pieces(top), pieces(view["piles"]), oven, [pieces(s) for s in view["seats"]]]


def decode_view(data: dict[str, Any], i: int, v: int) -> dict[str, Any]:
    """View ``v`` (0: all hands, 1 + s: seat s) of position ``i`` of ``page_data``: the
    page's script does the same (``viewOf``)."""
    top, piles, oven, seats = data["steps"][i][v]
    p = data["pieces"]
    return {
        **p[top],
        "piles": p[piles],
        "oven": [p[j] for j in p[oven]],
        "seats": [p[j] for j in seats],
    }


def _final(log: dict[str, Any], n: int) -> dict[str, Any]:
    """The result: delivered orders, final ranks (``game.outcome``) and winners."""
    result = log["result"]
    ranks = None
    if result["terminated"]:
        delivered, cards = delivered_and_cards(log["_states"][-1][None], n)
        ranks = [int(r) for r in finishing_ranks(delivered, cards)[0]]
    return {
        "delivered": result["delivered"],
        "cards": result["ingredient_cards_in_hand"],
        "winners": result["winners"],
        "ranks": ranks,
        "unfinished": ending_text(log),
    }


def page_data(log: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    """Everything the page draws: per position, every viewer's ``table_view``
    (compactly, ``decode_view``), the captions, the reveals, names and the result;
    ``seat``: the view the page opens in (``None``: all hands)."""
    cfg = Config.from_kwargs(**log["config"])
    n, history = cfg.num_players, remembers(cfg.observation_mode)
    pieces = _Pieces()
    viewers: list[int | None] = [None, *range(n)]
    steps = [
        [_encode(table_view(rec, n, v, history), pieces) for v in viewers] for rec in log["_states"]
    ]
    names = log.get("agents")
    orders = [order_name(t, s) for t in range(N_ORDER_TYPES) for s in range(n)]
    return {
        "n": n,
        "names": names or [f"seat {s}" for s in range(n)],
        "named": names is not None,
        "ingredients": list(INGREDIENTS),
        "short": list(SHORT),
        "colours": list(KIND_COLOURS),
        "order_colour": ORDER_COLOUR,
        "order_lines": {o: order_lines(o) for o in orders},  # every order's card text
        "seed": str(log["seed"]),
        "pieces": pieces.values,
        "steps": steps,
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
    sub += f"{len(log['actions'])} moves"
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
