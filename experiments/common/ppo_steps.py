"""The steps of one iteration of CleanRL's PPO (``ppo.py``), for ``cleanrl_ppo.py``.

Collect ``num_steps`` steps of every env into a rollout buffer (:func:`rollout`),
compute the advantages with GAE (:func:`gae`), then ``update_epochs`` epochs of
minibatch updates of the clipped surrogate and value losses with an entropy bonus
(:func:`update`). Each function reads CleanRL's argument names from ``args`` (the
script's ``Args``) and calls its ``Agent``: ``agent.act`` in the rollouts (a draw, its
log-probability and the value), ``agent.get_value`` for the bootstrap and
``agent.get_action_and_value`` in the update, in CleanRL's order of operations, so
that a seed gives the same run. The network itself, CleanRL's ``Agent`` (separate
actor and critic MLPs) with the masked policy over each row's legal actions, is at the
end (:class:`Agent`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

__all__ = ["Agent", "Buffer", "Legal", "Live", "gae", "policy_loss", "rollout", "sample", "update"]
__all__ += ["value_loss"]


class Legal(NamedTuple):
    """Each row's legal actions as a list rather than a ``(rows, n_actions)`` mask:
    ``index`` ``(rows, K)`` the legal actions in increasing order, padded with 0, and
    ``valid`` ``(rows, K)`` which entries are real, K the most legal actions of any row.
    Mamma Mia! has 655 actions and at most a few dozen legal ones, so the policy's
    masked softmax, entropy and their gradients run over K columns instead of 655:
    those full-width passes were most of the update's time."""

    index: torch.Tensor
    valid: torch.Tensor

    @classmethod
    def from_mask(cls, mask: torch.Tensor) -> Legal:
        """The lists of a ``(rows, n_actions)`` bool mask, by one compiled pass (the
        rollout builds one every step: as a dozen torch operations it was a sixth of
        the policy's time there)."""
        index, valid = _legal_lists(mask.numpy())
        return cls(torch.from_numpy(index), torch.from_numpy(valid))

    @classmethod
    def cat(cls, parts: list[Legal]) -> Legal:
        """The rows of ``parts`` one after the other, padded to the widest."""
        k = max(p.index.shape[1] for p in parts)
        pad = [(p, k - p.index.shape[1]) for p in parts]
        return cls(
            torch.cat([torch.nn.functional.pad(p.index, (0, w)) for p, w in pad]),
            torch.cat([torch.nn.functional.pad(p.valid, (0, w)) for p, w in pad]),
        )

    def rows(self, inds: Any) -> Legal:
        return Legal(self.index[inds], self.valid[inds])


@numba.njit(cache=False)  # a fraction of a second to compile; nothing kept on disk
def _legal_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows, n = mask.shape
    counts = np.zeros(rows, np.int64)
    for r in range(rows):
        for a in range(n):
            counts[r] += mask[r, a]
    k = max(counts.max(), 1) if rows else 1
    index = np.zeros((rows, k), np.int64)
    valid = np.zeros((rows, k), np.bool_)
    for r in range(rows):
        j = 0
        for a in range(n):
            if mask[r, a]:
                index[r, j] = a
                valid[r, j] = True
                j += 1
    return index, valid


@dataclass
class Buffer:
    """The rollout buffer: ``num_steps x num_envs`` of each quantity; the legal
    actions as one :class:`Legal` per step (lists, not ``n_actions``-wide masks)."""

    obs: torch.Tensor
    legal: list[Legal]
    actions: torch.Tensor
    logprobs: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    values: torch.Tensor

    @classmethod
    def empty(cls, args: Any, obs_dim: int) -> Buffer:
        shape = (args.num_steps, args.num_envs)
        return cls(
            obs=torch.zeros((*shape, obs_dim)),
            legal=[],
            actions=torch.zeros(shape, dtype=torch.long),
            logprobs=torch.zeros(shape),
            rewards=torch.zeros(shape),
            dones=torch.zeros(shape),
            values=torch.zeros(shape),
        )


@dataclass
class Live:
    """What carries over from one rollout to the next: the envs' current observation,
    mask and done flags, the env steps so far, and the wall time of each part of an
    iteration (the rollouts, and in them ``envs.step`` and the policy's forward
    passes; GAE; the PPO update), so that a run says where its time went."""

    obs: torch.Tensor
    mask: torch.Tensor
    done: torch.Tensor
    global_step: int = 0
    env_time: float = 0.0
    rollout_time: float = 0.0
    inference_time: float = 0.0
    gae_time: float = 0.0
    update_time: float = 0.0


