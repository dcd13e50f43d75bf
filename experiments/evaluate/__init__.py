"""Strength: the scripts that measure how well the agents play.

* ``leaderboard``: the duplicate-deal tournament of every bundled agent, 2-5 players,
  and its page LEADERBOARD.md;
* ``search_strength``: the search bot's win rates by budget;
* ``openspiel_ismcts``: OpenSpiel's ISMCTS bot next to ours.

Each runs as ``python -m experiments.evaluate.<name>``.
"""
