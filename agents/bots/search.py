"""Search bots: determinized Monte Carlo over sampled worlds, rolled out by compiled bots.

At each decision the bot draws ``worlds`` worlds of what its seat knows
(``mamma_mia_env.game.sampling.sample_worlds``), plays each candidate action (every
legal reveal choice, or the ``builder``'s best ``candidates`` turn actions, plus a
``prior`` policy's choice) in every world, rolls the games out with ``rollout`` bots in
the compiled loop (``compiled.playout.play_out``) and picks the best mean result: win
share plus ``margin`` times the lead in delivered orders (docs/AGENTS.md, "search").
It reads the state only through ``sample_worlds``, so a decision cannot depend on
hidden cards (``tests/agents/test_search.py``); ``act_batch`` on bare observations is
refused. Without ``time_ms`` a decision is a function of the position and the
generator only.
"""

from __future__ import annotations

import time

import numpy as np

from mamma_mia_agents.bots.base import Agent
from mamma_mia_agents.bots.builder import BuilderAgent
from mamma_mia_agents.bots.loading import AgentLoadError, agent_name, resolve_agent
from mamma_mia_agents.bots.ppo_agent import PPOAgent
from mamma_mia_agents.bots.roster import COMPILED_BOTS
from mamma_mia_agents.compiled.decisions import turn_scores_one
from mamma_mia_agents.compiled.playout import CompiledBots, kernel_bot, play_out
from mamma_mia_agents.compiled.tables import layout_vector, params_vector
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.observe import remembers
from mamma_mia_env.game.outcome import delivered_and_cards, win_shares
from mamma_mia_env.game.record import OVER, REVEAL
from mamma_mia_env.game.sampling import sample_worlds
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.arguments import as_float, as_int


