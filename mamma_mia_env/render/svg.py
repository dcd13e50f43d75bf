"""The SVG drawing of a view of the table (``render.view.table_view``).

``table_shapes`` lays a view out once as rectangles and text; ``table_svg`` writes them
as SVG and ``render.image`` draws the same shapes with Pillow. What may be shown was
decided by the view; nothing here reads a game record.
"""

from __future__ import annotations

from html import escape
from typing import Any

from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.render.fonts import fit

#: Fill colours of the five ingredients (the game's card colours).
KIND_COLOURS: tuple[str, ...] = ("#9c3b2a", "#8d6e63", "#e0b020", "#3f9b45", "#7b3f99")
ORDER_COLOUR = "#f4ead2"
WIDTH = 960


def header_text(view: dict[str, Any]) -> str:
    who = "all hands" if view["viewer"] is None else f"seat {view['viewer']}"
    mm = f"seat {view['mm_holder']}" if view["mm_holder"] >= 0 else "in the supply"
    return (
        f"Mamma Mia!  round {view['round']}/3  {view['phase']}  seat {view['to_act']} to act"
        f"  |  supply {view['supply']}  |  Mamma Mia! card: {mm}  |  view: {who}"
    )


def oven_title(view: dict[str, Any]) -> str:
    if view["oven_mode"] == "reveal":
        return f"Oven: reveal, card {view['reveal_pos'] + 1} of {view['oven_len']}"
    if view["oven_mode"] == "history":
        return f"Oven: {view['oven_len']} plays, first to last"
    return f"Oven: {view['oven_len']} plays, top card only"


class Shapes:
    """Rectangles and text in drawing order: one layout, drawn as SVG or by Pillow."""

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


#: Short names of the ingredients, for cards too small for the whole name.
SHORT = ("sal", "mush", "pine", "pep", "olive")


def _card(sh: Shapes, x: float, y: float, kind: int, label: str, w: int = 52, h: int = 60):
    """An ingredient card: its count on top, its ingredient's name below."""
    sh.rect(x, y, w, h, KIND_COLOURS[kind], "#222", 5)
    fg = "#222" if kind == 2 else "#fff"
    sh.text(x + w / 2, y + h / 2, label, 14, True, fg, "middle", w - 6)
    sh.text(x + w / 2, y + h - 8, INGREDIENTS[kind], 10, False, fg, "middle", w - 6)


def _oven_card(sh: Shapes, x: float, y: float, kind: int, seat: int, label: str) -> None:
    """A play in the oven: the seat that played it, the count and the ingredient."""
    w, h = OVEN_CARD
    sh.rect(x, y, w, h, KIND_COLOURS[kind], KIND_COLOURS[seat], 4, 3)
    fg = "#222" if kind == 2 else "#fff"
    sh.text(x + w / 2, y + 13, f"seat {seat}", 10, False, fg, "middle", w - 8)
    sh.text(x + w / 2, y + 27, f"{label} {SHORT[kind]}", 11, True, fg, "middle", w - 8)


def order_lines(name: str) -> tuple[str, str]:
    """An order's name as a title and a recipe line ("Pizza Monotoni", "1 salami + 6 J")."""
    if name.startswith("Pizza ") and "(" in name:
        title, rest = name.split(" (", 1)
        recipe = rest.rstrip(")")
        return title, recipe + (" cards" if recipe.endswith("+") else "")
    return "order", name


def _order_card(sh: Shapes, x: float, y: float, seat: int, head: str, name: str) -> None:
    """An order card: ``head`` and the order's title on top, its recipe below."""
    w, h = ORDER_CARD
    title, recipe = order_lines(name)
    sh.rect(x, y, w, h, ORDER_COLOUR, KIND_COLOURS[seat], 4, 3)
    sh.text(x + 7, y + 14, f"{head} {title}".strip(), 10, True, "#333", max_width=w - 14)
    sh.text(x + 7, y + 29, recipe, 12, False, "#111", max_width=w - 14)


