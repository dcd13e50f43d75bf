"""Expert iteration's data: the network's own positions, labelled by the search bot.

A network fitted to the search bot's games learns positions it will not reach itself,
and a network fitted to the search bot's single choice learns nothing of how close the
other moves were (the search's choices are noisy: near ties are decided by the luck of
the sampled worlds). So the network plays its own games against an opponent, and at
every decision of its seat with more than one legal action the labeller (a
:class:`~mamma_mia_agents.bots.search.SearchAgent`, usually with more worlds than the
bundled bot) values its candidates (the builder's best moves, plus the network's own
``extra_top`` most likely moves) over the same sampled worlds. ``distill.py`` fits the
network to a softmax of those values.

Each game is dealt twice, the network in each seat in turn (duplicate deals), by game
number: game ``g`` seats the network at ``g % num_players`` on deal ``g // num_players``.
The labeller and the opponent read the state only through their own entry points
(``act_states``, ``candidate_values``: sampled worlds, never the hidden cards), and
their generators are derived one way from the seed (``agent_rng``), never the deals'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["LabelJob", "label_games", "label_parallel"]

#: at most this many candidates are kept per position (the builder's 6, the network's
#: choices, and every reveal choice fit well inside it)
MAX_CANDIDATES = 16


@dataclass(frozen=True)
class LabelJob:
    """One worker's share of the labelled games (picklable: paths and numbers only)."""

    policy_path: str
    opponent: str
    labeller_worlds: int
    labeller_candidates: int
    extra_top: int
    num_players: int
    first_game: int
    games: int
    seed: int
    batch: int = 32


def deal_seeds(seed: int, deals: np.ndarray) -> np.ndarray:
    """The engine seed of each deal number (the same deal for both of its games)."""
    return np.array(
        [np.random.SeedSequence([seed, 17, int(d)]).generate_state(1, np.uint64)[0] for d in deals],
        dtype=np.uint64,
    )


