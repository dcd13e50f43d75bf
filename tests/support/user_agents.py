"""Agents for the entry-point tests: a user's agent loaded by import path, a policy file
of one player count, and a spy.

``UserAgent`` is what a user writes: a class with ``act_batch``, loaded with
``load_agent("user_agents:UserAgent")`` (``tests/support`` is on the path).
``two_player_policy`` is a factory of ``PPOAgent`` on a 2-player policy file: it plays 2
players and is refused at the others, the way any one-count trained agent is.

``SeedSpy`` plays legal moves while trying, at every call, the known routes from what
it is handed to the seeds the games were dealt from:

* the generator: its seed sequence's entropy, spawn key and pool, the bit generator's
  state, and numbers drawn from generators rebuilt from any of these the way the
  project builds its own (``default_rng(material)``, ``SeedSequence(material)``);
* the seeds those lead to, compared with the real games' seeds directly, as a
  tournament seed (deal ``d`` of tournament seed ``s`` is engine seed ``s * 2**32 +
  d``) and as the deal they make (``Engine.reset(seeds=...)``: the hands dealt);
* the arrays it is handed: no record of the game (no structured dtype anywhere in
  their ``base`` chain), no memory shared with the real games;
* for ``needs_state``: every field of the state it is handed against the real game's:
  ``seed`` and ``rng`` must differ; each part the seat cannot see (``HIDDEN``: the other
  hands, the supply's live and drawn parts, the other seats' unseen orders in hand,
  every stack's unseen part, what the others drew this round) is tallied in ``same`` /
  ``total`` where more than one value is possible, and a tally far above chance is a
  leak (the tests bound it); a field in neither ``HIDDEN`` nor ``PUBLIC`` is a find
  (nobody has said who may see it).

To know the truth it does what an in-process agent can always do (SECURITY.md): it
walks the call stack to the real games in ``policy_actions``. What it finds through
the routes above is recorded in ``found`` and raised as a ``SpyFound`` error, so a leak
fails the entry point's own call (an ``OpponentError``, ``AgentError``, ...) wherever the spy
runs, in this process, a worker process or a Ray task.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from mamma_mia_agents import Agent, agent_factory
from mamma_mia_env import Engine, GameState
from mamma_mia_env.game.sampling import sample_worlds

_MASK64 = (1 << 64) - 1


class SpyFound(AssertionError):
    """The spy recovered something it must not (the message says what and how)."""


class UserAgent(Agent):
    """A user's agent: a uniformly random legal action (drawn from the given generator)."""

    name = "user"

    def act_batch(self, observations, masks, rng, seats=None):  # type: ignore[no-untyped-def]
        legal = np.asarray(masks) != 0
        u = rng.random(legal.shape) * legal
        return u.argmax(axis=1).astype(np.int64)


def ints(value: Any) -> list[int]:
    """Every integer in ``value`` (ints, arrays, nested sequences and dicts)."""
    if isinstance(value, (bool, np.bool_)):
        return []
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    if isinstance(value, np.ndarray):
        return [int(x) for x in value.ravel()] if value.dtype.kind in "iu" else []
    if isinstance(value, dict):
        return [i for v in value.values() for i in ints(v)]
    if isinstance(value, (list, tuple)):
        return [i for v in value for i in ints(v)]
    return []


