"""Trained policies as agents: the MaskablePPO policy network run with numpy.

``experiments/train_ppo.py`` trains a policy with sb3-contrib's MaskablePPO and
exports its actor network (the layers that map an observation to action logits) to a
small ``.npz`` file; ``PPOAgent`` plays it. Playing needs numpy only, not torch or
stable-baselines3.

    >>> from agents.ppo_agent import PPOAgent
    >>> agent = PPOAgent()                      # the shipped policies, by player count
    >>> agent = PPOAgent("runs/ppo_2p/policy.npz")

On the command line and in tournaments: ``agents.ppo_agent:PPOAgent`` (the shipped
2- and 4-player policies, picked by the game's player count).

A policy sees the game in its seat's canonical frame (``mamma_mia_env.symmetry``:
every seat relabelled to look like seat 0), with observations divided by a fixed
scale; both are recorded in the file, and the agent maps the chosen action back. It
needs the acting seats (``act_batch(..., seats=...)``), as the heuristic bots do.

File format (``mamma-mia-policy/1``): ``meta`` (a JSON string: player count,
observation mode, double ingredients, activation, the observation sections the network
reads (``obs_sections``; sections added to the observation since are dropped), how it
was trained), ``scale``
(the observation divisor), ``w0, b0, w1, b1, ...`` (hidden layers, ``x @ w + b``
then the activation) and ``w_out, b_out`` (the action logits).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from mamma_mia_env.config import Config
from mamma_mia_env.observe import observation_layout
from mamma_mia_env.symmetry import SeatCanonicalizer

from .base import Agent, check_batch

POLICY_DIR = Path(__file__).resolve().parent / "policies"
FORMAT = "mamma-mia-policy/1"
ACTIVATIONS = ("tanh", "relu")


class NumpyPolicy:
    """An exported actor network: canonical observation -> masked action choice."""

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        if meta.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} policy (meta format {meta.get('format')!r})")
        if meta.get("activation") not in ACTIVATIONS:
            raise ValueError(f"unknown activation {meta.get('activation')!r}")
        self.meta = meta
        self.num_players = int(meta["num_players"])
        self.observation_mode = meta.get("observation_mode", "recall")
        self.config = Config(
            num_players=self.num_players,
            observation_mode=self.observation_mode,
            double_ingredients=bool(meta.get("double_ingredients", False)),
        )
        self.canonical = bool(meta.get("canonical", True))
        self.canon = SeatCanonicalizer(self.config)
        self.scale = np.asarray(arrays["scale"], dtype=np.float32)
        # the observation sections the network reads, in order: sections added to the
        # observation later are left out, so a policy keeps working
        layout = observation_layout(self.num_players, self.observation_mode)
        sections = [tuple(x) for x in meta.get("obs_sections", layout)]
        offsets, o = {}, 0
        for name, size in layout:
            offsets[name] = (o, size)
            o += size
        idx = []
        for name, size in sections:
            if name not in offsets or offsets[name][1] != size:
                raise ValueError(
                    f"the policy reads observation section {name!r} ({size}), "
                    "which this version of the observation does not have"
                )
            idx.append(np.arange(offsets[name][0], offsets[name][0] + size))
        self.select = np.concatenate(idx) if idx else np.arange(0)
        if len(self.select) == o:
            self.select = None  # the whole observation
        if len(self.scale) != (o if self.select is None else len(self.select)):
            raise ValueError("the policy's observation scale does not fit its sections")
        self.layers = []
        i = 0
        while f"w{i}" in arrays:
            self.layers.append(
                (np.asarray(arrays[f"w{i}"], np.float32), np.asarray(arrays[f"b{i}"], np.float32))
            )
            i += 1
        self.w_out = np.asarray(arrays["w_out"], np.float32)
        self.b_out = np.asarray(arrays["b_out"], np.float32)
        self.activation = np.tanh if meta["activation"] == "tanh" else _relu
        if self.w_out.shape[1] != self.canon.n_actions:
            raise ValueError(
                f"the policy has {self.w_out.shape[1]} actions, the game {self.canon.n_actions}"
            )

    @classmethod
    def load(cls, path: str | os.PathLike) -> NumpyPolicy:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        meta = json.loads(str(arrays.pop("meta")))
        return cls(arrays, meta)

    def save(self, path: str | os.PathLike) -> None:
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(self.meta)), "scale": self.scale}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        arrays["w_out"], arrays["b_out"] = self.w_out, self.b_out
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **arrays)

    def logits(self, canonical_obs: np.ndarray) -> np.ndarray:
        x = np.asarray(canonical_obs, dtype=np.float32)
        if self.select is not None:
            x = x[:, self.select]
        x = x / self.scale
        for w, b in self.layers:
            x = self.activation(x @ w + b)
        return x @ self.w_out + self.b_out

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        rng: np.random.Generator | None = None,
        deterministic: bool = True,
    ) -> np.ndarray:
        """Env actions for raw env observations and masks of the acting ``seats``."""
        seats = np.asarray(seats, dtype=np.int64)
        if self.canonical:
            obs = self.canon.obs(observations, seats)
            cmask = self.canon.masks(masks, seats) != 0
        else:
            obs, cmask = np.asarray(observations), np.asarray(masks) != 0
        if not cmask.any(axis=1).all():
            raise ValueError("a game has no legal action")
        logits = np.where(cmask, self.logits(obs), -np.inf)
        if deterministic or rng is None:
            chosen = logits.argmax(axis=1)
        else:
            z = np.exp(logits - logits.max(axis=1, keepdims=True))
            c = np.cumsum(z, axis=1)
            u = rng.random(len(c)) * c[:, -1]
            chosen = np.minimum((c <= u[:, None]).sum(axis=1), c.shape[1] - 1)
            chosen = np.where(cmask[np.arange(len(c)), chosen], chosen, logits.argmax(axis=1))
        if self.canonical:
            return self.canon.to_env_actions(chosen, seats)
        return chosen.astype(np.int64)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _check_deck(pol: NumpyPolicy, double_ingredients: bool) -> None:
    if double_ingredients != pol.config.double_ingredients:
        deck = "with" if pol.config.double_ingredients else "without"
        raise ValueError(f"this policy was trained {deck} double ingredients")


def default_policy_path(num_players: int) -> Path:
    return POLICY_DIR / f"ppo_{num_players}p.npz"


class PPOAgent(Agent):
    """A policy trained with MaskablePPO (``experiments/train_ppo.py``), run with numpy.

    ``path``: a ``.npz`` policy file, or ``None`` for the shipped policies in
    ``agents/policies/`` (``ppo_2p.npz``, ``ppo_4p.npz``), picked by the player count of
    the game being played. ``deterministic`` (default True): the most likely legal
    action; False samples from the policy with the given generator.
    """

    name = "ppo"

    def __init__(
        self,
        path: str | os.PathLike | NumpyPolicy | None = None,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        self.deterministic = deterministic
        self._policies: dict[int, NumpyPolicy] = {}
        self._path = path
        if isinstance(path, NumpyPolicy):
            self._policies[path.num_players] = path
        elif path is not None:
            pol = NumpyPolicy.load(path)
            self._policies[pol.num_players] = pol
        if self._policies:
            pol = next(iter(self._policies.values()))
            self.observation_mode = pol.observation_mode
        if name is not None:
            self.name = name

    def policy(self, num_players: int) -> NumpyPolicy:
        if num_players not in self._policies:
            if self._path is not None:
                have = sorted(self._policies)
                raise ValueError(f"this policy plays {have} players, not {num_players}")
            path = default_policy_path(num_players)
            if not path.exists():
                shipped = sorted(p.name for p in POLICY_DIR.glob("ppo_*p.npz"))
                raise ValueError(
                    f"no shipped PPO policy for {num_players} players (have: {shipped}); "
                    "train one with experiments/train_ppo.py"
                )
            self._policies[num_players] = NumpyPolicy.load(path)
        return self._policies[num_players]

    def check_config(self, config: Config) -> None:
        pol = self.policy(config.num_players)  # raises when there is none for this count
        _check_deck(pol, config.double_ingredients)

    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
    ) -> np.ndarray:
        info, seats = check_batch(np.asarray(observations), np.asarray(masks), seats)
        if seats is None:
            raise ValueError(
                "PPOAgent needs the acting seats (act_batch(..., seats=...)): the policy "
                "relabels every seat as seat 0"
            )
        pol = self.policy(info.num_players)
        _check_deck(pol, info.double_ingredients)
        if info.observation_mode != pol.observation_mode:
            raise ValueError(
                f"this policy reads '{pol.observation_mode}' observations, "
                f"got '{info.observation_mode}'"
            )
        return pol.act(observations, masks, seats, rng, self.deterministic)

    def __repr__(self) -> str:
        return f"PPOAgent({str(self._path) if self._path is not None else ''})"


def policy_from_sb3(sb3_policy: Any, meta: dict[str, Any], scale: np.ndarray) -> NumpyPolicy:
    """Export the actor of an sb3(-contrib) ``ActorCriticPolicy`` with an MLP extractor.

    The policy must read the observation directly (``FlattenExtractor``) and take
    observations already divided by ``scale`` (the env's ``normalize=True``).
    """
    import torch  # local: playing a policy does not need torch

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
