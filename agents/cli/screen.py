"""The table on a terminal, drawn with rich from ``render.view.table_view``.

Both the terminal game and the terminal replay draw this, so what a seat sees on the
screen is exactly what its picture shows: its own hand, the public table, the oven as
the observation mode allows. Both draw ``table_lines``, and the text around it (the
game: moves, round summaries, help; the replay: the step's caption and keys), lines cut
to fit the terminal's width at whole cards, so that an 80x24 screen holds the whole
table.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from mamma_mia_agents.cli.session import Game
from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.game.log import final_result
from mamma_mia_env.render.text import cards_text, reveal_lines
from mamma_mia_env.render.text import result_lines as text_result_lines
from mamma_mia_env.render.view import seat_label

STYLES = ("bold white on dark_red", "bold white on orange4", "bold black on gold1",
          "bold white on green4", "bold white on purple4")  # fmt: skip


# -- the screens' lines: they fit the terminal and are redrawn in place -------------------
#: What ``>`` marks and how cards read; the help screen repeats it.
MARK = ">"


def seat_names(seat: int, agents: dict[int, str]) -> dict[int, str]:
    """How the screen names each seat: "you", or the agent and its seat number, so a
    seat never reads like a card count ("builder (seat 1)", not "1 mushroom")."""
    raw = [agents.get(s, "you")[:24] for s in range(max([seat, *agents]) + 1)]  # 24: the width
    return {s: seat_label(s, raw, you=seat) for s in range(len(raw))}


def short_name(seat: int, viewer: int | None) -> str:
    return "you" if seat == viewer else f"seat {seat}"


def chip(k: int, s: int, d: int) -> Text:
    """One ingredient's cards as a coloured chip with the full name: " 3 pepper "."""
    return Text(f" {cards_text(INGREDIENTS[k], s, d)} ", style=STYLES[k])


def pack(
    items: list[Text], width: int, lead: str = "", indent: int = 2, sep: str = " "
) -> list[Text]:
    """``items`` on lines of at most ``width`` cells after ``lead``, never split: an item
    that does not fit goes to the next line (so a card name never wraps mid-name); an
    item wider than a whole line is cut with an ellipsis."""
    lines = [Text(lead, style="bold")]
    for item in items:
        line = lines[-1]
        first = line.cell_len <= (len(lead) if len(lines) == 1 else indent)
        gap = 0 if first else len(sep)
        if line.cell_len + gap + item.cell_len > width and line.cell_len > indent:
            line = Text(" " * indent)
            lines.append(line)
        elif not first:
            line.append(sep)
        line.append_text(item)
    for line in lines:
        line.truncate(width, overflow="ellipsis")
    return lines


def status_line(view: dict[str, Any], width: int) -> Text:
    """Round, supply, the Mamma Mia! card and whose move it is, always the top line."""
    me = view["viewer"]
    mm = view["mm_holder"]
    holder = short_name(mm, me) if mm >= 0 else "in the supply"
    if view["phase"] == "over":
        turn = "game over"
    elif view["phase"] == "reveal":
        turn = f"reveal {view['reveal_pos'] + 1}/{view['oven_len']}, " + (
            "you decide" if view["to_act"] == me else f"seat {view['to_act']} decides"
        )
    else:
        turn = "your turn" if view["to_act"] == me else f"turn: seat {view['to_act']}"
    text = (
        f" Round {view['round']}/3 · supply {view['supply']} cards · "
        f"Mamma Mia! card: {holder} · {turn}"
    )
    line = Text(text.ljust(width), style="bold reverse")
    line.truncate(width, overflow="ellipsis")
    return line


def _oven_item(entry: dict[str, Any], me: int | None, current: bool) -> Text:
    who = short_name(entry["seat"], me)
    t = Text(">" if current else "", style="bold")
    t.append(f"{who}: ", style="bold" if current else "dim")
    if "order" in entry:
        t.append(f"[{entry['order']}]", style="bold" if current else "")
    else:
        t.append_text(chip(entry["kind"], entry["s"], entry["d"]))
    return t


