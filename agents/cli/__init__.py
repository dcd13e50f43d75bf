"""The ``mamma-mia`` command line (``main``): tournament, play, replay and agents.

* ``commands``: ``main``, the parser and the dispatch to a subcommand;
* ``options``: what the subcommands share (rule-variant flags, argument checks);
* ``tournament``, ``play``, ``replay``: one subcommand each; ``screen`` draws the table
  in the terminal for ``play`` and ``replay``.

This ``__init__`` keeps the names of the old single module ``mamma_mia_agents.cli``.
"""

from mamma_mia_agents.cli.commands import build_parser, main
from mamma_mia_agents.cli.options import PROG, VARIANT_FLAGS

__all__ = ["PROG", "VARIANT_FLAGS", "build_parser", "main"]
