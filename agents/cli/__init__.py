"""The ``mamma-mia`` command line (``commands.main``, also ``python -m mamma_mia_agents``).

* ``commands``: ``main``, the parser and the dispatch to a subcommand;
* ``options``: what the subcommands share (rule-variant flags, argument checks);
* ``tournament``, ``evaluate``, ``play``, ``replay``, ``serve``: one subcommand each;
* ``session``: one game against agents, its moves, undo and save files (``play``, ``serve``);
* ``screen`` draws the table in the terminal and ``terminal`` reads the keys (``play``,
  ``replay``);
* ``web_game`` and ``web_server``: the browser game of ``serve`` (its page is in ``web/``).
"""
