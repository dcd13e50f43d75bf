"""The experiment scripts: every published number is made by one of them.

``python -m experiments reproduce`` re-makes the results (``reproduce/``);
``python -m experiments docs`` fills the docs' tables from them (``docs/``). The
scripts, by job, each run as ``python -m experiments.<job>.<name>``:

* ``train/``: the policies and the champion's settings (``cleanrl_ppo``,
  ``expert_iteration``, ``tune_champion``, ``cleanrl_defaults``) and the library
  integrations' runs (``train_rllib``, ``train_tianshou``, ``train_torchrl``);
* ``evaluate/``: strength (``leaderboard``, ``search_strength``, ``openspiel_ismcts``);
* ``benchmark/``: speed (``benchmark``, ``learner_env_speed``,
  ``speed``, ``bot_speed``, ``decision_speed``) and ``ab``, two checkouts timed
  interleaved.

What scripts share is in ``common/``; no script imports another script. The results
are in ``experiments/results/<experiment>/``.
"""
