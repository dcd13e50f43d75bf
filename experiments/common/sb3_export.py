"""Export a trained stable-baselines3 policy to the project's numpy policy file.

The policy file format belongs to the bots (``mamma_mia_agents.bots.ppo_policy``), which
play it with numpy alone; reading the weights out of an SB3 model needs torch, so the
export lives here with the other training code, above the agents layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mamma_mia_agents.bots.ppo_policy import ACTIVATIONS, FORMAT, NumpyPolicy
from mamma_mia_env.game.observe import observation_layout


def policy_from_sb3(sb3_policy: Any, meta: dict[str, Any], scale: np.ndarray) -> NumpyPolicy:
    """Export the actor of an sb3(-contrib) ``ActorCriticPolicy`` with an MLP extractor.

    The policy must read the observation directly (``FlattenExtractor``) and take
    observations already divided by ``scale`` (the env's ``normalize=True``).
    """
    import torch  # local: importing the training helpers stays cheap

    layers = [m for m in sb3_policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    acts = [
        type(m).__name__.lower()
        for m in sb3_policy.mlp_extractor.policy_net
        if not isinstance(m, torch.nn.Linear)
    ]
    activation = acts[0] if acts else "tanh"
    if activation not in ACTIVATIONS or any(a != activation for a in acts):
        raise ValueError(f"cannot export activations {acts}")
    arrays: dict[str, np.ndarray] = {"scale": np.asarray(scale, np.float32)}
    with torch.no_grad():
        for i, lin in enumerate(layers):
            arrays[f"w{i}"] = lin.weight.detach().cpu().numpy().T.copy()
            arrays[f"b{i}"] = lin.bias.detach().cpu().numpy().copy()
        arrays["w_out"] = sb3_policy.action_net.weight.detach().cpu().numpy().T.copy()
        arrays["b_out"] = sb3_policy.action_net.bias.detach().cpu().numpy().copy()
    layout = observation_layout(int(meta["num_players"]), meta.get("observation_mode", "recall"))
    full = {
        "format": FORMAT,
        "activation": activation,
        "canonical": True,
        "obs_sections": [list(x) for x in layout],
        **meta,
    }
    return NumpyPolicy(arrays, full)
