"""The cautious counter: plays an order only when its count of the oven says it is met."""

from __future__ import annotations

from mamma_mia_agents.bots.heuristic import HeuristicAgent
from mamma_mia_agents.compiled.tables import Params


class CounterAgent(HeuristicAgent):
    """Counts the oven and never bets on an order.

    * Replays the reveal of everything in the oven so far from the public history
      (perfect recall), assuming a rival completes from hand only an order short by
      one card, and names the Monotoni joker with the most face up.
    * Plays an order only if that count, plus this turn's own ingredient play, meets
      it without any card from the hand; never an order that would need luck.
    * Otherwise plays few cards; keeps three orders in hand to have one to play when
      the count allows.

    Among counters about 99% of its orders are delivered. Against the betting bots
    only 60-70% are: their gambles, completed from hand at the reveal, empty piles
    the count relied on. With ``CounterAgent(proven=True)`` it counts only on what the
    oven holds whatever anyone decides (``compiled.oven.bound_oven``): then every order it
    plays is delivered, but against betting rivals such a proof exists for about one
    order per game, too few to beat the random agent.
    """

    name = "counter"
    params = Params(card_cost=0.05, target_orders=3.0)
