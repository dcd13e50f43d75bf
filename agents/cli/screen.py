"""The table on a terminal, drawn with rich from ``render_svg.table_view``.

Both the terminal game and the terminal replay draw this, so what a seat sees on the
screen is exactly what its picture shows: its own hand, the public table, the oven as
the observation mode allows.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.render.svg import header_text, oven_title

STYLES = ("bold white on dark_red", "bold white on orange4", "bold black on gold1",
          "bold white on green4", "bold white on purple4")  # fmt: skip


def cards_text(counts: list[list[int]]) -> Text:
    """Ingredient cards as coloured chips: ``[kind, singles, doubles]`` rows."""
    t = Text()
    for k, s, d in counts:
        label = f" {s} {INGREDIENTS[k]}" + (f" +{d} double" if d else "") + " "
        t.append(label, style=STYLES[k])
        t.append(" ")
    return t if counts else Text("-")


def oven_text(view: dict[str, Any]) -> Text:
    t = Text()
    for i, e in enumerate(view["oven"]):
        current = view["oven_mode"] == "reveal" and i == len(view["oven"]) - 1
        mark = ">>" if current else ""
        if "order" in e:
            t.append(f"{mark}[s{e['seat']} order: {e['order']}] ", style="bold" if current else "")
        else:
            label = f"{mark}s{e['seat']}: {e['s']} {INGREDIENTS[e['kind']]}"
            label += f" +{e['d']}x2" if e["d"] else ""
            t.append(label, style=STYLES[e["kind"]])
            t.append(" ")
    return t if view["oven"] else Text("(empty)")


def table_renderable(view: dict[str, Any], caption: str = "") -> Group:
    """The whole table of ``view`` as one rich renderable."""
    seats = Table(show_header=True, header_style="bold", expand=True)
    for col in ("seat", "hand", "stack", "delivered", "cards / orders (if visible)"):
        seats.add_column(col)
    for s in view["seats"]:
        name = f"{s['seat']} {s['personal']}"
        if s["seat"] == view["to_act"] and view["phase"] != "over":
            name += " *"
        if view["viewer"] == s["seat"]:
            name += " (you)"
        detail: Text | str = "hidden"
        if s["hand"] is not None:
            detail = cards_text(s["hand"])
            detail.append("\norders: " + ("; ".join(s["orders"]) or "-"))
        seats.add_row(
            Text(name, style=STYLES[s["seat"]]),
            f"{s['hand_size']} ({s['orders_in_hand']} orders)",
            str(s["stack"]),
            f"{len(s['delivered'])}: " + "; ".join(s["delivered"]),
            detail,
        )
    parts: list[Any] = [
        Text(header_text(view), style="bold"),
        Text("Face-up piles: ").append_text(cards_text(view["piles"])),
        Panel(oven_text(view), title=oven_title(view), title_align="left"),
        seats,
    ]
    if caption:
        parts.append(Panel(Text(caption), title="last move", title_align="left"))
    return Group(*parts)
