"""The env shells over the rules core.

* ``aec`` and ``wrappers``: the PettingZoo AEC env and its standard wrapper chain;
* ``vector``: the all-seat ``VectorEnv`` over the batched engine;
* ``learner``: the learner-seat core (B games, one learner seat each, opponents inside),
  with ``learner_options`` (the options every learner front shares), ``learner_inputs``
  (the checks at its ``reset`` and ``step``) and ``opponents`` (the opponents' pool and
  moves);
* ``gym_env`` and ``learner_vector``: its gymnasium fronts (one game, B games);
* ``registration``: the gymnasium ids (``gymnasium.make("MammaMia-v0")``).
"""
