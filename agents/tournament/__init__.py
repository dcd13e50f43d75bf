"""Tournaments between agents: duplicate deals, batched games, local or Ray workers.

    >>> from mamma_mia_agents.tournament import run_tournament
    >>> res = run_tournament(["random", "counter", "builder", "hoarder"], num_players=4,
    ...                      games=2000, seed=0)
    >>> print(res.format_table())

* ``schedule``: the seatings of one deal, the deal seeds, the size limits;
* ``matches``: the batched match loop (``play_games``) and the agents' failures;
* ``fanout``: where the batches run (this process, worker processes or Ray tasks), as
  every heavy job's work items;
* ``results``: ``TournamentResult`` and its statistics; ``output``: files and plots;
* ``runner``: ``run_tournament``, which ties them together;
* ``scorecard`` and ``ladder_rating``: an agent's scorecard against the reference ladder
  (``mamma-mia evaluate``).

``run_tournament`` is the one name this ``__init__`` exports (README and docs/ use it);
import the rest from its module.
"""

from mamma_mia_agents.tournament.runner import run_tournament

__all__ = ["run_tournament"]