def oven_block(view: dict[str, Any], width: int, max_lines: int) -> list[Text]:
    """The oven's newest entries that fit in ``max_lines`` lines, the first line says
    how many plays it holds and how many are not shown."""
    oven = view["oven"]
    me = view["viewer"]
    n = len(oven)
    items = [_oven_item(e, me, view["oven_mode"] == "reveal" and i == n - 1)
             for i, e in enumerate(oven)]  # fmt: skip
    if view["oven_mode"] == "reveal":
        title = f"Oven, turning over {view['reveal_pos'] + 1}/{view['oven_len']}:"
    elif view["oven_mode"] == "top_card":
        title = f"Oven ({view['oven_len']} plays, top card):"
    else:
        title = f"Oven ({view['oven_len']} plays):"
    if not items:
        return [Text(title + " empty", style="bold")]
    for start in range(n):
        lead = title + (f" ({start} earlier not shown) " if start else " ")
        lines = pack(items[start:], width, lead, sep="  ")
        if len(lines) <= max_lines:
            return lines
    return pack(items[-1:], width, title + f" ({n - 1} earlier not shown) ")[:max_lines]


def seat_lines(view: dict[str, Any], names: dict[int, str], width: int) -> list[Text]:
    """One line per seat: the marker of the seat to act, the seat's name in its colour,
    then its counts, worded so they do not read as cards."""
    out = []
    for s in view["seats"]:
        i = s["seat"]
        acting = i == view["to_act"] and view["phase"] != "over"
        line = Text(f"{MARK if acting else ' '} ", style="bold")
        line.append(f" {names.get(i, f'seat {i}')} ", style=STYLES[i])
        o = s["orders_in_hand"]
        line.append(
            f" {s['personal']} · hand {s['hand_size']} ({o} order{'s' * (o != 1)})"
            f" · stack {s['stack']} · delivered {len(s['delivered'])}"
        )
        done = ": " + "; ".join(s["delivered"])
        if s["delivered"] and line.cell_len + len(done) <= width:  # whole names or none
            line.append(done, style="dim")
        line.truncate(width, overflow="ellipsis")
        out.append(line)
    return out


def hand_block(view: dict[str, Any], width: int, names: dict[int, str]) -> list[Text]:
    """The viewer's ingredient cards and order cards with their full names; in the view
    of every hand (a replay's), each seat's, cards then orders."""
    if view["viewer"] is None:
        out = []
        for s in view["seats"]:
            items = [chip(k, c, d) for k, c, d in s["hand"]]
            items += [Text(f"[{o}]") for o in s["orders"]]
            i = s["seat"]
            out += pack(items or [Text("nothing")], width, f"{names.get(i, f'seat {i}')} holds: ")
        return out
    me = view["seats"][view["viewer"]]
    cards = pack([chip(k, s, d) for k, s, d in me["hand"]] or [Text("none")], width,
                 "Your cards: ")  # fmt: skip
    orders = [Text(f"[{o}]") for o in me["orders"]] or [Text("none")]
    return cards + pack(orders, width, "Your orders: ")


def table_lines(
    view: dict[str, Any], names: dict[int, str], width: int, oven_max: int
) -> list[Text]:
    """Status line, piles, oven, seats and the viewer's hand: the top of every screen."""
    piles = [chip(k, s, d) for k, s, d in view["piles"]] or [Text("empty")]
    return [
        status_line(view, width),
        *pack(piles, width, "Face-up piles: "),
        *oven_block(view, width, oven_max),
        *seat_lines(view, names, width),
        *hand_block(view, width, names),
    ]


def fitted_table(
    view: dict[str, Any], names: dict[int, str], width: int, rows: int, keep: int
) -> list[Text]:
    """``table_lines`` in at most ``rows`` lines where it can, the oven given every row
    that the rest of the table and ``keep`` rows (the text below it: moves, a caption)
    leave: the oven is the game's memory, and rows left blank help nobody."""
    top = table_lines(view, names, width, 1)
    spare = rows - len(top) - keep
    return table_lines(view, names, width, 1 + spare) if spare > 0 else top


#: A card count stays with its card's name ("3 double pepper,") when text is wrapped.
_WORD = re.compile(r"\d+ (?:double )?[a-z]+[,.;:)\]]*|\S+")


def wrap(text: str, width: int, indent: int = 4, style: str = "") -> list[Text]:
    """Word-wrap one line of text to ``width``, later lines indented; a card's count and
    name are never parted."""
    lead = len(text) - len(text.lstrip(" "))
    words, lines, line = _WORD.findall(text), [], " " * lead
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = " " * indent + w
        else:
            line = f"{line} {w}" if line.strip() else line + w
    lines.append(line)
    return [Text(x[:width], style=style) for x in lines]


