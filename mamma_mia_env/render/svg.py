"""The SVG drawing of a view of the table (``render.view.table_view``).

``table_shapes`` lays a view out once as rectangles and text; ``table_svg`` writes them
as SVG, ``render.image`` draws the same shapes with Pillow and the HTML replay's script
(``render.html``) draws them in the browser. What may be shown was decided by the view;
nothing here reads a game record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape
from typing import Any

from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.render.fonts import fit
from mamma_mia_env.render.view import seat_label, seat_name

#: Fill colours of the five ingredients (the game's card colours).
KIND_COLOURS: tuple[str, ...] = ("#9c3b2a", "#8d6e63", "#e0b020", "#3f9b45", "#7b3f99")
ORDER_COLOUR = "#f4ead2"
WIDTH = 960


def ink(kind: int) -> str:
    """The text colour that reads on a card of ``kind`` (dark on the yellow one)."""
    return "#222" if kind == 2 else "#fff"


def header_text(view: dict[str, Any], names: Sequence[str] | None = None) -> str:
    """The picture's top line; ``names`` (one per seat) calls the seats by their agents."""
    mm = seat_label(view["mm_holder"], names) if view["mm_holder"] >= 0 else "in the supply"
    act = "game over" if view["phase"] == "over" else f"to act: {seat_label(view['to_act'], names)}"
    who = "all hands" if view["viewer"] is None else seat_label(view["viewer"], names)
    return (
        f"Round {view['round']}/3 · {view['phase']} · {act} · supply {view['supply']}"
        f" · Mamma Mia! card: {mm} · view: {who}"
    )


def oven_title(view: dict[str, Any]) -> str:
    if view["oven_mode"] == "reveal":
        return f"Oven: reveal, card {view['reveal_pos'] + 1} of {view['oven_len']}"
    if view["oven_mode"] == "history":
        return f"Oven: {view['oven_len']} plays, first to last"
    return f"Oven: {view['oven_len']} plays, top card only"


class Shapes:
    """Rectangles, text and placed groups of them, in drawing order: one layout, drawn as
    SVG, by Pillow and by the replay page. A group (a card, a seat) is laid out at its
    own origin and placed, so the replay page stores each distinct group once."""

    def __init__(self) -> None:
        self.items: list[tuple] = []

    def rect(self, x, y, w, h, fill, stroke=None, rx=0, stroke_width=1) -> None:
        self.items.append(("rect", x, y, w, h, fill, stroke, rx, stroke_width))

    def text(
        self, x, y, text, size=14, bold=False, fill="#111", anchor="start", max_width=None
    ) -> None:
        """A label; with ``max_width`` it is made smaller (or cut short) to fit that width
        (``fonts.fit``), so a card's label stays inside the card."""
        if max_width is not None:
            text, size = fit(text, size, bold, max_width)
        self.items.append(("text", x, y, text, size, bold, fill, anchor))

    def place(self, x: float, y: float, group: Shapes) -> None:
        """``group`` drawn with its origin at ``(x, y)``."""
        self.items.append(("group", x, y, group))

    def flat(self, dx: float = 0, dy: float = 0) -> Iterator[tuple]:
        """Every rectangle and text, at its place in the whole picture."""
        for item in self.items:
            if item[0] == "group":
                yield from item[3].flat(dx + item[1], dy + item[2])
            else:
                yield (item[0], dx + item[1], dy + item[2], *item[3:])


#: Short names of the ingredients, for cards too small for the whole name.
SHORT = ("sal", "mush", "pine", "pep", "olive")


def _card(kind: int, label: str, w: int = 52, h: int = 60) -> Shapes:
    """An ingredient card: its count on top, its ingredient's name below."""
    sh = Shapes()
    sh.rect(0, 0, w, h, KIND_COLOURS[kind], "#222", 5)
    sh.text(w / 2, h / 2, label, 14, True, ink(kind), "middle", w - 6)
    sh.text(w / 2, h - 8, INGREDIENTS[kind], 10, False, ink(kind), "middle", w - 6)
    return sh


def _oven_card(kind: int, who: str, seat: int, label: str) -> Shapes:
    """A play in the oven: who played it (framed in its seat's colour), the count and
    the ingredient."""
    w, h = OVEN_CARD
    sh = Shapes()
    sh.rect(0, 0, w, h, KIND_COLOURS[kind], KIND_COLOURS[seat], 4, 3)
    sh.text(w / 2, 13, who, 10, False, ink(kind), "middle", w - 8)
    sh.text(w / 2, 27, f"{label} {SHORT[kind]}", 11, True, ink(kind), "middle", w - 8)
    return sh


def order_lines(name: str) -> tuple[str, str]:
    """An order's name as a title and a recipe line ("Pizza Monotoni", "1 salami + 6 J")."""
    if name.startswith("Pizza ") and "(" in name:
        title, rest = name.split(" (", 1)
        recipe = rest.rstrip(")")
        return title, recipe + (" cards" if recipe.endswith("+") else "")
    return "order", name


def _order_card(seat: int, head: str, name: str) -> Shapes:
    """An order card: ``head`` and the order's title on top, its recipe below."""
    w, h = ORDER_CARD
    title, recipe = order_lines(name)
    sh = Shapes()
    sh.rect(0, 0, w, h, ORDER_COLOUR, KIND_COLOURS[seat], 4, 3)
    sh.text(7, 14, f"{head} {title}".strip(), 10, True, "#333", max_width=w - 14)
    sh.text(7, 29, recipe, 12, False, "#111", max_width=w - 14)
    return sh


#: Width and height of an order card and of a play in the oven.
ORDER_CARD = (200, 36)
OVEN_CARD = (64, 36)


def _counts_label(s: int, d: int) -> str:
    return f"{s}" + (f"+{d}x2" if d else "")


