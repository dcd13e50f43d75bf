"""Training: the scripts that make the shipped policies and the champion's settings.

* ``train_ppo``: MaskablePPO (SB3) from a config file, with its imitation warm start
  and duplicate-deal evaluations (``--evaluate`` scores a policy file alone);
* ``cleanrl_ppo``: PPO with action masking in one file, as CleanRL's ``ppo.py`` (the
  ten-minute run and the legs that made the shipped 2-player network);
* ``expert_iteration``: a network fitted to the search bot's choices;
* ``tune_champion``: the champion's search budget against the search bot;
* ``cleanrl_defaults``: an A/B of learning, the CleanRL-style PPO's settings trained
  from the same seeds;
* ``train_rllib``, ``train_tianshou``, ``train_torchrl``: the library integrations'
  training runs (env steps/s, learning curves).

Each runs as ``python -m experiments.train.<name>``; what two share is in
``experiments.common``.
"""