def rollout(
    args: Any, envs: Any, agent: Any, buf: Buffer, now: Live
) -> tuple[list[float], list[float]]:
    """``num_steps`` steps of every env into ``buf``; returns the returns and wins of the
    episodes that ended."""
    ep_returns: list[float] = []
    ep_wins: list[float] = []
    buf.legal.clear()
    for step in range(args.num_steps):
        t0 = time.perf_counter()
        now.global_step += args.num_envs
        buf.obs[step] = now.obs
        buf.dones[step] = now.done
        legal = Legal.from_mask(now.mask)  # kept for the update: not an inference tensor
        buf.legal.append(legal)
        with torch.inference_mode():  # no autograd records: the update recomputes
            action, logprob, value = agent.act(buf.obs[step], legal)
            buf.values[step] = value.flatten()
            buf.actions[step] = action
            buf.logprobs[step] = logprob
        t1 = time.perf_counter()
        now.inference_time += t1 - t0
        next_obs_np, reward, term, trunc, info = envs.step(action.numpy())
        now.env_time += time.perf_counter() - t1
        done = np.logical_or(term, trunc)
        buf.rewards[step] = torch.from_numpy(reward)  # views, copied into the buffer
        now.obs = torch.from_numpy(next_obs_np)
        now.mask = torch.from_numpy(info["action_mask"]).view(torch.bool)  # int8 0/1
        now.done = torch.from_numpy(done).float()
        if done.any():
            ep_returns.extend(info["episode"]["r"][done].tolist())
            ep_wins.extend(info["final_info"]["result"]["win"][done].tolist())
    return ep_returns, ep_wins


def gae(args: Any, agent: Any, buf: Buffer, now: Live) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages (GAE) and returns, bootstrapping the value where a game goes on."""
    with torch.no_grad():
        next_value = agent.get_value(now.obs).reshape(1, -1)
        advantages = torch.zeros_like(buf.rewards)
        lastgaelam = torch.zeros(args.num_envs)
        for t in reversed(range(args.num_steps)):
            if t == args.num_steps - 1:
                nextnonterminal = 1.0 - now.done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - buf.dones[t + 1]
                nextvalues = buf.values[t + 1]
            delta = buf.rewards[t] + args.gamma * nextvalues * nextnonterminal - buf.values[t]
            lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            advantages[t] = lastgaelam
        returns = advantages + buf.values
    return advantages, returns


def update(
    args: Any,
    agent: Any,
    optimizer: optim.Optimizer,
    buf: Buffer,
    advantages: torch.Tensor,
    returns: torch.Tensor,
    rng: np.random.Generator,
) -> dict[str, float]:
    """``update_epochs`` epochs of minibatch PPO on the flattened rollout (early stop
    on ``target_kl``); returns the last minibatch's losses and the epoch statistics."""
    b_obs = buf.obs.reshape((-1, buf.obs.shape[-1]))
    b_legal = Legal.cat(buf.legal)
    b_logprobs = buf.logprobs.reshape(-1)
    b_actions = buf.actions.reshape(-1)
    b_advantages = advantages.reshape(-1)
    b_returns = returns.reshape(-1)
    b_values = buf.values.reshape(-1)

    b_inds = np.arange(args.batch_size)
    clipfracs = []
    for _epoch in range(args.update_epochs):
        rng.shuffle(b_inds)
        for start in range(0, args.batch_size, args.minibatch_size):
            mb_inds = torch.from_numpy(b_inds[start : start + args.minibatch_size])
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                b_obs[mb_inds], b_legal.rows(mb_inds), b_actions[mb_inds]
            )
            logratio = newlogprob - b_logprobs[mb_inds]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]
            mb_advantages = b_advantages[mb_inds]
            if args.norm_adv:
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (
                    mb_advantages.std() + 1e-8
                )
            pg_loss = policy_loss(args, mb_advantages, ratio)
            v_loss = value_loss(args, newvalue.view(-1), b_values[mb_inds], b_returns[mb_inds])
            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
        if args.target_kl is not None and approx_kl > args.target_kl:
            break

    y_pred, y_true = b_values.numpy(), b_returns.numpy()
    var_y = np.var(y_true)
    explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    return {
        "loss": loss.item(),
        "value_loss": v_loss.item(),
        "policy_loss": pg_loss.item(),
        "entropy": entropy_loss.item(),
        "approx_kl": approx_kl.item(),
        "clipfrac": float(np.mean(clipfracs)),
        "explained_variance": float(explained_var),
    }


def policy_loss(args: Any, advantages: torch.Tensor, ratio: torch.Tensor) -> torch.Tensor:
    """The clipped surrogate objective, as a loss."""
    pg_loss1 = -advantages * ratio
    pg_loss2 = -advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
    return torch.max(pg_loss1, pg_loss2).mean()


