"""The batched match loop: a batch of games played to their end, every agent per step
(``play_games``), and the agents' failures: an agent that raises, calls ``sys.exit`` or
returns a bad action stops the batch with an ``AgentError`` naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from mamma_mia_agents import load_agent
from mamma_mia_agents.bots.loading import AgentLoadError, agent_name
from mamma_mia_agents.compiled.playout import CompiledBots, kernel_bot, play_out
from mamma_mia_env.game.actions import describe_illegal
from mamma_mia_env.game.config import OBSERVATION_MODES, Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.outcome import delivered_and_cards
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.state import GameState
from mamma_mia_env.plumbing.seeding import agent_rng
from mamma_mia_env.policy import PolicyFailure, observers_for, policy_actions


class AgentError(RuntimeError):
    """An agent raised, exited, killed its worker or chose an illegal action; the message
    names it (and the game's seed where one game is to blame)."""


class AgentMismatchError(ValueError):
    """An agent cannot play the tournament's game (its ``check_config`` said why)."""


class Outcomes(TypedDict):
    """Per-game results (``play_games``), one row per game."""

    delivered: np.ndarray  # (G, N) orders delivered per seat
    cards: np.ndarray  # (G, N) ingredient cards in hand at the end per seat
    turns: np.ndarray  # (G,)
    truncated: np.ndarray  # (G,)


class BatchOutcomes(Outcomes, total=False):
    """A batch's ``Outcomes``, with the actions of its recorded games (``record``)."""

    actions: list[list[int]]


def failure(exc: BaseException) -> str:
    """What an agent did, for an ``AgentError`` message."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    text = str(exc)
    return f"raised {type(exc).__name__}" + (f": {text}" if text else "")


def load_agents(specs: Sequence[object]) -> list[Any]:
    """``load_agent`` for each spec; an agent whose module or constructor fails (an
    exception or ``sys.exit``) is an ``AgentError`` naming the spec, not a traceback."""
    loaded = []
    for spec in specs:
        try:
            agent = load_agent(spec)
        except AgentLoadError:
            raise
        except (Exception, SystemExit) as exc:
            raise AgentError(f"agent {spec!r} failed to load: it {failure(exc)}") from exc
        mode = getattr(agent, "observation_mode", "fixed")
        if mode not in OBSERVATION_MODES:
            raise AgentError(
                f"agent {agent_name(agent)!r} asks for observation_mode {mode!r}; "
                f"one of {OBSERVATION_MODES}"
            )
        loaded.append(agent)
    return loaded


def check_agents(agents: list[Any], config: Config) -> None:
    """Each agent's ``check_config``: ``AgentMismatchError`` if one cannot play
    ``config``, ``AgentError`` if one fails."""
    for agent in agents:
        check = getattr(agent, "check_config", None)
        if check is None:
            continue
        try:
            check(config)
        except ValueError as exc:
            raise AgentMismatchError(
                f"agent {agent_name(agent)!r} cannot play this game: {exc}"
            ) from exc
        except (Exception, SystemExit) as exc:
            raise AgentError(f"agent {agent_name(agent)!r} {failure(exc)} in check_config") from exc


@dataclass(frozen=True, eq=False)
class Plan:
    """A tournament's games in batches, as every backend plays them: batch ``i`` is the
    games ``chunks[i]``, and its agents get ``agent_rng("tournament", seed, i)`` (a
    one-way digest: no route back to the deals), so the results do not depend on where
    or in how many processes the batches run."""

    config: Config
    assign: np.ndarray  # (games, seats): index into the agents
    seeds: np.ndarray  # (games,) the deals
    chunks: list[tuple[int, int]]  # the games of each batch
    seed: int  # the tournament's
    record: int = 0  # keep the actions of the first ``record`` games of batch 0

    def play(self, i: int, agents: list[Any], progress: Any = None) -> tuple[int, BatchOutcomes]:
        """Batch ``i`` played by ``agents`` (loaded where it runs)."""
        lo, hi = self.chunks[i]
        rng = agent_rng("tournament", self.seed, i)
        record = self.record if i == 0 else 0
        games = play_games(self.config, agents, self.assign[lo:hi], self.seeds[lo:hi], rng,
                           progress=progress, record=record)  # fmt: skip
        return i, games


def play_games(
    config: Config,
    agents: list[Any],
    assign: np.ndarray,
    seeds: np.ndarray,
    rng: np.random.Generator,
    progress: Any = None,
    record: int = 0,
    compiled: bool = True,
) -> BatchOutcomes:
    """Play games ``seeds`` with ``assign[g, s]`` = index into ``agents`` of seat s:
    per-game ``Outcomes``; ``progress(k)`` is called as k games finish; ``record``: the
    actions of the first ``record`` games too.

    With ``compiled``, the games whose every seat is a compiled heuristic bot (the random
    agent aside) are played whole in the compiled loop (``play_out``), with the same
    decisions as the loop below. Those bots draw no random numbers, and the other games
    keep their order, so the generator hands every game the same numbers either way.
    """
    engine = Engine(config)
    observers = observers_for(config, agents)
    g_total = len(seeds)
    n = config.num_players
    out = BatchOutcomes(
        delivered=np.zeros((g_total, n), np.int64),
        cards=np.zeros((g_total, n), np.int64),
        turns=np.zeros(g_total, np.int64),
        truncated=np.zeros(g_total, bool),
    )
    state = engine.reset(seeds=np.asarray(seeds, dtype=np.uint64))
    ids = np.arange(g_total)
    table = np.asarray(assign, dtype=np.int64)
    if compiled and g_total:
        fast = _play_compiled(engine, agents, state, table, record, out, progress)
        if fast.any():
            state = GameState(config, state.data[~fast])
            ids, table = ids[~fast], table[~fast]
    logs: list[list[int]] = [[] for _ in range(min(record, g_total))]
    if logs:
        out["actions"] = logs
    while len(ids):
        over = state.data["phase"] == OVER
        if over.any():
            fin = state.data[over]
            gi = ids[over]
            _store(out, gi, fin, n)
            keep = ~over
            state = GameState(config, state.data[keep])
            ids, table = ids[keep], table[keep]
            if progress is not None:
                progress(int(over.sum()))
            if not len(ids):
                break
        masks = engine.legal_masks(state)
        seat = state.data["seat"].astype(np.int64)
        acting = table[np.arange(len(ids)), seat]
        try:  # the one seat-policy loop (mamma_mia_env.policy)
            actions = policy_actions(
                agents, acting, state, masks, rng, observers, catch=(Exception, SystemExit)
            )
        except PolicyFailure as fail:
            raise _agent_error(fail, agents, engine, state) from fail.error
        for j in np.flatnonzero(ids < len(logs)):
            logs[ids[j]].append(int(actions[j]))
        engine.step(state, actions)
    return out


def _agent_error(
    fail: PolicyFailure, agents: list[Any], engine: Engine, state: GameState
) -> AgentError:
    """The ``AgentError`` for a failed agent: who, what it did, and in which game."""
    name = agent_name(agents[fail.policy])
    rows = fail.rows
    if fail.kind == "raised":
        assert fail.error is not None
        seed = int(state.data["seed"][rows[0]])
        return AgentError(
            f"agent {name!r} {failure(fail.error)} in act_batch "
            f"({len(rows)} games, the first with seed {seed})"
        )
    if fail.kind == "shape":
        chosen = np.asarray(fail.chosen)
        return AgentError(
            f"agent {name!r} returned {chosen.dtype} actions of shape "
            f"{chosen.shape}; expected ({len(rows)},) integers"
        )
    game = state[[fail.game]]
    why = describe_illegal(engine, game, 0, fail.action)
    return AgentError(
        f"agent {name!r} chose illegal action {fail.action} "
        f"in the game with seed {int(game.data['seed'][0])}: {why}"
    )


def _store(out: Outcomes, rows: np.ndarray, fin: np.ndarray, n: int) -> None:
    """The results of the finished games ``fin`` (state records) into ``out[rows]``."""
    out["delivered"][rows], out["cards"][rows] = delivered_and_cards(fin, n)
    out["turns"][rows] = fin["turns"]
    out["truncated"][rows] = fin["truncated"]


COMPILED_BATCH = 512  # games per play_out call (the progress bar moves between calls)


def _play_compiled(
    engine: Engine,
    agents: list[Any],
    state: GameState,
    table: np.ndarray,
    record: int,
    out: Outcomes,
    progress: Any,
) -> np.ndarray:
    """Play the games whose seats are all compiled bots to their end in ``play_out``;
    their results go into ``out``. Returns which games were played."""
    bots = [kernel_bot(a) for a in agents]
    ok = np.array([b is not None and not b.is_random for b in bots], bool)
    fast = ok[table].all(1)
    fast[:record] = False  # recorded games need their actions: the batched loop keeps them
    if not fast.any():
        return fast
    index = np.cumsum(ok) - 1  # agent index -> index among the compiled ones
    compiled = CompiledBots(
        [b for b, k in zip(bots, ok, strict=True) if k],
        engine.num_players,
        engine.config.double_ingredients,
    )
    rows = np.flatnonzero(fast)
    for lo in range(0, len(rows), COMPILED_BATCH):
        r = rows[lo : lo + COMPILED_BATCH]
        sub = GameState(engine.config, state.data[r])
        play_out(engine, sub, compiled, index[table[r]])
        _store(out, r, sub.data, engine.num_players)
        if progress is not None:
            progress(len(r))
    return fast
