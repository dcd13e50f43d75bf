"""Event logs and checks shared by the replay page's tests."""

from __future__ import annotations

import re

from mamma_mia_agents.tournament import run_tournament

#: Agent names that would be markup or end a script if a page wrote them unescaped.
HOSTILE = ["<script>alert(1)</script>", "\"&'", "</script><!--x-->", "a\u2028b"]


def tournament_log(num_players: int = 4) -> dict:
    """The first game of a small tournament, as written by ``--save-logs``."""
    agents = ["builder", "counter", "hoarder", "random"][:num_players]
    res = run_tournament(
        agents, num_players=num_players, games=num_players, workers=1, progress=False,
        save_logs=1,
    )  # fmt: skip
    return res.logs[0]


def assert_offline(page: str) -> None:
    """One file: no address the browser would fetch (the SVG namespace is a name)."""
    assert not re.search(r"(src|href|action)\s*=", page, re.I)
    assert "url(" not in page and "@import" not in page
    assert not re.search(r"fetch\(|XMLHttpRequest|import\(|<link|<iframe", page)
    assert set(re.findall(r"https?://[^'\"]*", page)) <= {"http://www.w3.org/2000/svg"}


def cut_log(log: dict, moves: int) -> dict:
    """``log`` cut off after its first ``moves`` actions, as a saved unfinished game is:
    config, seed and actions only (``load_log`` re-derives events and result)."""
    keep = ("format", "config", "seed", "start_state", "agents")
    return {**{k: log[k] for k in keep if k in log}, "actions": log["actions"][:moves]}
