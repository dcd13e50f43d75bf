"""The imitation warm start: a teacher bot's games, and behaviour cloning on them.

A PPO policy that starts from random play spends most of its first million steps
learning what a simple bot already knows. So the teacher (a heuristic bot) plays
itself; every decision of every seat becomes an example in the canonical frame (the
acting seat rotated to seat 0, as the learner sees the game), with the discounted
return that seat went on to get. The policy's actor is fitted to the teacher's choices
(cross-entropy over the legal actions) and its critic to those returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Clonable", "behaviour_clone", "teacher_games"]

#: the teacher data's rows ``sel`` as tensors: observations, masks, actions, returns
Batches = Callable[[np.ndarray], tuple[Any, Any, Any, Any]]


@dataclass
class Clonable:
    """What behaviour cloning needs of a policy, whatever library built it:
    ``forward(obs, mask)`` the masked action logits ``(rows, n_actions)`` and the values
    ``(rows,)`` of a batch of scaled canonical observations; its ``parameters``; its
    action count; ``set_training(flag)`` (a torch module's ``train``). ``cleanrl_ppo.py``'s
    warm start makes one of its ``Agent``."""

    forward: Callable[[Any, Any], tuple[Any, Any]]
    parameters: Callable[[], Iterable[Any]]
    n_actions: int
    set_training: Callable[[bool], Any]


class _Teacher:
    """The teacher at every seat of a batch of games, through the one seat-policy loop
    (``mamma_mia_env.policy.policy_actions``); ``decide`` also returns what the learner
    will see (the observations in the config's own mode) and the legal masks."""

    def __init__(self, config: Any, teacher: Any) -> None:
        from mamma_mia_env import Engine
        from mamma_mia_env.policy import observers_for, policy_mode

        self.engine = Engine(config)
        self.mode = config.observation_mode  # the teacher reads it unless it says otherwise
        self.observers = observers_for(
            config, [teacher], default=self.mode, engines={self.mode: self.engine}
        )
        self.same_mode = policy_mode(teacher, self.mode) == self.mode
        self.teacher = teacher

    def decide(self, sub: Any, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        from mamma_mia_env.policy import PolicyFailure, policy_actions

        masks = self.engine.legal_masks(sub)
        views: list[tuple[np.ndarray, np.ndarray]] = []
        who = np.zeros(len(sub.data), np.int64)
        try:
            acts = policy_actions(
                [self.teacher], who, sub, masks, rng, self.observers,
                default_mode=self.mode, views=views,
            )  # fmt: skip
        except PolicyFailure as fail:
            raise RuntimeError(f"the teacher {self.teacher!r} failed: {fail.kind}") from fail.error
        # the learner's observations: the teacher's own when it reads the same mode
        obs = views[0][1] if views and self.same_mode else self.engine.observe(sub)
        return acts, obs, masks


def teacher_games(
    config, teacher, games: int, seed: int, gamma: float, penalty: float, batch: int = 1000,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Every decision of ``games`` teacher self-play games, in the canonical frame (a bar
    of finished games: a search teacher takes minutes).

    Returns ``obs`` (uint8 raw canonical observations), ``masks`` (bit-packed),
    ``actions`` (canonical) and ``returns`` (discounted, per decision of the acting
    seat, with the env's reward definition).
    """
    from mamma_mia_env.game.record import OVER
    from mamma_mia_env.game.symmetry import SeatCanonicalizer
    from mamma_mia_env.plumbing.seeding import agent_rng

    player = _Teacher(config, teacher)
    eng = player.engine
    canon = SeatCanonicalizer(config)
    n = config.num_players
    rng = np.random.default_rng([seed, 7])  # the deals: never handed to the teacher
    teacher_rng = agent_rng("imitation teacher", seed)  # one-way: no route to the deals
    out: dict[str, list[np.ndarray]] = {"obs": [], "masks": [], "actions": [], "returns": []}
    from tqdm.auto import tqdm

    bar = tqdm(total=games, desc=f"teacher games ({teacher!r})", unit="game")
    for lo in range(0, games, batch):
        b = min(batch, games - lo)
        state = eng.reset(seeds=rng.integers(0, 2**63, size=b, dtype=np.uint64))
        steps: list[tuple] = []
        while (live := state.data["phase"] != OVER).any():
            rows = np.flatnonzero(live)
            s = state.data["seat"].astype(np.int64)[rows]
            acts, obs, masks = player.decide(state[rows], teacher_rng)
            full = np.zeros(b, dtype=np.int64)
            full[rows] = acts
            delivered = eng.step(state, full, active=live)
            bar.update(int((state.data["phase"][rows] == OVER).sum()))
            r = state.data["rewards"][:, :n].astype(np.float64)
            r[~live] = 0.0
            if penalty and n > 1:
                tot = delivered.sum(axis=1, keepdims=True)
                r -= penalty * (tot - delivered) / (n - 1)
            steps.append((
                rows, s, canon.obs(obs, s).astype(np.uint8),
                np.packbits(canon.masks(masks, s) != 0, axis=1),
                canon.to_canonical_actions(acts, s), r,
            ))  # fmt: skip
        rets = _returns(steps, b, n, gamma)
        for t, (_, _, o, m, a, _) in enumerate(steps):
            out["obs"].append(o)
            out["masks"].append(m)
            out["actions"].append(a)
            out["returns"].append(rets[t].astype(np.float32))
    bar.close()
    return {k: np.concatenate(v) for k, v in out.items()}


def _returns(steps: list[tuple], b: int, n: int, gamma: float) -> list[np.ndarray]:
    """Each decision's discounted return, computed backwards per seat: the rewards
    between a seat's decisions belong to it."""
    acc = np.zeros((b, n))
    run = np.zeros((b, n))
    rets: list = [None] * len(steps)
    for t in range(len(steps) - 1, -1, -1):
        rows, s, _, _, _, r = steps[t]
        acc += r
        g = acc[rows, s] + gamma * run[rows, s]
        run[rows, s] = g
        acc[rows, s] = 0.0
        rets[t] = g
    return rets


def behaviour_clone(
    net: Clonable,
    data: dict[str, np.ndarray],
    scale: np.ndarray,
    bc: dict,
    seed: int,
    log_rows: list[dict],
) -> None:
    """Fit the policy's actor to the teacher's actions and its critic to the returns.

    ``net``: the policy (:class:`Clonable`, as ``cleanrl_ppo.py``'s warm start makes one);
    ``scale`` the divisor of the raw observations (``obs_scale``: what the env's ``normalize``
    divides by). ``bc.holdout`` of the decisions are held out; after each epoch a row of the train
    losses and the holdout's losses and accuracy is appended to ``log_rows``."""
    import torch
    import torch.nn.functional as F  # noqa: N812

    from experiments.common.training import fit_epochs

    batches = _batches(data, torch.as_tensor(scale), net.n_actions)

    def loss_of(rows: np.ndarray) -> tuple[Any, tuple[float, float]]:
        obs, mask, act, ret = batches(rows)
        logits, values = net.forward(obs, mask)
        pi_loss, vf_loss = F.cross_entropy(logits, act), F.mse_loss(values, ret)
        return pi_loss + bc["vf_coef"] * vf_loss, (pi_loss.item(), vf_loss.item())

    rng = np.random.default_rng([seed, 11])
    net.set_training(True)
    n = len(data["actions"])
    epochs = fit_epochs(net.parameters(), n, bc, rng, loss_of, "imitation", clip=1.0)
    for epoch, (hold, sums) in enumerate(epochs, 1):
        log_rows.append({
            "epoch": epoch, "train_pi_loss": sums[0] / sums[2],
            "train_vf_loss": sums[1] / sums[2], **_holdout(net, batches, hold),
        })  # fmt: skip
    net.set_training(False)


def _batches(data: dict[str, np.ndarray], scale: Any, n_actions: int) -> Batches:
    """Rows of the teacher data as tensors: observations scaled, masks unpacked."""
    import torch

    def rows(sel: np.ndarray) -> tuple[Any, Any, Any, Any]:
        obs = torch.as_tensor(data["obs"][sel].astype(np.float32)) / scale
        mask = np.unpackbits(data["masks"][sel], axis=1, count=n_actions).astype(bool)
        act, ret = data["actions"][sel], data["returns"][sel]
        return obs, torch.as_tensor(mask), torch.as_tensor(act), torch.as_tensor(ret)

    return rows


def _holdout(net: Clonable, batches: Batches, hold: np.ndarray) -> dict[str, float]:
    """The fit on the held-out decisions (in evaluation mode, no gradients)."""
    import torch
    import torch.nn.functional as F  # noqa: N812

    net.set_training(False)
    with torch.no_grad():
        accs, pls, vls = [], [], []
        for lo in range(0, len(hold), 8192):
            obs, mask, act, ret = batches(hold[lo : lo + 8192])
            logits, values = net.forward(obs, mask)
            accs.append((logits.argmax(1) == act).float().mean().item())
            pls.append(F.cross_entropy(logits, act).item())
            vls.append(F.mse_loss(values, ret).item())
    net.set_training(True)
    return {
        "holdout_pi_loss": float(np.mean(pls)),
        "holdout_vf_loss": float(np.mean(vls)),
        "holdout_accuracy": float(np.mean(accs)),
    }
