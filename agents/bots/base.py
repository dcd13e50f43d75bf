"""The agent interface: one game with ``act``, many games at once with ``act_batch``.

An agent is a policy: a function of what one seat may know (the observation vector of
``mamma_mia_env``), the legal-action mask and a random generator. Bundled agents keep
no state between calls (the ``fixed`` observation already carries the round's public
oven history), so one agent object can play any number of games and seats at once.

    class MyBot(Agent):
        name = "mybot"

        def act_batch(self, observations, masks, rng, seats=None):
            return masks.argmax(axis=1)          # the first legal action of every game

* ``observations``: ``(B, obs_dim)``, from ``Engine.observe(state)`` (uint8 in the
  ``fixed`` layout, float32 in the others);
* ``masks``: ``(B, n_actions)`` int8, from ``Engine.legal_masks(state)``;
* ``rng``: a ``numpy.random.Generator``;
* ``seats``: ``(B,)`` the acting seat of each game (seat *s* owns personal ingredient
  *s*). The observation itself is seat-relative and does not name the seat, so
  anything that reads the meaning of an order card (types 0-3 depend on the owner's
  personal ingredient) needs it; the tournament always passes it.

Returns ``(B,)`` integer actions. ``act`` is the same for one game (``(obs_dim,)``,
``(n_actions,)``, a seat int) and returns an int. Implement either one: the base class
derives the other. The two agree: ``act(o, m, rng, s)`` equals
``act_batch(o[None], m[None], rng, [s])[0]``, and a batch equals its rows acted one by
one with the same generator (the bundled agents draw their random numbers row by row).

``observation_mode`` names the observation an agent needs: ``"fixed"`` (perfect memory:
the default) or ``"top_card"`` (only what a player sees without memory); both are uint8
of one size for 2-5 players. The tournament observes each game in the mode its acting
agent asks for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from mamma_mia_agents.compiled.batch import check_values
from mamma_mia_agents.compiled.tables import KernelBot
from mamma_mia_env.game.actions import n_turn_actions
from mamma_mia_env.game.cards import N_REVEAL_ACTIONS, order_need_table, play_table
from mamma_mia_env.game.config import OBSERVATION_MODES, PARAMETERS, Config
from mamma_mia_env.game.observe import observation_size, observation_slices
from mamma_mia_env.game.record import MAX_SEATS
from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_array, as_int

#: the observation mode of each observation size (one size for every player count)
MODE_OF_SIZE = {observation_size(mode): mode for mode in OBSERVATION_MODES}
#: the seat slots flagged present: the first section of every mode
SEATS_PRESENT = observation_slices("fixed")["seat_present"]


class Agent:
    """Base class of all agents; subclasses override ``act_batch``, ``act``, or
    ``decide`` (a batch checked by ``act_batch``, as the bundled bots do)."""

    #: Short name used in tables and on the command line.
    name: str = "agent"
    #: The observation the agent reads: "fixed" (perfect memory) or "top_card" (no
    #: memory), both of one size for 2-5 players.
    observation_mode: str = "fixed"
    #: A search bot: it reads the game state (``act_states``), never observations.
    needs_state: bool = False
    #: Whether ``act_batch`` checks the observations' values before ``decide`` (False
    #: for a kernel that checks each row as it reads it).
    check_values: bool = True
    #: Why ``decide`` needs the acting seats (said when ``act_batch`` gets none).
    seats_because: str = "the observation does not say which seat acts"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.observation_mode not in OBSERVATION_MODES:
            raise TypeError(
                f"{cls.__name__}.observation_mode must be one of {OBSERVATION_MODES}, "
                f"got {cls.observation_mode!r}"
            )

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        rng: np.random.Generator,
        seat: int | None = None,
    ) -> int:
        """One action for one game."""
        if not self._batched():
            raise NotImplementedError(f"{type(self).__name__} must override act or act_batch")
        seats = None if seat is None else np.array([as_int(seat, "seat")], dtype=np.int64)
        out = self.act_batch(
            np.asarray(observation)[None], np.asarray(action_mask)[None], rng, seats
        )
        return int(out[0])

    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        seats: np.ndarray | None = None,
    ) -> np.ndarray:
        """One action per game. A bot that implements ``decide`` gets the batch checked
        (``check_batch``, the acting seats required); the default calls ``act`` row by
        row; a search bot (``needs_state``) is asked through ``act_states`` only."""
        if self.needs_state:
            raise TypeError(
                f"{type(self).__name__} is a search bot and needs the game state: use "
                "act_states(state, rng) (the tournament and the CLI do)"
            )
        if type(self).decide is not Agent.decide:
            info, seats = check_batch(observations, masks, seats, values=self.check_values)
            if seats is None:
                raise ValueError(
                    f"{type(self).__name__} needs the acting seats (act_batch(..., "
                    f"seats=...)): {self.seats_because}"
                )
            return self.decide(Batch(np.asarray(observations), np.asarray(masks), seats, info), rng)
        if type(self).act is Agent.act:
            raise NotImplementedError(f"{type(self).__name__} must override act or act_batch")
        out = np.empty(len(observations), dtype=np.int64)
        for i in range(len(observations)):
            seat = None if seats is None else int(seats[i])
            out[i] = self.act(observations[i], masks[i], rng, seat)
        return out

    def decide(self, batch: Batch, rng: np.random.Generator) -> np.ndarray:
        """The actions of a checked batch (the bundled bots; ``act_batch`` calls it)."""
        raise NotImplementedError

    @classmethod
    def _batched(cls) -> bool:
        """Whether ``act_batch`` answers without ``act`` (overridden, or by ``decide``)."""
        overridden = cls.act_batch is not Agent.act_batch or cls.decide is not Agent.decide
        return overridden or cls.needs_state

    def check_config(self, config: Config) -> None:
        """Raise ``ValueError`` naming why this agent cannot play games of ``config``.

        Hand-written bots play every configuration; a trained policy only the player
        count and deck it was trained for. Tournaments call this before the first game.
        """

    def kernel_bot(self) -> KernelBot | None:
        """This agent as plain arrays for the compiled game loop (``compiled.play_out``:
        tournaments and search rollouts), or None if it has no compiled twin.

        The bots translate themselves into kernel arguments, so the kernels never import
        an agent class. Only the random and heuristic bots have one."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


