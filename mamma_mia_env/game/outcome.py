"""Who won: the one owner of the scoring rule (docs/SPEC.md, "End of the game").

Most delivered orders wins; a tie goes to the most ingredient cards in hand (a double
card is one card: the hand's card counts, not their values); a tie after that shares
the win. A truncated game is scored as it stands.

Two forms of the same rule, side by side so they cannot drift apart: ``winners``
(compiled, one record: the rules' and the event log's) and numpy functions over many
finished games (the learner env, the tournament's tables, the search bot's rollouts),
which compare one key, ``delivered * 1000 + cards`` (a hand never holds 1000 cards).
"""

from __future__ import annotations

import numpy as np

from mamma_mia_env.plumbing.jit_cache import njit

_jit = njit()
#: Delivered orders weigh more than any number of ingredient cards in hand.
_DELIVERED_WEIGHT = 1000


# -- one game record, compiled (the rules' own copy) -------------------------------------
@_jit
def ingredient_cards(r, seat: int) -> int:
    """Ingredient cards in ``seat``'s hand (a double card counts once): the tie-break."""
    return int(r.hand[seat].sum())


@_jit
def winners(r, n: int, out) -> int:
    """``out[s] = 1`` for each winner (most delivered, then most ingredient cards);
    returns how many share the win."""
    out[:] = 0
    best = -1
    best_tb = -1
    for s in range(n):
        score = int(r.delivered[s].sum())
        tb = ingredient_cards(r, s)
        if score > best or (score == best and tb > best_tb):
            best = score
            best_tb = tb
    count = 0
    for s in range(n):
        if int(r.delivered[s].sum()) == best and ingredient_cards(r, s) == best_tb:
            out[s] = 1
            count += 1
    return count


# -- many finished games, numpy ------------------------------------------------------------
def delivered_and_cards(data: np.ndarray, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Orders delivered and ingredient cards in hand per seat, two ``(G, N)`` int64 arrays,
    of the game records ``data`` (``GameState.data`` or a slice of it)."""
    delivered = data["delivered"][:, :num_players].sum(axis=2).astype(np.int64)
    cards = data["hand"][:, :num_players].sum(axis=2).astype(np.int64)
    return delivered, cards


def _keys(delivered: np.ndarray, cards: np.ndarray) -> np.ndarray:
    d = np.asarray(delivered, dtype=np.int64)
    c = np.asarray(cards, dtype=np.int64)
    return d * _DELIVERED_WEIGHT + c


def finishing_ranks(delivered: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Rank of every seat (1 = best; equal seats share one) of ``(G, N)`` scores."""
    key = _keys(delivered, cards)
    better = key[:, None, :] > key[:, :, None]  # [g, s, o]: seat o ahead of seat s
    return 1 + better.sum(axis=2)


def win_shares(delivered: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``(G, N)`` float64: 1 for a sole winner, 1/k for each of k sharing the win, else 0."""
    key = _keys(delivered, cards)
    top = key == key.max(axis=1, keepdims=True)
    return top / top.sum(axis=1, keepdims=True)


def game_outcome(data: np.ndarray, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Delivered orders ``(G, N)`` and win shares ``(G, N)`` of finished game records."""
    delivered, cards = delivered_and_cards(data, num_players)
    return delivered, win_shares(delivered, cards)