#: Width and height of an order card and of a play in the oven.
ORDER_CARD = (200, 36)
OVEN_CARD = (64, 36)


def _counts_label(s: int, d: int) -> str:
    return f"{s}" + (f"+{d}x2" if d else "")


def table_shapes(view: dict[str, Any]) -> tuple[Shapes, int]:
    """The layout of ``view``: shapes and the picture's height (width is ``WIDTH``)."""
    sh = Shapes()
    y = 24
    sh.text(12, y, header_text(view), 15, True, max_width=WIDTH - 24)
    y = _piles(sh, view, y + 22)
    y = _oven(sh, view, y)
    for seat in view["seats"]:
        y = _seat(sh, view, seat, y)
    return sh, y + 10


def _piles(sh: Shapes, view: dict[str, Any], y: int) -> int:
    sh.text(12, y + 14, "Face-up piles")
    x = 130
    for k, s, d in view["piles"]:
        _card(sh, x, y, k, _counts_label(s, d))
        x += 60
    if not view["piles"]:
        sh.text(x, y + 14, "(none)")
    return y + 76


def _oven(sh: Shapes, view: dict[str, Any], y: int) -> int:
    sh.text(12, y, oven_title(view), 14, True)
    y += 8
    x = 12
    step = OVEN_CARD[1] + 6
    for i, e in enumerate(view["oven"]):
        w = ORDER_CARD[0] if "order" in e else OVEN_CARD[0]
        if x + w > WIDTH - 12:
            x, y = 12, y + step
        if view["oven_mode"] == "reveal" and i == len(view["oven"]) - 1:
            sh.rect(x - 3, y - 3, w + 6, OVEN_CARD[1] + 6, "#d00", None, 4)
        if "order" in e:
            _order_card(sh, x, y, e["seat"], f"seat {e['seat']}", e["order"])
        else:
            _oven_card(sh, x, y, e["kind"], e["seat"], _counts_label(e["s"], e["d"]))
        x += w + 6
    if not view["oven"]:
        sh.text(12, y + 18, "(empty)", 12)
    return y + step + 8


def _seat(sh: Shapes, view: dict[str, Any], seat: dict[str, Any], y: int) -> int:
    s = seat["seat"]
    act = " (to act)" if s == view["to_act"] and view["phase"] != "over" else ""
    sh.rect(6, y, WIDTH - 12, 6, KIND_COLOURS[s])
    y += 22
    sh.text(
        12,
        y,
        f"Seat {s} ({seat['personal']}){act}: hand {seat['hand_size']} "
        f"({seat['orders_in_hand']} orders), stack {seat['stack']}, "
        f"delivered {len(seat['delivered'])}",
        14,
        True,
        max_width=WIDTH - 24,
    )
    y += 8
    x = 12
    for name in seat["delivered"]:
        if x + ORDER_CARD[0] > WIDTH - 12:
            x, y = 12, y + ORDER_CARD[1] + 6
        _order_card(sh, x, y, s, "delivered", name)
        x += ORDER_CARD[0] + 6
    if seat["delivered"]:
        y += ORDER_CARD[1] + 6
    if seat["hand"] is None:
        return y + 4
    x = 12
    for k, c1, c2 in seat["hand"]:
        _card(sh, x, y, k, _counts_label(c1, c2))
        x += 58
    if not seat["hand"]:
        sh.text(x, y + 30, "no ingredient cards", 12)
        x += 140
    x += 10
    for name in seat["orders"]:
        if x + ORDER_CARD[0] > WIDTH - 12:
            x, y = 12, y + ORDER_CARD[1] + 6
        _order_card(sh, x, y + 12, s, "", name)
        x += ORDER_CARD[0] + 6
    return y + 66


def table_svg(view: dict[str, Any]) -> str:
    """A standalone SVG document of ``view`` (from ``table_view``)."""
    sh, height = table_shapes(view)
    parts = []
    for item in sh.items:
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
