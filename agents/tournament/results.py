"""A tournament's results: per-game outcomes, per-agent statistics and ratings.

``TournamentResult`` holds every game's outcome and computes the table (win rate with
intervals, delivered orders, rating) from the statistics below; ``output`` draws and
writes it.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from openskill.models import PlackettLuce

from mamma_mia_agents.tournament.output import (
    aligned,
    csv_text,
    markdown_table,
    plot_rows,
    prepare_output,
    row_cells,
)
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.outcome import finishing_ranks, win_shares
from mamma_mia_env.plumbing.files import write_file
from mamma_mia_env.plumbing.provenance import provenance, write_sidecar

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


def plackett_luce_ratings(
    assign: np.ndarray, ranks: np.ndarray, n_agents: int
) -> tuple[np.ndarray, np.ndarray]:
    """PlackettLuce ratings (mu, sigma per agent) from games in the order given, by the
    ``openskill`` package (a maintained Bayesian rating system in the TrueSkill family).

    ``assign[g, s]`` is the agent in seat s of game g, ``ranks[g, s]`` its finishing
    rank (1 = best, ties equal). Each seat is its own team; an agent in several seats
    of one game gets the average of its seats' updates.
    """
    model = PlackettLuce()
    mu = np.full(n_agents, model.mu, dtype=np.float64)
    sigma = np.full(n_agents, model.sigma, dtype=np.float64)
    for seats, rank in zip(np.asarray(assign), np.asarray(ranks), strict=True):
        teams = [[model.rating(mu=mu[a], sigma=sigma[a])] for a in seats]
        new = [team[0] for team in model.rate(teams, ranks=[int(r) for r in rank])]
        new_mu = np.bincount(seats, [r.mu for r in new], n_agents)
        new_sigma = np.bincount(seats, [r.sigma for r in new], n_agents)
        count = np.bincount(seats, minlength=n_agents)
        played = count > 0
        mu[played] = new_mu[played] / count[played]
        sigma[played] = new_sigma[played] / count[played]
    return mu, sigma


@dataclass
class TournamentResult:
    """Per-game outcomes and per-agent statistics of one tournament."""

    names: list[str]
    config: Config
    seating: str
    schedule: np.ndarray  # (S, N) agent index per seat, one row per seating of a deal
    seed: int
    deals: int
    assign: np.ndarray  # (G, N)
    deal: np.ndarray  # (G,) deal index of each game
    delivered: np.ndarray  # (G, N)
    cards: np.ndarray  # (G, N)
    turns: np.ndarray  # (G,)
    truncated: np.ndarray  # (G,)
    elapsed: float
    workers: int
    command: str | None = None
    games_requested: int | None = None
    table: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)  # event logs (save_logs)

    @property
    def games(self) -> int:
        return int(len(self.deal))

    @property
    def num_players(self) -> int:
        return self.config.num_players

    def compute_table(self) -> list[dict[str, Any]]:
        """Per-agent statistics, best win rate first (see docs/AGENTS.md)."""
        shares = win_shares(self.delivered, self.cards)
        ranks = finishing_ranks(self.delivered, self.cards)
        mu, sigma = plackett_luce_ratings(self.assign, ranks, len(self.names))
        rows: list[dict[str, Any]] = []
        n = self.num_players
        for a, name in enumerate(self.names):
            sel = self.assign == a
            seat_games = int(sel.sum())
            wins = float(shares[sel].sum())
            lo, hi = wilson_interval(wins, seat_games)
            # per seat-game, with the deal as the cluster
            deal_of = np.broadcast_to(self.deal[:, None], sel.shape)[sel]
            _, clo, chi = cluster_mean_interval(shares[sel], deal_of)
            dmean, dlo, dhi = mean_interval(self.delivered[sel])
            by_seat = []
            for s in range(n):
                ss = self.assign[:, s] == a
                by_seat.append(float(shares[ss, s].mean()) if ss.any() else None)
            rows.append(
                {
                    "agent": name,
                    "seat_games": seat_games,
                    "wins": wins,
                    "win_rate": wins / seat_games if seat_games else float("nan"),
                    "win_rate_low": lo,
                    "win_rate_high": hi,
                    "win_rate_deal_low": max(0.0, clo),
                    "win_rate_deal_high": min(1.0, chi),
                    "mean_delivered": dmean,
                    "delivered_low": dlo,
                    "delivered_high": dhi,
                    "rating_mu": float(mu[a]),
                    "rating_sigma": float(sigma[a]),
                    "rating_low": float(mu[a] - Z95 * sigma[a]),
                    "rating_high": float(mu[a] + Z95 * sigma[a]),
                    "win_rate_by_seat": by_seat,
                }
            )
        rows.sort(key=lambda r: (-r["win_rate"], r["agent"]))
        for i, r in enumerate(rows):
            r["rank"] = i + 1
        self.table = rows
        return rows

    # -- output ---------------------------------------------------------------------------
    def summary(self) -> str:
        s = len(self.schedule)
        rate = self.games / self.elapsed if self.elapsed > 0 else float("inf")
        text = (
            f"{self.games:,} games of {self.num_players} players ({self.deals:,} deals x "
            f"{s} seatings, {self.seating}), seed {self.seed}: {self.elapsed:.1f} s on "
            f"{self.workers} worker(s), {rate:,.0f} games/s"
        )
        trunc = int(self.truncated.sum())
        if trunc:
            text += f"; {trunc} truncated by max_turns (scored as they stood)"
        return text

    def format_table(self) -> str:
        rows = self.table or self.compute_table()
        head = ["#", "agent", "games", "wins", "win rate", "95% CI", "delivered", "rating (95%)"]
        lines = aligned([head, *map(row_cells, rows)])
        lines.append(
            f"chance level {100 / self.num_players:.1f}%; wins split on shared wins; "
            "rating: openskill PlackettLuce mu (mu -/+ 1.96 sigma)"
        )
        return "\n".join(lines)

    def format_markdown(self) -> str:
        return markdown_table(self.table or self.compute_table())

    def to_dict(self) -> dict[str, Any]:
        rows = self.table or self.compute_table()
        return {
            "format": "mamma-mia-tournament/1",
            "command": self.command,
            "agents": self.names,
            "config": self.config.to_dict(),
            "num_players": self.num_players,
            "seating": self.seating,
            "schedule": self.schedule.tolist(),
            "seed": self.seed,
            "deals": self.deals,
            "games": self.games,
            "games_requested": self.games_requested,
            "truncated": int(self.truncated.sum()),
            "mean_turns": float(self.turns.mean()) if self.games else None,
            "elapsed_seconds": round(self.elapsed, 3),
            "summary": self.summary(),
            "workers": self.workers,
            "interval": "95% (Wilson score for win rates; normal for means; "
            "rating mu -/+ 1.96 sigma)",
            "results": rows,
        }

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        text = json.dumps(self.to_dict(), indent=2)
        if path is not None:
            write_file(path, text + "\n", "results")
        return text

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        text = csv_text(self.table or self.compute_table())
        if path is not None:
            write_file(path, text, "results table")
        return text

    def plot(self, path: str | os.PathLike, title: str | None = None) -> None:
        """A PNG: win rate, delivered orders and rating per agent, with 95% intervals."""
        title = (
            title
            or f"{self.num_players} players, {self.games:,} games ({self.deals:,} duplicate "
            f"deals), 95% intervals"
        )
        plot_rows(self.table or self.compute_table(), path, self.num_players, title)

    def write(
        self, out_dir: str | os.PathLike, stem: str = "tournament", plot: bool = True
    ) -> list[str]:
        """Write ``{stem}.csv``, ``{stem}.json`` and (with ``plot``) ``{stem}.png``;
        ``stem`` must be a plain file name (``check_stem``)."""
        paths = prepare_output(out_dir, stem, plot)
        os.makedirs(out_dir, exist_ok=True)
        paths = prepare_output(out_dir, stem, plot)  # now the files themselves are checked
        self.to_csv(paths[0])
        record = provenance(seeds=self.seed, wall_time=self.elapsed, command=self.command)
        doc = {**self.to_dict(), "provenance": record}
        write_file(paths[1], json.dumps(doc, indent=2) + "\n", "results")
        write_sidecar(paths[0], record)
        if plot:
            self.plot(paths[2])
        return paths
