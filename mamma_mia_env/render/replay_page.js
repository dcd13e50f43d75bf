// The replay page's script (mamma_mia_env/render/html.py writes it into the page).
// It draws the pictures the page's data holds (render/svg.py laid them out, from the
// views render/view.py decided per viewer), steps through them, switches the viewer
// and fills the scoreboard: it lays out and words nothing. Every string is set with
// textContent: a name from a log never becomes markup.
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const $ = id => document.getElementById(id);
const NS = 'http://www.w3.org/2000/svg';
const LAST = D.steps.length - 1;
let pos = 0, view = D.start_view, timer = null;

function attrs(e, values) {
  for (const [k, v] of Object.entries(values)) if (v !== null) e.setAttribute(k, v);
}

// Piece i of the data (render/svg.py's Shapes), its origin at (dx, dy): rectangles,
// text, and placed groups (each stored once).
function draw(svg, i, dx, dy) {
  for (const [kind, x, y, ...rest] of D.pieces[i]) {
    if (kind === 'g') { draw(svg, rest[0], dx + x, dy + y); continue; }
    const e = svg.appendChild(document.createElementNS(NS, kind));
    if (kind === 'rect') {
      const [width, height, fill, stroke, rx, sw] = rest;
      attrs(e, {x: dx + x, y: dy + y, width, height, rx, fill, stroke, 'stroke-width': stroke ? sw : null});
    } else {
      const [text, size, bold, fill, anchor] = rest;
      attrs(e, {x: dx + x, y: dy + y, 'font-size': size, 'font-weight': bold ? 'bold' : null, fill,
        'text-anchor': anchor});
      e.textContent = text;
    }
  }
}

function picture(i, v) {
  const [root, h] = D.steps[i][v], svg = document.createElementNS(NS, 'svg');
  attrs(svg, {viewBox: `0 0 ${D.width} ${h}`, width: D.width, height: h});
  draw(svg, root, 0, 0);
  return svg;
}

function cell(row, text, tag = 'td') {
  const c = row.appendChild(document.createElement(tag));
  c.textContent = text;
  return c;
}

function scoreboard() {
  const t = $('score'), f = D.final, end = pos === LAST;
  t.replaceChildren();
  const head = t.insertRow();
  for (const h of ['Seat', 'Agent', 'Personal', 'Delivered', 'Hand', 'Stack', 'Final rank']) cell(head, h, 'th');
  D.board[pos].forEach((counts, s) => {
    const row = t.insertRow(), c = cell(row, s);
    c.style.background = D.colours[s];
    c.style.color = D.inks[s];
    for (const text of [D.names[s], D.personal[s], ...counts]) cell(row, text);
    cell(row, end || f.unfinished !== null ? f.rank_cells[s] : '–');
    if (end && f.winners.includes(s)) row.className = 'winner';
  });
}

function legend() {
  for (const [colour, text] of D.legend) {
    const item = $('legend').appendChild(document.createElement('div'));
    const sw = item.appendChild(document.createElement('span'));
    sw.className = 'swatch';
    sw.style.background = colour;
    item.appendChild(document.createTextNode(text));
  }
  for (const line of D.notes) cell($('legend'), line, 'p');
}

function show() {
  $('table').replaceChildren(picture(pos, view));
  $('caption').textContent = D.captions[pos];
  $('pos').textContent = `step ${pos} / ${LAST}`;
  scoreboard();
  if (pos === LAST) showResult();
}

// The result stays hidden until the last step (or a click): a replay is watched to
// find out who wins.
function showResult() {
  $('result').hidden = false;
  $('showresult').hidden = true;
}

function go(p) { pos = Math.max(0, Math.min(LAST, p)); show(); }

function setup() {
  $('result').textContent = D.final.text;
  $('result').hidden = true;
  $('showresult').onclick = showResult;
  D.viewers.forEach((text, i) => {
    const o = $('view').appendChild(document.createElement('option'));
    o.value = i;
    o.textContent = text;
    o.selected = i === view;
  });
  $('first').onclick = () => go(0);
  $('back').onclick = () => go(pos - 1);
  $('fwd').onclick = () => go(pos + 1);
  $('last').onclick = () => go(LAST);
  $('prevrev').onclick = () => { const r = D.reveals.filter(x => x < pos); if (r.length) go(r[r.length - 1]); };
  $('nextrev').onclick = () => { const r = D.reveals.find(x => x > pos); if (r !== undefined) go(r); };
  $('play').onclick = () => {
    if (timer) { clearInterval(timer); timer = null; $('play').textContent = 'Play'; return; }
    $('play').textContent = 'Pause';
    timer = setInterval(() => { if (pos >= LAST) $('play').click(); else go(pos + 1); }, 900);
  };
  $('view').onchange = e => { view = +e.target.value; show(); };
  document.addEventListener('keydown', e => {
    if (e.key === 'ArrowRight') go(pos + 1);
    if (e.key === 'ArrowLeft') go(pos - 1);
    if (e.key === 'Home') go(0);
    if (e.key === 'End') go(LAST);
  });
  legend();
  show();
}
setup();
