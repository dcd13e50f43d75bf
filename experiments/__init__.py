"""The experiment scripts: every published number is made by one of them.

``python -m experiments reproduce`` re-makes the results (``reproduce/``);
``python -m experiments docs`` fills the docs' tables from them (``docs``, with
``docs_bots``, ``docs_champion``, ``docs_ladder``, ``docs_training``). Shared code is in
``common/``; no script imports another script. The scripts, by question:

* speed: ``benchmark`` (the envs under random play), ``profile_vector`` (where a vector
  step's time goes), ``learner_env_speed`` (the learner fronts), ``omp_wait`` (OpenMP's
  waiting policies), ``speed`` and ``bot_speed`` (the bots' games), ``decision_speed``
  (the state-reading bots per decision);
* A/B comparisons of two checkouts or settings: ``ab_speed``, ``ab_layout``,
  ``ab_bot_check``, ``ab_bot_kernels``, ``ab_cleanrl_defaults``;
* strength: ``leaderboard`` (the bundled agents), ``search_strength`` (the search bot by
  budget), ``tune_champion`` (the champion's budget), ``openspiel_ismcts`` (OpenSpiel's
  ISMCTS next to our search);
* training: ``train_ppo`` (MaskablePPO), ``cleanrl_ppo`` (CleanRL-style PPO),
  ``expert_iteration`` (distilling the search), ``train_rllib``, ``train_tianshou``,
  ``train_torchrl`` (the library integrations).
"""
