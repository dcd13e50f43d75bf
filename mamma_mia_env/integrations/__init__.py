"""Adapters to RL libraries: ``integrations.rllib`` (Ray RLlib), ``integrations.tianshou``.

Each imports its library when it is imported itself; the core package never imports
this subpackage, so ray and tianshou stay optional (the ``rllib`` and ``tianshou``
extras). docs/INTEGRATIONS.md has the commands, what is supported and measured speeds.
"""
