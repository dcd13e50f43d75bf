"""A scorecard a paper can cite: one agent against the reference ladder, on fixed deals.

    >>> from mamma_mia_agents.tournament.scorecard import evaluate, format_scorecard
    >>> card = evaluate("builder", ladder=["random"], players=(2, 4), games=200)
    >>> print(format_scorecard(card))

``mamma-mia evaluate SPEC`` is this module on the command line; what is played, the
ladder, the seeds and the rating: docs/AGENTS.md, "Scorecard: mamma-mia evaluate".
``EVAL_SEED`` is one no shipped training or documented result uses: an agent tuned on
these deals would be tuned on the test set.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from mamma_mia_agents import REGISTRY
from mamma_mia_agents.bots.base import Agent
from mamma_mia_agents.bots.loading import AgentLoadError, agent_name
from mamma_mia_agents.bots.ppo_agent import PPOAgent
from mamma_mia_agents.bots.ppo_policy import PolicyFileError
from mamma_mia_agents.tournament.fanout import check_backend
from mamma_mia_agents.tournament.ladder_rating import Result, fit_rating
from mamma_mia_agents.tournament.matches import AgentMismatchError, check_agents, load_agents
from mamma_mia_agents.tournament.output import aligned
from mamma_mia_agents.tournament.results import TournamentResult
from mamma_mia_agents.tournament.runner import Prepared, prepare, run_all
from mamma_mia_agents.tournament.schedule import MAX_GAMES
from mamma_mia_env._version import __version__
from mamma_mia_env.game.config import Config
from mamma_mia_env.plumbing.arguments import as_int
from mamma_mia_env.plumbing.provenance import provenance

FORMAT = "mamma-mia-scorecard/1"
#: The tournament seed of every evaluation game (module doc: why this one).
EVAL_SEED = 2026_1125
DEFAULT_GAMES = 2000
DEFAULT_PLAYERS = (2, 4)
#: Games per batch of every pairing: a 2,000-game pairing is 8 batches, so every core
#: plays (one batch would be one process). The agents draw their random numbers from a
#: generator per batch (``run_tournament``), so the batch size is part of what a
#: scorecard's numbers depend on, like the seed, and is recorded with it.
BATCH = 250
#: The reference ladder, weakest first: (rung name, agent spec).
LADDER: tuple[tuple[str, str], ...] = (
    ("random", "random"),
    ("builder", "builder"),
    ("search", "search"),
    ("champion", "champion"),
)
#: Each rung's rating by player count (random = 0: the scale's zero).
ANCHORS: dict[str, dict[int, float]] = {
    "random": {2: 0.0, 3: 0.0, 4: 0.0, 5: 0.0},
    "builder": {2: 651.3, 3: 725.9, 4: 742.6, 5: 808.2},
    "search": {2: 1144.4, 4: 920.5},
    "champion": {2: 1314.2, 4: 1036.1},
}
#: Where each anchor came from: the command that measured it, and its revision.
ANCHOR_SOURCES: dict[str, str] = {
    "random": "the scale's zero, by definition",
    "builder": "mamma-mia evaluate builder --ladder random --players 2,3,4,5 --games 2000 "
    "(revision fb60571 with this command added; 2,000 games per count, builder won 96-98%)",
    "search": "mamma-mia evaluate search --ladder random,builder --players 2,4 --games 600 "
    "(experiments/results/scorecards/search_2p_4p_random_builder.json, revision 9fd0702; 600 "
    "games per pairing, 8 minutes on two cores: search won 94% and 48% against builder at 2 "
    "and 4 players; 95% intervals 1087-1208 and 894-948)",
    "champion": "mamma-mia evaluate champion --ladder builder and --ladder search, at 2 and 4 "
    "players, 500 games each (experiments/results/scorecards/champion_{2,4}p_{builder,search}"
    ".json, made at revision 2dfb795, the champion with the one network as its prior), "
    "fitted together per count: the champion won 99.4% and 71.1% against builder and search "
    "at 2 players, 64.1% and 39.6% against three of them at 4; 95% intervals 1282-1347 and "
    "1014-1058",
}


class ScorecardError(ValueError):
    """An argument of ``evaluate`` that cannot make a scorecard (a count listed twice...)."""


class LadderError(ScorecardError):
    """A ladder rung loads no agent, or cannot play one of the player counts."""


def reference_ladder() -> list[tuple[str, str]]:
    """``LADDER``'s rungs that are bundled agents of this version (``champion`` once
    it is in ``REGISTRY``)."""
    return [(name, spec) for name, spec in LADDER if spec in REGISTRY]


def is_policy_file(spec: str) -> bool:
    """A spec naming a policy file: not a bundled name, and ending in ``.npz`` or an
    existing file (``package.module:Class`` paths name no file)."""
    return spec not in REGISTRY and (spec.endswith(".npz") or os.path.isfile(spec))


def load_spec(spec: str | Agent) -> Agent:
    """The agent of ``spec``: a bundled name, ``package.module:Class``, a ``.npz``
    policy file (``PPOAgent(path)``; a bad file is a ``PolicyFileError``) or an agent."""
    if isinstance(spec, str) and is_policy_file(spec.strip()):
        path = spec.strip()
        return PPOAgent(path, name=f"ppo:{os.path.basename(path)}")
    return load_agents([spec])[0]


def entrant(spec: str | Agent, agent: Agent) -> str | Agent:
    """What a tournament is handed: the spec where it has one (worker processes load
    it themselves), the loaded agent for a policy file or an object."""
    return spec if isinstance(spec, str) and not is_policy_file(spec.strip()) else agent


def playable_counts(agent: Agent, players: Sequence[int]) -> tuple[list[int], dict[int, str]]:
    """The player counts ``agent`` can play, and why it cannot play the others."""
    played, skipped = [], {}
    for n in players:
        try:
            check_agents([agent], Config(num_players=n))
        except AgentMismatchError as exc:
            skipped[n] = str(exc)
        else:
            played.append(n)
    return played, skipped


def _load_ladder(ladder: Sequence[tuple[str, Any]], counts: Sequence[int]) -> list[Any]:
    """Every rung loaded and checked at every count, before any game; their entrants."""
    if not ladder:
        raise LadderError("the ladder has no rung")
    out = []
    for name, spec in ladder:
        try:
            rung = load_spec(spec)
        except (AgentLoadError, PolicyFileError) as exc:
            raise LadderError(f"ladder rung {name!r}: {exc}") from None
        for n, why in playable_counts(rung, counts)[1].items():
            others = ",".join(other for other, _ in ladder if other != name) or "another"
            raise LadderError(
                f"ladder rung {name!r} cannot play {n} players: {why}; leave it out of "
                f"the ladder (--ladder {others})"
            )
        out.append(entrant(spec, rung))
    return out


def pairing(agent: str | Agent, rung: str | Agent, players: int, games: int, seed: int,
            workers: int | None, backend: str) -> Prepared:  # fmt: skip
    """The agent against ``players - 1`` copies of ``rung`` (module doc), planned."""
    lineup = [agent] + [rung] * (players - 1)
    return prepare(lineup, players, games=games, seed=seed, workers=workers, batch_size=BATCH,
                   backend=backend)  # fmt: skip


def pairing_row(res: TournamentResult) -> dict[str, Any]:
    """A played pairing's row of the scorecard: the agent's (first entrant's) results."""
    row = next(r for r in res.table if r["agent"] == res.names[0])
    rates = {k: row[k] for k in ("wins", "win_rate", "win_rate_low", "win_rate_high")}
    return {
        "games": res.games,
        "deals": res.deals,
        **rates,
        "chance": 1 / res.config.num_players,
        "mean_delivered": row["mean_delivered"],
        "truncated": int(res.truncated.sum()),
    }


def anchored_results(
    pairings: Sequence[dict[str, Any]], players: int, anchors: dict[str, dict[int, float]]
) -> list[Result]:
    """The pairings at ``players`` seats that enter a rating: those against a rung with
    an anchor at that count (``anchors``: rung name -> count -> rating)."""
    return [
        Result(anchors[r["opponent"]][players], players, r["wins"], r["games"])
        for r in pairings
        if players in anchors.get(r["opponent"], {})
    ]


def _ratings(counts: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The rating per player count and over all counts, from the anchored rungs."""
    by_count: dict[str, Any] = {}
    every: list[Result] = []
    for n, block in counts.items():
        results = anchored_results(block["pairings"], n, ANCHORS)
        every += results
        fit = fit_rating(results)
        by_count[str(n)] = None if fit is None else fit.to_dict()
    fit = fit_rating(every)
    return {"overall": None if fit is None else fit.to_dict(), "by_players": by_count}


def _text(spec: Any) -> str:
    """A spec as the scorecard records it: as given, or an object's ``repr``."""
    return spec if isinstance(spec, str) else repr(spec)[:200]


def _anchors(rung: str) -> dict[str, float]:
    """A rung's anchors by player count (JSON keys), empty when it has none."""
    return {str(n): a for n, a in ANCHORS.get(rung, {}).items()}


def _seeds(seed: int, counts: dict[int, dict[str, Any]]) -> dict[str, Any]:
    deals = {str(n): max(r["deals"] for r in b["pairings"]) for n, b in counts.items()}
    return {"tournament_seed": seed, "engine_seeds": f"{seed} * 2**32 + d, d < deals",
            "deals": deals, "batch_size": BATCH}  # fmt: skip


def _check_arguments(
    ladder: Sequence[str | tuple[str, Any]] | None, players: Sequence[int], games: int, seed: int
) -> list[tuple[str, Any]]:
    """``evaluate``'s arguments checked before anything is loaded; the rungs as pairs."""
    as_int(games, "games", 1, MAX_GAMES)
    as_int(seed, "seed", 0, 2**32 - 1)
    if isinstance(players, (str, bytes)) or not players:
        raise ScorecardError(f"players must be a list of player counts, got {players!r}")
    for n in players:
        as_int(n, "a player count", 2, 5)
    if len(set(players)) != len(players):
        raise ScorecardError(f"a player count is listed twice: {list(players)}")
    rungs = [r if isinstance(r, tuple) else (r, r) for r in (ladder or reference_ladder())]
    names = [name for name, _ in rungs]
    if len(set(names)) != len(names):
        raise LadderError(f"a rung is listed twice in the ladder: {names}")
    return rungs


def evaluate(
    spec: str | Agent,
    ladder: Sequence[str | tuple[str, Any]] | None = None,
    players: Sequence[int] = DEFAULT_PLAYERS,
    games: int = DEFAULT_GAMES,
    seed: int = EVAL_SEED,
    workers: int | None = None,
    progress: bool = True,
    command: str | None = None,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, Any]:
    """The scorecard of ``spec`` (module doc) as a JSON-ready dict.

    The batches of every pairing are played together: in ``workers`` processes, or as
    Ray tasks (``backend="ray"``, on the cluster at ``address``), the same games either way.

    ``ladder``: rung specs (or (name, spec) pairs), default ``reference_ladder()``.
    ``games``: per pairing, rounded up to whole duplicate deals. Raises
    ``AgentLoadError`` / ``PolicyFileError`` for a spec that loads no agent,
    ``ScorecardError`` when nothing can be played, ``AgentError`` when an agent fails.
    """
    rungs = _check_arguments(ladder, players, games, seed)
    check_backend(backend, address)
    itself = [name for name, rung in rungs if isinstance(spec, str) and rung == spec.strip()]
    rungs = [(name, rung) for name, rung in rungs if name not in itself]  # no mirror matches
    if not rungs:
        raise LadderError(f"the ladder holds only the agent itself ({', '.join(itself)})")
    agent = load_spec(spec)
    counts, skipped = playable_counts(agent, players)
    if not counts:
        reasons = "; ".join(f"{n} players: {why}" for n, why in skipped.items())
        raise AgentMismatchError(f"the agent can play none of the player counts ({reasons})")
    opponents = dict(zip((name for name, _ in rungs), _load_ladder(rungs, counts), strict=True))
    # the stamp names the code that plays the games: taken before them, not after
    stamp = provenance(seeds=seed, command=command)
    start = time.perf_counter()
    blocks: dict[int, dict[str, Any]] = {n: {"pairings": []} for n in counts}
    pairs = [(n, name, rung) for n in counts for name, rung in rungs]
    plans = [pairing(entrant(spec, agent), opponents[name], n, games, seed, workers, backend)
             for n, name, _ in pairs]  # fmt: skip
    # every batch of every pairing fanned out at once: one progress bar of games
    played = run_all(plans, workers, backend, address, progress, "evaluate")
    for (n, name, rung), res in zip(pairs, played, strict=True):
        blocks[n]["pairings"].append({"opponent": name, "spec": _text(rung), **pairing_row(res)})
    elapsed = time.perf_counter() - start
    return {
        "format": FORMAT,
        "agent": {"spec": _text(spec), "name": agent_name(agent)},
        "version": __version__,
        "ladder": [{"name": n, "spec": _text(s), "anchors": _anchors(n)} for n, s in rungs],
        "not_bundled": [n for n, s in LADDER if ladder is None and s not in REGISTRY],
        "itself": itself,
        "games_per_pairing": games,
        "seeds": _seeds(seed, blocks),
        "players": {str(n): blocks[n] for n in counts},
        "skipped": {str(n): why for n, why in skipped.items()},
        "rating": {**_ratings(blocks), "model": RATING_MODEL},
        "provenance": {**stamp, "wall_time_s": round(elapsed, 3)},
    }


RATING_MODEL = (
    "Elo (400 points: 10-to-1 odds) with Luce's rule for N players, p = 1 / (1 + (N-1) * "
    "10**((anchor - R) / 400)); maximum likelihood over the anchored rungs; 95% "
    "likelihood-ratio interval (games taken as independent, anchors as exact)"
)


def _rating_text(fit: dict[str, Any] | None) -> str:
    if fit is None:
        return "no anchored rung"
    if fit["rating"] is None:
        every = "won" if fit["off_scale"] == "above" else "lost"
        return f"off the scale ({fit['off_scale']}: every game {every})"
    return f"{fit['rating']:.0f} ({fit['low']:.0f} to {fit['high']:.0f})"


def format_scorecard(card: dict[str, Any]) -> str:
    """The scorecard as a table for a terminal (``evaluate``'s dict, or its JSON)."""
    git = card["provenance"]["git"]
    rev = (git["revision"] or "no git checkout")[:12] + (" (modified)" if git["dirty"] else "")
    seeds = card["seeds"]
    lines = [
        f"scorecard of {card['agent']['spec']} ({card['agent']['name']}): "
        f"mamma-mia-env {card['version']}, revision {rev}",
        f"{card['games_per_pairing']:,} games per pairing (whole duplicate deals, seats rotated)",
        f"evaluation seed {seeds['tournament_seed']}: engine seeds "
        f"{seeds['tournament_seed']} * 2**32 + d, "
        + ", ".join(f"d < {d:,} at {n} players" for n, d in seeds["deals"].items()),
        "",
    ]
    head = ["players", "opponent", "games", "wins", "win rate", "95% CI", "chance", "delivered"]
    body = []
    for n, block in card["players"].items():
        for r in block["pairings"]:
            body.append([n, r["opponent"], f"{r['games']:,}", f"{r['wins']:,.1f}",
                         f"{100 * r['win_rate']:.1f}%",
                         f"{100 * r['win_rate_low']:.1f}-{100 * r['win_rate_high']:.1f}%",
                         f"{100 * r['chance']:.1f}%", f"{r['mean_delivered']:.2f}"])  # fmt: skip
    lines += aligned([head, *body])
    for n, why in card["skipped"].items():
        lines.append(f"{n} players: skipped: {why}")
    for name in card.get("itself", []):
        lines.append(f"ladder rung {name!r}: the agent itself, not played (50% by symmetry)")
    for name in card["not_bundled"]:
        lines.append(f"ladder rung {name!r}: not a bundled agent of this version, left out")
    rating = card["rating"]
    lines.append("")
    lines.append(f"rating (Elo on the ladder's scale, random = 0; 95% interval): "
                 f"{_rating_text(rating['overall'])}")  # fmt: skip
    for n, fit in rating["by_players"].items():
        lines.append(f"  {n} players: {_rating_text(fit)}")
    for n in rating["by_players"]:
        missing = [r["name"] for r in card["ladder"] if n not in r["anchors"]]
        if missing:
            lines.append(f"  (no anchor at {n} players, not in the rating: {', '.join(missing)})")
    return "\n".join(lines)
