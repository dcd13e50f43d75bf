"""Expert iteration's fit: a policy network pulled toward the search's valued candidates.

``search_labels.py`` gives, for each of the network's own positions, the search bot's
candidate moves and their mean rollout values. Two targets:

* ``anchored`` (what ``expert_iteration.py`` uses): the starting network's own
  probabilities among the candidates times exp(value / ``temperature``), renormalised,
  and the cross-entropy taken over the candidates only. It is a regularised policy
  improvement step: where the values tie, the network keeps its preference; where one
  move is valued higher, it gains in proportion. The labels need it: 32 sampled worlds
  give each value a standard deviation near 0.07, about the gap between the best two
  candidates, so a target from the values alone teaches the sampling's luck.
* plain: a softmax of the values alone, zero on every other legal move, cross-entropy
  over all legal moves (the network's own knowledge is overwritten; on 32-world labels
  it played worse than before, docs/TRAINING.md).

The network is the policy file's own actor (:func:`torch_actor`), fitted in place and
exported back to the same file format (:func:`numpy_policy`), so the fitted policy plays
as ``PPOAgent(path)`` everywhere a policy file does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fit_to_values", "numpy_policy", "soft_targets", "torch_actor"]


def torch_actor(pol: Any) -> Any:
    """A torch ``Sequential`` computing ``pol.logits`` of observations already divided
    by ``pol.scale`` (a :class:`~mamma_mia_agents.bots.ppo_policy.NumpyPolicy`)."""
    import torch

    act = torch.nn.Tanh if pol.meta["activation"] == "tanh" else torch.nn.ReLU
    mods: list[Any] = []
    for w, b in [*pol.layers, (pol.w_out, pol.b_out)]:
        lin = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            lin.bias.copy_(torch.from_numpy(b))
        mods += [lin, act()]
    return torch.nn.Sequential(*mods[:-1])


def numpy_policy(actor: Any, pol: Any) -> Any:
    """The policy file of ``actor`` (a :func:`torch_actor`), with ``pol``'s metadata."""
    from experiments.common.policy_export import policy_from_mlp

    mods = list(actor)
    meta = {k: v for k, v in pol.meta.items() if k not in ("format", "activation", "canonical")}
    return policy_from_mlp(mods[:-1], mods[-1], meta, pol.scale)


def soft_targets(
    cands: np.ndarray, values: np.ndarray, temperature: float, prior: np.ndarray | None = None
) -> np.ndarray:
    """Each row's softmax of its candidates' values / ``temperature`` (0 on padding),
    plus ``prior`` (log-probabilities of the candidates: the anchored target)."""
    ok = cands >= 0
    z = values / temperature if prior is None else prior + values / temperature
    z = np.where(ok, z, -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return (z / z.sum(axis=1, keepdims=True)).astype(np.float32)


def _regret(logits: Any, cands: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """The holdout's mean value lost by the network's choice among the candidates
    (best candidate minus the network's favourite candidate) and how often its overall
    favourite legal move is the best candidate."""
    lc = np.take_along_axis(logits, np.maximum(cands, 0), axis=1)
    lc = np.where(cands >= 0, lc, -np.inf)
    pick = lc.argmax(axis=1)
    v = np.where(cands >= 0, values, -np.inf)
    rows = np.arange(len(v))
    regret = v.max(axis=1) - v[rows, pick]
    agree = logits.argmax(axis=1) == cands[rows, v.argmax(axis=1)]
    return float(regret.mean()), float(agree.mean())


def fit_to_values(
    actor: Any,
    data: dict[str, np.ndarray],
    scale: np.ndarray,
    fit: dict[str, Any],
    seed: int,
    log_rows: list[dict[str, Any]],
    progress: bool = True,
) -> None:
    """Fit ``actor`` to ``data`` (``search_labels.label_games``'s arrays) in place.

    ``fit``: ``temperature``, ``epochs``, ``batch_size``, ``learning_rate``,
    ``holdout`` (share of positions held out), ``anchored`` (module doc; default off).
    After each epoch a row of the train loss and the holdout's loss, regret and
    agreement is appended to ``log_rows``."""
    import torch

    from experiments.common.training import fit_epochs

    n_actions = int(list(actor)[-1].out_features)
    obs = torch.from_numpy(data["obs"].astype(np.float32) / scale.astype(np.float32))
    masks = torch.from_numpy(np.unpackbits(data["masks"], axis=1)[:, :n_actions].astype(bool))
    valid = torch.from_numpy(data["cands"] >= 0)
    cands = torch.from_numpy(np.maximum(data["cands"], 0))
    anchored = bool(fit.get("anchored", False))
    if anchored:
        # the starting network's own preference among the candidates, times exp(value / T)
        with torch.no_grad():
            prior = torch.cat([
                torch.log_softmax(actor(obs[lo : lo + 8192]).gather(1, cands[lo : lo + 8192])
                                  .masked_fill(~valid[lo : lo + 8192], -1e8), dim=1)
                for lo in range(0, len(obs), 8192)
            ]).numpy()  # fmt: skip
    else:
        prior = None
    target = torch.from_numpy(
        soft_targets(data["cands"], data["values"], fit["temperature"], prior)
    )

    def loss_of(rows: np.ndarray) -> tuple[Any, Any]:
        logits = actor(obs[rows]).masked_fill(~masks[rows], -1e8)
        if anchored:  # among the candidates only: the other moves keep their logits
            lc = logits.gather(1, cands[rows]).masked_fill(~valid[rows], -1e8)
            return -(target[rows] * torch.log_softmax(lc, dim=1)).sum(dim=1).mean(), logits
        logp = torch.log_softmax(logits, dim=1)
        dense = torch.zeros_like(logp).scatter_add_(1, cands[rows], target[rows])
        return -(dense * logp).sum(dim=1).mean(), logits

    def train_loss(rows: np.ndarray) -> tuple[Any, tuple[float]]:
        loss = loss_of(rows)[0]
        return loss, (loss.item() * len(rows),)

    rng = np.random.default_rng([seed, 31])
    epochs = fit_epochs(actor.parameters(), len(obs), fit, rng, train_loss,
                        "fit to search values", progress=progress)  # fmt: skip
    for epoch, (hold, sums) in enumerate(epochs, 1):
        with torch.no_grad():
            h_loss, h_logits = loss_of(hold)
        regret, agree = _regret(h_logits.numpy(), data["cands"][hold], data["values"][hold])
        log_rows.append({
            "epoch": epoch, "train_loss": sums[0] / (len(obs) - len(hold)),
            "holdout_loss": float(h_loss), "holdout_regret": regret, "holdout_agreement": agree,
        })  # fmt: skip