#: Every player count the game has (2-5), from the rules' declaration.
PLAYER_COUNTS: tuple[int, ...] = tuple(
    next(p.allowed for p in PARAMETERS if p.name == "num_players") or ()
)


def player_counts(agent: object, rules: Mapping[str, Any] | None = None) -> dict[int, str | None]:
    """Each player count -> ``None`` if ``agent`` plays it under ``rules`` (Config
    fields other than ``num_players``), else the agent's own reason why not.

    The agent answers through its ``check_config`` (a trained agent from the policy
    files it finds, a bot without one plays every count), so the commands that list or
    offer agents never keep a list of their own."""
    check = getattr(agent, "check_config", None)
    out: dict[int, str | None] = {}
    for n in PLAYER_COUNTS:
        try:
            config = Config.from_kwargs(**{**(rules or {}), "num_players": n})
            if check is not None:
                check(config)
            out[n] = None
        except ValueError as exc:  # a ConfigError too
            out[n] = str(exc) or type(exc).__name__
    return out


# -- reading observations and actions -----------------------------------------------------
@dataclass(frozen=True, eq=False)
class Batch:
    """A checked ``act_batch`` call: what ``decide`` reads."""

    observations: np.ndarray  # (B, obs_dim)
    masks: np.ndarray  # (B, n_actions)
    seats: np.ndarray  # (B,) int64: the acting seat of each game
    info: GameInfo  # what the shapes say about the game


@dataclass(frozen=True, eq=False)
class GameInfo:
    """What the shapes of an observation and a mask say about the game.

    ``obs_dim`` fixes the player count and the observation mode, ``n_actions`` whether
    double ingredients are in play; so agents need no set-up call.
    """

    num_players: int
    observation_mode: str
    double_ingredients: bool
    slices: dict[str, slice]
    play: np.ndarray  # (n_play, 3): kind, singles, doubles; row 0 = pass
    n_play: int
    n_turn_actions: int
    n_actions: int
    need: np.ndarray  # (5 personal, 5 simple types, 5 kinds)


