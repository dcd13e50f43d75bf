"""The forgetful bot: plays from what a player sees without remembering the oven."""

from __future__ import annotations

from dataclasses import replace

from mamma_mia_agents.bots.heuristic import BETTING, HeuristicAgent


class ForgetfulAgent(HeuristicAgent):
    """Plays without memory: sees the oven's top card, not its history.

    * Reads the ``top_card`` observation, so knows only its hand, the face-up piles,
      the public counts (supply, hand and stack sizes, who holds the Mamma Mia! card)
      and the oven's top card. From these it infers how many cards are in the oven
      (every card not in the supply, a hand or the piles) and guesses their mix as the
      mix of the cards it has not seen.
    * Bets on an order when piles plus that guess (plus this turn's play) meet it (1),
      when its hand could complete it (0.5), or up to three cards short (0.5 x 0.7
      per card). It cannot know what earlier orders will take, so it over-bets.
    * Ingredient play: few cards, of the ingredients its orders in hand miss.
    """

    name = "forgetful"
    observation_mode = "top_card"
    params = replace(BETTING, forget=1.0, cover_credit=0.5, card_cost=0.2, build=0.3)
