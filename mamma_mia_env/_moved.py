"""Public modules that moved, old path -> new path (served with a warning for one release).

``mamma_mia_env.render`` is not here: the old module became the package of the same name,
whose ``__init__`` re-exports the old module's public names.

Remove an entry one release after its move; ``tests`` import every old path here.
"""

MOVED: dict[str, str] = {
    "mamma_mia_env.arguments": "mamma_mia_env.plumbing.arguments",
    "mamma_mia_env.provenance": "mamma_mia_env.plumbing.provenance",
    "mamma_mia_env.cards": "mamma_mia_env.game.cards",
    "mamma_mia_env.config": "mamma_mia_env.game.config",
    "mamma_mia_env.rng": "mamma_mia_env.game.rng",
    "mamma_mia_env.state": "mamma_mia_env.game.state",
    "mamma_mia_env.validate": "mamma_mia_env.game.validate",
    "mamma_mia_env.rules": "mamma_mia_env.game.rules",
    "mamma_mia_env.observe": "mamma_mia_env.game.observe",
    "mamma_mia_env.kernels": "mamma_mia_env.game.kernels",
    "mamma_mia_env.engine": "mamma_mia_env.game.engine",
    "mamma_mia_env.actions": "mamma_mia_env.game.actions",
    "mamma_mia_env.positions": "mamma_mia_env.game.positions",
    "mamma_mia_env.sampling": "mamma_mia_env.game.sampling",
    "mamma_mia_env.symmetry": "mamma_mia_env.game.symmetry",
    "mamma_mia_env.log": "mamma_mia_env.game.log",
    "mamma_mia_env.aec": "mamma_mia_env.envs.aec",
    "mamma_mia_env.wrappers": "mamma_mia_env.envs.wrappers",
    "mamma_mia_env.vector": "mamma_mia_env.envs.vector",
    "mamma_mia_env.learner_vector": "mamma_mia_env.envs.learner_vector",
    "mamma_mia_env.gym_env": "mamma_mia_env.envs.gym_env",
    "mamma_mia_env.registration": "mamma_mia_env.envs.registration",
    "mamma_mia_env.learner_games": "mamma_mia_env.envs.learner",
    "mamma_mia_env.render_svg": "mamma_mia_env.render.svg",
    "mamma_mia_env.render_image": "mamma_mia_env.render.image",
    "mamma_mia_env.replay_html": "mamma_mia_env.render.html",
    "mamma_mia_env.sb3_vec_env": "mamma_mia_env.integrations.sb3",
    "mamma_mia_env.openspiel_game": "mamma_mia_env.integrations.openspiel",
}