def option_lines(options: list[str], width: int) -> list[Text]:
    """Numbered options, in columns when they are short, else one per line, wrapped."""
    labels = [f"{i:>2}  {text}" for i, text in enumerate(options, 1)]
    col = max(len(x) for x in labels) + 3
    ncols = max(1, min(3, width // col)) if col <= width // 2 else 1
    if ncols == 1:
        return [line for x in labels for line in wrap(x, width, indent=6)]
    rows = -(-len(labels) // ncols)
    out = []
    for r in range(rows):
        line = Text()
        for c in range(ncols):
            i = c * rows + r
            if i < len(labels):
                line.append(labels[i].ljust(col)[: width - line.cell_len])
        out.append(line)
    return out


HELP = [
    "KEYS  Type the number of a choice and press Enter.",
    "  u     undo: back one question of your turn; at a turn's first question (or",
    "        a reveal decision) back to your previous decision, taking back the",
    "        bots' moves since then (they play them again the same way).",
    "  h, ?  this help.   q  save the game and quit (mamma-mia play --resume FILE).",
    "THE SCREEN  The top line: the round (of 3), cards left in the supply, who",
    "  holds the Mamma Mia! card (that seat starts the next round), whose move it",
    f"  is. '{MARK}' marks the seat to act. Seats are named 'you' or by their agent:",
    "  'builder (seat 1)'. Coloured chips are cards: '3 pepper' is three pepper",
    "  cards, '1 double pepper' one card worth two pepper.",
    "A TURN  Play cards of ONE ingredient into the oven (or pass with none), then",
    "  at most one order card, then refill your hand to 7 from the supply or from",
    "  your own order stack. Drawing the last supply card starts the reveal.",
    "ORDER CARDS  (P = your personal ingredient, shown by your name)",
    "  4 X + 1 P         four of ingredient X and one P",
    "  1 of each         one of each of the five ingredients",
    "  Pizza Monotoni (1 P + 6 J)  one P and six of ONE other ingredient J (the",
    "                    joker: you choose which when the order is revealed)",
    "  Pizza Minimale (1 P + 3 ?)  one P and three '?': the ingredient other than",
    "                    P with the FEWEST (but at least one) on the face-up piles",
    "  Pizza Bombastica (15+)      any ingredient cards worth 15 together",
    "THE REVEAL  The oven is turned over from the first card played to the last:",
    "  ingredient cards go onto the face-up piles; an order is delivered if the",
    "  piles hold what it needs (those cards are used up). If they fall short, its",
    "  owner may add the missing cards from hand: you are asked, and each choice",
    "  says which of your cards it adds; or decline: the order goes under your",
    "  order stack. A summary of every order turned over ends each round.",
    "THE END  After the 3rd round the most delivered orders wins (a tie: the most",
    "  ingredient cards in hand).",
]


# -- what happened: one line per move, the game's own wording (``Game.step_lines``) --------
def events(game: Game, names: dict[int, str], seen: int = 0) -> tuple[list[str], list[str]]:
    """The moves before the person's last decision and those since (and since step
    ``seen``: a round summary already showed the ones before), as lines."""
    mine = [i for i, s in enumerate(game.steps) if s.seat == game.seat]
    cut = max(mine[-1] + 1 if mine else 0, min(seen, len(game.steps)))
    lines = [game.step_lines(s) for s in game.steps]
    return [x for ls in lines[:cut] for x in ls], [x for ls in lines[cut:] for x in ls]


def summary_lines(game: Game, names: dict[int, str], rnd: int, width: int) -> list[Text]:
    """Every order the round turned over and the delivered orders, for the round's end."""
    s = game.round_summary(rnd)
    n = game.config.num_players
    raw = [name[:24] for name in game.seat_names()]
    text = reveal_lines(s["outcomes"], None, raw, game.seat) or ["  no order was turned over"]
    text += [
        "Delivered this round: " + ", ".join(f"{names[i]} {s['delivered'][i]}" for i in range(n)),
        "Delivered in all:     " + ", ".join(f"{names[i]} {s['totals'][i]}" for i in range(n)),
    ]
    if not game.over():
        text.append(f"Round {rnd + 1} starts with {names[int(game.rec['seat'])]}.")
    return [line for x in text for line in wrap(x, width)]


def result_lines(game: Game, names: dict[int, str]) -> list[str]:
    """The game's end in words (``render.text.result_lines``), seats named as on screen."""
    n = game.config.num_players
    return text_result_lines(final_result(game.state), [names[s] for s in range(n)])
