"""The tournament runner: many games between agents, duplicate deals, both cores.

    >>> from mamma_mia_agents.tournament import run_tournament
    >>> res = run_tournament(["random", "counter", "builder", "hoarder"], num_players=4,
    ...                      games=2000, seed=0)
    >>> print(res.format_table())

**Seating.** With k agents at N seats, a *table* is a group of N agents: the agents
cycled to fill N seats when k <= N (``random,counter`` at 4 seats sit as
``random,counter,random,counter``), every combination of N agents when k > N. Each table
is played in all N cyclic rotations (``seating="rotate"``) or all distinct seat
permutations (``seating="permute"``). The list of all seatings is the *schedule*;
every agent sits in every seat equally often over it.

**Duplicate deals.** A *deal* is one game seed; every deal is played once per seating
of the schedule, so the same shuffles (hands, supply, order stacks) are replayed with
the seats permuted and luck of the deal cancels out. Deal ``d`` of a tournament with
seed ``s`` uses the engine seed ``s * 2**32 + d``: ``Engine.reset(seeds=[...])``
replays any game alone. ``games`` is rounded up to whole deals.

**Speed.** Games are played in batches through the batched ``Engine``: all unfinished
games step together, and at each step every agent's ``act_batch`` is called once on
the games where its seat is to act. Batches are spread over worker processes
(``workers``, default: every core).

**Limits and failures.** Every game's result is kept for the statistics, so a run holds
at most ``MAX_GAMES`` games (after rounding up to whole deals; the schedule of one deal
counts too) and is refused before any game is played above that. An agent that raises
(when created, in ``check_config`` or in ``act_batch``), calls ``sys.exit`` or kills a
worker process stops the run with an ``AgentError`` naming the agent, in a worker
process as in this one.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import queue as queue_mod
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.config import OBSERVATION_MODES
from mamma_mia_env.kernels import first_masked_out
from mamma_mia_env.plumbing.provenance import provenance, write_sidecar
from mamma_mia_env.state import OVER

from . import AgentLoadError, agent_name, load_agent
from .base import Agent
from .stats import (
    Z95,
    cluster_mean_interval,
    finishing_ranks,
    mean_interval,
    plackett_luce_ratings,
    wilson_interval,
    win_shares,
)

SEATINGS = ("rotate", "permute")
DEFAULT_BATCH = 2500
SMALL_RUN = 1000  # with workers=None, fewer games than this play in this process
#: The most games one run plays: every game's result is kept in memory for the
#: statistics (a few hundred bytes per game), so a bigger count is refused up front
#: rather than found out by the out-of-memory killer hours later.
MAX_GAMES = 1_000_000
#: The longest ``--name`` / ``stem`` of the output files.
MAX_STEM = 100


def max_workers() -> int:
    """The most worker processes a run may start: four per core."""
    return 4 * (os.cpu_count() or 1)


class AgentError(RuntimeError):
    """An agent failed: it raised, exited, killed its worker or chose an illegal action.

    The message names the agent (and the game's seed where one game is to blame).
    """


class AgentMismatchError(ValueError):
    """An agent cannot play the tournament's game (its ``check_config`` said why)."""


class OutputError(ValueError):
    """The output directory or file name cannot be used; the message names which."""


class TournamentSizeError(ValueError):
    """A run would hold more than ``MAX_GAMES`` games (or start too many workers)."""


def _failure(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    text = str(exc)
    return f"raised {type(exc).__name__}" + (f": {text}" if text else "")


def load_agents(specs: list[Any]) -> list[Any]:
    """``load_agent`` for each spec; an agent whose module or constructor fails (an
    exception or ``sys.exit``) is an ``AgentError`` naming the spec, not a traceback."""
    loaded = []
    for spec in specs:
        try:
            agent = load_agent(spec)
        except AgentLoadError:
            raise
        except (Exception, SystemExit) as exc:
            raise AgentError(f"agent {spec!r} failed to load: it {_failure(exc)}") from exc
        mode = getattr(agent, "observation_mode", "recall")
        if mode not in OBSERVATION_MODES:
            raise AgentError(
                f"agent {agent_name(agent)!r} asks for observation_mode {mode!r}; "
                f"one of {OBSERVATION_MODES}"
            )
        loaded.append(agent)
    return loaded


# -- the schedule ---------------------------------------------------------------------------
def seating_schedule(n_agents: int, num_players: int, seating: str = "rotate") -> np.ndarray:
    """Every seating of one deal, ``(S, num_players)`` agent indices (see module doc)."""
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {SEATINGS}, got {seating!r}")
    if n_agents < 1:
        raise ValueError("a tournament needs at least one agent")
    n = num_players
    if n_agents <= n:
        tables = [tuple(i % n_agents for i in range(n))]
    else:
        tables = list(itertools.combinations(range(n_agents), n))
    rows: list[tuple[int, ...]] = []
    for table in tables:
        if seating == "rotate":
            rows += [table[r:] + table[:r] for r in range(n)]
        else:
            rows += sorted(set(itertools.permutations(table)))
    return np.array(rows, dtype=np.int64)


def schedule_size(n_agents: int, num_players: int, seating: str = "rotate") -> int:
    """``len(seating_schedule(...))`` without building it (a big one would not fit)."""
    n = num_players
    if n_agents <= n:
        if seating == "rotate":
            return n
        counts = [sum(1 for i in range(n) if i % n_agents == a) for a in range(n_agents)]
        distinct = math.factorial(n)
        for c in counts:
            distinct //= math.factorial(c)
        return distinct
    return math.comb(n_agents, n) * (n if seating == "rotate" else math.factorial(n))


def deal_seeds(seed: int, deals: int) -> np.ndarray:
    """The engine seed of each deal: ``seed * 2**32 + d``."""
    if not 0 <= seed < 2**32:
        raise ValueError(f"seed must be in 0-{2**32 - 1}, got {seed}")
    return np.array([(seed << 32) + d for d in range(deals)], dtype=np.uint64)


# -- playing a batch of games ------------------------------------------------------------------
def play_games(
    config: Config,
    agents: list[Any],
    assign: np.ndarray,
    seeds: np.ndarray,
    rng: np.random.Generator,
    progress: Any = None,
    record: int = 0,
    compiled: bool = True,
) -> dict[str, np.ndarray]:
    """Play games ``seeds`` with ``assign[g, s]`` = index into ``agents`` of seat s.

    Returns per-game arrays: ``delivered`` and ``cards`` (ingredient cards in hand)
    per seat, ``turns``, ``truncated``. ``progress(k)`` is called as k games finish.
    ``record``: also return ``actions``, the action lists of the first ``record`` games.

    With ``compiled`` (the default), the games whose every seat is a compiled heuristic
    bot (``mamma_mia_agents.compiled.compilable``, the random agent aside) are played
    whole in the compiled loop (``play_out``): the same decisions and so the same games
    as the batched loop below, which plays the rest. Those bots draw no random numbers,
    and the other games keep their step-by-step order, so the generator hands every
    game the same numbers either way.
    """
    engine = Engine(config)
    modes = {getattr(a, "observation_mode", "recall") for a in agents}
    observers = {m: Engine(config.replace(observation_mode=m)) for m in modes}
    mode_of = [getattr(a, "observation_mode", "recall") for a in agents]
    g_total = len(seeds)
    n = config.num_players
    out = {
        "delivered": np.zeros((g_total, n), np.int64),
        "cards": np.zeros((g_total, n), np.int64),
        "turns": np.zeros(g_total, np.int64),
        "truncated": np.zeros(g_total, bool),
    }
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
        out["actions"] = logs  # type: ignore[assignment]
    while len(ids):
        over = state.data["phase"] == OVER
        if over.any():
            fin = state.data[over]
            gi = ids[over]
            out["delivered"][gi] = fin["delivered"][:, :n].sum(axis=2)
            out["cards"][gi] = fin["hand"][:, :n].sum(axis=2)
            out["turns"][gi] = fin["turns"]
            out["truncated"][gi] = fin["truncated"]
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
        actions = np.zeros(len(ids), np.int64)
        obs_cache: dict[str, np.ndarray] = {}
        for a in np.unique(acting):
            rows = np.flatnonzero(acting == a)
            mode = mode_of[a]
            observer = observers[mode]  # the same games under the observer's own config
            if len(modes) == 1:
                if mode not in obs_cache:
                    obs_cache[mode] = observer.observe(GameState(observer.config, state.data))
                obs = obs_cache[mode][rows]
            else:
                obs = observer.observe(GameState(observer.config, state.data[rows]))
            try:
                if getattr(agents[a], "needs_state", False):  # search bots (agents/search.py)
                    chosen = agents[a].act_states(GameState(config, state.data[rows]), rng)
                else:
                    chosen = agents[a].act_batch(obs, masks[rows], rng, seat[rows])
                chosen = np.asarray(chosen)
            except (Exception, SystemExit) as exc:
                seed = int(state.data["seed"][rows[0]])
                raise AgentError(
                    f"agent {agent_name(agents[a])!r} {_failure(exc)} in act_batch "
                    f"({len(rows)} games, the first with seed {seed})"
                ) from exc
            if chosen.shape != (len(rows),) or chosen.dtype.kind not in "iu":
                raise AgentError(
                    f"agent {agent_name(agents[a])!r} returned {chosen.dtype} actions of shape "
                    f"{chosen.shape}; expected ({len(rows)},) integers"
                )
            chosen = chosen.astype(np.int64)
            i = first_masked_out(masks[rows], chosen)
            if i >= 0:
                game = state[[rows[i]]]
                from mamma_mia_env.actions import describe_illegal

                why = describe_illegal(engine, game, 0, int(chosen[i]))
                raise AgentError(
                    f"agent {agent_name(agents[a])!r} chose illegal action {int(chosen[i])} "
                    f"in the game with seed {int(game.data['seed'][0])}: {why}"
                )
            actions[rows] = chosen
        for j in np.flatnonzero(ids < len(logs)):
            logs[ids[j]].append(int(actions[j]))
        engine.step(state, actions)
    return out


COMPILED_BATCH = 512  # games per play_out call (the progress bar moves between calls)


def _play_compiled(
    engine: Engine,
    agents: list[Any],
    state: GameState,
    table: np.ndarray,
    record: int,
    out: dict[str, np.ndarray],
    progress: Any,
) -> np.ndarray:
    """Play the games whose seats are all compiled bots to their end in ``play_out``;
    their results go into ``out``. Returns which games were played."""
    from .compiled import CompiledBots, _is_random, compilable, play_out

    ok = np.array([compilable(a) and not _is_random(a) for a in agents], bool)
    fast = ok[table].all(1)
    fast[:record] = False  # recorded games need their actions: the batched loop keeps them
    if not fast.any():
        return fast
    index = np.cumsum(ok) - 1  # agent index -> index among the compiled ones
    bots = CompiledBots(
        [a for a, k in zip(agents, ok, strict=True) if k],
        engine.num_players,
        engine.config.double_ingredients,
    )
    n = engine.num_players
    rows = np.flatnonzero(fast)
    for lo in range(0, len(rows), COMPILED_BATCH):
        r = rows[lo : lo + COMPILED_BATCH]
        sub = GameState(engine.config, state.data[r])
        play_out(engine, sub, bots, index[table[r]])
        fin = sub.data
        out["delivered"][r] = fin["delivered"][:, :n].sum(axis=2)
        out["cards"][r] = fin["hand"][:, :n].sum(axis=2)
        out["turns"][r] = fin["turns"]
        out["truncated"][r] = fin["truncated"]
        if progress is not None:
            progress(len(r))
    return fast


# -- worker processes ---------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(progress_queue: Any, config: Config, specs: list[Any]) -> None:
    try:
        import numba

        numba.set_num_threads(1)  # one process per core already
    except Exception:  # pragma: no cover - numba without threading layer
        pass
    _WORKER["queue"] = progress_queue
    _WORKER["config"] = config
    # a failing agent is reported by the first chunk: an exception escaping the
    # initializer would only break the pool, naming nobody
    try:
        _WORKER["agents"] = load_agents(specs)
        _WORKER["error"] = None
    except (Exception, SystemExit) as exc:
        _WORKER["error"] = AgentError(f"in a worker process: {exc}")


def _run_chunk(
    chunk: int, assign: np.ndarray, seeds: np.ndarray, seed: int, record: int = 0
) -> tuple[int, dict[str, np.ndarray]]:
    if _WORKER["error"] is not None:
        raise _WORKER["error"]
    q = _WORKER["queue"]
    rng = np.random.default_rng([seed, chunk])
    cfg, agents = _WORKER["config"], _WORKER["agents"]
    res = play_games(cfg, agents, assign, seeds, rng, progress=q.put, record=record)
    return chunk, res


# -- results ------------------------------------------------------------------------------------
@dataclass
class TournamentResult:
    """Per-game outcomes and per-agent statistics of one tournament."""

    names: list[str]
    config: Config
    seating: str
    schedule: np.ndarray  # (S, N) agent index per seat, one row per seating of a deal
    seed: int
    deals: int
    assign: np.ndarray  # (G, N)
    deal: np.ndarray  # (G,) deal index of each game
    delivered: np.ndarray  # (G, N)
    cards: np.ndarray  # (G, N)
    turns: np.ndarray  # (G,)
    truncated: np.ndarray  # (G,)
    elapsed: float
    workers: int
    command: str | None = None
    games_requested: int | None = None
    table: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)  # event logs (save_logs)

    @property
    def games(self) -> int:
        return int(len(self.deal))

    @property
    def num_players(self) -> int:
        return self.config.num_players

    def compute_table(self) -> list[dict[str, Any]]:
        """Per-agent statistics, best win rate first (see docs/AGENTS.md)."""
        shares = win_shares(self.delivered, self.cards)
        ranks = finishing_ranks(self.delivered, self.cards)
        mu, sigma = plackett_luce_ratings(self.assign, ranks, len(self.names))
        rows = []
        n = self.num_players
        for a, name in enumerate(self.names):
            sel = self.assign == a
            seat_games = int(sel.sum())
            wins = float(shares[sel].sum())
            lo, hi = wilson_interval(wins, seat_games)
            # per seat-game, with the deal as the cluster
            deal_of = np.broadcast_to(self.deal[:, None], sel.shape)[sel]
            _, clo, chi = cluster_mean_interval(shares[sel], deal_of)
            dmean, dlo, dhi = mean_interval(self.delivered[sel])
            by_seat = []
            for s in range(n):
                ss = self.assign[:, s] == a
                by_seat.append(float(shares[ss, s].mean()) if ss.any() else None)
            rows.append(
                {
                    "agent": name,
                    "seat_games": seat_games,
                    "wins": wins,
                    "win_rate": wins / seat_games if seat_games else float("nan"),
                    "win_rate_low": lo,
                    "win_rate_high": hi,
                    "win_rate_deal_low": max(0.0, clo),
                    "win_rate_deal_high": min(1.0, chi),
                    "mean_delivered": dmean,
                    "delivered_low": dlo,
                    "delivered_high": dhi,
                    "rating_mu": float(mu[a]),
                    "rating_sigma": float(sigma[a]),
                    "rating_low": float(mu[a] - Z95 * sigma[a]),
                    "rating_high": float(mu[a] + Z95 * sigma[a]),
                    "win_rate_by_seat": by_seat,
                }
            )
        rows.sort(key=lambda r: (-r["win_rate"], r["agent"]))
        for i, r in enumerate(rows):
            r["rank"] = i + 1
        self.table = rows
        return rows

    # -- output ---------------------------------------------------------------------------
    def summary(self) -> str:
        s = len(self.schedule)
        rate = self.games / self.elapsed if self.elapsed > 0 else float("inf")
        text = (
            f"{self.games:,} games of {self.num_players} players ({self.deals:,} deals x "
            f"{s} seatings, {self.seating}), seed {self.seed}: {self.elapsed:.1f} s on "
            f"{self.workers} worker(s), {rate:,.0f} games/s"
        )
        trunc = int(self.truncated.sum())
        if trunc:
            text += f"; {trunc} truncated by max_turns (scored as they stood)"
        return text

    def format_table(self) -> str:
        rows = self.table or self.compute_table()
        head = ["#", "agent", "games", "wins", "win rate", "95% CI", "delivered", "rating (95%)"]
        body = []
        for r in rows:
            body.append(
                [
                    str(r["rank"]),
                    r["agent"],
                    f"{r['seat_games']:,}",
                    f"{r['wins']:,.1f}",
                    f"{100 * r['win_rate']:.1f}%",
                    f"{100 * r['win_rate_low']:.1f}-{100 * r['win_rate_high']:.1f}%",
                    f"{r['mean_delivered']:.2f}",
                    f"{r['rating_mu']:.1f} ({r['rating_low']:.1f}-{r['rating_high']:.1f})",
                ]
            )
        widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
        right = {0, 2, 3, 4, 5, 6, 7}

        def fmt(cells: list[str]) -> str:
            return "  ".join(
                c.rjust(w) if i in right else c.ljust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            )

        lines = [fmt(head), "  ".join("-" * w for w in widths)] + [fmt(b) for b in body]
        lines.append(
            f"chance level {100 / self.num_players:.1f}%; wins split on shared wins; "
            "rating: openskill PlackettLuce mu (mu -/+ 1.96 sigma)"
        )
        return "\n".join(lines)

    def format_markdown(self) -> str:
        return markdown_table(self.table or self.compute_table())

    def to_dict(self) -> dict[str, Any]:
        rows = self.table or self.compute_table()
        return {
            "format": "mamma-mia-tournament/1",
            "command": self.command,
            "agents": self.names,
            "config": self.config.to_dict(),
            "num_players": self.num_players,
            "seating": self.seating,
            "schedule": self.schedule.tolist(),
            "seed": self.seed,
            "deals": self.deals,
            "games": self.games,
            "games_requested": self.games_requested,
            "truncated": int(self.truncated.sum()),
            "mean_turns": float(self.turns.mean()) if self.games else None,
            "elapsed_seconds": round(self.elapsed, 3),
            "summary": self.summary(),
            "workers": self.workers,
            "interval": "95% (Wilson score for win rates; normal for means; "
            "rating mu -/+ 1.96 sigma)",
            "results": rows,
        }

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        text = json.dumps(self.to_dict(), indent=2)
        if path is not None:
            with open(path, "w") as fh:
                fh.write(text + "\n")
        return text

    CSV_COLUMNS = (
        "rank",
        "agent",
        "seat_games",
        "wins",
        "win_rate",
        "win_rate_low",
        "win_rate_high",
        "win_rate_deal_low",
        "win_rate_deal_high",
        "mean_delivered",
        "delivered_low",
        "delivered_high",
        "rating_mu",
        "rating_sigma",
        "rating_low",
        "rating_high",
    )

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        rows = self.table or self.compute_table()
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.CSV_COLUMNS)
        for r in rows:
            w.writerow(
                [f"{r[c]:.6g}" if isinstance(r[c], float) else r[c] for c in self.CSV_COLUMNS]
            )
        text = buf.getvalue()
        if path is not None:
            with open(path, "w") as fh:
                fh.write(text)
        return text

    def plot(self, path: str | os.PathLike, title: str | None = None) -> None:
        """A PNG: win rate, delivered orders and rating per agent, with 95% intervals."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = list(reversed(self.table or self.compute_table()))
        names = [r["agent"] for r in rows]
        y = np.arange(len(rows))
        fig, axes = plt.subplots(1, 3, figsize=(13, 1.2 + 0.55 * len(rows)), sharey=True)
        panels = [
            ("win rate (%)", "win_rate", "win_rate_low", "win_rate_high", 100.0),
            ("delivered orders per game", "mean_delivered", "delivered_low", "delivered_high", 1),
            ("rating (PlackettLuce mu)", "rating_mu", "rating_low", "rating_high", 1.0),
        ]
        for ax, (label, key, lo, hi, scale) in zip(axes, panels, strict=True):
            v = np.array([r[key] for r in rows]) * scale
            err = np.array([[r[key] - r[lo], r[hi] - r[key]] for r in rows]).T * scale
            ax.errorbar(v, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
            ax.set_xlabel(label)
            ax.grid(axis="x", alpha=0.3)
            if key == "win_rate":
                ax.axvline(100 / self.num_players, ls="--", color="grey", lw=1)
        axes[0].set_yticks(y, names)
        fig.suptitle(
            title
            or f"{self.num_players} players, {self.games:,} games ({self.deals:,} duplicate "
            f"deals), 95% intervals"
        )
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    def write(
        self, out_dir: str | os.PathLike, stem: str = "tournament", plot: bool = True
    ) -> list[str]:
        """Write ``{stem}.csv``, ``{stem}.json`` and (with ``plot``) ``{stem}.png``.

        ``stem`` must be a plain file name (``check_stem``): the files stay in ``out_dir``.
        """
        paths = prepare_output(out_dir, stem, plot)
        self.to_csv(paths[0])
        record = provenance(seeds=self.seed, wall_time=self.elapsed, command=self.command)
        doc = self.to_dict()
        doc["provenance"] = record
        with open(paths[1], "w") as fh:
            fh.write(json.dumps(doc, indent=2) + "\n")
        write_sidecar(paths[0], record)
        if plot:
            self.plot(paths[2])
        return paths


def check_stem(stem: Any) -> str:
    """``stem`` if it is a plain file name; else ``OutputError`` saying why.

    The output files are ``{stem}.csv`` etc. inside the output directory, so the stem
    may not hold a path separator, be ``.``/``..``, be absolute, or hold control
    characters (a NUL would cut the name short).
    """
    if not isinstance(stem, str) or not stem.strip():
        raise OutputError(f"--name must be a non-empty file name, got {stem!r}")
    seps = {"/", "\\", os.sep, os.altsep} - {None}
    if any(c in stem for c in seps) or stem in (".", "..") or os.path.isabs(stem):
        raise OutputError(
            f"--name must be a plain file name (no path separators, '.' or '..'), got "
            f"{stem!r}: the files are written inside --out"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in stem):
        raise OutputError(f"--name must not hold control characters, got {stem!r}")
    if len(stem) > MAX_STEM:
        raise OutputError(f"--name must be at most {MAX_STEM} characters, got {len(stem)}")
    return stem


def prepare_output(out_dir: str | os.PathLike, stem: str, plot: bool = True) -> list[str]:
    """Create ``out_dir``, prove it writable and return the output paths.

    Called before a tournament is played, so that an unwritable ``--out`` fails at
    once rather than after the games; raises ``OutputError`` naming the path.
    """
    check_stem(stem)
    try:
        out = os.fspath(out_dir)
    except TypeError:
        raise OutputError(f"--out must be a directory path, got {out_dir!r}") from None
    if not isinstance(out, str) or not out or "\0" in out:
        raise OutputError(f"--out must be a directory path, got {out_dir!r}")
    try:
        os.makedirs(out, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=f".{stem}.", suffix=".probe"):
            pass
    except OSError as exc:
        raise OutputError(
            f"--out {out!r} is not a writable directory: {exc.strerror or exc}"
        ) from None
    exts = ("csv", "json", "png") if plot else ("csv", "json")
    paths = [os.path.join(out, f"{stem}.{ext}") for ext in exts]
    for path in paths:
        if os.path.isdir(path):
            raise OutputError(f"cannot write {path!r}: it is a directory")
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise OutputError(f"cannot write {path!r}: the file is not writable")
    return paths


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """A markdown table of ``TournamentResult.table`` rows (also as read from JSON)."""
    lines = [
        "| # | agent | seat-games | wins | win rate | 95% CI | delivered (95% CI) | rating mu "
        "(95%) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['rank']} | {r['agent']} | {r['seat_games']:,} | {r['wins']:,.1f} | "
            f"{100 * r['win_rate']:.1f}% | {100 * r['win_rate_low']:.1f}-"
            f"{100 * r['win_rate_high']:.1f}% | {r['mean_delivered']:.2f} "
            f"({r['delivered_low']:.2f}-{r['delivered_high']:.2f}) | "
            f"{r['rating_mu']:.1f} ({r['rating_low']:.1f}-{r['rating_high']:.1f}) |"
        )
    return "\n".join(lines)


# -- the runner ---------------------------------------------------------------------------------
def unique_names(agents: list[Any]) -> list[str]:
    """Display names, numbered where an agent appears twice (``random#1``, ``random#2``)."""
    base = [agent_name(a) for a in agents]
    counts = {b: base.count(b) for b in base}
    seen: dict[str, int] = {}
    out = []
    for b in base:
        if counts[b] > 1:
            seen[b] = seen.get(b, 0) + 1
            out.append(f"{b}#{seen[b]}")
        else:
            out.append(b)
    return out


def run_tournament(
    agents: list[str | Agent],
    num_players: int = 4,
    games: int = 2000,
    seed: int = 0,
    workers: int | None = None,
    seating: str = "rotate",
    batch_size: int = DEFAULT_BATCH,
    progress: bool = True,
    command: str | None = None,
    backend: str = "local",
    address: str | None = None,
    save_logs: int = 0,
    **config: Any,
) -> TournamentResult:
    """Play a duplicate-deal tournament and return its results (see module doc).

    ``agents``: bundled names, ``module:Class`` import paths or ``Agent`` objects.
    ``config``: rule flags of ``mamma_mia_env.Config`` (``num_players`` aside), e.g.
    ``double_ingredients=True``. ``workers``: processes (default: the CPU count, or 1
    below ``SMALL_RUN`` games); 1 plays in this process, more need the caller's
    ``if __name__ == "__main__":`` guard, as any spawned multiprocessing does.

    The games are split into batches of at most ``batch_size``, a
    ``workers``-independent split; each batch draws its random numbers from its own
    generator seeded from ``(seed, batch)``, so a run gives the same games whatever the
    number of workers (or machine).

    ``backend="ray"`` plays the same batches as Ray tasks (``agents/ray_backend.py``):
    on a local Ray instance, or on the cluster at ``address``; the results are
    bit-identical to the local backend's for the same arguments.
    ``save_logs``: keep event logs (``mamma_mia_env.replay_events``) of the first
    ``save_logs`` games of the first batch in ``result.logs``, for replays.
    """
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("address is for backend='ray'")
    if isinstance(agents, str):
        agents = [a for a in agents.split(",") if a.strip()]
    if not agents:
        raise ValueError("a tournament needs at least one agent")
    for name, value in (("games", games), ("batch_size", batch_size), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {value!r}")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
    ):
        raise TypeError(f"workers must be an int or None, got {workers!r}")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {SEATINGS}, got {seating!r}")
    cfg = Config.from_kwargs(num_players=num_players, **config)
    # the size checks come before any agent is created or any game played
    s = schedule_size(len(agents), num_players, seating)
    if s > MAX_GAMES:
        raise TournamentSizeError(
            f"{len(agents)} agents at {num_players} seats ({seating}) make {s:,} seatings "
            f"per deal, more than the {MAX_GAMES:,} games one run may hold: use fewer "
            "agents or --seating rotate"
        )
    deals = math.ceil(games / s)
    if deals * s > MAX_GAMES:
        raise TournamentSizeError(
            f"games={games:,} ({deals * s:,} after rounding up to whole deals of {s} "
            f"seatings) is more than the {MAX_GAMES:,} games one run may hold (every "
            "game's result is kept for the statistics); split it into runs with "
            "different seeds"
        )
    if workers is None:  # starting processes costs seconds: not worth it for short runs
        workers = 1 if games < SMALL_RUN else os.cpu_count() or 1
    if not 1 <= workers <= max_workers():
        raise TournamentSizeError(
            f"workers must be 1-{max_workers()} (four per core), got {workers}"
        )
    loaded = load_agents(agents)
    for agent in loaded:
        check = getattr(agent, "check_config", None)
        if check is not None:
            try:
                check(cfg)
            except ValueError as exc:
                raise AgentMismatchError(
                    f"agent {agent_name(agent)!r} cannot play this game: {exc}"
                ) from exc
            except (Exception, SystemExit) as exc:
                raise AgentError(
                    f"agent {agent_name(agent)!r} {_failure(exc)} in check_config"
                ) from exc
    schedule = seating_schedule(len(loaded), num_players, seating)
    seeds_d = deal_seeds(seed, deals)
    assign = np.tile(schedule, (deals, 1))
    deal = np.repeat(np.arange(deals), s)
    seeds = seeds_d[deal]
    g_total = len(seeds)
    # batches of at most batch_size games; the split must not depend on ``workers``
    # (each batch has its own generator), or the same seed gives other games elsewhere
    size = min(batch_size, g_total)
    chunks = [(lo, min(lo + size, g_total)) for lo in range(0, g_total, size)]
    results: dict[int, dict[str, np.ndarray]] = {}

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=g_total, unit="game", desc=f"{num_players}p tournament", smoothing=0.1)
    start = time.perf_counter()
    try:
        if backend == "ray":
            from .ray_backend import run_batches

            results = run_batches(
                cfg,
                agents,
                loaded,
                assign,
                seeds,
                chunks,
                seed,
                bar,
                address=address,
                record=save_logs,
            )
        elif workers == 1 or len(chunks) == 1:
            workers = 1
            for i, (lo, hi) in enumerate(chunks):
                rng = np.random.default_rng([seed, i])
                results[i] = play_games(
                    cfg,
                    loaded,
                    assign[lo:hi],
                    seeds[lo:hi],
                    rng,
                    progress=None if bar is None else bar.update,
                    record=save_logs if i == 0 else 0,
                )
        else:
            workers = min(workers, len(chunks))
            results = _run_parallel(
                cfg, agents, loaded, assign, seeds, chunks, seed, workers, bar, save_logs
            )
    finally:
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - start

    def gather(key: str) -> np.ndarray:
        return np.concatenate([results[i][key] for i in range(len(chunks))])

    res = TournamentResult(
        names=unique_names(loaded),
        config=cfg,
        seating=seating,
        schedule=schedule,
        seed=seed,
        deals=deals,
        assign=assign,
        deal=deal,
        delivered=gather("delivered"),
        cards=gather("cards"),
        turns=gather("turns"),
        truncated=gather("truncated"),
        elapsed=elapsed,
        workers=workers,
        command=command,
        games_requested=games,
    )
    res.compute_table()
    if save_logs:
        from mamma_mia_env.log import replay_events

        lo = chunks[0][0]
        for k, actions in enumerate(results[0].get("actions", [])):
            log = replay_events(cfg, int(seeds[lo + k]), actions)
            log["agents"] = [res.names[a] for a in assign[lo + k]]  # by seat
            res.logs.append(log)
    return res


