// The replay page's script (mamma_mia_env/render/html.py writes it into the page).
// It draws the views the page's data holds (render/view.py decided them, per viewer)
// and decides nothing about what a viewer may see. Every string is set with
// textContent: a name from a log never becomes markup.
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const $ = id => document.getElementById(id);
const NS = 'http://www.w3.org/2000/svg';
const W = 960, CARD = [52, 60], OVEN = [64, 36], ORDER = [200, 36];
let pos = 0, view = 0, timer = null;

// View v (0: all hands, 1 + s: seat s) of position i, as render/view.py's table_view.
function viewOf(i, v) {
  const [top, piles, oven, seats] = D.steps[i][v], P = D.pieces;
  return Object.assign({}, P[top], {
    piles: P[piles], oven: P[oven].map(j => P[j]), seats: seats.map(j => P[j]),
  });
}
const who = s => D.named ? `${D.names[s]} (seat ${s})` : `seat ${s}`;
const short = s => D.named ? D.names[s] : `seat ${s}`;
const counts = (s, d) => `${s}` + (d ? `+${d}x2` : '');
const ink = kind => kind === 2 ? '#222' : '#fff';

class Picture {
  constructor() { this.svg = document.createElementNS(NS, 'svg'); }
  el(tag, attrs) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) if (v !== null) e.setAttribute(k, v);
    this.svg.appendChild(e);
    return e;
  }
  rect(x, y, w, h, fill, stroke = null, rx = 0, sw = 1) {
    return this.el('rect', {x, y, width: w, height: h, rx, fill, stroke, 'stroke-width': stroke ? sw : null});
  }
  text(x, y, t, size = 14, bold = false, fill = '#111', anchor = 'start', maxw = null) {
    const e = this.el('text', {x, y, 'font-size': size, 'font-weight': bold ? 'bold' : null,
      fill, 'text-anchor': anchor, 'data-maxw': maxw});
    e.textContent = t;
    return e;
  }
  card(x, y, kind, label) {
    const [w, h] = CARD;
    this.rect(x, y, w, h, D.colours[kind], '#222', 5);
    this.text(x + w / 2, y + h / 2, label, 14, true, ink(kind), 'middle', w - 6);
    this.text(x + w / 2, y + h - 8, D.ingredients[kind], 10, false, ink(kind), 'middle', w - 6);
  }
  ovenCard(x, y, e) {
    const [w, h] = OVEN;
    this.rect(x, y, w, h, D.colours[e.kind], D.colours[e.seat], 4, 3);
    this.text(x + w / 2, y + 13, short(e.seat), 10, false, ink(e.kind), 'middle', w - 8);
    this.text(x + w / 2, y + 27, `${counts(e.s, e.d)} ${D.short[e.kind]}`, 11, true,
      ink(e.kind), 'middle', w - 8);
  }
  order(x, y, seat, head, name) {
    const [w, h] = ORDER, [title, recipe] = D.order_lines[name];  // render/svg.py's
    const r = this.rect(x, y, w, h, D.order_colour, D.colours[seat], 4, 3);
    r.setAttribute('class', 'order');
    this.text(x + 7, y + 14, `${head} ${title}`.trim(), 10, true, '#333', 'start', w - 14);
    this.text(x + 7, y + 29, recipe, 12, false, '#111', 'start', w - 14);
  }
}

function header(v) {
  const mm = v.mm_holder >= 0 ? who(v.mm_holder) : 'in the supply';
  const act = v.phase === 'over' ? 'game over' : `to act: ${who(v.to_act)}`;
  return `Round ${v.round}/3 · ${v.phase} · ${act} · supply ${v.supply} · Mamma Mia! card: ${mm}`;
}

function ovenTitle(v) {
  if (v.oven_mode === 'reveal') return `Oven: reveal, card ${v.reveal_pos + 1} of ${v.oven_len}`;
  if (v.oven_mode === 'history') return `Oven: ${v.oven_len} plays, first to last`;
  return `Oven: ${v.oven_len} plays, top card only`;
}

