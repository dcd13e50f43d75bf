"""The hoarder: keeps cards to complete its orders from hand at the reveal."""

from __future__ import annotations

from dataclasses import replace

from mamma_mia_agents.bots.heuristic import BETTING, HeuristicAgent


class HoarderAgent(HeuristicAgent):
    """Completes its orders from hand at the reveal, and keeps the cards to do it.

    * Replays the public oven like the counter.
    * Treats an order its hand can complete as good as one the pool meets (worth 1),
      and bets on orders up to three cards short (0.7 per missing card), so it plays an order
      almost every turn.
    * Reserves the hand cards promised to its orders already in the oven: playing them
      away costs 3 per card, so they stay in hand until the reveal, where it adds them.
    * Keeps three orders and at least four ingredient cards in hand. It does not steer
      its ingredient plays toward its orders or against rivals.
    """

    name = "hoarder"
    params = replace(BETTING, cover_credit=1.0, reserve_penalty=3.0, min_cards=4.0)
