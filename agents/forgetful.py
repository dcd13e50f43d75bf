"""The forgetful bot: plays from what a player sees without remembering the oven."""

from __future__ import annotations

from .heuristic import HeuristicAgent, Params


class ForgetfulAgent(HeuristicAgent):
    """Reads the ``top_card`` observation: no oven history, no count of its stack.

    * Knows only its hand, the face-up piles, the public counts (supply, hand and
      stack sizes) and the oven's top card. From the oven's thickness it guesses
      how many cards are inside and assumes they follow the mix of the cards it has
      not seen; it counts on half of that guess (the rest it assumes eaten by orders
      it cannot remember).
    * Plays an order when piles plus that guess (plus this turn's play) meet it,
      with a smaller credit when its hand could make up the gap.
    * Otherwise plays like the builder: cards its orders need, away from rivals'.
    """

    name = "forgetful"
    observation_mode = "top_card"
    params = Params(
        forget=1.0,
        cover_credit=0.5,
        gamble=0.7,
        order_floor=0.0,
        card_cost=0.2,
        build=0.3,
        target_orders=3.0,
        orders_weight=0.1,
        min_cards=3.0,
        cards_weight=0.3,
    )
