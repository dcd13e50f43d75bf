"""Tournaments between agents: duplicate deals, batched games, local or Ray workers.

    >>> from mamma_mia_agents.tournament import run_tournament
    >>> res = run_tournament(["random", "counter", "builder", "hoarder"], num_players=4,
    ...                      games=2000, seed=0)
    >>> print(res.format_table())

Its modules: ``schedule`` (seatings, deal seeds, limits), ``matches`` (the batched
match loop), ``fanout`` (where batches run), ``results`` and ``output`` (statistics,
files), ``runner`` (``run_tournament``), ``scorecard`` and ``ladder_rating``
(``mamma-mia evaluate``).

``run_tournament`` is the one name this ``__init__`` exports (README and docs/ use it);
import the rest from its module.
"""

from mamma_mia_agents.tournament.runner import run_tournament

__all__ = ["run_tournament"]
