"""The batched learner-seat core: B games, one learner seat each, opponents inside.

Each front (``MammaMiaGymEnv``, ``MammaMiaLearnerVectorEnv``, ``MammaMiaSB3VecEnv``)
only translates its library's conventions (action types, info layout, seeding) to and
from ``LearnerGames``; the game, the opponents' moves and the learner's rewards are
computed here once. The opponents are policies (``mamma_mia_env.policy``); this module
does not import ``agents`` (agents depend on the env, not the reverse).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from mamma_mia_env.envs.learner_counts import CountGroups, learner_seats
from mamma_mia_env.envs.learner_inputs import checked_actions, checked_reset
from mamma_mia_env.envs.learner_options import LearnerOptions
from mamma_mia_env.envs.player_counts import PlayerCounts
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine, IllegalActionError
from mamma_mia_env.game.observe import OBS_DTYPE, OBS_HIGH
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.state import GameState
from mamma_mia_env.game.symmetry import obs_scale
from mamma_mia_env.plumbing.arguments import as_bool, as_float, as_int, is_int, require_reset
from mamma_mia_env.plumbing.seeding import agent_rng


class LearnerGames:
    """B games, each with one learner seat; opponents move inside ``step``.

    ``options`` (a ``LearnerOptions``, or its fields as keywords)
    say who the opponents are, which seat the learner holds and how its rewards and
    views are shaped. Rewards: the engine's ``reward_mode`` for the learner's seat,
    minus ``opponent_delivery_penalty`` x (orders the opponents delivered in the step) /
    (N - 1). With ``reward_mode="delivered_win_loss"`` and penalty 1 the return of a
    game is (own orders - mean opponent orders) + the win/loss result.
    ``player_counts`` (``envs.player_counts``) gives each game its own player count
    (N above is then the game's); the per-count parts are in ``learner_counts``.
    """

    def __init__(
        self,
        batch_size: int,
        config: Config,
        *,
        options: LearnerOptions | None = None,
        autoreset: bool = True,
        player_counts: PlayerCounts | None = None,
        **option_kwargs: Any,
    ) -> None:
        opts, unknown = LearnerOptions.split(options, option_kwargs)
        if unknown:
            raise TypeError(f"LearnerGames got unknown keywords {sorted(unknown)}")
        self.options = opts
        learner_seat = opts.learner_seat
        self.batch_size = batch_size = as_int(batch_size, "batch_size", 1)
        self.config = config
        self.engine = Engine(config)
        #: the player counts (None: every game has ``config.num_players``); the
        #: per-seat arrays have ``num_players`` columns: five in a mixed batch
        self.player_counts = player_counts
        possible = (config.num_players,) if player_counts is None else player_counts.possible
        self.num_players = n = config.num_players if player_counts is None else player_counts.seats
        self.counts = np.full(batch_size, config.num_players, dtype=np.int64)
        if player_counts is not None:
            self.counts[:] = player_counts.counts
        self.final_counts = self.counts.copy()  # of each slot's last finished game
        low = min(possible)
        if learner_seat is not None and not (is_int(learner_seat) and 0 <= learner_seat < low):
            raise ValueError(
                f"learner_seat must be None or a seat in 0-{low - 1}"
                + (f" (the {low}-player games have no seat {learner_seat})" if low < n else "")
            )
        self.learner_seat = learner_seat
        self.opponent_delivery_penalty = as_float(
            opts.opponent_delivery_penalty, "opponent_delivery_penalty"
        )
        self.canonical = as_bool(opts.canonical, "canonical")
        self.normalize = as_bool(opts.normalize, "normalize")
        self.autoreset = as_bool(autoreset, "autoreset")
        self.groups = CountGroups(config, self.engine, possible)
        self.canon = self.groups.canons[config.num_players]  # the frame of that count's games
        self.scale = obs_scale(config.observation_mode)
        self.obs_dim = self.engine.obs_dim
        self.n_actions = self.engine.n_actions
        self.opponents = self.groups.pools[possible[0]]  # draws the opponents of new games
        self.set_opponents(opts.opponents, opts.opponent_probs)
        self.state: GameState = None  # type: ignore[assignment]  # set by reset()
        # Two generators: ``rng`` draws game seeds, learner seats and opponents (it
        # determines every future deal, so no policy ever sees it); ``act_rng`` is the
        # one handed to the opponents' act_batch (see ``_generators``).
        self.rng, self.act_rng = _generators(None)
        b = batch_size
        self.seat = np.zeros(b, dtype=np.int64)
        self.opp = np.zeros((b, n), dtype=np.int64)  # registry index per seat (-1: learner)
        self.carry = np.zeros(b, dtype=np.float64)  # reward earned before the first move
        self.ep_return = np.zeros(b, dtype=np.float64)
        self.ep_length = np.zeros(b, dtype=np.int64)
        self.history: list[list[int]] = [[] for _ in range(b)]  # all actions, all seats
        self.record_history = False
        self.sb3_infos = False  # Monitor's info["episode"] and "TimeLimit.truncated"
        self.final_seeds = np.zeros(b, dtype=np.uint64)  # seed of each slot's last finished game
        self._env_mask = np.zeros((b, self.n_actions), dtype=np.int8)

    # -- for the experimenter (never handed to a policy) ------------------------------
    def game_seeds(self) -> np.ndarray:
        """The engine seed of each game in progress (replay it with the AEC env)."""
        require_reset(self.state is not None, "game_seeds")
        return self.state.data["seed"].copy()

    def _snapshot(self) -> tuple:
        """Everything ``step`` / ``reset`` change, to undo a call that fails half-way."""
        return (
            None if self.state is None else self.state.data.copy(),
            self.seat.copy(), self.opp.copy(), self.carry.copy(), self.ep_return.copy(),
            self.ep_length.copy(), self.final_seeds.copy(), list(self.history),
            self.counts.copy(), self.final_counts.copy(),
            [len(h) for h in self.history], self.rng, self.rng.bit_generator.state,
            self.act_rng, self.act_rng.bit_generator.state,
        )  # fmt: skip

    def _restore(self, snap: tuple) -> None:
        (data, seat, opp, carry, ep_return, ep_length, final_seeds, history, counts,
         final_counts, lengths, rng, rng_state, act_rng, act_state) = snap  # fmt: skip
        self.counts[:], self.final_counts[:] = counts, final_counts
        self.state = None if data is None else GameState(self.config, data)  # type: ignore[assignment]
        self.seat[:], self.opp[:], self.carry[:] = seat, opp, carry
        self.ep_return[:], self.ep_length[:] = ep_return, ep_length
        self.final_seeds[:] = final_seeds
        for h, n in zip(history, lengths, strict=True):
            del h[n:]
        self.history = history
        self.rng, self.act_rng = rng, act_rng
        rng.bit_generator.state = rng_state
        act_rng.bit_generator.state = act_state

    # -- opponents ------------------------------------------------------------------
    def set_opponents(self, opponents: Any, probs: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (takes effect for games dealt from now on).

        Everything is checked before anything changes: a refused call keeps the pool.
        """
        self.groups.set_opponents(opponents, probs)

    @property
    def pool(self) -> list[Any]:
        return self.opponents.pool

    @property
    def pool_p(self) -> np.ndarray:
        return self.opponents.probs

    @property
    def _registry(self) -> list[Any]:
        return self.opponents.registry

    # -- dealing --------------------------------------------------------------------
    def _draw_game_seeds(self, k: int) -> np.ndarray:
        return self.rng.integers(0, 2**63, size=k, dtype=np.uint64)

    def _deal(
        self, index: np.ndarray, seeds: np.ndarray | None = None, seats: np.ndarray | None = None
    ) -> None:
        k = len(index)
        if seeds is None:
            seeds = self._draw_game_seeds(k)
        seeds = np.asarray(seeds, dtype=np.uint64)
        counts = self._deal_counts(index, seeds)
        if seats is None and self.learner_seat is not None:
            seats = np.full(k, self.learner_seat)
        elif seats is None and counts is None:
            seats = self.rng.integers(0, self.num_players, size=k)
        self.seat[index] = learner_seats(self.rng, index, counts, seats)
        opp = self.opponents.draw(self.rng, k, self.num_players)
        opp[np.arange(k), self.seat[index]] = -1
        self.opp[index] = opp
        if self.state is None:
            self.state = self.engine.reset(seeds=seeds, counts=counts)
        else:
            self.engine.reset_games(self.state, index, seeds, counts)
        self.carry[index] = 0.0
        self.ep_return[index] = 0.0
        self.ep_length[index] = 0
        for i in index:
            self.history[i] = []

    def _deal_counts(self, index: np.ndarray, seeds: np.ndarray) -> np.ndarray | None:
        """The player counts of the games dealt into ``index`` (None: one count)."""
        if self.player_counts is None:
            return None
        self.counts[index] = self.player_counts.deal(seeds, index)
        return self.counts[index]

    def _counts_arg(self) -> np.ndarray | None:
        """Each game's count for the engine's calls (None: the config's, one count)."""
        return None if self.player_counts is None else self.counts

    def reset(
        self,
        seed: int | None = None,
        game_seeds: np.ndarray | None = None,
        seats: np.ndarray | None = None,
        start: np.ndarray | None = None,
    ) -> np.ndarray:
        """Deal every game and advance to the learner's first decision; returns obs.

        ``seed`` reseeds the generator that draws game seeds, learner seats and
        opponents; ``game_seeds`` / ``seats`` fix them for this deal; ``start``
        (game records) replaces the dealt games with given positions.
        """
        b = self.batch_size
        if start is not None and self.player_counts is not None:
            raise ValueError("start positions are given to games of one player count only")
        seed, game_seeds, seats, start_state = checked_reset(
            self.config, b, seed, game_seeds, seats, start
        )
        snap = self._snapshot()
        try:
            if seed is not None:
                self.rng, self.act_rng = _generators(seed)
            self.state = None  # type: ignore[assignment]  # _deal makes a new batch
            index = np.arange(b)
            self._deal(index, game_seeds, seats)
            if start_state is not None:
                self.state.data[:] = start_state.data
            self._advance(
                np.zeros(b), np.zeros(b, bool), [{} for _ in index],
                fresh=True, given=start is not None,
            )  # fmt: skip
        except BaseException:
            self._restore(snap)
            raise
        return self.observe()

    # -- stepping -------------------------------------------------------------------
    def step(self, actions: np.ndarray):
        """Learner actions (canonical if ``canonical``) for every game.

        Returns ``obs, rewards, terminated, truncated, infos``; with ``autoreset`` a
        finished game is dealt again at once and its last observation is in
        ``infos[i]["terminal_observation"]``.
        """
        b = self.batch_size
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        acts = checked_actions(actions, b, self.n_actions)
        data = self.state.data
        active = data["phase"] != OVER
        if not active.all():
            raise RuntimeError("step() on a finished game: reset it first")
        if (data["seat"] != self.seat).any():  # pragma: no cover - internal invariant
            raise RuntimeError("a game is not at the learner's decision")
        groups = self.groups
        env_acts = groups.to_env_actions(self.counts, acts, self.seat) if self.canonical else acts
        legal = self.action_masks()[np.arange(b), acts]
        if not legal.all():  # named in the caller's frame; no game has moved
            g = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(
                f"game {g}: action {int(acts[g])} is illegal: "
                + groups.describe_illegal(int(self.counts[g]), self.state, g, int(env_acts[g]))
            )
        snap = self._snapshot()
        try:  # all or nothing: an opponent that raises leaves no half-done step
            rewards = self.carry.copy()
            self.carry[:] = 0.0
            delivered = self.engine.step(self.state, env_acts, counts=self._counts_arg())
            self._collect(rewards, delivered, active)
            if self.record_history:
                for i in range(b):
                    self.history[i].append(int(env_acts[i]))
            self.ep_length += 1
            done = np.zeros(b, dtype=bool)
            terminated = np.zeros(b, dtype=bool)
            truncated = np.zeros(b, dtype=bool)
            infos: list[dict[str, Any]] = [{} for _ in range(b)]
            self._advance(rewards, done, infos, terminated=terminated, truncated=truncated)
            self.ep_return[~done] += rewards[~done]
            obs = self.observe()
        except BaseException:
            self._restore(snap)
            raise
        return obs, rewards, terminated, truncated, infos

    def _collect(self, rewards: np.ndarray, delivered: np.ndarray, active: np.ndarray) -> None:
        """Add the learner's share of the last engine step to ``rewards`` (active games)."""
        rows = np.flatnonzero(active)
        seat = self.seat[rows]
        r = self.state.data["rewards"][rows, seat].astype(np.float64)
        if self.opponent_delivery_penalty:
            d = delivered[rows]
            opp = d.sum(axis=1) - d[np.arange(len(rows)), seat]
            r -= self.opponent_delivery_penalty * opp / (self.counts[rows] - 1)
        rewards[rows] += r

    def _finish(
        self,
        rows: np.ndarray,
        infos: list[dict[str, Any]],
        rewards: np.ndarray,
        terminated: np.ndarray | None,
        truncated: np.ndarray | None,
    ) -> None:
        data = self.state.data
        final_obs = self.observe(rows)
        self.final_seeds[rows] = data["seed"][rows]  # for the experimenter, not in infos
        self.final_counts[rows] = self.counts[rows]
        outcome = self.groups.outcomes(data, rows, self.counts[rows])
        for k, i in enumerate(rows):
            s = int(self.seat[i])
            delivered_i, share_i = outcome[int(i)]
            opp = np.delete(delivered_i, s)
            self.ep_return[i] += rewards[i]
            result = {
                "win": float(share_i[s]),
                "delivered": int(delivered_i[s]),
                "opp_delivered": float(opp.mean()),
                "seat": s,
                "truncated": bool(data["truncated"][i]),
            }
            if self.player_counts is not None:
                result["num_players"] = int(self.counts[i])
            infos[i].update(terminal_observation=final_obs[k], result=result)
            if self.sb3_infos:  # SB3's conventions; gymnasium leaves these to its wrappers
                infos[i]["episode"] = {"r": float(self.ep_return[i]), "l": int(self.ep_length[i])}
                if data["truncated"][i]:
                    infos[i]["TimeLimit.truncated"] = True
            if self.record_history:
                infos[i]["actions"] = list(self.history[i])
        if terminated is not None:
            terminated[rows] = data["terminated"][rows]
        if truncated is not None:
            truncated[rows] = data["truncated"][rows]

    def _advance(
        self,
        rewards: np.ndarray,
        done: np.ndarray,
        infos: list[dict[str, Any]],
        terminated: np.ndarray | None = None,
        truncated: np.ndarray | None = None,
        fresh: bool = False,
        given: bool = False,
    ) -> None:
        """Let opponents move until every game is at the learner's decision (or over).

        ``fresh``: the games were just dealt, so what they earn before the learner's
        first move is carried to its first step. ``given``: they are positions the
        caller chose; one that ends before the learner's decision is an error (a
        dealt game is just dealt again).
        """
        b = self.batch_size
        # games dealt during this call: their rewards belong to the next step
        new = np.full(b, fresh, dtype=bool)
        while True:
            data = self.state.data
            over = data["phase"] == OVER
            ended = over & ~done & ~new
            if ended.any():
                rows = np.flatnonzero(ended)
                self._finish(rows, infos, rewards, terminated, truncated)
                done |= ended
                if self.autoreset:
                    self._deal(rows)
                    new[rows] = True
                    continue
            again = over & new
            if again.any() and given:
                g = int(np.flatnonzero(again)[0])
                raise ValueError(
                    f"game {g}: the given position ends before the learner (seat "
                    f"{int(self.seat[g])}) has a decision"
                )
            if again.any():  # a new game ended before the learner moved: deal again
                rows = np.flatnonzero(again)
                self._deal(rows)
                self.carry[rows] = 0.0
                continue
            live = ~over
            need = live & (data["seat"] != self.seat)
            if not need.any():
                break
            counts = self._counts_arg()
            masks = self.engine.legal_masks(self.state, out=self._env_mask, counts=counts)
            who = np.where(need, self.opp[np.arange(b), data["seat"]], -1)
            env_acts = self.groups.opponent_actions(
                self.counts, who, self.state, masks, self.act_rng
            )
            step_rewards = np.zeros(b)
            delivered = self.engine.step(self.state, env_acts, active=need, counts=counts)
            self._collect(step_rewards, delivered, need)
            if self.record_history:
                for i in np.flatnonzero(need):
                    self.history[i].append(int(env_acts[i]))
            rewards[~new] += step_rewards[~new]
            self.carry[new] += step_rewards[new]

    # -- views ----------------------------------------------------------------------
    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The learner's view of each game (canonical and scaled as configured)."""
        require_reset(self.state is not None, "observe")
        if rows is None:
            rows = np.arange(self.batch_size)
        seats = self.seat[rows]
        counts = None if self.player_counts is None else self.counts[rows]
        sub = GameState(self.config, self.state.data[rows])
        obs = self.engine.observe(sub, seats=seats, counts=counts)
        if self.canonical:
            obs = self.groups.canonical_obs(self.counts[rows], obs, seats)
        if self.normalize:
            return (obs / self.scale).astype(np.float32, copy=False)
        return obs  # uint8, as the engine writes it

    def action_masks(self) -> np.ndarray:
        """``(B, n_actions)`` bool: the learner's legal actions (all False when over)."""
        require_reset(self.state is not None, "action_masks")
        masks = self.engine.legal_masks(self.state, out=self._env_mask, counts=self._counts_arg())
        if self.canonical:
            masks = self.groups.canonical_masks(self.counts, masks, self.seat)
        out = masks != 0
        out[self.state.data["seat"] != self.seat] = False
        return out

    def observation_space(self) -> spaces.Box:
        """One learner observation: scaled (float32), or the raw counts up to
        ``OBS_HIGH`` as uint8."""
        return observation_box(self.obs_dim, OBS_DTYPE, self.scale, self.normalize)


def observation_box(
    obs_dim: int, dtype: np.dtype, scale: np.ndarray, normalize: bool
) -> spaces.Box:
    """A learner's observation space: divided by ``scale`` (float32) when ``normalize``,
    else the raw counts up to ``OBS_HIGH`` in the engine's ``dtype``."""
    if normalize:
        return spaces.Box(0.0, (OBS_HIGH / scale).astype(np.float32), dtype=np.float32)
    return spaces.Box(0.0, OBS_HIGH, (obs_dim,), dtype)


def _generators(seed: int | None) -> tuple[np.random.Generator, np.random.Generator]:
    """The games' generator and the opponents' generator, both from ``seed`` (None:
    fresh entropy from the operating system).

    The opponents' generator is ``agent_rng`` of the seed material, a one-way digest:
    its seed sequence, spawn key and state lead to the digest only, never to the
    material the game seeds are drawn from (a spawned child of the games' sequence
    would carry that material as its own entropy)."""
    sequence = np.random.SeedSequence(seed)
    entropy = sequence.entropy
    assert isinstance(entropy, int)  # an int seed or the OS's 128 bits
    return np.random.default_rng(sequence), agent_rng("learner opponents", entropy)
