"""Tournament statistics: confidence intervals and PlackettLuce (TrueSkill-like) ratings.

* ``wilson_interval``: the Wilson score interval of a proportion (wins with ties
  split count as fractional successes), the tournament's win-rate interval.
* ``mean_interval``: a normal-approximation interval of a mean.
* ``cluster_mean_interval``: the same for a mean over clusters (the games of one
  duplicate deal are not independent, so the deal is the unit), reported alongside.
* ``plackett_luce_ratings``: ratings from the ``openskill`` package's PlackettLuce
  model (a maintained Bayesian rating system in the TrueSkill family), updated game
  by game from the finishing order of every seat.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` (default 95%).

    ``successes`` may be fractional (a win shared by k players counts 1/k). With
    ``n == 0`` the interval is the whole range (0, 1).
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def mean_interval(values: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal-approximation interval ``mean -/+ z * sd / sqrt(n)``."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(x.mean())
    if x.size == 1:
        return m, m, m
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return m, m - half, m + half


def cluster_mean_interval(
    values: np.ndarray, clusters: np.ndarray, z: float = Z95
) -> tuple[float, float, float]:
    """Mean of ``values`` and an interval that treats each cluster as one observation.

    The estimate is the plain mean; its standard error comes from the cluster sums
    (the usual cluster-robust "sandwich" for a mean), so games replayed from the same
    deal count as one draw of luck.
    """
    x = np.asarray(values, dtype=np.float64)
    c = np.asarray(clusters)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(x.mean())
    _, inv = np.unique(c, return_inverse=True)
    g = int(inv.max()) + 1
    if g < 2:
        return m, m, m
    resid = np.bincount(inv, weights=x - m, minlength=g)
    var = float((resid**2).sum()) * g / (g - 1) / (x.size**2)
    half = z * math.sqrt(var)
    return m, m - half, m + half


def finishing_ranks(delivered: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Rank of every seat (1 = best) by delivered orders, then ingredient cards in hand.

    ``delivered`` and ``cards`` are ``(G, N)``; equal seats share a rank.
    """
    d = np.asarray(delivered, dtype=np.int64)
    c = np.asarray(cards, dtype=np.int64)
    key = d * 1000 + c  # cards in hand never reach 1000
    better = key[:, None, :] > key[:, :, None]  # [g, s, o]: seat o ahead of seat s
    return 1 + better.sum(axis=2)


def win_shares(delivered: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``(G, N)``: 1 for a sole winner, 1/k for each of k sharing the win, else 0."""
    ranks = finishing_ranks(delivered, cards)
    first = ranks == 1
    return first / first.sum(axis=1, keepdims=True)


def plackett_luce_ratings(
    assign: np.ndarray, ranks: np.ndarray, n_agents: int
) -> tuple[np.ndarray, np.ndarray]:
    """PlackettLuce ratings (mu, sigma per agent) from games in the order given.

    ``assign[g, s]`` is the agent in seat s of game g, ``ranks[g, s]`` its finishing
    rank (1 = best, ties equal). Each seat is its own team; an agent in several seats
    of one game gets the average of its seats' updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    mu = np.full(n_agents, model.mu, dtype=np.float64)
    sigma = np.full(n_agents, model.sigma, dtype=np.float64)
    for seats, rank in zip(np.asarray(assign), np.asarray(ranks), strict=True):
        teams = [[model.rating(mu=mu[a], sigma=sigma[a])] for a in seats]
        new = model.rate(teams, ranks=[int(r) for r in rank])
        new_mu = np.zeros(n_agents)
        new_sigma = np.zeros(n_agents)
        count = np.zeros(n_agents)
        for a, team in zip(seats, new, strict=True):
            new_mu[a] += team[0].mu
            new_sigma[a] += team[0].sigma
            count[a] += 1
        played = count > 0
        mu[played] = new_mu[played] / count[played]
        sigma[played] = new_sigma[played] / count[played]
    return mu, sigma
