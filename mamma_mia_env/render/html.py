"""Recorded games for viewers: a validated event log, its positions, and an HTML page.

The page is one self-contained file (inline SVG, CSS and JavaScript, no network): every
position of the game is drawn once per view (all hands, and each seat's own view), so
the page needs no game logic and cannot show a seat more than it may know.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.log import replay_events
from mamma_mia_env.game.state import OVER, REVEAL, GameState, StateError
from mamma_mia_env.render.svg import table_svg, table_view

LOG_FORMAT = "mamma-mia-log/1"


class LogError(ValueError):
    """An event log that cannot be replayed; the message names the file and field."""


def load_log(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """Read and check an event log (a path or the parsed JSON); replays it to be sure.

    The actions are replayed through the engine's legal masks, so a hand-edited or
    corrupt log is refused here, naming what is wrong, instead of drawing a game that
    never happened. Returns the log re-derived from config, seed and actions.
    """
    where = "log"
    if isinstance(source, (str, Path)):
        where = str(source)
        try:
            obj = json.loads(Path(source).read_text())
        except OSError as exc:
            raise LogError(f"{where}: cannot read: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise LogError(f"{where}: not JSON: {exc}") from exc
    else:
        obj = source
    if not isinstance(obj, dict) or obj.get("format") != LOG_FORMAT:
        raise LogError(f"{where}: not a {LOG_FORMAT} document (field 'format')")
    try:
        config = Config.from_kwargs(**obj.get("config", {}))
    except (TypeError, ValueError) as exc:
        raise LogError(f"{where}: field 'config': {exc}") from exc
    seed_field: Any = obj.get("seed")
    try:
        seed = int(seed_field)
    except (TypeError, ValueError):
        raise LogError(f"{where}: field 'seed' must be an integer") from None
    if not 0 <= seed < 2**64:
        raise LogError(f"{where}: field 'seed' must be in 0..2**64-1, got {seed}")
    actions = obj.get("actions")
    if not isinstance(actions, list) or not all(
        isinstance(a, int) and not isinstance(a, bool) for a in actions
    ):
        raise LogError(f"{where}: field 'actions' must be a list of integers")
    start = None
    if obj.get("start_state") is not None:
        try:
            start = GameState.from_dict(obj["start_state"])
        except StateError as exc:
            raise LogError(f"{where}: field 'start_state': {exc}") from exc
        if start.config != config or start.batch_size != 1:
            raise LogError(f"{where}: field 'start_state' is not one game of the log's config")
    states = log_states(config, seed, actions, start, where)
    log = replay_events(config, seed, actions, start)
    log["_states"] = states
    return log


def log_states(
    config: Config, seed: int, actions: list[int], start: GameState | None, where: str = "log"
) -> list[np.void]:
    """The game's record before every action and after the last (checked legal)."""
    engine = Engine(config)
    state = start.copy() if start is not None else engine.reset(seeds=[seed])
    mask = np.zeros((1, engine.n_actions), dtype=np.int8)
    act = np.zeros(1, dtype=np.int64)
    out = [state.data[0].copy()]
    for i, a in enumerate(actions):
        if state.data["phase"][0] == OVER:
            raise LogError(f"{where}: action {i} comes after the end of the game")
        engine.legal_masks(state, out=mask)
        if not (0 <= a < engine.n_actions and mask[0, a]):
            raise LogError(f"{where}: action {i} ({a}) is illegal in its position")
        act[0] = a
        engine.step(state, act)
        out.append(state.data[0].copy())
    return out


def step_caption(log: dict[str, Any], i: int) -> str:
    """Words for position ``i``: the action that led to it and what the reveal did."""
    if i == 0:
        return "Deal"
    ev = log["events"][i - 1]
    text = f"Round {ev['round']}: seat {ev['seat']} {ev['text']}"
    lines = [text]
    for o in ev.get("reveal", []):
        how = "delivered" if o["delivered"] else "failed"
        who = "" if o.get("decided") else " (automatic)"
        took = o.get("cards_taken")
        extra = f", took {', '.join(f'{c} {k}' for k, c in took.items())}" if took else ""
        lines.append(f"  reveal: seat {o['seat']}'s {o['order']}: {how}{who}{extra}")
    if "cards_taken" in ev and sum(o["delivered"] for o in ev.get("reveal", [])) > 1:
        took = ", ".join(f"{c} {k}" for k, c in ev["cards_taken"].items())
        lines.append(f"  cards taken by this step's deliveries: {took}")
    return "\n".join(lines)


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