def value_loss(
    args: Any, newvalue: torch.Tensor, values: torch.Tensor, returns: torch.Tensor
) -> torch.Tensor:
    """Half the squared error to the returns, clipped around the rollout's values."""
    if args.clip_vloss:
        v_loss_unclipped = (newvalue - returns) ** 2
        v_clipped = values + torch.clamp(newvalue - values, -args.clip_coef, args.clip_coef)
        v_loss_clipped = (v_clipped - returns) ** 2
        return 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
    return 0.5 * ((newvalue - returns) ** 2).mean()


# -- the network (CleanRL's ``Agent``: separate actor and critic MLPs) ----------------
def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, legal: Legal, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Masked logits over the legal actions only (``legal``: each row's list; the
        padding gets -1e8, probability exactly 0, and so a ``p log p`` of 0 in the
        entropy): the same distribution as CleanRL's mask over all 655 logits, at a
        fraction of the cost. ``softmax`` and ``log_softmax`` rather than
        ``Categorical``, whose ``exp`` of logits that underflow to 0 is tens of times
        slower than on ordinary numbers."""
        logits = self.legal_logits(x, legal)
        logp, probs = torch.log_softmax(logits, dim=-1), torch.softmax(logits, dim=-1)
        if action is None:
            pick = sample(probs)
            action = legal.index.gather(1, pick.unsqueeze(1)).squeeze(1)
        else:  # the action's column in its row's list
            pick = ((legal.index == action.unsqueeze(1)) & legal.valid).float().argmax(1)
        logprob = logp.gather(1, pick.unsqueeze(1)).squeeze(1)
        entropy = -(probs * logp).sum(-1)
        return action, logprob, entropy, self.critic(x)

    def act(self, x: torch.Tensor, legal: Legal) -> tuple[torch.Tensor, ...]:
        """The rollout's half of :meth:`get_action_and_value`: a sampled action, its
        log-probability and the value (no entropy, no ``log_softmax``: the log of
        the one probability drawn)."""
        probs = torch.softmax(self.legal_logits(x, legal), dim=-1)
        pick = sample(probs).unsqueeze(1)
        action = legal.index.gather(1, pick).squeeze(1)
        return action, probs.gather(1, pick).squeeze(1).log(), self.critic(x)

    def legal_logits(self, x: torch.Tensor, legal: Legal) -> torch.Tensor:
        """Each row's logits over its legal actions (``legal``'s columns; -1e8 in the
        padding). The logits layer is applied to the actions legal in some row only:
        of Mamma Mia!'s 655 actions about 250 are legal somewhere in a rollout step's
        128 games and 330 in a minibatch of 1,024, and that layer is most of the
        network's arithmetic. The logits are the same values (each is its row of the
        weight times the hidden vector; the rounding of a smaller matrix product may
        differ in the last bit) and so are the gradients: an action legal in no row got
        a zero gradient from the full layer too."""
        *body, last = self.actor  # not ``actor[:-1]``: a new Sequential every call
        hidden = x
        for layer in body:
            hidden = layer(hidden)
        assert isinstance(last, nn.Linear)
        present = torch.zeros(last.weight.shape[0], dtype=torch.bool)
        present[legal.index] = True  # the padding's 0 too: a column more at most
        cols = present.nonzero().squeeze(1)
        where = present.cumsum(0) - 1  # an action's column among ``cols``
        logits = nn.functional.linear(hidden, last.weight[cols], last.bias[cols])
        return torch.where(legal.valid, logits.gather(1, where[legal.index]), -1e8)

    def clonable(self) -> Any:
        """The agent for behaviour cloning (``experiments.common.imitation``): the actor's
        logits masked over all actions, and the critic's values."""
        from experiments.common.imitation import Clonable

        def forward(obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.actor(obs).masked_fill(~mask, -1e8), self.critic(obs).squeeze(-1)

        n_actions = self.actor[-1].weight.shape[0]  # the logits layer's outputs
        return Clonable(forward, self.parameters, int(n_actions), self.train)


def sample(probs: torch.Tensor) -> torch.Tensor:
    """One action per row, drawn by inverting the cumulative distribution with one
    uniform number per row (``torch.multinomial`` draws an exponential number per
    action, 655 per row). In float64 so that ``u * total < total``: the first index
    whose cumulative probability exceeds it has a probability above 0, a legal action."""
    cdf = probs.double().cumsum(-1)
    u = torch.rand((probs.shape[0], 1), dtype=torch.float64) * cdf[:, -1:]
    return torch.searchsorted(cdf, u, right=True).squeeze(1)
