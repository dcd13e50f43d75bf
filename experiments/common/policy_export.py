"""Export a trained actor network to the project's numpy policy file.

The policy file format belongs to the bots (``mamma_mia_agents.bots.ppo_policy``), which
play it with numpy alone; reading the weights out of a torch network needs torch, so
the export lives here with the other training code, above the agents layer. One
exporter (:func:`policy_from_mlp`: hidden ``Linear`` layers with one activation, then
the logits layer), which each trainer hands its actor's layers (``train_torchrl.py``,
expert iteration's fit, ``cleanrl_ppo.py``'s ``Agent``). The way back, a policy file into
a torch actor of two tanh hidden layers (``cleanrl_ppo.py --init-policy``):
:func:`init_problem` says whether it fits, :func:`load_actor` copies it in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from mamma_mia_agents.bots.ppo_policy import ACTIVATIONS, FORMAT, NumpyPolicy
from mamma_mia_env.game.observe import observation_layout

__all__ = ["init_problem", "load_actor", "policy_from_mlp"]


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
    layout = observation_layout(meta["observation_mode"])
    full = {
        "format": FORMAT,
        "activation": activation,
        "canonical": True,
        "obs_sections": [list(x) for x in layout],
        **meta,
    }
    return NumpyPolicy(arrays, full)


def init_problem(policy: NumpyPolicy, hidden: int) -> str | None:
    """Why ``policy`` cannot be the starting actor of a learner (of any player counts:
    the ``fixed`` observation has one size for all) with two tanh hidden layers of
    ``hidden`` units (None: it can). It must read the learner's whole canonical
    observation, scaled as the learner env scales it; its two hidden layers may be
    narrower, of equal widths (:func:`load_actor` widens them)."""
    from mamma_mia_env.game.symmetry import obs_scale

    widths, activation = [w.shape[1] for w, _ in policy.layers], policy.meta["activation"]
    mode = "fixed"
    if policy.observation_mode != mode:
        return f"it does not read the learner's whole canonical {mode} observation"
    if policy.meta.get("double_ingredients", False):
        return "it was trained with the double-ingredients variant"
    if activation != "tanh" or len(widths) != 2 or not widths[0] == widths[1] <= hidden:
        return (f"its hidden layers are {widths} ({activation}), the agent's two of "
                f"--hidden {hidden} (tanh; a file's may be narrower, of equal widths)")  # fmt: skip
    if not np.allclose(policy.scale, obs_scale(mode)):
        return "its observation scale is not the learner env's"
    return None


def load_actor(actor: Any, path: str) -> None:
    """Copy the policy file's layers into the torch ``actor`` (a ``Sequential`` that
    :func:`init_problem` accepts the file for): fine-tuning a trained policy.

    A file with narrower hidden layers than the actor's is widened (as Net2Net widens a
    network, with zeros instead of copies): its weights fill the first units, the extra
    units keep their fresh incoming weights, and every weight leaving an extra unit
    starts at 0, so the widened actor computes exactly the file's policy and the extra
    units join in as their outgoing weights learn."""
    import torch

    policy = NumpyPolicy.load(path)
    linears = [m for m in actor if isinstance(m, torch.nn.Linear)]
    pairs = [*policy.layers, (policy.w_out, policy.b_out)]
    with torch.no_grad():
        for k, (lin, (w, b)) in enumerate(zip(linears, pairs, strict=True)):
            fan_in, fan_out = w.shape
            if k > 0:  # the weights from the extra units of the layer below: 0
                lin.weight[:, fan_in:] = 0.0
            lin.weight[:fan_out, :fan_in] = torch.from_numpy(np.ascontiguousarray(w.T))
            lin.bias[:fan_out] = torch.from_numpy(b)
