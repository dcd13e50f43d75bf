"""Gymnasium ids for the single-learner env, registered when ``mamma_mia_env`` is imported
(docs/TRAINING.md, "Registered ids").

``gymnasium.make_vec(id, num_envs=B, **kwargs)`` gives the batched learner-seat env,
``MammaMiaLearnerVectorEnv`` (the ids' ``vector_entry_point``: B games in one engine
batch). Registration only records entry point strings: the env module (and numba's
compiled kernels) load when an env is made, not at import.
"""

from __future__ import annotations

import gymnasium

ENTRY_POINT = "mamma_mia_env.envs.gym_env:MammaMiaGymEnv"
VECTOR_ENTRY_POINT = "mamma_mia_env.envs.learner_vector:MammaMiaLearnerVectorEnv"
ENV_ID = "MammaMia-v0"
PLAYER_COUNT_IDS = {n: f"MammaMia-{n}p-v0" for n in range(2, 6)}


def register_envs() -> None:
    """Register every id once (importing the package twice does not re-register)."""
    ids: dict[str, dict[str, int]] = {ENV_ID: {}}
    ids.update({env_id: {"num_players": n} for n, env_id in PLAYER_COUNT_IDS.items()})
    for env_id, kwargs in ids.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point=ENTRY_POINT,
            vector_entry_point=VECTOR_ENTRY_POINT,
            kwargs=kwargs,
            disable_env_checker=False,
        )
