"""The builder: steers its ingredient plays toward its own orders and drains rivals."""

from __future__ import annotations

from .heuristic import HeuristicAgent, Params


class BuilderAgent(HeuristicAgent):
    """Feeds the oven with what its own orders need, starves what rivals need.

    * Same exact replay of the oven as the counter, but optimistic about rivals
      (only a rival's order short by 1 is assumed completed from hand).
    * Ingredient play: as many cards as useful of the ingredients its undelivered
      orders (in hand, and half weight in its stack) still miss from the pool, and
      away from the rivals' personal ingredients, which almost every rival order
      needs one of.
    * Orders: a met order is worth 1; one its hand can complete is worth 0.6. Orders
      that take rivals' personal ingredients out of the pool score a bonus (the
      Bombastica, which empties every pile, is the strongest drain).
    * Draws from the stack to keep two orders in hand.
    """

    name = "builder"
    params = Params(
        rival_cover=1.0,
        cover_credit=0.6,
        gamble=0.7,
        order_floor=0.0,
        card_cost=0.0,
        build=0.3,
        drain=0.4,
        drain_take=0.2,
        target_orders=3.0,
        orders_weight=0.1,
        min_cards=3.0,
        cards_weight=0.3,
        tempo=-0.1,
    )