function draw(v) {
  const p = new Picture();
  let y = 24;
  p.text(12, y, header(v), 15, true, '#111', 'start', W - 24);
  y += 22;
  p.text(12, y + 14, 'Face-up piles');
  let x = 130;
  for (const [k, s, d] of v.piles) { p.card(x, y, k, counts(s, d)); x += 60; }
  if (!v.piles.length) p.text(x, y + 14, '(none)');
  y += 76;
  p.text(12, y, ovenTitle(v), 14, true);
  y += 8; x = 12;
  v.oven.forEach((e, i) => {
    const w = 'order' in e ? ORDER[0] : OVEN[0];
    if (x + w > W - 12) { x = 12; y += OVEN[1] + 6; }
    if (v.oven_mode === 'reveal' && i === v.oven.length - 1) p.rect(x - 3, y - 3, w + 6, OVEN[1] + 6, '#d00', null, 4);
    if ('order' in e) p.order(x, y, e.seat, short(e.seat), e.order); else p.ovenCard(x, y, e);
    x += w + 6;
  });
  if (!v.oven.length) p.text(12, y + 18, '(empty)', 12);
  y += OVEN[1] + 14;
  for (const seat of v.seats) y = drawSeat(p, v, seat, y);
  p.svg.setAttribute('viewBox', `0 0 ${W} ${y + 10}`);
  p.svg.setAttribute('width', W);
  p.svg.setAttribute('height', y + 10);
  return p.svg;
}

function drawSeat(p, v, seat, y) {
  const s = seat.seat;
  const act = s === v.to_act && v.phase !== 'over' ? ' · to act' : '';
  p.rect(6, y, W - 12, 6, D.colours[s]);
  y += 22;
  p.text(12, y, `${who(s)} · personal ingredient ${seat.personal}${act} · hand ${seat.hand_size} ` +
    `(${seat.orders_in_hand} orders), stack ${seat.stack}, delivered ${seat.delivered.length}`,
  14, true, '#111', 'start', W - 24);
  y += 8;
  let x = 12;
  for (const name of seat.delivered) {
    if (x + ORDER[0] > W - 12) { x = 12; y += ORDER[1] + 6; }
    p.order(x, y, s, 'delivered', name);
    x += ORDER[0] + 6;
  }
  if (seat.delivered.length) y += ORDER[1] + 6;
  if (seat.hand === null) {
    p.text(12, y + 12, 'hand not shown in this view', 11, false, '#777');
    return y + 22;
  }
  x = 12;
  for (const [k, c1, c2] of seat.hand) { p.card(x, y, k, counts(c1, c2)); x += 58; }
  if (!seat.hand.length) { p.text(x, y + 30, 'no ingredient cards', 12); x += 140; }
  x += 10;
  for (const name of seat.orders) {
    if (x + ORDER[0] > W - 12) { x = 12; y += ORDER[1] + 6; }
    p.order(x, y + 12, s, '', name);
    x += ORDER[0] + 6;
  }
  return y + 66;
}

// Labels wider than their card are drawn smaller, then squeezed: they stay inside.
function fitText(svg) {
  for (const t of svg.querySelectorAll('text[data-maxw]')) {
    const maxw = +t.getAttribute('data-maxw');
    let len = t.getComputedTextLength();
    if (len <= maxw) continue;
    const size = Math.max(7, Math.floor(+t.getAttribute('font-size') * maxw / len));
    t.setAttribute('font-size', size);
    len = t.getComputedTextLength();
    if (len > maxw) { t.setAttribute('textLength', maxw); t.setAttribute('lengthAdjust', 'spacingAndGlyphs'); }
  }
}

function cell(row, text, tag = 'td') {
  const c = document.createElement(tag);
  c.textContent = text;
  row.appendChild(c);
  return c;
}

function scoreboard(v) {
  const t = $('score'), last = pos === D.steps.length - 1, f = D.final;
  t.replaceChildren();
  const head = t.insertRow();
  for (const h of ['Seat', 'Agent', 'Personal', 'Delivered', 'Hand', 'Stack', 'Final rank']) cell(head, h, 'th');
  for (const seat of v.seats) {
    const s = seat.seat, row = t.insertRow(), won = last && f.winners.includes(s);
    const c = cell(row, s);
    c.style.background = D.colours[s];
    c.style.color = ink(s);
    cell(row, D.names[s]);
    cell(row, seat.personal);
    cell(row, seat.delivered.length);
    cell(row, seat.hand_size);
    cell(row, seat.stack);
    cell(row, f.unfinished !== null ? 'unfinished' : (last ? `${f.ranks[s]}` + (won ? ' ★ winner' : '') : '–'));
    if (won) row.className = 'winner';
  }
}

