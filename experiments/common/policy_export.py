"""Export a trained actor network to the project's numpy policy file.

The policy file format belongs to the bots (``mamma_mia_agents.bots.ppo_policy``), which
play it with numpy alone; reading the weights out of a torch network needs torch, so
the export lives here with the other training code, above the agents layer. One
exporter (:func:`policy_from_mlp`: hidden ``Linear`` layers with one activation, then
the logits layer) and a front per trainer: stable-baselines3's ``ActorCriticPolicy``
(``train_ppo.py``) and the ``Agent`` of ``cleanrl_ppo.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from mamma_mia_agents.bots.ppo_policy import ACTIVATIONS, FORMAT, NumpyPolicy
from mamma_mia_env.game.observe import observation_layout

__all__ = ["policy_from_cleanrl", "policy_from_mlp", "policy_from_sb3"]


def policy_from_mlp(
    hidden: Iterable[Any], out: Any, meta: dict[str, Any], scale: np.ndarray
) -> NumpyPolicy:
    """The policy of the torch modules ``hidden`` (``Linear`` layers and one kind of
    activation between them, in order) followed by the ``Linear`` logits layer ``out``,
    reading observations already divided by ``scale`` in the canonical frame."""
    import torch  # local: importing the training helpers stays cheap

    hidden = list(hidden)
    layers = [m for m in hidden if isinstance(m, torch.nn.Linear)]
    acts = [type(m).__name__.lower() for m in hidden if not isinstance(m, torch.nn.Linear)]
    activation = acts[0] if acts else "tanh"
    if activation not in ACTIVATIONS or any(a != activation for a in acts):
        raise ValueError(f"cannot export activations {acts}")
    if len(acts) != len(layers):
        raise ValueError("every hidden Linear layer must be followed by its activation")
    arrays: dict[str, np.ndarray] = {"scale": np.asarray(scale, np.float32)}
    with torch.no_grad():
        for i, lin in enumerate(layers):
            arrays[f"w{i}"] = lin.weight.detach().cpu().numpy().T.copy()
            arrays[f"b{i}"] = lin.bias.detach().cpu().numpy().copy()
        arrays["w_out"] = out.weight.detach().cpu().numpy().T.copy()
        arrays["b_out"] = out.bias.detach().cpu().numpy().copy()
    layout = observation_layout(int(meta["num_players"]), meta.get("observation_mode", "recall"))
    full = {
        "format": FORMAT,
        "activation": activation,
        "canonical": True,
        "obs_sections": [list(x) for x in layout],
        **meta,
    }
    return NumpyPolicy(arrays, full)


def policy_from_sb3(sb3_policy: Any, meta: dict[str, Any], scale: np.ndarray) -> NumpyPolicy:
    """Export the actor of an sb3(-contrib) ``ActorCriticPolicy`` with an MLP extractor.

    The policy must read the observation directly (``FlattenExtractor``) and take
    observations already divided by ``scale`` (the env's ``normalize=True``).
    """
    return policy_from_mlp(sb3_policy.mlp_extractor.policy_net, sb3_policy.action_net, meta, scale)


def policy_from_cleanrl(agent: Any, meta: dict[str, Any], scale: np.ndarray) -> NumpyPolicy:
    """Export the actor of ``cleanrl_ppo.py``'s ``Agent`` (``agent.actor``: a
    ``Sequential`` of ``Linear`` layers and activations, the last ``Linear`` the logits)
    trained on ``MammaMiaLearnerVectorEnv``'s canonical observations divided by
    ``scale`` (its default ``canonical=True, normalize=True``)."""
    modules = list(agent.actor)
    return policy_from_mlp(modules[:-1], modules[-1], meta, scale)
