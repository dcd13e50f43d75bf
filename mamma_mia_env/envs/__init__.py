"""The env shells over the rules core.

* ``aec`` and ``wrappers``: the PettingZoo AEC env and its standard wrapper chain;
* ``vector``: the all-seat ``VectorEnv`` over the batched engine;
* ``player_counts``: a player count per game, or drawn per deal (both vector envs);
* ``learner``: the learner-seat core (B games, one learner seat each, opponents inside),
  with ``learner_options`` (its options), ``learner_front`` (what every learner
  front hands straight to it), ``learner_inputs``
  (the checks at its ``reset`` and ``step``), ``opponents`` (the opponents' pool and
  moves) and ``learner_counts`` (what depends on each game's player count);
* ``gym_env`` and ``learner_vector``: its gymnasium fronts (one game, B games);
* ``registration``: the gymnasium ids (``gymnasium.make("MammaMia-v0")``).
"""