@lru_cache(maxsize=64)
def game_info(obs_dim: int, n_actions: int, seats_present: int = 0) -> GameInfo:
    """The ``GameInfo`` of observations of size ``obs_dim`` and masks of ``n_actions``;
    each mode has one size for every count, so the count is ``seats_present`` (the
    rows' ``seat_present`` flags, counted by ``check_batch``)."""
    mode, n = MODE_OF_SIZE.get(obs_dim), seats_present
    if mode is None or not 2 <= n <= MAX_SEATS:
        raise ValueError(
            f"observations: no Mamma Mia! observation has size {obs_dim} (one row per game)"
        )
    for doubles in (False, True):
        play = play_table(doubles)
        n_turn = int(n_turn_actions(play.shape[0]))
        if n_turn + N_REVEAL_ACTIONS == n_actions:
            return GameInfo(
                num_players=n,
                observation_mode=mode,
                double_ingredients=doubles,
                slices=observation_slices(mode),
                play=play,
                n_play=int(play.shape[0]),
                n_turn_actions=n_turn,
                n_actions=n_actions,
                need=order_need_table(),
            )
    raise ValueError(
        f"masks: no Mamma Mia! action space has {n_actions} actions (one row per game)"
    )


def _seats_present(observations: np.ndarray) -> int:
    """The player count of a batch of observations (0 for other sizes): the seat slots
    flagged present, the same in every row."""
    if observations.shape[1] not in MODE_OF_SIZE or not len(observations):
        return 0
    # one row per seat slot: summed along contiguous rows, 4,096 rows' flags take 0.02 ms
    # (summed across the batch's rows, 0.11 ms)
    flags = observations[:, SEATS_PRESENT].T.copy()
    # an env's uint8 flags need one comparison; other dtypes may hold 0.5 or -1
    binary = flags.max() <= 1 if flags.dtype == np.uint8 else np.isin(flags, (0, 1)).all()
    if not binary:
        check_values(observations)  # a value no observation holds is named as such first
        raise ValueError("observations: the seat_present flags must be 0 or 1")
    counts = flags.sum(axis=0, dtype=flags.dtype)  # at most MAX_SEATS: no dtype overflows
    if counts.min() != counts.max() or not 2 <= counts[0] <= MAX_SEATS:
        raise ValueError(
            f"observations: one act_batch call takes games of one player count, got seats "
            f"present {sorted(np.unique(counts).tolist())} (call it once per count)"
        )
    return int(counts[0])


def check_batch(
    observations: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray | None,
    values: bool = True,
) -> tuple[GameInfo, np.ndarray | None]:
    """Validate an ``act_batch`` call; returns its ``GameInfo`` and seats.

    The compiled bots compute with the observation's numbers (a negative count can
    divide by zero in them): what comes in must look like an env's observation, every
    entry a finite number in ``0..OBS_HIGH``, and masks numbers. ``values=False``
    leaves the entries' range to the caller, for a kernel that checks each row as it
    reads it (``compiled.decide``) and calls ``check_values`` for the error: two numpy
    passes over 4,096 four-player observations take about 1 ms, a third of the engine's
    step of that batch; inside the kernel the check costs nothing measurable
    (docs/PERFORMANCE.md).
    """
    observations = as_array(observations, "observations")
    masks = as_array(masks, "masks")
    if observations.ndim != 2 or masks.ndim != 2 or len(observations) != len(masks):
        raise ValueError(
            f"act_batch needs (B, obs_dim) observations and (B, n_actions) masks, got "
            f"{observations.shape} and {masks.shape}"
        )
    if observations.dtype.kind not in "fiu" or masks.dtype.kind not in "biu":
        raise ArgumentTypeError(
            f"observations must be numbers and masks integers or bools, got dtypes "
            f"{observations.dtype} and {masks.dtype}"
        )
    if values:
        check_values(observations)
    info = game_info(observations.shape[1], masks.shape[1], _seats_present(observations))
    if seats is not None:
        seats = as_array(seats, "seats").reshape(-1)
        if seats.dtype.kind not in "iu":  # 1.7 is no seat (astype would read it as 1)
            raise ArgumentTypeError(f"seats must be integers, got dtype {seats.dtype}")
        seats = seats.astype(np.int64)
        if seats.shape != (len(observations),):
            raise ValueError(f"seats must have shape ({len(observations)},), got {seats.shape}")
        if (seats < 0).any() or (seats >= info.num_players).any():
            raise ValueError(f"seats must be in 0-{info.num_players - 1}")
    return info, seats
