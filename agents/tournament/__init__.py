"""Tournaments between agents: duplicate deals, batched games, local or Ray workers.

    >>> from mamma_mia_agents.tournament import run_tournament
    >>> res = run_tournament(["random", "counter", "builder", "hoarder"], num_players=4,
    ...                      games=2000, seed=0)
    >>> print(res.format_table())

* ``schedule``: the seatings of one deal, the deal seeds, the size limits;
* ``matches``: the batched match loop (``play_games``) and the agents' failures;
* ``local`` and ``ray_backend``: where the batches run;
* ``results``: ``TournamentResult`` and its statistics; ``output``: files and plots;
* ``runner``: ``run_tournament``, which ties them together.

This ``__init__`` keeps the names of the old single module ``mamma_mia_agents.tournament``.
"""

from mamma_mia_agents.tournament.matches import (
    COMPILED_BATCH,
    AgentError,
    AgentMismatchError,
    load_agents,
    play_games,
)
from mamma_mia_agents.tournament.output import (
    MAX_STEM,
    OutputError,
    check_stem,
    markdown_table,
    prepare_output,
)
from mamma_mia_agents.tournament.results import (
    Z95,
    TournamentResult,
    cluster_mean_interval,
    mean_interval,
    plackett_luce_ratings,
    wilson_interval,
)
from mamma_mia_agents.tournament.runner import (
    DEFAULT_BATCH,
    SMALL_RUN,
    run_tournament,
    unique_names,
)
from mamma_mia_agents.tournament.schedule import (
    MAX_GAMES,
    SEATINGS,
    TournamentSizeError,
    deal_seeds,
    max_workers,
    schedule_size,
    seating_schedule,
)
from mamma_mia_env.game.outcome import finishing_ranks, win_shares  # the winner rule's owner

__all__ = [
    "COMPILED_BATCH",
    "DEFAULT_BATCH",
    "MAX_GAMES",
    "MAX_STEM",
    "SEATINGS",
    "SMALL_RUN",
    "Z95",
    "AgentError",
    "AgentMismatchError",
    "OutputError",
    "TournamentResult",
    "TournamentSizeError",
    "check_stem",
    "cluster_mean_interval",
    "deal_seeds",
    "finishing_ranks",
    "load_agents",
    "markdown_table",
    "max_workers",
    "mean_interval",
    "plackett_luce_ratings",
    "play_games",
    "prepare_output",
    "run_tournament",
    "schedule_size",
    "seating_schedule",
    "unique_names",
    "wilson_interval",
    "win_shares",
]
