"""Adapters to RL libraries, one module each: ``sb3`` (a stable-baselines3 ``VecEnv``),
``rllib`` (Ray RLlib), ``tianshou``, ``torchrl`` and ``openspiel``; ``seat_view`` is the
one seat's view of the AEC env that the multi-agent adapters share; ``ray_cluster``
starts Ray for every job that uses it (a local instance on loopback only).

Each imports its library when it is imported itself; the core package never imports
this subpackage, so the libraries stay optional (the extras of pyproject.toml).
docs/INTEGRATIONS.md has the commands, what is supported and measured speeds.
"""
