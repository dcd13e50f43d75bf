"""Renderers: ``view`` decides what a viewer may see; ``text``, ``svg``, ``image`` and
``html`` draw it (``fonts`` sizes the text of the pictures, ``replay_page.js`` / ``.css``
are the HTML replay's script and style).
"""
