"""Public modules that moved, old path -> new path (served with a warning for one release).

Installed by ``mamma_mia_agents/__init__.py`` (``mamma_mia_env.plumbing.moved``).
Remove an entry one release after its move. The old modules that became packages of
the same name (``compiled``, ``tournament``, ``cli``) re-export their names instead.
"""

MOVED: dict[str, str] = {
    "mamma_mia_agents.base": "mamma_mia_agents.bots.base",
    "mamma_mia_agents.random_agent": "mamma_mia_agents.bots.random_agent",
    "mamma_mia_agents.heuristic": "mamma_mia_agents.bots.heuristic",
    "mamma_mia_agents.builder": "mamma_mia_agents.bots.builder",
    "mamma_mia_agents.counter": "mamma_mia_agents.bots.counter",
    "mamma_mia_agents.forgetful": "mamma_mia_agents.bots.forgetful",
    "mamma_mia_agents.hoarder": "mamma_mia_agents.bots.hoarder",
    "mamma_mia_agents.search": "mamma_mia_agents.bots.search",
    "mamma_mia_agents.ppo_agent": "mamma_mia_agents.bots.ppo_agent",
    "mamma_mia_agents.stats": "mamma_mia_agents.tournament.results",
    "mamma_mia_agents.ray_backend": "mamma_mia_agents.tournament.ray_backend",
    "mamma_mia_agents.play": "mamma_mia_agents.cli.play",
    "mamma_mia_agents.replay": "mamma_mia_agents.cli.replay",
    "mamma_mia_agents.screen": "mamma_mia_agents.cli.screen",
}
