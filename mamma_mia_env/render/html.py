"""Recorded games for viewers: an HTML page of an event log.

The page is one self-contained file (inline SVG, CSS and JavaScript, no network): every
position of the game is drawn once per view (all hands, and each seat's own view), so
the page needs no game logic and cannot show a seat more than it may know. The log is
read and checked by ``game.log.load_log`` (the log format's writer and reader live
together there; ``LogError``, ``load_log``, ``log_states`` are re-exported here, their
old home).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.log import LOG_FORMAT, LogError, load_log, log_states
from mamma_mia_env.game.state import REVEAL
from mamma_mia_env.render.svg import table_svg
from mamma_mia_env.render.text import reveal_lines
from mamma_mia_env.render.view import table_view

__all__ = [
    "LOG_FORMAT",
    "LogError",
    "load_log",
    "log_states",
    "replay_html",
    "reveal_starts",
    "step_caption",
]


def step_caption(log: dict[str, Any], i: int) -> str:
    """Words for position ``i``: the action that led to it and what the reveal did."""
    if i == 0:
        return "Deal"
    ev = log["events"][i - 1]
    text = f"Round {ev['round']}: seat {ev['seat']} {ev['text']}"
    return "\n".join([text, *reveal_lines(ev.get("reveal", []), ev.get("cards_taken"))])


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


_CSS = """
body{font-family:DejaVu Sans,Arial,sans-serif;background:#efe6d2;margin:12px}
#bar{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin-bottom:8px}
button{font-size:15px;padding:4px 10px}
#caption{white-space:pre-wrap;background:#fff8e6;border:1px solid #b9a77d;padding:6px;
min-height:3em;font-family:DejaVu Sans Mono,monospace;font-size:13px}
#table svg{max-width:100%;height:auto;border:1px solid #b9a77d}
"""

_JS = """
const D = JSON.parse(document.getElementById('data').textContent);
let pos = 0, view = 0, timer = null;
const $ = id => document.getElementById(id);
function show() {
  $('table').innerHTML = D.frames[pos][view];
  $('caption').textContent = D.captions[pos];
  $('pos').textContent = 'step ' + pos + ' / ' + (D.frames.length - 1);
}
function go(p) { pos = Math.max(0, Math.min(D.frames.length - 1, p)); show(); }
$('first').onclick = () => go(0);
$('back').onclick = () => go(pos - 1);
$('fwd').onclick = () => go(pos + 1);
$('last').onclick = () => go(D.frames.length - 1);
$('prevrev').onclick = () => {
  const r = D.reveals.filter(x => x < pos); if (r.length) go(r[r.length - 1]);
};
$('nextrev').onclick = () => { const r = D.reveals.filter(x => x > pos); if (r.length) go(r[0]); };
$('play').onclick = () => {
  if (timer) { clearInterval(timer); timer = null; $('play').textContent = 'Play'; return; }
  $('play').textContent = 'Pause';
  timer = setInterval(() => {
    if (pos >= D.frames.length - 1) $('play').click(); else go(pos + 1);
  }, 900);
};
$('view').onchange = e => { view = +e.target.value; show(); };
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowRight') go(pos + 1);
  if (e.key === 'ArrowLeft') go(pos - 1);
});
show();
"""


def replay_html(log: dict[str, Any], title: str = "Mamma Mia! replay") -> str:
    """One self-contained HTML page animating ``log`` (from ``load_log``)."""
    cfg = Config.from_kwargs(**log["config"])
    n, recall = cfg.num_players, cfg.observation_mode == "recall"
    views: list[int | None] = [None, *range(n)]
    frames = [[table_svg(table_view(rec, n, v, recall)) for v in views] for rec in log["_states"]]
    data = {
        "frames": frames,
        "captions": [step_caption(log, i) for i in range(len(frames))],
        "reveals": reveal_starts(log),
    }
    result = log["result"]
    summary = (
        f"{n} players, seed {log['seed']}; delivered {result['delivered']}; "
        f"winners: {', '.join(f'seat {s}' for s in result['winners']) or '-'}"
    )
    options = "".join(
        f'<option value="{i}">{"All hands" if v is None else f"Seat {v} view"}</option>'
        for i, v in enumerate(views)
    )
    payload = json.dumps(data).replace("</", "<\\/")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h2>{escape(title)}</h2><p id='summary'>{escape(summary)}</p>"
        "<div id='bar'><button id='first'>|&lt;</button><button id='back'>&lt; Back</button>"
        "<button id='fwd'>Forward &gt;</button><button id='last'>&gt;|</button>"
        "<button id='prevrev'>&lt;&lt; Reveal</button><button id='nextrev'>Reveal &gt;&gt;</button>"
        "<button id='play'>Play</button>"
        f"<select id='view'>{options}</select><span id='pos'></span></div>"
        "<div id='caption'></div><div id='table'></div>"
        f"<script id='data' type='application/json'>{payload}</script>"
        f"<script>{_JS}</script></body></html>"
    )
