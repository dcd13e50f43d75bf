"""Speed: the scripts that time the engine, the envs and the bots.

* ``benchmark``: the envs under random play next to PettingZoo's classics;
* ``learner_env_speed``: the learner-seat fronts against a SyncVectorEnv;
* ``speed``: a 10,000-game tournament of the heuristic bots, timed;
* ``bot_speed``: the compiled bots in the vector env and in one compiled loop;
* ``decision_speed``: the state-reading bots' time per decision;
* ``ab``: two checkouts (or two settings: player counts, observation layouts, OpenMP's
  waiting policy) timed interleaved, by named comparisons.

Each runs as ``python -m experiments.benchmark.<name>``.
"""