def _top_actions(logits: np.ndarray, cmask: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` most likely legal canonical actions of each row (-1 pads)."""
    z = np.where(cmask, logits, -np.inf)
    order = np.argsort(-z, axis=1, kind="stable")[:, :k]
    legal = np.take_along_axis(cmask, order, axis=1)
    return np.where(legal, order, -1)


def read_policy(job: LabelJob) -> Any:
    """The network of ``job`` (read where the job starts: a cluster's nodes get the
    network, not a path on the driver's disk)."""
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

    return NumpyPolicy.load(job.policy_path)


class _Games:
    """One worker's players: the network, the opponent (through the one seat-policy
    loop) and the labeller, over one engine."""

    def __init__(self, job: LabelJob, policy: Any) -> None:
        from mamma_mia_agents import load_agent
        from mamma_mia_agents.bots.search import SearchAgent
        from mamma_mia_env import Config, Engine
        from mamma_mia_env.policy import observers_for

        config = Config(num_players=job.num_players)
        self.pol = policy
        if self.pol.num_players != job.num_players:
            raise ValueError(
                f"{job.policy_path}: a canonical {job.num_players}-player policy needed"
            )
        self.opponent = load_agent(job.opponent)
        self.opponent.check_config(config)
        self.labeller = SearchAgent(worlds=job.labeller_worlds, candidates=job.labeller_candidates)
        self.eng = Engine(config)
        self.observers = observers_for(config, [self.opponent], engines={"fixed": self.eng})
        self.job = job
        self.out: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "masks", "cands", "values")}

    def opponents_move(self, state: Any, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The opponent's actions in games ``rows`` (any agent, any observation mode)."""
        from mamma_mia_env.policy import policy_actions

        sub = state[rows]
        who = np.zeros(len(rows), np.int64)
        return policy_actions([self.opponent], who, sub, self.eng.legal_masks(sub), rng,
                              self.observers)  # fmt: skip

    def network_moves(
        self, state: Any, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """The network's most likely actions in games ``rows``, each decision with a
        choice labelled on the way."""
        canon = self.pol.canon
        sub = state[rows]
        cobs = canon.obs(self.eng.observe(sub), seats)
        cmask = canon.masks(self.eng.legal_masks(sub), seats) != 0
        top = _top_actions(self.pol.logits(cobs), cmask, max(1, self.job.extra_top))
        for j, g in enumerate(rows):
            if cmask[j].sum() >= 2:
                self.label(state[[g]], int(seats[j]), top[j, : self.job.extra_top], rng)
                self.out["obs"].append(cobs[j].astype(np.uint8))
                self.out["masks"].append(np.packbits(cmask[j]))
        return canon.to_env_actions(top[:, 0], seats)

    def label(self, game: Any, seat: int, extra: np.ndarray, rng: np.random.Generator) -> None:
        """The labeller's candidates and values for one game (the network's canonical
        choices ``extra`` among them), stored in the canonical frame."""
        from mamma_mia_env.policy import information_set

        canon = self.pol.canon
        extra = canon.to_env_actions(extra[extra >= 0], np.full((extra >= 0).sum(), seat))
        # what the seat knows, everything else re-dealt (as any search bot gets it)
        cands, values = self.labeller.candidate_values(information_set(game), rng, extra)
        k = min(len(cands), MAX_CANDIDATES)
        row_c = np.full(MAX_CANDIDATES, -1, np.int64)
        row_v = np.full(MAX_CANDIDATES, np.nan, np.float32)
        row_c[:k] = canon.to_canonical_actions(cands[:k], np.full(k, seat))
        row_v[:k] = values[:k]
        self.out["cands"].append(row_c)
        self.out["values"].append(row_v)


def label_games(
    job: LabelJob, policy: Any = None, report: Callable[[int], None] | None = None
) -> dict[str, np.ndarray]:
    """Play ``job.games`` games (numbered from ``job.first_game``) with ``policy`` (default:
    ``job.policy_path`` read) and label the network's decisions; ``report(k)``: ``k`` more
    games done. Returns ``obs`` (uint8 canonical observations), ``masks`` (bit-packed
    canonical masks), ``cands`` (canonical candidate actions, -1 padded), ``values``
    (their mean rollout values, NaN padded), and ``wins`` (the network's win share of
    each game: how it played while being labelled)."""
    from mamma_mia_env.game.outcome import delivered_and_cards, win_shares
    from mamma_mia_env.game.record import OVER
    from mamma_mia_env.plumbing.seeding import agent_rng

    games = _Games(job, read_policy(job) if policy is None else policy)
    n = job.num_players
    wins: list[np.ndarray] = []
    end = job.first_game + job.games
    for lo in range(job.first_game, end, job.batch):
        ids = np.arange(lo, min(lo + job.batch, end))
        me = ids % n
        state = games.eng.reset(seeds=deal_seeds(job.seed, ids // n))
        opp_rng = agent_rng(f"expert iteration opponent {lo}", job.seed)
        lab_rng = agent_rng(f"expert iteration labeller {lo}", job.seed)
        while (live := state.data["phase"] != OVER).any():
            seat = state.data["seat"].astype(np.int64)
            acts = np.zeros(len(ids), np.int64)
            mine = np.flatnonzero(live & (seat == me))
            theirs = np.flatnonzero(live & (seat != me))
            if len(theirs):
                acts[theirs] = games.opponents_move(state, theirs, opp_rng)
            if len(mine):
                acts[mine] = games.network_moves(state, mine, seat[mine], lab_rng)
            games.eng.step(state, acts, active=live)
        delivered, cards = delivered_and_cards(state.data, n)
        wins.append(win_shares(delivered, cards)[np.arange(len(ids)), me])
        if report is not None:
            report(len(ids))
    res = {k: np.stack(v) if v else np.zeros((0,)) for k, v in games.out.items()}
    res["wins"] = np.concatenate(wins)
    return res


def _label_block(policy: Any, job: LabelJob, report: Callable[[int], None]) -> dict[str, Any]:
    return label_games(job, policy, report)


def _shared(policy: Any) -> Any:
    return policy


def label_parallel(
    job: LabelJob, workers: int, progress: bool = True, backend: str = "local"
) -> dict[str, np.ndarray]:
    """:func:`label_games` fanned out by blocks of ``job.batch`` games (``fanout``: in
    ``workers`` processes, or as Ray tasks on the Ray instance this process is connected
    to, ``fanout.session``): the same games
    and labels as one process, since every block's generators are keyed by its first
    game number. The progress bar counts labelled games."""
    from tqdm.auto import tqdm

    from mamma_mia_agents.tournament.fanout import Job, fan_out

    blocks = [
        (lo, min(job.batch, job.first_game + job.games - lo))
        for lo in range(job.first_game, job.first_game + job.games, job.batch)
    ]
    jobs = [LabelJob(**{**job.__dict__, "first_game": lo, "games": b}) for lo, b in blocks]
    work = Job(_shared, _label_block, read_policy(job))
    with tqdm(total=job.games, desc="labelled games", unit="game", disable=not progress) as bar:
        parts = fan_out(work, jobs, backend, workers, bar=bar)
    return {k: np.concatenate([p[k] for p in parts if len(p[k])]) for k in parts[0]}
