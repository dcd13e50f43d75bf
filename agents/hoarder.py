"""The hoarder: keeps cards to complete its orders from hand at the reveal."""

from __future__ import annotations

from .heuristic import HeuristicAgent, Params


class HoarderAgent(HeuristicAgent):
    """Plays orders early and completes them from a full hand.

    * Plays an order as soon as pool plus the cards it can keep in hand cover it
      (worth 0.8 against 1 for an order already met), then *reserves* those cards:
      it will not play them away before the reveal, where it adds them.
    * Ingredient play: one card at a time, of an ingredient its orders do not need,
      so the hand stays full and varied (more cards in hand also wins ties).
    * Draws from the supply to keep at least five ingredient cards, from the stack
      only when it holds no order.
    """

    name = "hoarder"
    params = Params(
        rival_cover=1.0,
        cover_credit=1.0,
        gamble=0.7,
        order_floor=0.0,
        card_cost=0.0,
        reserve_penalty=3.0,
        target_orders=3.0,
        orders_weight=0.1,
        min_cards=4.0,
        cards_weight=0.3,
    )
