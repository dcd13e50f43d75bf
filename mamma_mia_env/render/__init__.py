"""Renderers: ``view`` decides what a viewer may see; text, svg, image and html draw it.

``mamma_mia_env.render`` was the text renderer's module before the package existed; its
public name ``render_table`` is re-exported here so that import path keeps working.
"""

from mamma_mia_env.render.text import render_table

__all__ = ["render_table"]