def table_shapes(view: dict[str, Any], names: Sequence[str] | None = None) -> tuple[Shapes, int]:
    """The layout of ``view``: shapes and the picture's height (width is ``WIDTH``); the
    piles, the oven and each seat are groups. ``names`` (one per seat, a log's agents)
    calls the seats by their agents' names instead of "seat 2"."""
    sh = Shapes()
    sh.text(12, 24, header_text(view, names), 15, True, max_width=WIDTH - 24)
    y = 46
    parts = [_piles(view), _oven(view, names), *(_seat(view, s, names) for s in view["seats"])]
    for part, height in parts:
        sh.place(0, y, part)
        y += height
    return sh, y + 10


def _piles(view: dict[str, Any]) -> tuple[Shapes, int]:
    sh = Shapes()
    sh.text(12, 14, "Face-up piles")
    x = 130
    for k, s, d in view["piles"]:
        sh.place(x, 0, _card(k, _counts_label(s, d)))
        x += 60
    if not view["piles"]:
        sh.text(x, 14, "(none)")
    return sh, 76


def _oven(view: dict[str, Any], names: Sequence[str] | None) -> tuple[Shapes, int]:
    """The oven's plays in rows; each row is a group, so the replay page stores a full
    row once, not again at every later step."""
    sh, row = Shapes(), Shapes()
    sh.text(12, 0, oven_title(view), 14, True)
    x, y = 12, 8
    step = OVEN_CARD[1] + 6
    for i, e in enumerate(view["oven"]):
        w = ORDER_CARD[0] if "order" in e else OVEN_CARD[0]
        if x + w > WIDTH - 12:
            sh.place(0, y, row)
            row, x, y = Shapes(), 12, y + step
        if view["oven_mode"] == "reveal" and i == len(view["oven"]) - 1:
            row.rect(x - 3, -3, w + 6, OVEN_CARD[1] + 6, "#d00", None, 4)
        who = seat_name(e["seat"], names)
        if "order" in e:
            row.place(x, 0, _order_card(e["seat"], who, e["order"]))
        else:
            label = _counts_label(e["s"], e["d"])
            row.place(x, 0, _oven_card(e["kind"], who, e["seat"], label))
        x += w + 6
    sh.place(0, y, row)
    if not view["oven"]:
        sh.text(12, y + 18, "(empty)", 12)
    return sh, y + step + 8


def _seat(
    view: dict[str, Any], seat: dict[str, Any], names: Sequence[str] | None
) -> tuple[Shapes, int]:
    """A seat's line, then its cards: its delivered orders, and its hand and orders if
    the view shows them ("hand not shown in this view" otherwise). The line and the
    cards are groups: the replay page stores each once, as they change at other steps."""
    s, line, cards = seat["seat"], Shapes(), Shapes()
    act = " · to act" if s == view["to_act"] and view["phase"] != "over" else ""
    line.rect(6, 0, WIDTH - 12, 6, KIND_COLOURS[s])
    words = (
        f"{seat_label(s, names)} · personal ingredient {seat['personal']}{act} · hand "
        f"{seat['hand_size']} ({seat['orders_in_hand']} orders), stack {seat['stack']}, "
        f"delivered {len(seat['delivered'])}"
    )
    line.text(12, 22, words, 14, True, max_width=WIDTH - 24)
    height = _seat_cards(cards, seat)
    sh = Shapes()
    sh.place(0, 0, line)
    sh.place(0, 30, cards)
    return sh, 30 + height


def _seat_cards(sh: Shapes, seat: dict[str, Any]) -> int:
    s, x, y = seat["seat"], 12, 0
    for name in seat["delivered"]:
        if x + ORDER_CARD[0] > WIDTH - 12:
            x, y = 12, y + ORDER_CARD[1] + 6
        sh.place(x, y, _order_card(s, "delivered", name))
        x += ORDER_CARD[0] + 6
    if seat["delivered"]:
        y += ORDER_CARD[1] + 6
    if seat["hand"] is None:
        sh.text(12, y + 12, "hand not shown in this view", 11, False, "#777")
        return y + 22
    x = 12
    for k, c1, c2 in seat["hand"]:
        sh.place(x, y, _card(k, _counts_label(c1, c2)))
        x += 58
    if not seat["hand"]:
        sh.text(x, y + 30, "no ingredient cards", 12)
        x += 140
    x += 10
    # The orders' first row sits beside the ingredient cards, centred on them; a row
    # they wrap to starts below those cards, not over them.
    top, below_cards = y + 12, y + 66
    for name in seat["orders"]:
        if x + ORDER_CARD[0] > WIDTH - 12:
            x, top = 12, max(top + ORDER_CARD[1] + 6, below_cards)
        sh.place(x, top, _order_card(s, "", name))
        x += ORDER_CARD[0] + 6
    return max(below_cards, top + ORDER_CARD[1] + 6)


def table_svg(view: dict[str, Any]) -> str:
    """A standalone SVG document of ``view`` (from ``table_view``)."""
    sh, height = table_shapes(view)
    parts = []
    for item in sh.flat():
        if item[0] == "rect":
            _, x, y, w, h, fill, stroke, rx, sw = item
            st = f' stroke="{stroke}" stroke-width="{sw}"' if stroke else ""
            parts.append(
                f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}"{st}/>'
            )
        else:
            _, x, y, text, size, bold, fill, anchor = item
            weight = ' font-weight="bold"' if bold else ""
            parts.append(
                f'<text x="{x}" y="{y}" font-size="{size}"{weight} fill="{fill}" '
                f'text-anchor="{anchor}">{escape(text)}</text>'
            )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif">'
        f'<rect width="100%" height="100%" fill="#fbf7ee"/>' + "".join(parts) + "</svg>"
    )
