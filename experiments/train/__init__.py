"""Training: the scripts that make the shipped policy and the champion's settings.

* ``cleanrl_ppo``: PPO with action masking in one file, as CleanRL's ``ppo.py`` (the
  all-counts run that made the shipped ``ppo``, the ten-minute run, the legs against
  search);
* ``expert_iteration``: a network fitted to the search bot's choices;
* ``tune_champion``: the champion's search budget against the search bot;
* ``cleanrl_defaults``: an A/B of learning, the CleanRL-style PPO's settings trained
  from the same seeds;
* ``train_rllib``, ``train_tianshou``, ``train_torchrl``: the library integrations'
  training runs (env steps/s, learning curves).

Each runs as ``python -m experiments.train.<name>``; what two share is in
``experiments.common``.
"""
