"""Text metrics for the table's layout: the fonts the frames are drawn with.

The layout (``render.svg.table_shapes``) measures every label that must stay inside a
card with these fonts and makes it smaller (or cuts it short) until it fits, so the
raster frames (``render.image``, drawn with the same fonts) and the SVG (drawn in
DejaVu Sans, the same face) show the text inside its box.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import ImageFont

#: The smallest font size a fitted label is drawn at; below it the label is cut short.
MIN_SIZE = 8


@lru_cache(maxsize=64)
def font(size: int, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans (bold) at ``size`` pixels, or Pillow's own scalable font without it."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    try:
        return ImageFont.truetype(name, size)
    except OSError:  # no DejaVu on this machine
        return ImageFont.load_default(size)


def text_width(text: str, size: int, bold: bool) -> float:
    """The advance width of ``text`` in pixels."""
    return float(font(size, bold).getlength(text))


@lru_cache(maxsize=4096)
def fit(text: str, size: int, bold: bool, max_width: float) -> tuple[str, int]:
    """``text`` and a font size (at most ``size``) at which it is ``max_width`` wide or
    less; at ``MIN_SIZE`` a label still too wide is cut short and ends in "…"."""
    while size > MIN_SIZE and text_width(text, size, bold) > max_width:
        size -= 1
    if text_width(text, size, bold) <= max_width:
        return text, size
    while len(text) > 1 and text_width(text + "…", size, bold) > max_width:
        text = text[:-1]
    return text + "…", size
