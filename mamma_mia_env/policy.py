"""Policies: what plays a seat, and the one loop that asks each seat's policy to move.

A policy is any object with ``act_batch(observations, masks, rng, seats=None)``
returning one action per game (the bots of ``mamma_mia_agents``, frozen learned
policies, ``UniformRandomPolicy``). Two optional attributes: ``observation_mode``
(``"fixed"``, the default, or ``"top_card"``: which observation it reads) and ``needs_state``
(true for a bot that reads the game state through information-set sampling: it gets
``act_states(world, rng)`` instead, where ``world`` is an information-set world of the
seat to act, never the real game: see ``information_set``).

``policy_actions`` is the single place that turns "these games, these seats, these
policies" into one legal action per game: it groups the games by the policy to move,
builds each group's observation in the policy's own mode, calls the policy once per
group (groups in increasing policy index, so the generator ``rng`` hands out its
numbers in a fixed order), and checks what came back. The learner env's opponents,
the tournament's match loop and the imitation teacher's games are all this loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.kernels import first_masked_out, random_actions
from mamma_mia_env.game.sampling import sample_world
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_array

__all__ = [
    "Policy",
    "PolicyFailure",
    "UniformRandomPolicy",
    "information_set",
    "observers_for",
    "policy_actions",
    "policy_mode",
]


@runtime_checkable
class Policy(Protocol):
    """What plays a seat: one action per game of a batch."""

    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
    ) -> np.ndarray: ...


class UniformRandomPolicy:
    """A uniformly random legal action: the default opponent (and ``mamma_mia_agents``'
    ``random``).

    Draws one uniform number per game, row by row, so a batch gives the same actions
    as its games acted one at a time with the same generator.
    """

    name = "uniform_random"
    observation_mode = "fixed"

    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
    ) -> np.ndarray:
        masks = as_array(masks, "masks")
        if masks.ndim != 2:
            raise ValueError(f"masks must be (B, n_actions), got shape {masks.shape}")
        if masks.dtype.kind not in "biuf":  # the compiled pick reads numbers
            raise ArgumentTypeError(f"masks must be numbers or bools, got dtype {masks.dtype}")
        u = rng.random(len(masks))
        out = np.empty(len(masks), dtype=np.int64)
        bad = random_actions(np.ascontiguousarray(masks), u, out)
        if bad >= 0:
            raise ValueError(f"game {bad} has no legal action")
        return out


class PolicyFailure(Exception):
    """A policy failed inside ``policy_actions``; the caller names it in its own error.

    ``kind`` is ``"raised"`` (``error`` is what it raised), ``"shape"`` (``chosen`` is
    what it returned: not one integer per game) or ``"illegal"`` (``game`` is the batch
    row of the first illegal action, ``action`` that action). ``policy`` is the index
    into the policies, ``rows`` the batch rows it was asked about.
    """

    def __init__(
        self,
        kind: str,
        policy: int,
        rows: np.ndarray,
        error: BaseException | None = None,
        chosen: np.ndarray | None = None,
        game: int = -1,
        action: int = -1,
    ) -> None:
        super().__init__(f"policy {policy} failed ({kind})")
        self.kind, self.policy, self.rows = kind, policy, rows
        self.error, self.chosen, self.game, self.action = error, chosen, game, action


def policy_mode(policy: Any, default: str = "fixed") -> str:
    """The observation mode ``policy`` reads (its ``observation_mode``, else ``default``)."""
    return getattr(policy, "observation_mode", default)


def observers_for(
    config: Config,
    policies: Iterable[Any],
    default: str = "fixed",
    engines: Mapping[str, Engine] | None = None,
) -> dict[str, Engine]:
    """One engine per observation mode the policies read (the games' rules, that mode's
    observation); ``engines`` are reused where they already cover a mode."""
    out = dict(engines or {})
    for policy in policies:
        mode = policy_mode(policy, default)
        if mode not in out:
            out[mode] = Engine(config.replace(observation_mode=mode))
    return out


def information_set(state: GameState) -> GameState:
    """What a ``needs_state`` policy is handed instead of the real games: each game of
    ``state`` as its seat to act knows it, everything else re-dealt.

    ``sample_world`` keeps what the seat observes (its hand, its orders, the oven, the
    public play, the failed orders under each stack) and re-deals the other hands, the
    supply and its order, the other seats' unseen orders and every stack's unseen
    order, with fresh ``seed`` and ``rng`` fields; the supply's drawn part is blanked. The
    generator is a fixed one (``default_rng(0)``), not a secret: the world then depends
    only on what the seat knows (the sampler puts hidden cards in a canonical order
    first), so it tells the policy nothing it could not see, neither the hidden cards
    nor the seed the game was dealt from, and a policy that reads the state only through
    ``sample_worlds`` decides exactly as it would on the real state.
    """
    seats = state.data["seat"].astype(np.int64)
    return sample_world(state, seats, np.random.default_rng(0))


def policy_actions(
    policies: Sequence[Any],
    who: np.ndarray,
    state: GameState,
    masks: np.ndarray,
    rng: np.random.Generator,
    observers: Mapping[str, Engine],
    *,
    default_mode: str = "fixed",
    catch: tuple[type[BaseException], ...] = (Exception,),
    views: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> np.ndarray:
    """One action per game of ``state``: ``policies[who[g]]`` moves for the seat to act
    in game ``g`` (``who[g] < 0``: no move asked, action 0).

    ``masks`` are the legal masks of ``state`` (``(B, n_actions)``, computed by the
    caller, who usually has them); ``observers`` map each observation mode to an engine
    (``observers_for``). Each policy gets copies (its observations, masks and seats):
    nothing it writes reaches the games. Raises ``PolicyFailure`` when a policy raises
    one of ``catch``, returns anything but one integer per game, or picks an illegal
    action. ``views``, if given, receives each group's ``(rows, observations)``.
    """
    data = state.data
    actions = np.zeros(len(data), dtype=np.int64)
    seats = data["seat"].astype(np.int64)
    groups = np.unique(who[who >= 0]).tolist()
    reads = [a for a in groups if not getattr(policies[a], "needs_state", False)]
    modes = {a: policy_mode(policies[a], default_mode) for a in reads}
    observed = _observations(who, data, modes, observers)
    for a in groups:
        rows = np.flatnonzero(who == a)
        policy = policies[a]
        try:
            if getattr(policy, "needs_state", False):  # search bots (agents/bots/search.py)
                world = information_set(GameState(state.config, data[rows]))
                chosen = policy.act_states(world, rng)
            else:
                obs = observed[a]
                if views is not None:
                    views.append((rows, obs))
                chosen = policy.act_batch(obs, masks[rows], rng, seats[rows])
            chosen = np.asarray(chosen)
        except catch as exc:
            raise PolicyFailure("raised", int(a), rows, error=exc) from exc
        if chosen.shape != (len(rows),) or chosen.dtype.kind not in "iu":
            raise PolicyFailure("shape", int(a), rows, chosen=chosen)
        chosen = chosen.astype(np.int64)
        i = first_masked_out(masks[rows], chosen, np.zeros(len(rows), dtype=np.bool_))
        if i >= 0:
            raise PolicyFailure(
                "illegal", int(a), rows, chosen=chosen, game=int(rows[i]), action=int(chosen[i])
            )
        actions[rows] = chosen
    return actions


def _observations(
    who: np.ndarray,
    data: np.ndarray,
    modes: dict[int, str],
    observers: Mapping[str, Engine],
) -> dict[int, np.ndarray]:
    """The observations of each ``act_batch`` policy's games (``modes``: policy -> the
    mode it reads), one observation call per mode for all the policies that read it (the
    common case: a single call however many policies)."""
    out = {}
    for mode in dict.fromkeys(modes.values()):
        mine = [a for a, m in modes.items() if m == mode]
        rows = np.isin(who, mine)
        observer = observers[mode]
        obs = observer.observe(GameState(observer.config, data if rows.all() else data[rows]))
        where = np.cumsum(rows) - 1  # batch row -> row of ``obs``
        for a in mine:
            out[a] = obs if len(mine) == 1 else obs[where[who == a]]
    return out
