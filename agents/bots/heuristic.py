"""The heuristic bots: ``Params`` (their weights, ``compiled.tables.Params``) and
``HeuristicAgent`` (their ``Agent``).

A heuristic bot's decisions are the compiled kernels of ``mamma_mia_agents.compiled``
(``decisions.turn_action``, ``decisions.reveal_action``, the oven in ``oven``); this
module hands them the bot's ``Params`` as plain numbers. What they compute, per game
(docs/AGENTS.md explains each term; every value of an ingredient counts a double as 2):

* **pool**: what the face-up piles will hold when an order played now is revealed.
  Bots with memory replay the reveal of the oven so far (``oven.simulate_oven``): each order
  in the order played takes its need from the piles plus what was played before it;
  the bot's own orders count as delivered when its unreserved hand covers the
  shortfall (that hand value is *reserved*), a rival's when short by at most
  ``rival_cover`` (and no more than the cards they hold). ``proven`` bots replay with
  bounds (``oven.bound_oven``) and count on the lower one; ``top_card`` bots guess
  (``pv + forget * oven cards * unseen mix``, ``oven.estimate_pool``).
* for each legal play ``c`` (adding ``add[c]`` to one ingredient, ``cards[c]`` cards):
  ``pool_c = pool + add``, ``free = max(hand - add - reserve, 0)``; each order type in
  hand is *met* (``short`` = what ``pool_c`` lacks of its need is 0), *covered*
  (``uncovered`` = what ``pool_c + free`` lacks is 0) or has a gap;
* ``order_score[none] = order_floor``; an order in hand is worth
  ``met + covered_only * cover_credit + gap_only * cover_credit * gamble ** min(gap, 8)``
  (the gap at most ``gamble_max``; the power in float64, rounded once to float32),
  ``- covered_only * cover_cost * short``, and if positive ``+ type_bonus[type]``
  ``+ drain_take * (what it takes of the pool, times rivals' demand)``;
* ``play_score = -card_cost * cards + build * add on what our orders still want
  - drain * add times rivals' demand - reserve_penalty * reserved value played away
  - keep * add on what our orders in hand need``;
* ``draw_score``: from the supply ``-orders_weight * (orders - target_orders)^2
  - cards_weight * max(min_cards - ingredient cards, 0) + tempo * cards drawn``; from the
  stack the same with the orders drawn and no tempo;
* the action: the legal ``(play, order, draw)`` of highest
  ``play_score + order_score + draw_score`` (float32), the first on a tie.

Reveal decisions, shared by all: deliver whenever possible; among Monotoni jokers and
Minimale candidates, the one that takes the fewest cards from the hand, then the one the
bot's orders need least, then the lowest ingredient.

The scores are float32 sums in a fixed order and one power computed in float64 and
rounded once, so a bot decides the same on every CPU (``compiled/decisions.py``).
tests/agents/test_compiled_bots.py pins the scoring on hand-built positions. A bot is
its ``Params``: a subclass sets other weights, it cannot override the scoring.

A bot with memory reads the ``fixed`` layout (what a perfect memory knows), the
forgetful bot ``top_card``; the tournament gives each bot the layout of its
``observation_mode`` (``compiled.tables.layout_vector`` says where each section is).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from mamma_mia_agents.bots.base import Agent, Batch, GameInfo
from mamma_mia_agents.compiled.batch import decide as decide_kernel
from mamma_mia_agents.compiled.tables import (
    KernelBot,
    Params,
    heuristic_bot,
    layout_vector,
    params_vector,
)

BETTING = Params(gamble=0.7, order_floor=0.0, target_orders=3.0)
"""What the betting bots (builder, forgetful, hoarder) share: they bet on orders their
hand cannot cover yet, play an order whenever one is worth anything, keep three orders."""


class HeuristicAgent(Agent):
    """A bot defined by ``Params``, deciding with the compiled kernels; subclasses set
    ``params``."""

    params = Params()
    check_values = False  # the kernel checks each row of observations as it reads it
    seats_because = "the observation does not say which personal ingredient is the bot's"

    def __init__(self, **overrides: float) -> None:
        if overrides:
            known = {f.name for f in fields(Params)}
            unknown = sorted(set(overrides) - known)
            if unknown:
                raise TypeError(f"unknown parameter(s) {unknown} of {type(self).__name__}")
            self.params = Params(**{**self.params.__dict__, **overrides})
        self._compiled: dict[tuple, tuple] = {}  # kernel tables per game shape
        self._compiled_for: Params | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def decide(self, batch: Batch, rng: np.random.Generator) -> np.ndarray:
        """The bot's actions (``compiled.decide``); ``rng`` is unused (the bots are
        deterministic)."""
        mode = batch.info.observation_mode
        if mode != self.observation_mode:
            raise ValueError(
                f"{type(self).__name__} reads '{self.observation_mode}' observations, got '{mode}'"
            )
        lay, play, need, prm = self._kernel_tables(batch.info)
        return decide_kernel(
            batch.observations, batch.masks, batch.seats, lay, play, need, prm, check=True
        )

    def _kernel_tables(self, info: GameInfo) -> tuple[np.ndarray, ...]:
        """The kernel's arguments for games of ``info``'s shape (kept per shape while
        ``params`` stays the same)."""
        key = (info.num_players, info.observation_mode, info.double_ingredients)
        tables = self._compiled.get(key) if self._compiled_for == self.params else None
        if tables is None:
            if self._compiled_for != self.params:
                self._compiled, self._compiled_for = {}, self.params
            tables = (
                layout_vector(*key),
                info.play.astype(np.int64),
                info.need.astype(np.int64),
                params_vector(self.params),
            )
            self._compiled[key] = tables
        return tables

    def kernel_bot(self) -> KernelBot:
        """This bot as the compiled game loop plays it (``compiled.play_out``): its
        weights as plain arrays."""
        return heuristic_bot(self.params, self.observation_mode)


__all__ = ["BETTING", "HeuristicAgent"]
