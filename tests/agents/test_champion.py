"""The champion (agents/bots/champion.py): the shipped settings, the checked settings
file, the player counts it refuses, and its games."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import champion_at

from mamma_mia_agents import REGISTRY, load_agent
from mamma_mia_agents.bots.champion import (
    FORMAT,
    ChampionAgent,
    ChampionFileError,
    default_settings_path,
    read_settings,
)
from mamma_mia_agents.bots.ppo_agent import SHIPPED, PPOAgent
from mamma_mia_agents.bots.ppo_policy import NumpyPolicy
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_agents.tournament.matches import AgentMismatchError
from mamma_mia_env import Config, Engine
from mamma_mia_env.policy import information_set


def _settings(**search: object) -> dict:
    base = {"worlds": 3, "candidates": 2, "margin": 0.02, "rollout": "builder", "prior": "ppo"}
    return {"format": FORMAT, "num_players": 2, "search": {**base, **search}}


def _write(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "champion_2p.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("n", [2, 4])
def test_the_shipped_settings_read_back(n: int) -> None:
    settings = read_settings(default_settings_path(n))
    assert settings["num_players"] == n and settings["worlds"] >= 16
    doc = json.loads(default_settings_path(n).read_text())
    assert Path(doc["tuned_by"]).name == f"champion_{n}p_tuning.json"
    bot = ChampionAgent().search(n)
    assert isinstance(bot, SearchAgent) and bot.worlds == settings["worlds"]


def test_bundled_and_plays_legal_moves(tmp_path: Path) -> None:
    assert REGISTRY["champion"] is ChampionAgent and isinstance(
        load_agent("champion"), ChampionAgent
    )
    agent = ChampionAgent(_write(tmp_path, _settings()))
    eng = Engine(Config(num_players=2))
    state = eng.reset(seeds=[3])
    for _ in range(6):
        a = agent.act_states(information_set(state), np.random.default_rng(0))
        assert eng.legal_masks(state)[0, a[0]] == 1
        eng.step(state, a)
    res = run_tournament([agent, "builder"], num_players=2, games=2, seed=1, workers=1,
                         progress=False)  # fmt: skip
    assert res.games == 2


def test_player_counts_without_settings_are_refused_before_play(
    tmp_path: Path, monkeypatch
) -> None:
    champion_at((2, 4), monkeypatch, tmp_path)
    with pytest.raises(
        ValueError, match=r"no shipped champion for 3 players \(it is tuned for 2 or 4"
    ):
        ChampionAgent().check_config(Config(num_players=3))
    with pytest.raises(AgentMismatchError, match="no shipped champion for 5 players"):
        run_tournament(["champion", "random"], num_players=5, games=5, workers=1, progress=False)
    one = ChampionAgent(_write(tmp_path, _settings()))
    with pytest.raises(ValueError, match="is tuned for 2 players, not 4"):
        one.check_config(Config(num_players=4))
    with pytest.raises(TypeError, match="needs the game state"):
        one.act_batch(np.zeros((1, 5)), np.ones((1, 5)), np.random.default_rng(0))


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ([], "must be a JSON object"),
        ({**_settings(), "format": "other/1"}, "format must be"),
        ({**_settings(), "num_players": 6}, "num_players must be an integer 2-5"),
        ({**_settings(), "num_players": True}, "num_players must be an integer 2-5"),
        ({**_settings(), "search": 5}, "'search' must be an object"),
        (_settings(worlds=0), r"search.worlds must be an integer in \[1, 4096\]"),
        (_settings(worlds=2.5), "search.worlds must be an integer"),
        (_settings(candidates=True), "search.candidates must be an integer"),
        (_settings(margin="1"), "search.margin must be a number"),
        (_settings(rollout="os:system"), "search.rollout must be a bundled heuristic bot"),
        (_settings(rollout="random"), "search.rollout must be a bundled heuristic bot"),
        (_settings(prior="pkg.mod:Net"), "search.prior must be one of"),
        (_settings(prior="../policies/ppo_2p.npz"), "search.prior must be one of"),
        (_settings(prior="/etc/passwd"), "search.prior must be one of"),
        (_settings(prior="nothing_here.npz"), "search.prior must be one of"),
        (_settings(prior=["ppo"]), "search.prior must be one of"),
        (_settings(code="import os"), r"unknown search setting\(s\) \['code'\]"),
    ],
)
def test_a_settings_file_is_checked_data(tmp_path: Path, doc: object, problem: str) -> None:
    path = _write(tmp_path, doc)
    with pytest.raises(ChampionFileError, match=problem) as err:
        ChampionAgent(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_the_shipped_champions_take_the_one_network_as_their_prior(tmp_path: Path) -> None:
    """Every shipped champion names ``"ppo"``; its search bot's prior proposes exactly what
    the shipped network plays, at every count. A file name as the prior is refused
    (a settings file names no file: the ppo.npz of another checkout is not data here)."""
    shipped = NumpyPolicy.load(SHIPPED)
    for n in (2, 3, 4, 5):
        assert read_settings(default_settings_path(n))["prior"] == "ppo"
        prior = ChampionAgent().search(n).prior
        assert isinstance(prior, PPOAgent)
        got = prior.policy(n)
        assert Path(got.source) == SHIPPED
        own = shipped.for_count(n)
        assert all(np.array_equal(a, b) for pair in zip(got.layers, own.layers, strict=True)
                   for a, b in zip(*pair, strict=True))  # fmt: skip
    with pytest.raises(ChampionFileError, match="search.prior must be one of"):
        ChampionAgent(_write(tmp_path, _settings(prior="ppo.npz")))


def test_a_broken_or_missing_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for path in (bad, tmp_path / "missing.json"):
        with pytest.raises(ChampionFileError) as err:
            ChampionAgent(path)
        assert str(path) in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(TypeError, match="settings file path"):
        ChampionAgent(3)  # type: ignore[arg-type]
