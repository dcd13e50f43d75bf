"""A rating on the ladder's scale: an Elo number fitted to win shares against fixed rungs.

The model is Elo's, extended to N-player games by Luce's choice rule for the winner:
a player of rating ``R`` at a table with ``N - 1`` players of rating ``A`` wins with
probability

    p(R) = s / (s + (N - 1) * t),  s = 10**(R / 400),  t = 10**(A / 400)

so that equal ratings give the chance level ``1/N`` and, at two players, it is Elo's
own curve (400 points: 10-to-1 odds). ``fit_rating`` finds the ``R`` that maximizes
the (quasi-)binomial likelihood of the win shares observed against rungs of known
ratings (the *anchors*): ``sum_i W_i log p_i(R) + (n_i - W_i) log(1 - p_i(R))``, a
concave function whose maximum solves ``sum_i n_i p_i(R) = sum_i W_i`` (expected wins
equal observed wins). The left side rises with ``R``, so the root is unique and found by
bisection: deterministic, no random start. A win share of exactly chance against one
rung gives that rung's anchor; more wins give a higher rating.

The 95% interval is the likelihood-ratio interval (``2 * (LL(R_hat) - LL(R)) <= 3.84``).
It treats games as independent (the games of one duplicate deal are not) and the
anchors as exact, so it is a lower bound on the real uncertainty; the scorecard says so.
An agent that wins every game (or none) has no finite maximum: its rating is ``None``
and the result says which side of the scale it is off.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Elo's scale: 400 points of rating difference are 10-to-1 odds.
SCALE = 400.0
#: The 95% quantile of chi-squared with one degree of freedom (1.96**2).
CHI2_95 = 3.841458820694124
#: Ratings are searched in this range around the anchors (far beyond any real result).
SPAN = 4000.0
_TOL = 1e-7


@dataclass(frozen=True)
class Result:
    """Win shares against one anchored rung: ``wins`` (fractional: a shared win counts
    1/k) of ``games`` at ``players`` seats, against ``players - 1`` copies of a rung
    rated ``anchor``."""

    anchor: float
    players: int
    wins: float
    games: int


def win_probability(rating: float, anchor: float, players: int) -> float:
    """``p(R)`` of the module doc: the chance that the player rated ``rating`` wins a
    game against ``players - 1`` players rated ``anchor``."""
    x = (rating - anchor) * math.log(10) / SCALE - math.log(players - 1)
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def log_likelihood(rating: float, results: Sequence[Result]) -> float:
    total = 0.0
    for r in results:
        p = win_probability(rating, r.anchor, r.players)
        if r.wins > 0:
            total += r.wins * math.log(max(p, 1e-300))
        if r.games - r.wins > 0:
            total += (r.games - r.wins) * math.log(max(1.0 - p, 1e-300))
    return total


def _bisect(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The root of the increasing function ``f`` on ``[lo, hi]`` (``f(lo) < 0 < f(hi)``)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < _TOL:
            break
    return (lo + hi) / 2


@dataclass(frozen=True)
class Rating:
    """A fitted rating: ``value`` with its 95% likelihood-ratio interval, or ``None``
    with ``off_scale`` ("above" or "below") when every game was won or lost."""

    value: float | None
    low: float | None
    high: float | None
    games: int
    off_scale: str | None = None

    def to_dict(self) -> dict[str, object]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 1)

        return {"rating": r(self.value), "low": r(self.low), "high": r(self.high),
                "games": self.games, "off_scale": self.off_scale}  # fmt: skip


def fit_rating(results: Sequence[Result]) -> Rating | None:
    """The maximum-likelihood rating of a player from its ``results`` against anchored
    rungs (module doc); ``None`` without a game to fit."""
    results = [r for r in results if r.games > 0]
    if not results:
        return None
    for r in results:
        if r.players < 2 or not 0 <= r.wins <= r.games or not math.isfinite(r.anchor):
            raise ValueError(f"not a result to rate: {r}")
    games = sum(r.games for r in results)
    wins = sum(r.wins for r in results)
    if wins <= 0 or wins >= games:
        return Rating(None, None, None, games, "below" if wins <= 0 else "above")
    lo = min(r.anchor for r in results) - SPAN
    hi = max(r.anchor for r in results) + SPAN

    def score(x: float) -> float:  # expected wins minus observed: rises with the rating
        return sum(r.games * win_probability(x, r.anchor, r.players) for r in results) - wins

    best = _bisect(score, lo, hi)
    top = log_likelihood(best, results)

    def drop(x: float) -> float:  # > 0 inside the interval
        return CHI2_95 / 2 - (top - log_likelihood(x, results))

    low = _bisect(drop, lo, best) if drop(lo) < 0 else lo
    high = _bisect(lambda x: -drop(x), best, hi) if drop(hi) < 0 else hi
    return Rating(best, low, high, games)