def _truth() -> tuple[GameState, np.ndarray] | None:
    """The real games this call is about: ``state`` and ``rows`` of ``policy_actions``
    on the call stack (the spy's reference, not a route it is handed)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "policy_actions" and "rows" in frame.f_locals:
            state = frame.f_locals["state"]
            return GameState(state.config, state.data[frame.f_locals["rows"]]), frame.f_locals[
                "rows"
            ]
        frame = frame.f_back
    return None


class SeedSpy(UserAgent):
    """Plays like ``UserAgent``; tries every known route to the seeds (module doc).

    ``secret``: the seed the user gave the entry point (tournament seed, env seed, game seed),
    which no route may lead to either. ``needs_state``: ask for the state, as the
    search bot does."""

    name = "spy"

    def __init__(self, secret: int | None = None, needs_state: bool = False) -> None:
        self.secret = secret
        self.needs_state = needs_state
        self.calls = 0
        self.routes = 0  # candidate values tried
        self.same: dict[str, int] = {}  # needs_state: hidden parts equal to the real ones
        self.total: dict[str, int] = {}  # ... of the hidden parts compared
        self.found: list[str] = []
        self._engines: dict[Any, Engine] = {}

    # -- the entry points' calls -----------------------------------------------------------------
    def act_batch(self, observations, masks, rng, seats=None):  # type: ignore[no-untyped-def]
        truth = self._look(rng)
        for what, arr in (("observations", observations), ("masks", masks), ("seats", seats)):
            self._check_array(what, arr, truth)
        self._raise()
        return super().act_batch(observations, masks, rng, seats)

    def act_states(self, state: GameState, rng: np.random.Generator) -> np.ndarray:
        truth = self._look(rng)
        if truth is not None:
            self._check_world(state, truth[0])
        self._raise()
        masks = self._engine(state.config).legal_masks(state)
        return super().act_batch(None, masks, rng)

    # -- the routes -----------------------------------------------------------------------
    def _look(self, rng: np.random.Generator) -> tuple[GameState, np.ndarray] | None:
        self.calls += 1
        truth = _truth()
        if not isinstance(rng, np.random.Generator):
            self.found.append(f"the generator is a {type(rng).__name__}")
            return truth
        real = set() if truth is None else set(ints(truth[0].data["seed"]))
        candidates = self._generator_material(rng)
        derived = set(candidates)
        for c in candidates[:64]:
            derived |= self._rebuilt(c)
        self.routes += len(derived)
        self._compare(derived, real, truth)
        return truth

    def _generator_material(self, rng: np.random.Generator) -> list[int]:
        bg = rng.bit_generator
        out: list[int] = []
        seq = getattr(bg, "seed_seq", None) or getattr(bg, "_seed_seq", None)
        if seq is not None:
            for attr in ("entropy", "spawn_key", "pool", "n_children_spawned"):
                out += ints(getattr(seq, attr, None))
            if hasattr(seq, "generate_state"):
                out += ints(seq.generate_state(8, np.uint64))
        out += ints(bg.state)
        words = [w for c in out for w in (c & _MASK64, c >> 64 & _MASK64)]
        return list(dict.fromkeys(out + words))

    @staticmethod
    def _rebuilt(c: int) -> set[int]:
        """The seeds a generator rebuilt from ``c`` would draw (the learner env draws its
        game seeds as ``integers(0, 2**63)`` of ``default_rng(SeedSequence(seed))``)."""
        if c < 0:
            return set()
        rebuilt = np.random.default_rng(np.random.SeedSequence(c))
        return set(ints(rebuilt.integers(0, 2**63, size=16, dtype=np.uint64)))

    def _compare(self, derived: set[int], real: set[int], truth: Any) -> None:
        if self.secret is not None and self.secret in derived:
            self.found.append(f"the user's seed {self.secret} from the generator")
        if real & derived:
            self.found.append(f"game seeds {sorted(real & derived)[:3]} from the generator")
        # (0 and 1 are the generator's counters and flags, never evidence)
        tournament = {s >> 32 for s in real} - {0, 1}
        if tournament & derived:
            self.found.append(f"the tournament seed {sorted(tournament & derived)[:3]}")
        if truth is None:
            return
        # the deal: every derived value that is a seed, dealt, against the real deal
        # (the hands and the supply's order: hands alone, as counts, repeat by chance)
        state = truth[0]
        seeds = np.array(sorted(d for d in derived if 0 <= d <= _MASK64)[:256], np.uint64)
        if len(seeds):
            eng = self._engine(state.config)
            dealt, real_deal = eng.reset(seeds=seeds).data, eng.reset(seeds=state.data["seed"]).data
            same = np.ones((len(seeds), len(real_deal)), bool)
            for field in ("hand", "supply"):
                a, b = dealt[field], real_deal[field]
                same &= (a[:, None] == b[None]).reshape(len(seeds), len(b), -1).all(axis=2)
            if same.any():
                self.found.append("a derived seed deals the real game (hands and supply)")

    def _check_array(self, what: str, arr: Any, truth: Any) -> None:
        if arr is None:
            return
        if not isinstance(arr, np.ndarray):
            self.found.append(f"{what} is a {type(arr).__name__}, not an array")
            return
        base: Any = arr
        while base is not None:
            if isinstance(base, np.ndarray) and base.dtype.names is not None:
                self.found.append(f"{what} is a view of a game record ({base.dtype.names[:3]})")
            base = getattr(base, "base", None)
        if truth is not None and np.shares_memory(arr, truth[0].data):
            self.found.append(f"{what} shares memory with the games")

    def _check_world(self, world: Any, real: GameState) -> None:
        if not isinstance(world, GameState):
            self.found.append(f"the state is a {type(world).__name__}")
            return
        w, r = world.data, real.data
        if np.shares_memory(w, r):
            self.found.append("the state shares memory with the real games")
        if (w["seed"] == r["seed"]).any() or (w["rng"] == r["rng"]).any():
            self.found.append("the state holds the real game's seed or generator")
        unclassified = set(w.dtype.names or ()) - set(HIDDEN) - PUBLIC
        if unclassified:
            self.found.append(f"fields nobody classified as hidden or public: {unclassified}")
        n = real.config.num_players
        for g in range(len(r)):
            me = int(r["seat"][g])
            if not np.array_equal(w["hand"][g, me], r["hand"][g, me]):
                self.found.append("the state changed the spy's own hand")
            ctrl = sample_worlds(real[[g]], me, np.random.default_rng(g), 64).data
            for name, part in HIDDEN.items():
                pair = part(w[g], r[g], me, n, ctrl)
                if pair is not None:
                    self.total[name] = self.total.get(name, 0) + 1
                    self.same[name] = self.same.get(name, 0) + int(np.array_equal(*pair))

    def _engine(self, config: Any) -> Engine:
        if config not in self._engines:
            self._engines[config] = Engine(config)
        return self._engines[config]

    def _raise(self) -> None:
        if self.found:
            raise SpyFound("; ".join(dict.fromkeys(self.found)))


# -- what a seat cannot see, field by field ----------------------------------------------
Part = tuple[np.ndarray, np.ndarray] | None


def _live(rec: np.void) -> np.ndarray:
    return rec["supply"][rec["supply_pos"] : rec["supply_len"]]


def _many(ctrl: np.ndarray, field: str, rows: list[int]) -> bool:
    """Whether 64 worlds of the seat's own (``ctrl``) give 20 values or more of these
    rows of ``field``: where the seat knows too much for that (a seat that has counted
    the cards, a round whose supply it saw), a coincidence is no find."""
    return len({bytes(x[rows].tobytes()) for x in ctrl[field]}) >= 20


def _other_hands(w: np.void, r: np.void, me: int, n: int, ctrl: np.ndarray) -> Part:
    """The other seats' hands."""
    others = [s for s in range(n) if s != me]
    return (w["hand"][others], r["hand"][others]) if _many(ctrl, "hand", others) else None