def _run_parallel(
    cfg: Config,
    specs: list[Any],
    loaded: list[Any],
    assign: np.ndarray,
    seeds: np.ndarray,
    chunks: list[tuple[int, int]],
    seed: int,
    workers: int,
    bar: Any,
    save_logs: int = 0,
) -> dict[int, dict[str, np.ndarray]]:
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    # send import paths / names, not objects, where we can (spawned workers re-import)
    send = [s if isinstance(s, str) else obj for s, obj in zip(specs, loaded, strict=True)]
    results: dict[int, dict[str, np.ndarray]] = {}

    def drain() -> None:
        while True:
            try:
                k = q.get_nowait()
            except queue_mod.Empty:
                return
            if bar is not None:
                bar.update(k)

    with ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(q, cfg, send)
    ) as ex:
        pending = {
            ex.submit(_run_chunk, i, assign[lo:hi], seeds[lo:hi], seed, save_logs if i == 0 else 0)
            for i, (lo, hi) in enumerate(chunks)
        }
        try:
            while pending:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                drain()
                for f in done:
                    i, res = f.result()
                    results[i] = res
        except BrokenProcessPool as exc:
            names = ", ".join(repr(agent_name(a)) for a in loaded)
            raise AgentError(
                f"a worker process died while agents {names} were playing (an agent "
                "crashed the interpreter or called os._exit?); rerun with --workers 1 "
                "to see which"
            ) from exc
        except SystemExit as exc:  # pragma: no cover - _run_chunk turns it into AgentError
            raise AgentError(f"a worker process {_failure(exc)}") from exc
        finally:
            for f in pending:
                f.cancel()
        time.sleep(0.05)
        drain()
    return results
