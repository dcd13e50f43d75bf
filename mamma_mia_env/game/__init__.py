"""The rules core: numpy and numba only, so the rules can be read (and compiled) on their
own; the env shells are in ``envs``. By job:

* the game's things: ``cards`` (ingredients, orders, the play table), ``config`` (the
  rule options, checked once), ``actions`` (the action codec);
* the state: ``record`` (the record layout and phase codes), ``state`` (``GameState``
  and the gate for states from outside), ``consistency`` (every problem of a record),
  ``positions`` (a position built from a readable description);
* the rules, compiled: ``rng`` (the per-game generator), ``table`` (cards on the move),
  ``rules`` (deal, turns, a step), ``reveal`` (the reveal, the end of a round),
  ``outcome`` (who won), ``kernels`` (the rules over a batch), ``observe`` (what a seat
  may know), ``fields`` (the named parts of the ``fixed`` observation);
* ``engine``: reset, step, masks and observations over B games at once;
* around a game: ``log`` (replays and event logs) with ``trace`` (one step traced),
  ``sampling`` (information-set sampling), ``symmetry`` (every seat seen as seat 0).
"""
