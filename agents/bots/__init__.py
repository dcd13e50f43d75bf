"""The bots and the interface they share.

* ``base``: the ``Agent`` interface; ``loading``: an agent from a name, an import path
  or an object;
* ``random_agent``: every legal action equally likely;
* ``heuristic``: the heuristic bots' weights and their ``Agent``, played by the compiled kernels:
  ``counter``, ``builder``, ``hoarder`` and ``forgetful``; ``roster`` lists the bots
  the compiled game loop can play;
* ``ppo_policy`` and ``ppo_agent``: a trained policy run with numpy, and its agent;
* ``search``: determinized Monte Carlo over sampled worlds; ``champion``: the search
  with a tuned budget and the network's prior.

Import a bot from its module (``mamma_mia_agents.bots.builder``) or from the package
(``mamma_mia_agents.BuilderAgent``); ``mamma_mia_agents.load_agent`` loads one by name.
This ``__init__`` imports nothing, so any module here can import any other without a
cycle.
"""
