"""The cautious counter: plays an order only when public information proves it is met."""

from __future__ import annotations

from .heuristic import HeuristicAgent, Params


class CounterAgent(HeuristicAgent):
    """Counts the oven exactly and never gambles on an order.

    * Replays the reveal of everything in the oven so far (perfect recall of the
      public history), assuming pessimistically that a rival's earlier order short
      by up to 2 will be completed from that rival's hand and empty the short piles.
    * Plays an order only if the resulting pool, plus this turn's own ingredient
      play, meets it without help from the hand; if several are met it plays one of
      them (the order types it holds are equally worth one delivery).
    * Otherwise plays the fewest cards it can, preferring ingredients its own orders
      still need, so that a later turn can prove an order met.
    * Draws from its order stack when fewer than two orders are in hand.
    """

    name = "counter"
    params = Params(
        rival_cover=1.0,
        cover_credit=0.0,
        order_floor=0.5,
        card_cost=0.05,
        target_orders=3.0,
        orders_weight=0.1,
        min_cards=3.0,
        cards_weight=0.3,
    )
