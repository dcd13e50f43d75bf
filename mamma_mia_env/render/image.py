"""Raster frames of the table (``render_mode="rgb_array"``), drawn with Pillow.

The layout is the SVG's (``render.svg.table_shapes``), so a video frame and the SVG
of the same position show the same cards; the fonts are the layout's (``render.fonts``),
which fitted every card's label to its card.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from mamma_mia_env.render.fonts import font
from mamma_mia_env.render.svg import WIDTH, table_shapes

BACKGROUND = "#fbf7ee"
#: Frames have a fixed height so that a video's frames all have one shape.
HEIGHT = 720


def table_image(view: dict[str, Any], height: int = HEIGHT) -> np.ndarray:
    """``view`` (from ``render.view.table_view``) as a ``(height, WIDTH, 3)`` uint8 frame.

    A taller table is scaled down to fit, so every frame of a game has one shape.
    """
    shapes, natural = table_shapes(view)
    full = max(natural, height)
    img = Image.new("RGB", (WIDTH, full), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for item in shapes.flat():
        if item[0] == "rect":
            _, x, y, w, h, fill, stroke, rx, sw = item
            box = (x, y, x + w, y + h)
            draw.rounded_rectangle(box, radius=rx, fill=fill, outline=stroke, width=sw)
        else:
            _, x, y, text, size, bold, fill, anchor = item
            draw.text(
                (x, y),
                text,
                fill=fill,
                font=font(size, bold),
                anchor="ms" if anchor == "middle" else "ls",
            )
    if full != height:  # scaled down, on a frame of the background colour
        small = img.resize((round(WIDTH * height / full), height))
        img = Image.new("RGB", (WIDTH, height), BACKGROUND)
        img.paste(small, (0, 0))
    return np.asarray(img, dtype=np.uint8).copy()