def _ways(counts: Any) -> int:
    """In how many orders cards of these counts per kind can lie."""
    return math.factorial(sum(counts)) // math.prod(math.factorial(c) for c in counts)


def _supply_live(w: np.void, r: np.void, me: int, n: int, ctrl: np.ndarray) -> Part:
    """The supply's order, where it can lie in 20 orders or more."""
    enough = _ways(np.unique(_live(r), return_counts=True)[1].tolist()) >= 20
    return (_live(w), _live(r)) if enough else None


def _supply_drawn(w: np.void, r: np.void, me: int, n: int, ctrl: np.ndarray) -> Part:
    """The supply's drawn part: the cards dealt and drawn from it (the other seats' among
    them), and the Mamma Mia! card's old place."""
    drawn = r["supply"][: r["supply_pos"]]
    return (w["supply"][: r["supply_pos"]], drawn) if len(set(drawn.tolist())) > 1 else None


def _unseen_stack(rec: np.void, s: int) -> np.ndarray:
    """Seat ``s``'s stack above the failed orders everyone saw go under, top first."""
    top = int(rec["stack_len"][s] - rec["stack_known"][s])
    return np.array([rec["stack"][s, (rec["stack_head"][s] + j) % 8] for j in range(top)])


def _stacks(w: np.void, r: np.void, me: int, n: int, ctrl: np.ndarray) -> Part:
    """Every stack's unseen part (its owner knows the contents, nobody the order), where
    they can lie in 20 orders or more."""
    real = [_unseen_stack(r, s) for s in range(n)]
    if math.prod(math.factorial(len(x)) for x in real) < 20:
        return None
    return np.concatenate([_unseen_stack(w, s) for s in range(n)]), np.concatenate(real)


def _other_orders(w: np.void, r: np.void, me: int, n: int, ctrl: np.ndarray) -> Part:
    """Which unseen orders the other seats hold, where 20 choices or more are possible."""
    others = [s for s in range(n) if s != me]
    held = r["orders_hand"].sum(1) - r["orders_shown"].sum(1)
    if math.prod(_ways([int(held[s]), len(_unseen_stack(r, s))]) for s in others) < 20:
        return None
    return w["orders_hand"][others], r["orders_hand"][others]


def _other_draws(w: np.void, r: np.void, me: int, n: int, ctrl: np.ndarray) -> Part:
    """What the other seats drew this round (from round 2 on; blanked in round 1)."""
    others = [s for s in range(n) if s != me]
    if r["drawn"][others].sum() == 0 or not _many(ctrl, "drawn", others):
        return None
    return w["drawn"][others], r["drawn"][others]


#: The parts of a record its seat cannot see (the spy tallies them against the truth).
HIDDEN = {
    "hand": _other_hands,
    "supply": _supply_live,
    "supply (drawn part)": _supply_drawn,
    "stack": _stacks,
    "orders_hand": _other_orders,
    "drawn": _other_draws,
}
#: Fields every seat sees, or that hold only the game's layout: ``seed`` and ``rng`` are
#: checked on their own, ``stack_head`` only says where a stack starts in its buffer.
PUBLIC = {
    "seed", "rng", "stack_head", "stack_len", "stack_known", "orders_shown", "delivered",
    "supply_pos", "supply_len", "round_supply", "round_unseen", "played", "played_early",
    "piles", "used", "oven_who", "oven_what", "oven_s", "oven_d", "oven_len", "reveal_pos",
    "mm_holder", "round", "phase", "seat", "last_seat", "idle", "turns", "terminated",
    "truncated", "rewards",
}  # fmt: skip


@agent_factory
def two_player_policy() -> Agent:
    """``PPOAgent`` on the 2-player expert-iteration policy file (``POLICY_FILE[2]``)."""
    from helpers import POLICY_FILE

    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    return PPOAgent(POLICY_FILE[2])
