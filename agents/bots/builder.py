"""The builder: steers its ingredient plays toward its own orders and drains rivals."""

from __future__ import annotations

from dataclasses import replace

from mamma_mia_agents.bots.heuristic import BETTING, HeuristicAgent


class BuilderAgent(HeuristicAgent):
    """Feeds the oven with what its own orders need, starves what rivals need, and bets.

    * Replays the public oven like the counter (rivals complete from hand only orders
      short by one card).
    * Orders: one met by the pool is worth 1, one its hand can complete 0.6, one up to
      three cards short 0.6 x 0.7 per missing card (cards drawn before the reveal may close
      the gap; a failed order only goes back under the stack). It plays the best order
      almost every turn, with a bonus for orders that take rivals' personal ingredients
      out of the pool (a Bombastica empties every pile).
    * Ingredient play: the ingredients its undelivered orders (in hand, and at half
      weight in its stack) still miss from the pool, away from the rivals' personal
      ingredients, which nearly every rival order needs one of.
    * Draws orders to keep three in hand, preferring the stack (a longer round).
    """

    name = "builder"
    params = replace(BETTING, cover_credit=0.6, build=0.3, drain=0.4, drain_take=0.2, tempo=-0.1)