class SearchAgent(Agent):
    """Determinized Monte Carlo over sampled worlds, rolled out by the compiled builder."""

    name = "search"
    needs_state = True

    def __init__(
        self,
        worlds: int = 16,
        candidates: int = 6,
        time_ms: float | None = None,
        rollout: str = "builder",
        margin: float = 0.02,
        prior: str | Agent | None = None,
    ) -> None:
        # ints and real numbers only: True is not 1 world, "5" is not 5 (arguments.py)
        worlds = as_int(worlds, "worlds", 1)
        candidates = as_int(candidates, "candidates", 1)
        if time_ms is not None:
            time_ms = as_float(time_ms, "time_ms")
            if time_ms <= 0:
                raise ValueError(f"time_ms must be a positive number or None, got {time_ms!r}")
        margin = as_float(margin, "margin", 0.0)
        self.rollout_agent = _rollout_agent(rollout)
        self.prior = _prior_agent(prior)
        self.rollout = rollout
        self.worlds = int(worlds)
        self.candidates = int(candidates)
        self.time_ms = time_ms
        self.margin = float(margin)
        self._cache: dict[Config, tuple] = {}

    def __repr__(self) -> str:
        budget = f"time_ms={self.time_ms}" if self.time_ms else f"worlds={self.worlds}"
        prior = f", prior={agent_name(self.prior)!r}" if self.prior is not None else ""
        return (
            f"SearchAgent({budget}, candidates={self.candidates}, rollout={self.rollout!r}{prior})"
        )

    def check_config(self, config: Config) -> None:
        if self.prior is not None:
            self.prior.check_config(config)  # a policy for this player count and deck

    # -- the interface ----------------------------------------------------------------------
    def act_states(self, state: GameState, rng: np.random.Generator) -> np.ndarray:
        """The action of the seat to act in every game of ``state`` (not changed)."""
        if not isinstance(state, GameState):
            raise TypeError(f"state must be a GameState, got {type(state).__name__}")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        if (state.data["phase"] == OVER).any():
            raise ValueError("act_states got a finished game")
        out = np.empty(state.batch_size, np.int64)
        for g in range(state.batch_size):
            out[g] = self._decide(state[[g]], rng)
        return out

    # -- one decision -------------------------------------------------------------------------
    def _tables(self, config: Config) -> tuple:
        if config not in self._cache:
            eng = Engine(config.replace(observation_mode="fixed"))
            rollout = kernel_bot(self.rollout_agent)
            bots = CompiledBots([rollout], config.num_players, config.double_ingredients)
            builder = BuilderAgent.params
            # the prior reads its own observation (the shipped ppo: the fixed layout)
            mode = self.prior.observation_mode if self.prior is not None else "fixed"
            self._cache[config] = (
                eng,
                bots,
                layout_vector(config.num_players, "fixed", config.double_ingredients),
                params_vector(builder),
                eng if mode == "fixed" else Engine(config.replace(observation_mode=mode)),
            )
        return self._cache[config]

    def candidate_actions(
        self, state: GameState, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        """The actions searched in game 0 of ``state``: best builder scores first, then
        the ``prior`` policy's choice when the builder's list lacks it."""
        eng, _, lay, prm, prior_eng = self._tables(state.config)
        mask = eng.legal_masks(state)[0]
        legal = np.flatnonzero(mask)
        if state.data["phase"][0] == REVEAL or len(legal) <= 1:
            return legal
        seat = int(state.data["seat"][0])
        ob = eng.observe(state)[0]  # uint8, read in place (``compiled.jit.at``)
        scores = np.full(mask.shape[0], -np.inf, np.float32)
        turn_scores_one(ob, mask, seat, lay, eng.play.astype(np.int64),
                        eng.need.astype(np.int64), prm, scores)  # fmt: skip
        order = np.argsort(-scores[legal], kind="stable")
        cands = legal[order[: self.candidates]]
        if self.prior is not None:
            gen = rng if rng is not None else np.random.default_rng(0)
            seen = ob if prior_eng is eng else prior_eng.observe(state)[0]
            pick = self.prior.act_batch(seen[None], mask[None], gen, seats=np.array([seat]))
            if int(pick[0]) not in cands:
                cands = np.append(cands, int(pick[0]))
        return cands

    def _decide(self, state: GameState, rng: np.random.Generator) -> int:
        cands = self.candidate_actions(state, rng)
        if len(cands) == 1:
            return int(cands[0])
        values = self._rollout_values(state, cands, rng)
        return int(cands[int(np.argmax(values))])

    def candidate_values(
        self,
        state: GameState,
        rng: np.random.Generator,
        extra: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The searched actions of game 0 of ``state`` and their mean rollout values.

        The candidates are :meth:`candidate_actions` plus the legal actions of ``extra``
        that are not among them (a learner's own choices, for expert iteration:
        ``experiments/common/search_labels.py``); the values are what the bot itself
        compares (win share plus ``margin`` times the lead in delivered orders), over the
        same worlds for every candidate. A position with one legal action is searched
        anyway: its value is still the seat's expected result.
        """
        if not isinstance(state, GameState) or state.batch_size != 1:
            raise ValueError("candidate_values takes a GameState of one game")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        if (state.data["phase"] == OVER).any():
            raise ValueError("candidate_values got a finished game")
        wanted = np.asarray([] if extra is None else extra)
        if wanted.size and wanted.dtype.kind not in "iu":
            raise TypeError(f"extra must be integer actions, got {wanted.dtype} values")
        cands = self.candidate_actions(state, rng)
        if wanted.size:
            eng = self._tables(state.config)[0]
            mask = eng.legal_masks(state)[0]
            for a in wanted.astype(np.int64).reshape(-1):
                if not 0 <= a < mask.shape[0] or not mask[a]:
                    raise ValueError(f"extra action {int(a)} is not legal in this position")
                if a not in cands:
                    cands = np.append(cands, a)
        return cands, self._rollout_values(state, cands, rng)

    def _rollout_values(
        self, state: GameState, cands: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Each candidate's mean value over the sampled worlds (rounds of ``worlds``
        until ``time_ms`` is spent, or one round)."""
        eng, bots, *_ = self._tables(state.config)
        me = int(state.data["seat"][0])
        n = state.config.num_players
        k = len(cands)
        start = time.perf_counter()
        total = np.zeros(k)
        done = 0
        while True:
            worlds = sample_worlds(state, me, rng, self.worlds)
            batch = GameState(state.config, np.repeat(worlds.data[None], k, 0).reshape(-1))
            eng.step(batch, np.repeat(cands, self.worlds))
            seats = np.zeros((batch.batch_size, n), np.int64)
            play_out(eng, batch, bots, seats, seed=0)
            total += self._values(batch, me).reshape(k, self.worlds).sum(1)
            done += self.worlds
            if self.time_ms is None or (time.perf_counter() - start) * 1e3 >= self.time_ms:
                break
        return total / done

    def _values(self, batch: GameState, me: int) -> np.ndarray:
        """My win share in each played-out world (the rules' own winner rule), plus
        ``margin`` times my lead in delivered orders over the best rival."""
        delivered, cards = delivered_and_cards(batch.data, batch.config.num_players)
        share = win_shares(delivered, cards)[:, me]
        rivals = np.delete(delivered, me, axis=1).max(1)
        return share + self.margin * (delivered[:, me] - rivals)


def _prior_agent(prior: object) -> Agent | None:
    """The candidate prior: None, or a policy that reads an observation (not the full
    state) and the acting seat (``ppo``, a ``PPOAgent``, an import path to one)."""
    if prior is None:
        return None
    wrong = f"prior must be a policy that reads an observation (e.g. ppo), got {prior!r}"
    try:
        agent = resolve_agent(prior, {"ppo": PPOAgent})
    except AgentLoadError:
        if isinstance(prior, str) and ":" not in prior:
            raise ValueError(wrong) from None
        raise
    if getattr(agent, "needs_state", False) or not hasattr(agent, "observation_mode"):
        raise ValueError(wrong)
    return agent


def _rollout_agent(rollout: object) -> Agent:
    """The rollout policy: a compiled bot with perfect memory (a bundled name, an import
    path or an agent); the rollouts observe the ``fixed`` layout."""
    wrong = f"rollout must be a compiled bot with memory (e.g. builder), got {rollout!r}"
    try:
        agent = resolve_agent(rollout, COMPILED_BOTS)
    except AgentLoadError:
        if isinstance(rollout, str) and ":" not in rollout:
            raise ValueError(f"{wrong}; one of {', '.join(COMPILED_BOTS)}") from None
        raise
    if kernel_bot(agent) is None or not remembers(agent.observation_mode):
        raise ValueError(wrong)
    return agent
