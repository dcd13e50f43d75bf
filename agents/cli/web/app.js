// The page of `mamma-mia serve`: it shows what the server sends (the person's view
// only) and asks the person's move in the terminal game's steps: ingredients, then
// order, then draw pile. The agents' moves are fetched one by one (POST .../step) so
// each shows on the table before the next. Text goes in with textContent; the table
// is the server's SVG, drawn from the person's view.
"use strict";

const $ = (id) => document.getElementById(id);
let setup = null;   // GET /api/setup
let page = null;    // the current game's JSON
let step = 0;       // 0 ingredients, 1 order, 2 draw
let picks = [null, null];
let busy = false;

function mark(state) { document.body.dataset.state = state; }

function say(text, ok) {
  $("message").textContent = text || "";
  $("message").className = ok ? "ok" : "";
}

async function call(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(url, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

async function guarded(fn) {
  if (busy) return;
  busy = true;
  mark("busy");
  try {
    await fn();
  } catch (e) {
    say(e.message);
    if (page) show(page);
  } finally {
    busy = false;
    if (page) mark(stateName());
  }
}

function stateName() {
  if (!page) return "setup";
  if (page.status !== "you") return page.status;
  if (page.question.kind === "reveal") return "reveal";
  return ["ingredients", "order", "draw"][step];
}

// -- the new-game form --------------------------------------------------------------
function option(select, value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  select.appendChild(o);
}

function fillSeats() {
  const n = Number($("players").value);
  const seat = $("seat");
  const keep = Math.min(Number(seat.value || setup.seat), n - 1);
  seat.replaceChildren();
  for (let s = 0; s < n; s++) option(seat, s, `seat ${s}`);
  seat.value = keep;
  // only the agents that play n players (each agent says which counts it plays)
  const able = setup.agents.filter((a) => setup.plays[a].includes(n));
  const box = $("opponents");
  box.replaceChildren();
  for (let i = 0; i < n - 1; i++) {
    const label = document.createElement("label");
    label.textContent = `Opponent ${i + 1} `;
    const sel = document.createElement("select");
    sel.className = "agent";
    for (const a of able) option(sel, a, a);
    const wanted = setup.others[i % setup.others.length];
    sel.value = able.includes(wanted) ? wanted : able[0];
    label.appendChild(sel);
    box.appendChild(label);
  }
  const left = setup.agents.filter((a) => !able.includes(a));
  $("not-offered").textContent = left.length
    ? `Not offered for ${n} players: ${left.map((a) => `${a} (plays ${setup.plays[a].join(", ") || "none"})`).join(", ")}.`
    : "";
}

function showSetup() {
  page = null;
  remember(null);
  $("game").hidden = true;
  $("setup").hidden = false;
  $("status").textContent = "Choose the players";
  mark("setup");
}

// -- the game ---------------------------------------------------------------------------
// The game's id stays in the address (#game=ID), so a reload comes back to the game in
// progress: the game lives on the server, which sends this seat's view only.
function remember(id) {
  const want = id ? `#game=${id}` : "";
  if (location.hash !== want) history.replaceState(null, "", want || location.pathname);
}

function remembered() {
  const m = /^#game=([A-Za-z0-9_-]{8,64})$/.exec(location.hash);
  return m ? m[1] : null;
}

function show(p) {
  page = p;
  remember(p.id);
  $("setup").hidden = true;
  $("game").hidden = false;
  $("table").innerHTML = p.svg;  // the server's SVG of the person's view (text escaped)
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of p.moves) {
    const li = document.createElement("li");
    li.textContent = m.text;
    if (m.seat === p.seat) li.className = "you";
    for (const line of m.reveal) {
      const span = document.createElement("span");
      span.className = "reveal";
      span.textContent = line.trim();
      li.appendChild(span);
    }
    moves.prepend(li);  // the newest first: in view without scrolling
  }
  $("status").textContent = p.status_line;
  $("undo").disabled = !p.can_undo || p.status === "agent";
  showHand(p);
  $("result").hidden = p.status !== "over";
  $("question").hidden = p.status === "over";
  if (p.status === "over") showResult(p);
  else if (p.status === "you") ask();
  else {
    $("prompt").textContent = "The other players are moving…";
    $("reveal-info").replaceChildren();
    $("choices").replaceChildren();
    $("back").hidden = true;
  }
  mark(stateName());
}

// The person's hand in words (the server's) and the colours' legend (the table draws counts).
function showHand(p) {
  $("hand").textContent = p.hand;
  const legend = $("legend");
  legend.replaceChildren();
  p.ingredients.forEach((name, k) => {
    const item = document.createElement("span");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = p.colours[k];
    item.append(sw, name);
    legend.appendChild(item);
  });
}

function button(text, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.addEventListener("click", onClick);
  $("choices").appendChild(b);
}

function unique(values) { return [...new Set(values)]; }

// A turn's answer to question i (0 ingredients, 1 order): on to the next question.
function pick(i, value) { picks[i] = value; step = i + 1; ask(); mark(stateName()); }

function ask() {
  const q = page.question;
  $("choices").replaceChildren();
  $("reveal-info").replaceChildren();
  if (q.kind === "reveal") {
    $("prompt").textContent = `Reveal: your order ${q.order} is turned over`;
    $("reveal-info").textContent = "The face-up piles do not hold all it needs. Deliver it with cards from your hand, or decline?";
    $("back").hidden = true;
    for (const o of q.options) button(o.label, () => move(o.action));
    return;
  }
  const opts = q.options;
  $("back").hidden = step === 0;
  if (step === 0) {
    $("prompt").textContent = "Your turn: which ingredients?";
    for (const play of unique(opts.map((o) => o.play))) button(play, () => pick(0, play));
    return;
  }
  const rest = opts.filter((o) => o.play === picks[0]);
  if (step === 1) {
    $("prompt").textContent = "Play an order card?";
    for (const order of unique(rest.map((o) => o.order))) button(order, () => pick(1, order));
    return;
  }
  $("prompt").textContent = "Then draw from?";
  const draws = rest.filter((o) => o.order === picks[1]);  // a full hand: one "end the turn"
  for (const d of unique(draws.map((o) => o.draw))) button(d, () => move(draws.find((o) => o.draw === d).action));
}

function showResult(p) {
  const body = $("scores").querySelector("tbody");
  body.replaceChildren();
  p.result.delivered.forEach((d, s) => {
    const tr = document.createElement("tr");
    for (const cell of [s, p.names[s], d, p.result.cards_in_hand[s]]) {
      const td = document.createElement("td");
      td.textContent = String(cell);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  });
  $("winners").textContent = p.result.winners_line;
}

function move(action) { start(`/api/games/${page.id}/act`, { action }); }

// The agents' moves, one request (and one picture) at a time; one loop at most, which
// waits while another request (Save) is under way.
let advancing = false;
async function advance() {
  if (advancing) return;
  advancing = true;
  try {
    while (page && page.status === "agent") {
      await new Promise((r) => setTimeout(r, setup.delay_ms));
      if (busy) continue;
      busy = true;
      try {
        show(await call("POST", `/api/games/${page.id}/step`, {}));
      } catch (e) {
        say(e.message);
        return;
      } finally {
        busy = false;
        if (page) mark(stateName());
      }
    }
  } finally {
    advancing = false;
  }
}

function start(url, body) {
  guarded(async () => {
    say("");
    step = 0;
    picks = [null, null];
    show(await call("POST", url, body));
  }).then(advance);
}

window.addEventListener("DOMContentLoaded", async () => {
  try {
    setup = await call("GET", "/api/setup");
  } catch (e) {
    say(e.message);
    return;
  }
  for (let n = 2; n <= 5; n++) option($("players"), n, `${n} players`);
  $("players").value = setup.players;
  $("players").addEventListener("change", fillSeats);
  fillSeats();
  $("seat").value = setup.seat;
  $("newgame").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const agents = [...document.querySelectorAll("select.agent")].map((s) => s.value);
    start("/api/games", { players: Number($("players").value), seat: Number($("seat").value), agents });
  });
  $("resume").addEventListener("click", () => start("/api/resume", {}));
  $("back").addEventListener("click", () => { step = Math.max(0, step - 1); ask(); mark(stateName()); });
  $("undo").addEventListener("click", () => {
    guarded(async () => {
      step = 0;
      picks = [null, null];
      show(await call("POST", `/api/games/${page.id}/undo`, {}));
      say("Undone: back to your previous decision.", true);
    });
  });
  $("save").addEventListener("click", () => {
    guarded(async () => say((await call("POST", `/api/games/${page.id}/save`, {})).message, true));
  });
  $("again").addEventListener("click", showSetup);
  // the game in the address (a reload), else the one --resume opened
  let failed = null;
  for (const id of [remembered(), setup.open].filter(Boolean)) {
    try {
      show(await call("GET", `/api/games/${id}`));
      advance();
      return;
    } catch (e) {
      failed = failed || e;
    }
  }
  showSetup();
  if (failed) say(`${failed.message}. Start a new game, or resume the last saved one.`);
});