function legend() {
  const l = $('legend');
  D.ingredients.forEach((name, k) => {
    const item = document.createElement('div');
    const sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = D.colours[k];
    item.appendChild(sw);
    const owner = k < D.n ? ` — personal ingredient of ${who(k)}` : '';
    item.appendChild(document.createTextNode(`${name} (${D.short[k]})${owner}`));
    l.appendChild(item);
  });
  for (const line of [
    'A card shows its count; "+1x2" counts double cards (worth 2 each).',
    'Orders: "4 X + 1 P": four X and one of the owner\'s personal ingredient P.',
    '"1 of each": one card of each of the five ingredients.',
    'Pizza Bombastica: 15 or more ingredients of any kind.',
    'Pizza Monotoni: 1 P + exactly 6 J, one other ingredient the owner names.',
    'Pizza Minimale: 1 P + 3 "?", the ingredient with the fewest face-up cards.',
    'Oven plays are framed in the colour of the seat that played them.',
  ]) { const p = document.createElement('p'); p.textContent = line; l.appendChild(p); }
}

function show() {
  const v = viewOf(pos, view), svg = draw(v);
  $('table').replaceChildren(svg);
  fitText(svg);
  $('caption').textContent = D.captions[pos];
  $('pos').textContent = `step ${pos} / ${D.steps.length - 1}`;
  scoreboard(viewOf(pos, 0));
  if (pos === D.steps.length - 1) showResult();
}

// The result stays hidden until the last step (or a click): a replay is watched to
// find out who wins.
function showResult() {
  $('result').hidden = false;
  $('showresult').hidden = true;
}

function go(p) { pos = Math.max(0, Math.min(D.steps.length - 1, p)); show(); }

function setup() {
  const f = D.final, names = f.winners.map(who).join(', ');
  const scores = f.delivered.map((d, s) => `${short(s)} ${d}`).join(', ');
  $('result').textContent = f.unfinished !== null
    ? `${f.unfinished} Delivered orders so far: ${scores}.`
    : `${f.winners.length > 1 ? 'Winners (shared)' : 'Winner'}: ${names} · delivered ` +
      `${scores} · seed ${D.seed}`;
  $('result').hidden = true;
  $('showresult').onclick = showResult;
  view = D.start_view;
  const sel = $('view');
  [null, ...D.names.keys()].forEach((s, i) => {
    const o = document.createElement('option');
    o.value = i;
    o.textContent = s === null ? 'All hands' : `${who(s)}'s view`;
    o.selected = i === view;
    sel.appendChild(o);
  });
  $('first').onclick = () => go(0);
  $('back').onclick = () => go(pos - 1);
  $('fwd').onclick = () => go(pos + 1);
  $('last').onclick = () => go(D.steps.length - 1);
  $('prevrev').onclick = () => { const r = D.reveals.filter(x => x < pos); if (r.length) go(r[r.length - 1]); };
  $('nextrev').onclick = () => { const r = D.reveals.find(x => x > pos); if (r !== undefined) go(r); };
  $('play').onclick = () => {
    if (timer) { clearInterval(timer); timer = null; $('play').textContent = 'Play'; return; }
    $('play').textContent = 'Pause';
    timer = setInterval(() => { if (pos >= D.steps.length - 1) $('play').click(); else go(pos + 1); }, 900);
  };
  sel.onchange = e => { view = +e.target.value; show(); };
  document.addEventListener('keydown', e => {
    if (e.key === 'ArrowRight') go(pos + 1);
    if (e.key === 'ArrowLeft') go(pos - 1);
    if (e.key === 'Home') go(0);
    if (e.key === 'End') go(D.steps.length - 1);
  });
  legend();
  show();
}
setup();
