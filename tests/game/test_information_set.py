"""The information set a seat is handed hides everything and keeps everything.

``sample_world`` / ``sample_worlds`` (what ``policy.information_set`` gives a
``needs_state`` agent) over reachable positions of every player count, every seat:

(a) **keeps**: every fact the seat learnt over the game, rebuilt here from the event
    log independently of the engine (which failed order went under which stack, in what
    order; which of those came back into hand), holds in every sampled world, and the
    seat's observation of the world (both modes; its legal moves when it acts) is the
    real one;
(b) **hides**: every hidden field varies over the samples wherever more than one value
    is consistent, nothing real is left where the seat cannot see (the supply's drawn
    part, the oven's past rounds, the generator), and a spy that names another seat's
    card from its world does no better than chance (a paired test with a stated bound).

Over 10,000 sampled worlds in all (``test_enough_worlds`` counts them).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from math import sqrt

import numpy as np
import pytest
from helpers import random_legal

from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.game.cards import (
    INGREDIENTS,
    MAMMA_MIA,
    N_CARD_TYPES,
    N_KINDS,
    N_ORDER_TYPES,
    order_name,
)
from mamma_mia_env.game.log import load_log, replay_events
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.sampling import sample_world, sample_worlds
from mamma_mia_env.game.state import check_state

CONFIGS = [
    dict(num_players=2),
    dict(num_players=3, double_ingredients=True),
    dict(num_players=4, mamma_mia_in_deal=True, pass_may_play_order=True),
    dict(num_players=5, double_ingredients=True, mamma_mia_in_deal=True, strict_minimale=True),
]
GAMES = 6  # per config
EVERY = 4  # a position every 4th action
KEPT = 2  # worlds per position and seat in (a)
VARY_POSITIONS, VARY_WORLDS = 6, 2000  # positions per config and worlds per seat in (b)
SPY_ROUNDS = 8  # independent worlds per position in the spy's test

#: The spy's bound: the paired t statistic of its hits less chance's (``_t``); with
#: hundreds of guesses it is close to normal under "the world tells nothing about the
#: real cards", and P(t >= 4) < 4e-5.
T_BOUND = 4.0


_CODES = {name: k for k, name in enumerate(INGREDIENTS)}
_CODES.update({"double " + name: N_KINDS + k for k, name in enumerate(INGREDIENTS)})


@dataclass
class Memory:
    """What the seats saw of the public play, rebuilt from the event log: the order
    stacks (every seat's) and this round's ingredient cards (``drawn``: each seat's
    own secret, the others only count them)."""

    n: int
    known: list[list[int]] = field(default_factory=list)  # under each stack, top first
    shown: list[set[int]] = field(default_factory=list)  # drawn back into hand
    pools: bool = False  # the round's supply is made of used cards only
    supply: np.ndarray = field(default_factory=lambda: np.zeros(N_CARD_TYPES, np.int64))
    drawn: np.ndarray = field(default_factory=lambda: np.zeros((5, N_CARD_TYPES), np.int64))
    played: np.ndarray = field(default_factory=lambda: np.zeros((5, N_CARD_TYPES), np.int64))
    early: np.ndarray = field(default_factory=lambda: np.zeros((5, N_CARD_TYPES), np.int64))
    used: np.ndarray = field(default_factory=lambda: np.zeros(N_CARD_TYPES, np.int64))

    def __post_init__(self) -> None:
        self.known = [[] for _ in range(self.n)]
        self.shown = [set() for _ in range(self.n)]

    def copy(self) -> Memory:
        return copy.deepcopy(self)

    def stacks(self, before: np.void, after: np.void, event: dict, names: dict) -> None:
        """A failed order goes under its owner's stack in everyone's sight (R4); draws
        take a stack's top, so once a stack is shorter than its known bottom, those
        orders are known to be in hand until played."""
        pushed: list[list[int]] = [[] for _ in range(self.n)]
        for o in event.get("reveal", []):
            if not o["delivered"]:
                pushed[o["seat"]].append(names[(o["seat"], o["order"])])
        for s in range(self.n):
            drawn = int(before["stack_len"][s]) + len(pushed[s]) - int(after["stack_len"][s])
            left = int(before["stack_len"][s]) - drawn  # the draws come before the reveal
            while len(self.known[s]) > left:
                self.shown[s].add(self.known[s].pop(0))
            self.shown[s] = {t for t in self.shown[s] if after["orders_hand"][s, t]}  # played
            self.known[s] += pushed[s]

    def cards(self, before: np.void, after: np.void, event: dict) -> None:
        """Cards drawn from the supply (the drawer sees them), played to the oven and
        taken in the reveal (everyone sees them); a new round's supply is the used
        cards, plus the old supply's rest when the idle guard ended the round."""
        seat = int(before["seat"])
        for o in event.get("reveal", []):
            for name, count in o["from_hand"].items():
                self.played[o["seat"], _CODES[name]] += count
            for name, count in o["cards_taken"].items():
                self.used[_CODES[name]] += count
        if after["round"] != before["round"]:
            leftover = after["supply_len"] - 1 - self.used.sum()  # the Mamma Mia! card: 1
            self.pools, self.supply = leftover == 0, self.used.copy()
            self.used[:], self.drawn[:], self.played[:], self.early[:] = 0, 0, 0, 0
            return
        first = self.drawn[seat].sum() == 0  # a turn plays, then draws
        for i in range(before["oven_len"], after["oven_len"]):
            if after["oven_what"][i] < N_KINDS:
                k = after["oven_what"][i]
                for played in (self.played, self.early) if first else (self.played,):
                    played[seat, k] += after["oven_s"][i]
                    played[seat, N_KINDS + k] += after["oven_d"][i]
        for c in before["supply"][before["supply_pos"] : after["supply_pos"]]:
            if c != MAMMA_MIA:
                self.drawn[seat, c] += 1


@dataclass
class Position:
    record: np.ndarray  # a state_dtype record
    memory: Memory


def _play(cfg: Config, seed: int) -> list[int]:
    """A random game's actions."""
    eng = Engine(cfg)
    state = eng.reset(seeds=[seed])
    rng = np.random.default_rng(seed)
    actions = []
    while state.data["phase"][0] != OVER:
        a = random_legal(eng.legal_masks(state), rng)
        actions.append(int(a[0]))
        eng.step(state, a)
    return actions


def _positions(cfg: Config, seed: int) -> list[Position]:
    """Every ``EVERY``-th position of a random game with the seats' memory, replayed
    from the game's event log."""
    actions = _play(cfg, seed)
    n = cfg.num_players
    log = load_log(replay_events(cfg, seed, actions))
    states, events = log["_states"], log["events"]
    names = {(s, order_name(t, s)): t for s in range(n) for t in range(N_ORDER_TYPES)}
    memory = Memory(n)
    out = []
    for i, event in enumerate(events):
        before, after = states[i], states[i + 1]
        if i % EVERY == 2:
            out.append(Position(before.copy(), memory.copy()))
        memory.stacks(before, after, event, names)
        memory.cards(before, after, event)
    return out


_CACHE: dict[int, list[Position]] = {}


def positions(k: int) -> list[Position]:
    if k not in _CACHE:
        cfg = Config(**CONFIGS[k])
        _CACHE[k] = [p for g in range(GAMES) for p in _positions(cfg, 100 * k + g)]
    return _CACHE[k]


def _stack(rec: np.void | np.ndarray, s: int) -> list[int]:
    """Seat ``s``'s stack, top first."""
    head, size = int(rec["stack_head"][s]), int(rec["stack_len"][s])
    return [int(rec["stack"][s, (head + j) % N_ORDER_TYPES]) for j in range(size)]


@pytest.mark.parametrize("k", range(len(CONFIGS)))
def test_the_engine_keeps_the_stack_facts(k: int) -> None:
    """The record's public facts (stacks, this round's supply and cards put out) and
    each seat's draws are what the log says the seats saw."""
    n = CONFIGS[k]["num_players"]
    failed = pools = 0
    for p in positions(k):
        for s in range(n):
            assert p.record["stack_known"][s] == len(p.memory.known[s])
            stack = _stack(p.record, s)
            assert stack[len(stack) - len(p.memory.known[s]) :] == p.memory.known[s]
            assert set(np.flatnonzero(p.record["orders_shown"][s])) == p.memory.shown[s]
            failed += len(p.memory.known[s]) + len(p.memory.shown[s])
        assert (p.record["drawn"][:n] == p.memory.drawn[:n]).all()
        assert (p.record["played"][:n] == p.memory.played[:n]).all()
        assert (p.record["played_early"][:n] == p.memory.early[:n]).all()
        assert (p.record["round_unseen"] == 0) == p.memory.pools
        if p.memory.pools:
            assert (p.record["round_supply"] == p.memory.supply).all()
            pools += 1
    assert failed > 20 and pools > 10  # orders fail and come back; rounds 2-3 are reached


@pytest.mark.parametrize("k", range(len(CONFIGS)))
def test_a_world_keeps_everything_the_seat_saw(k: int) -> None:
    """(a) At every position, for every seat, in 2 worlds each: the seat's observation
    (both modes) and legal moves are the real ones, and every stack fact of its memory
    holds (the failed orders under their stacks in order, the shown ones in hand)."""
    cfg = Config(**CONFIGS[k])
    n = cfg.num_players
    pos = positions(k)
    real = GameState(cfg, np.stack([p.record for p in pos]))
    engines = {m: Engine(cfg.replace(observation_mode=m)) for m in ("fixed", "top_card")}
    rng = np.random.default_rng(k)
    for seat in range(n):
        seats = np.full(real.batch_size, seat)
        for _ in range(KEPT):
            world = sample_world(real, seats, rng)
            assert check_state(world) == []
            for eng in engines.values():
                assert (eng.observe(world, seats) == eng.observe(real, seats)).all()
            acting = real.data["seat"] == seat
            eng = engines["fixed"]
            assert (eng.legal_masks(world)[acting] == eng.legal_masks(real)[acting]).all()
            for g, p in enumerate(pos):
                w = world.data[g]
                for s in range(n):
                    stack = _stack(w, s)
                    assert stack[len(stack) - len(p.memory.known[s]) :] == p.memory.known[s]
                    assert all(w["orders_hand"][s, t] for t in p.memory.shown[s])
                    if s == seat:  # its own stack: the same orders
                        assert sorted(stack) == sorted(_stack(p.record, s))
                _check_pools(p, seat, n, w)
    assert real.batch_size > 50


def _check_pools(p: Position, me: int, n: int, w: np.ndarray) -> None:
    """From round 2 on (a supply of used cards only): the live supply holds only cards of
    the round's supply that ``me`` did not draw; the others drew the rest, as many each
    as they did; and each of them held, at the round's start, the cards it holds now
    plus those it put out less those it drew (among them those put out before its first
    draw): unseen cards that were not in the supply."""
    if not p.memory.pools:
        return
    rec, mem = p.record, p.memory
    others = [s for s in range(n) if s != me]
    left = p.memory.supply - mem.drawn[me]
    live = np.bincount(_live(w), minlength=N_CARD_TYPES + 1)[:N_CARD_TYPES]
    assert (w["drawn"][others].sum(0) + live == left).all()
    assert (w["drawn"][others].sum(1) == mem.drawn[others].sum(1)).all()
    start = w["hand"][others] + mem.played[others] - w["drawn"][others]
    assert (start >= mem.early[others]).all()  # put out before drawing: from that hand
    real_start = rec["hand"][others] + mem.played[others] - mem.drawn[others]
    assert (start.sum(0) == real_start.sum(0)).all()  # the unseen cards not in the supply
    assert (start.sum(1) == real_start.sum(1)).all()  # each seat's hand size then


def _live(rec: np.ndarray) -> np.ndarray:
    return rec["supply"][rec["supply_pos"] : rec["supply_len"]].astype(np.int64)


def _unseen_cards(rec: np.ndarray, me: int, n: int) -> np.ndarray:
    """Counts of the ingredient cards ``me`` has not seen (other hands, live supply)."""
    counts = np.zeros(N_CARD_TYPES, np.int64)
    for s in range(n):
        if s != me:
            counts += rec["hand"][s]
    for c in rec["supply"][rec["supply_pos"] : rec["supply_len"]]:
        if c != MAMMA_MIA:
            counts[c] += 1
    return counts


def _hidden_orders(rec: np.ndarray, mem: Memory, s: int) -> tuple[set[int], int, int]:
    """Seat ``s``'s orders nobody else knows the place of, how many of them are in hand,
    how many in the stack."""
    in_oven = {
        int(rec["oven_what"][i]) - N_KINDS
        for i in range(rec["reveal_pos"], rec["oven_len"])
        if rec["oven_who"][i] == s and rec["oven_what"][i] >= N_KINDS
    }
    pool = {
        t
        for t in range(N_ORDER_TYPES)
        if not rec["delivered"][s, t]
        and t not in in_oven
        and t not in mem.known[s]
        and t not in mem.shown[s]
    }
    held = int(rec["orders_hand"][s].sum()) - len(mem.shown[s])
    return pool, held, int(rec["stack_len"][s]) - len(mem.known[s])


def _card_places(p: Position, me: int, n: int) -> tuple[list, list, np.ndarray, np.ndarray]:
    """For each seat, the unseen card types it may hold (at most, at least) and how
    many of each type may lie in the supply (at most, surely). One pool (round 1): every unseen card
    anywhere. Two pools: a seat holds cards of its hand at the round's start (unseen
    cards not in the supply) and of its draws (the supply less ``me``'s draws); a type
    surely can be there when, with all cards put out this round taken from that pool,
    one is left, and the seat has room beyond its own cards put out."""
    rec, mem = p.record, p.memory
    unseen = _unseen_cards(rec, me, n)
    if not mem.pools:
        every = set(np.flatnonzero(unseen))
        return [every] * n, [every] * n, unseen, unseen
    others = [s for s in range(n) if s != me]
    new = mem.supply - mem.drawn[me]
    old = unseen - new + mem.played[others].sum(0)
    spare_old = old - mem.played[others].sum(0)
    spare_new = new - mem.played[others].sum(0)
    most, least = [], []
    for s in range(n):
        d = mem.drawn[s].sum()
        a = rec["hand"][s].sum() - d + mem.played[s].sum()
        put = mem.played[s].sum()
        most.append(set(np.flatnonzero((old > 0) * (a > 0) | (new > 0) * (d > 0))))
        least.append(set(np.flatnonzero((spare_old > 0) * (a > put) | (spare_new > 0) * (d > put))))
    return most, least, new, np.maximum(spare_new, 0)


def _check_varies(p: Position, me: int, n: int, d: np.ndarray) -> None:
    """Every hidden field of the worlds ``d`` takes every value it consistently can."""
    rec = p.record
    most, least, supply_most, supply = _card_places(p, me, n)
    lo, hi = int(rec["supply_pos"]), int(rec["supply_len"])
    for s in range(n):
        if s != me and rec["hand"][s].sum() > 0:
            held = set(np.flatnonzero(d["hand"][:, s].sum(0)))
            assert least[s] <= held <= most[s], ("hand", s)
    if hi > lo:
        common = set(np.flatnonzero(supply >= 0.02 * supply.sum()))  # >= 40 of 2,000 expected
        for i in range(lo, hi):  # every live place takes every unseen card, nothing else
            cards = set(d["supply"][:, i].tolist()) - {MAMMA_MIA}
            assert common <= cards <= set(np.flatnonzero(supply_most)), ("supply", i)
        if rec["mm_holder"] < 0 and hi - lo > 1:  # and the Mamma Mia! card
            places = set(np.flatnonzero((d["supply"][:, lo:hi] == MAMMA_MIA).any(0)))
            assert places == set(range(hi - lo)), "Mamma Mia! card"
    for s in range(n):
        pool, held, top = _hidden_orders(rec, p.memory, s)
        if s == me:
            held = 0
            pool = set(_stack(rec, s)[:top])
        if held + top < 2 or len(pool) < 2:
            continue  # one place or one order: nothing to vary
        for t in pool:
            if held:
                assert d["orders_hand"][:, s, t].any(), ("order in hand", s, t)
            for j in range(top):  # stack_head is 0 in a world
                assert (d["stack"][:, s, j] == t).any(), ("stack place", s, j, t)
    assert (d["supply"][:, :lo] == 0).all(), "the supply's drawn part holds cards"
    assert (d["oven_what"][:, rec["oven_len"] :] == 0).all(), "the oven's past rounds"
    assert len(set(d["seed"].tolist())) == len(d) and (d["seed"] != rec["seed"]).all()


@pytest.mark.parametrize("k", range(len(CONFIGS)))
def test_b_every_hidden_field_varies(k: int) -> None:
    """(b) From positions of each game, each seat's 2,000 worlds put every hidden card and
    order in every place it consistently can be, and leave nothing real behind."""
    cfg = Config(**CONFIGS[k])
    pos = positions(k)
    rng = np.random.default_rng(10 + k)
    picks = np.linspace(0, len(pos) - 1, VARY_POSITIONS).astype(int)
    for i in picks:
        one = GameState(cfg, pos[i].record[None].copy())
        for me in range(cfg.num_players):
            worlds = sample_worlds(one, me, rng, VARY_WORLDS)
            _check_varies(pos[i], me, cfg.num_players, worlds.data)


def _guesses(world: np.ndarray, real: np.ndarray, me: int, n: int) -> np.ndarray:
    """The spy's hits: for each other seat, the card it holds most of in ``world`` and
    the lowest hidden order there, each checked against the real hand (1 hit, 0 miss,
    -1 no guess)."""
    out = []
    for s in range(n):
        if s == me:
            continue
        hand = world["hand"][s]
        out.append(int(real["hand"][s, hand.argmax()] > 0) if hand.sum() else -1)
        hidden = (world["orders_hand"][s] > 0) & (world["orders_shown"][s] == 0)
        out.append(int(real["orders_hand"][s, hidden.argmax()]) if hidden.any() else -1)
    return np.array(out)


def _t(hits: np.ndarray, chance: np.ndarray) -> tuple[float, int]:
    """The paired t statistic of the spy's hits less chance's (the mean hit of the same
    guess from ``SPY_ROUNDS`` independent worlds), over the guesses it could make (the
    same in every world: they depend on hand sizes only); and their number. Given the
    real games, the worlds of different positions are independent, so are the pairs."""
    ok = hits >= 0
    diff = hits[ok] - chance[:, ok].mean(axis=0)
    sd = float(diff.std(ddof=1))
    return float(diff.mean()) / (sd / sqrt(len(diff))) if sd > 0 else 0.0, len(diff)


def _spy_guesses(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Config ``k``'s guesses from the world the spy is handed, from ``SPY_ROUNDS``
    independent worlds, and from the real game."""
    cfg = Config(**CONFIGS[k])
    n = cfg.num_players
    real = GameState(cfg, np.stack([p.record for p in positions(k)]))
    seats = real.data["seat"].astype(np.int64)

    def guesses(world: GameState) -> np.ndarray:
        return np.concatenate(
            [_guesses(world.data[g], real.data[g], int(seats[g]), n) for g in range(len(seats))]
        )

    spy = guesses(sample_world(real, seats, np.random.default_rng(0)))
    rng = np.random.default_rng(1000 + k)
    chance = np.stack([guesses(sample_world(real, seats, rng)) for _ in range(SPY_ROUNDS)])
    return spy, chance, guesses(real)


def test_b_a_spy_names_no_card_better_than_chance() -> None:
    """(b) A spy names each other seat's most-held card and a hidden order from the world
    it is handed (``information_set``'s fixed generator), at every position of every
    config; chance is the same guess from independent worlds of the same information
    set. Its excess of hits must stay within ``T_BOUND``; handed the real game, the same
    test catches it."""
    parts = [_spy_guesses(k) for k in range(len(CONFIGS))]
    spy, cheat = (np.concatenate([p[i] for p in parts]) for i in (0, 2))
    chance = np.concatenate([p[1] for p in parts], axis=1)
    t, pairs = _t(spy, chance)
    assert pairs > 2000 and t < T_BOUND, f"the spy beats chance: t = {t:.2f} over {pairs} guesses"
    assert _t(cheat, chance)[0] > T_BOUND  # the test has the power to see a leak


def test_worlds_depend_on_nothing_the_seat_cannot_see() -> None:
    """Scrambling every hidden part of a state (hands, supply incl. its drawn part,
    stacks' unknown parts, the oven's past rounds, seed and generator) changes no
    sample: equal worlds from the same generator."""
    cfg = Config(**CONFIGS[3])
    pos = positions(3)
    real = GameState(cfg, np.stack([p.record for p in pos]))
    rng = np.random.default_rng(5)
    for me in range(cfg.num_players):
        other = sample_world(real, me, rng)  # other hidden cards, same information set
        d = other.data
        d["supply"][:, :] = np.where(
            np.arange(d["supply"].shape[1]) < d["supply_pos"][:, None],
            rng.integers(0, 10, d["supply"].shape),
            d["supply"],
        )
        past = np.arange(d["oven_what"].shape[1]) >= d["oven_len"][:, None]
        d["oven_what"][past] = rng.integers(0, 13, past.sum())
        d["oven_who"][past] = rng.integers(0, cfg.num_players, past.sum())
        a = sample_world(real, me, np.random.default_rng(9))
        b = sample_world(other, me, np.random.default_rng(9))
        assert a.equals(b)


def test_enough_worlds() -> None:
    """The tests above check more than 10,000 sampled worlds over 2-5 players."""
    total = 0
    for k, kw in enumerate(CONFIGS):
        n, count = kw["num_players"], len(positions(k))
        total += n * KEPT * count + n * VARY_POSITIONS * VARY_WORLDS + (SPY_ROUNDS + 1) * count
    assert total >= 10_000, total
