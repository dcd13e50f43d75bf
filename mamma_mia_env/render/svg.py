"""The SVG drawing of a view of the table (``render.view.table_view``).

``table_shapes`` lays a view out once as rectangles and text; ``table_svg`` writes them
as SVG and ``render.image`` draws the same shapes with Pillow. What may be shown was
decided by the view; nothing here reads a game record.
"""

from __future__ import annotations

from html import escape
from typing import Any

from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.render.view import table_view

__all__ = ["WIDTH", "table_shapes", "table_svg", "table_view"]  # table_view: its old home

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
    if view["oven_mode"] == "recall":
        return f"Oven: {view['oven_len']} plays, first to last"
    return f"Oven: {view['oven_len']} plays, top card only"


class Shapes:
    """Rectangles and text in drawing order: one layout, drawn as SVG or by Pillow."""

    def __init__(self) -> None:
        self.items: list[tuple] = []

    def rect(self, x, y, w, h, fill, stroke=None, rx=0, stroke_width=1) -> None:
        self.items.append(("rect", x, y, w, h, fill, stroke, rx, stroke_width))

    def text(self, x, y, text, size=14, bold=False, fill="#111", anchor="start") -> None:
        self.items.append(("text", x, y, text, size, bold, fill, anchor))


def _card(sh: Shapes, x: float, y: float, kind: int, label: str, w: int = 44, h: int = 60):
    sh.rect(x, y, w, h, KIND_COLOURS[kind], "#222", 5)
    fg = "#222" if kind == 2 else "#fff"
    sh.text(x + w / 2, y + h / 2 + 5, label, 14 if h > 30 else 12, True, fg, "middle")


def _order_card(sh: Shapes, x: float, y: float, seat: int, name: str, w: int = 200, h: int = 26):
    sh.rect(x, y, w, h, ORDER_COLOUR, KIND_COLOURS[seat], 4, 3)
    sh.text(x + 6, y + 17, name, 11)


def _counts_label(s: int, d: int) -> str:
    return f"{s}" + (f"+{d}x2" if d else "")


def table_shapes(view: dict[str, Any]) -> tuple[Shapes, int]:
    """The layout of ``view``: shapes and the picture's height (width is ``WIDTH``)."""
    sh = Shapes()
    y = 24
    sh.text(12, y, header_text(view), 15, True)
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
        sh.text(x + 22, y + 74, INGREDIENTS[k], 10, anchor="middle")
        x += 66
    if not view["piles"]:
        sh.text(x, y + 14, "(none)")
    return y + 90


def _oven(sh: Shapes, view: dict[str, Any], y: int) -> int:
    sh.text(12, y, oven_title(view), 14, True)
    y += 8
    x = 12
    for i, e in enumerate(view["oven"]):
        if x > WIDTH - 220:
            x, y = 12, y + 36
        if view["oven_mode"] == "reveal" and i == len(view["oven"]) - 1:
            sh.rect(x - 3, y - 3, (206 if "order" in e else 62), 32, "#d00", None, 4)
        if "order" in e:
            _order_card(sh, x, y, e["seat"], f"s{e['seat']}: {e['order']}")
            x += 206
        else:
            _card(sh, x, y, e["kind"], f"s{e['seat']}: {_counts_label(e['s'], e['d'])}", 56, 26)
            x += 62
    if not view["oven"]:
        sh.text(12, y + 18, "(empty)", 12)
    return y + 44


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
    )
    y += 8
    x = 12
    for name in seat["delivered"]:
        if x > WIDTH - 240:
            x, y = 12, y + 32
        _order_card(sh, x, y, s, "delivered: " + name, 250)
        x += 256
    if seat["delivered"]:
        y += 32
    if seat["hand"] is None:
        return y + 4
    x = 12
    for k, c1, c2 in seat["hand"]:
        _card(sh, x, y, k, _counts_label(c1, c2))
        x += 50
    if not seat["hand"]:
        sh.text(x, y + 30, "no ingredient cards", 12)
        x += 140
    x += 10
    for name in seat["orders"]:
        if x > WIDTH - 210:
            x, y = 12, y + 32
        _order_card(sh, x, y + 16, s, name)
        x += 206
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
