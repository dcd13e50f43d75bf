"""The bots: the ``Agent`` interface, the random and heuristic bots, search and PPO.

Import a bot from its module (``mamma_mia_agents.bots.builder``) or, as before, from
the package (``mamma_mia_agents.BuilderAgent``); ``mamma_mia_agents.load_agent`` loads
one by name. This ``__init__`` imports nothing, so any module here can import any other
without a cycle.
"""
