"""Every bundled agent, and a user's agent given as ``package.module:Class``, at every
entry point that takes agents, for a few moves each.

The entry points: the tournament (in this process, in worker processes, on Ray),
the scorecard (``mamma-mia evaluate``), ``play`` (``agents/cli/session.Game``), the
gym env, the learner-seat vector env and the SB3 VecEnv as opponents (one opponent, a
pool, a pool swapped in for self-play). The search bot plays with a small budget
(``SearchAgent(worlds=2, candidates=2)``; one test plays the default
``load_agent("search")``). Every bundled agent plays 2-5 players; a combination that
cannot work (``user_agents:two_player_policy``, a policy file of one count, at 3 players;
the shipped ``ppo`` with the double deck) is refused before the first move, with a
message that says why and what to use.
docs/AGENTS.md, "Agents at every entry point", is this matrix for users.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from user_agents import SeedSpy

from mamma_mia_agents import REGISTRY, load_agent
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_agents.cli.session import Game
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_agents.tournament.matches import AgentMismatchError
from mamma_mia_agents.tournament.scorecard import evaluate
from mamma_mia_env import Config
from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

USER = "user_agents:UserAgent"  # a user's agent class, in tests/support/
ONE_COUNT = "user_agents:two_player_policy"  # a policy file of 2 players
AGENTS = [*REGISTRY, USER, ONE_COUNT]
REFUSALS = {ONE_COUNT: r"the policy .* plays 2 players, not 3"}


class Counted:
    """An agent, counting the calls the entry point makes to it (every other attribute,
    such as ``needs_state`` and ``check_config``, is the agent's own)."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.calls = agent, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    def act_batch(self, *args: Any, **kwargs: Any) -> np.ndarray:
        self.calls += 1
        return self.agent.act_batch(*args, **kwargs)

    def act_states(self, *args: Any, **kwargs: Any) -> np.ndarray:
        self.calls += 1
        return self.agent.act_states(*args, **kwargs)


def make(spec: str) -> Any:
    """The agent of ``spec``, the search bot with a small budget (fast tests)."""
    return SearchAgent(worlds=2, candidates=2) if spec == "search" else load_agent(spec)


def refused(spec: str, num_players: int) -> bool:
    return spec == ONE_COUNT and num_players != 2


def _legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(masks.shape) * (np.asarray(masks) != 0)
    return u.argmax(axis=-1)


# -- the entry points: a few moves each ---------------------------------------------------
def gym_entry(agent: Any, n: int) -> None:
    env = MammaMiaGymEnv(num_players=n, opponents=agent)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(6):
        _, _, term, trunc, _ = env.step(int(_legal(env.action_masks(), rng)))
        if term or trunc:
            env.reset()


def vector_entry(agent: Any, n: int) -> None:
    env = MammaMiaLearnerVectorEnv(3, num_players=n, opponents=[agent, load_agent("random")],
                                   opponent_probs=[3, 1])  # fmt: skip
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(4):
        _, _, _, _, info = env.step(_legal(info["action_mask"], rng))


def self_play_entry(agent: Any, n: int) -> None:
    """A pool swapped in mid-run (the self-play pattern): new games draw from it."""
    env = MammaMiaLearnerVectorEnv(3, num_players=n)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    env.step(_legal(info["action_mask"], rng))
    env.set_opponents([agent, load_agent("builder")])
    _, info = env.reset()
    for _ in range(4):
        _, _, _, _, info = env.step(_legal(info["action_mask"], rng))


def sb3_entry(agent: Any, n: int) -> None:
    venv = MammaMiaSB3VecEnv(3, num_players=n, opponents=agent, seed=4)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(4):
        venv.step(_legal(venv.action_masks(), rng))


def play_entry(agent: Any, n: int) -> None:
    """``mamma-mia play``'s game: the person at seat 0, the agent at every other seat."""
    game = Game(Config(num_players=n), 0, [agent], 5, [])
    rng = np.random.default_rng(0)
    for _ in range(12):
        if game.over():
            break
        seat = int(game.rec["seat"])
        action = game.bot_action() if seat != 0 else int(_legal(game.legal(), rng))
        game.apply(action)


def tournament_entry(agent: Any, n: int) -> None:
    """Against ``random``: games with a random seat go through the batched loop, which
    calls the agent (all-heuristic games run the bots' compiled twins instead)."""
    res = run_tournament([agent, "random"], num_players=n, games=n, seed=6, workers=1,
                         progress=False)  # fmt: skip
    assert len(res.turns) == n and (res.turns > 0).all()


def evaluate_entry(agent: Any, n: int) -> None:
    """``mamma-mia evaluate``'s scorecard, against a one-rung ladder."""
    card = evaluate(agent, ladder=["random"], players=(n,), games=n, workers=1, progress=False)
    assert card["players"][str(n)]["pairings"][0]["games"] == n


ENTRY_POINTS = {
    "gym": gym_entry,
    "vector": vector_entry,
    "self_play": self_play_entry,
    "sb3": sb3_entry,
    "play": play_entry,
    "tournament": tournament_entry,
    "evaluate": evaluate_entry,
}


@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("spec", AGENTS)
def test_every_agent_at_every_entry_point(spec: str, entry: str, num_players: int) -> None:
    agent = Counted(make(spec))
    if refused(spec, num_players):
        kind = AgentMismatchError if entry in ("tournament", "evaluate") else ValueError
        with pytest.raises(kind, match=REFUSALS[spec]):
            ENTRY_POINTS[entry](agent, num_players)
        assert agent.calls == 0  # refused before the first move
        return
    ENTRY_POINTS[entry](agent, num_players)
    assert agent.calls > 0


def test_ppo_plays_four_and_five_players_and_refuses_the_double_deck() -> None:
    for entry in (gym_entry, play_entry, tournament_entry):
        for n in (4, 5):
            agent = Counted(load_agent("ppo"))
            entry(agent, n)
            assert agent.calls > 0
    with pytest.raises(ValueError, match="trained without double ingredients: play it without"):
        MammaMiaGymEnv(num_players=2, double_ingredients=True, opponents=load_agent("ppo"))
    with pytest.raises(ValueError, match="trained without double ingredients"):
        Game(Config(num_players=2, double_ingredients=True), 0, ["ppo"], 1, [])


def test_the_default_search_bot_plays_in_the_gym_env_and_in_play() -> None:
    """``load_agent("search")`` as it ships (the two entry points that once failed)."""
    for entry in (gym_entry, play_entry):
        agent = Counted(load_agent("search"))
        entry(agent, 2)
        assert agent.calls > 0


def test_the_default_search_bot_finishes_whole_games_in_the_gym_env_and_in_play() -> None:
    """Done when: a search opponent in the gym env and ``play --agents
    search`` play games to their end (the person's moves at random)."""
    env = MammaMiaGymEnv(num_players=2, opponents=load_agent("search"))
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(1000):
        _, _, term, trunc, info = env.step(int(_legal(env.action_masks(), rng)))
        if term or trunc:
            break
    assert term and not trunc
    game = Game(Config(num_players=2), 0, ["search"], 12, [])
    for _ in range(1000):
        if game.over():
            break
        seat = int(game.rec["seat"])
        game.apply(game.bot_action() if seat != 0 else int(_legal(game.legal(), rng)))
    assert game.over()


def test_the_user_agent_loads_by_import_path() -> None:
    from user_agents import UserAgent

    assert isinstance(load_agent(USER), UserAgent)


# -- worker processes and Ray: agents travel by name, import path or pickled object -------
# (the seed spies of tests/agents/test_seed_spy.py ride along: a find fails the run)
PROCESS_AGENTS: list[Any] = ["hoarder", "forgetful", "ppo", SearchAgent(worlds=2, candidates=2),
                             USER, SeedSpy(8), SeedSpy(8, needs_state=True)]  # fmt: skip
GAMES = 42  # 7 agents at 2 seats: 21 tables, each in both seatings


def _tournament_elsewhere(**kwargs: Any) -> None:
    kw = dict(num_players=2, games=GAMES, seed=8, batch_size=8, progress=False)
    res = run_tournament(PROCESS_AGENTS, **kw, **kwargs)
    here = run_tournament(PROCESS_AGENTS, workers=1, **kw)
    np.testing.assert_array_equal(res.delivered, here.delivered)
    np.testing.assert_array_equal(res.turns, here.turns)
    assert len(res.turns) == GAMES and (res.turns > 0).all()


def test_agents_in_worker_processes() -> None:
    _tournament_elsewhere(workers=2)


def test_agents_on_ray() -> None:
    ray = pytest.importorskip("ray")
    import user_agents

    # Ray's tasks import the user's module as its workers find it: ship it with the job
    from mamma_mia_env.integrations.ray_cluster import init_ray

    init_ray(num_cpus=2, runtime_env={"py_modules": [user_agents]})
    try:
        _tournament_elsewhere(backend="ray", workers=2)
    finally:
        ray.shutdown()
