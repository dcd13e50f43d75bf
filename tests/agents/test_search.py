"""The search bots (agents/bots/search.py): legal, reproducible, blind to hidden cards.

In the style of tests/game/test_observation.py: change what the acting seat cannot see
(other hands, the supply, other seats' orders, stack orders, the game's seed) and the
decision, for a fixed generator, stays the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import POLICY_FILE, random_legal

from mamma_mia_agents import load_agent
from mamma_mia_agents.bots.ppo_agent import PPOAgent
from mamma_mia_agents.bots.search import SearchAgent
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env import Config, Engine, GameState
from mamma_mia_env.game.record import OVER, REVEAL
from mamma_mia_env.game.sampling import sample_world
from mamma_mia_env.policy import observers_for, policy_actions


def _positions(cfg: Config, games: int, seed: int, every: int = 9) -> list[GameState]:
    eng = Engine(cfg)
    state = eng.reset(seeds=np.arange(games) + seed)
    rng = np.random.default_rng(seed)
    out = []
    step = 0
    while (state.data["phase"] != OVER).any():
        live = np.flatnonzero(state.data["phase"] != OVER)
        reveal = live[state.data["phase"][live] == REVEAL]
        if step % every == 4 or len(reveal):
            for g in (reveal if len(reveal) else live)[:2]:
                out.append(state[[g]])
        eng.step(state, random_legal(eng.legal_masks(state), rng))
        step += 1
    return out


@pytest.mark.parametrize("prior", [None, "ppo"])
@pytest.mark.parametrize("num_players", [2, 4])
def test_decision_does_not_read_hidden_cards(num_players: int, prior: str | None) -> None:
    cfg = Config(num_players=num_players)
    bot = SearchAgent(worlds=4, candidates=4, prior=prior)
    positions = _positions(cfg, 8, 40 + num_players)[::2][:30]
    reveals = 0
    for pos in positions:
        me = int(pos.data["seat"][0])
        twin = sample_world(pos, me, np.random.default_rng(7))  # same information set
        assert not twin.equals(pos)
        a = bot.act_states(pos, np.random.default_rng(11))
        b = bot.act_states(twin, np.random.default_rng(11))
        assert a[0] == b[0]
        reveals += int(pos.data["phase"][0] == REVEAL)
    assert 0 < reveals < len(positions) and len(positions) >= 20


def test_reproducible_and_legal() -> None:
    cfg = Config(num_players=3)
    eng = Engine(cfg)
    bot = SearchAgent(worlds=3, candidates=3)
    for pos in _positions(cfg, 2, 5)[:15]:
        before = pos.copy()
        a = bot.act_states(pos, np.random.default_rng(1))
        assert pos.equals(before)  # the real state is not changed
        assert eng.legal_masks(pos)[0, a[0]] == 1
        assert bot.act_states(pos, np.random.default_rng(1))[0] == a[0]


def test_candidates_start_with_the_builders_choice() -> None:
    cfg = Config(num_players=4)
    eng = Engine(cfg)
    builder = load_agent("builder")
    bot = SearchAgent(candidates=5)
    for pos in _positions(cfg, 2, 9)[:20]:
        if pos.data["phase"][0] == REVEAL:
            continue
        cands = bot.candidate_actions(pos)
        obs, mask = eng.observe(pos), eng.legal_masks(pos)
        choice = builder.act_batch(obs, mask, np.random.default_rng(0), pos.data["seat"])
        assert cands[0] == choice[0] and len(set(cands.tolist())) == len(cands)
        assert (mask[0, cands] == 1).all()


def test_the_prior_adds_its_choice_to_the_candidates() -> None:
    """With ``prior="ppo"`` the candidates are the builder's, plus the network's choice
    when the builder's list lacks it (the network reads the seat's own observation)."""
    cfg = Config(num_players=2)
    ppo = load_agent("ppo")
    eng = Engine(cfg.replace(observation_mode=ppo.observation_mode))  # its own observation
    plain, guided = SearchAgent(candidates=2), SearchAgent(candidates=2, prior="ppo")
    added = 0
    for pos in _positions(cfg, 4, 21)[:40]:
        if pos.data["phase"][0] == REVEAL:
            continue
        base, cands = plain.candidate_actions(pos), guided.candidate_actions(pos)
        obs, mask = eng.observe(pos), eng.legal_masks(pos)
        choice = int(ppo.act_batch(obs, mask, np.random.default_rng(0), pos.data["seat"])[0])
        assert choice in cands.tolist() and cands[: len(base)].tolist() == base.tolist()
        assert len(cands) == len(base) + (choice not in base.tolist())
        added += int(choice not in base.tolist())
    assert added > 0  # the network does propose moves the builder ranks lower


def test_candidate_values_are_what_the_decision_compares() -> None:
    """``candidate_values`` (expert iteration's labels) searches the same candidates over
    the same worlds as a decision: for one generator state, the best value is the action
    ``act_states`` picks; extra legal actions are appended, illegal ones refused; and the
    values, like the decision, do not read hidden cards."""
    cfg = Config(num_players=2)
    eng = Engine(cfg)
    bot = SearchAgent(worlds=6, candidates=3)
    extras = 0
    for pos in _positions(cfg, 4, 33)[:24]:
        cands, values = bot.candidate_values(pos, np.random.default_rng(5))
        assert cands.tolist() == bot.candidate_actions(pos).tolist()
        assert values.shape == cands.shape and np.isfinite(values).all()
        if len(cands) > 1:
            chosen = bot.act_states(pos, np.random.default_rng(5))[0]
            assert chosen == cands[int(np.argmax(values))]
        twin = sample_world(pos, int(pos.data["seat"][0]), np.random.default_rng(8))
        same = bot.candidate_values(twin, np.random.default_rng(5))
        assert same[0].tolist() == cands.tolist() and np.array_equal(same[1], values)
        legal = np.flatnonzero(eng.legal_masks(pos)[0])
        other = [a for a in legal if a not in cands][:2]
        if other:
            more, more_values = bot.candidate_values(pos, np.random.default_rng(5), other)
            assert more.tolist() == cands.tolist() + other and len(more_values) == len(more)
            extras += 1
        illegal = int(np.flatnonzero(eng.legal_masks(pos)[0] == 0)[0])
        with pytest.raises(ValueError, match=f"extra action {illegal} is not legal"):
            bot.candidate_values(pos, np.random.default_rng(5), [illegal])
    assert extras > 0
    pos = _positions(cfg, 1, 2)[0]
    with pytest.raises(TypeError, match="extra must be integer actions"):
        bot.candidate_values(pos, np.random.default_rng(0), [1.5])
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        bot.candidate_values(pos, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one game"):
        bot.candidate_values(eng.reset(seeds=np.arange(2)), np.random.default_rng(0))


def test_the_prior_is_an_observation_policy_for_the_game() -> None:
    with pytest.raises(ValueError, match="prior must be a policy that reads an observation"):
        SearchAgent(prior="search")
    for n in (2, 3, 4, 5):  # the shipped network plays every count
        SearchAgent(prior="ppo").check_config(Config(num_players=n))
    with pytest.raises(ValueError, match="plays 4 players, not 3"):
        SearchAgent(prior=PPOAgent(POLICY_FILE[4])).check_config(Config(num_players=3))
    with pytest.raises(ValueError, match="trained without double ingredients"):
        SearchAgent(prior="ppo").check_config(Config(num_players=2, double_ingredients=True))
    assert "prior='ppo'" in repr(SearchAgent(prior="ppo"))


def test_in_a_tournament_by_name() -> None:
    res = run_tournament(
        [SearchAgent(worlds=2, candidates=2), "random"], num_players=2, games=2, seed=0,
        workers=1,
    )  # fmt: skip
    assert res.games == 2
    assert isinstance(load_agent("search"), SearchAgent)


def test_bad_arguments_and_bare_observations() -> None:
    with pytest.raises(ValueError, match="worlds"):
        SearchAgent(worlds=0)
    with pytest.raises(ValueError, match="candidates"):
        SearchAgent(candidates=-1)
    with pytest.raises(ValueError, match="time_ms"):
        SearchAgent(time_ms=0)
    for kwargs in ({"worlds": True}, {"candidates": 2.0}, {"margin": True}, {"time_ms": "5"}):
        name = next(iter(kwargs))  # a bool or a string is not read as a number
        with pytest.raises(TypeError, match=f"{name} must be"):
            SearchAgent(**kwargs)
    with pytest.raises(ValueError, match="margin must be a finite number, got nan"):
        SearchAgent(margin=float("nan"))
    with pytest.raises(ValueError, match="rollout must be a compiled bot with memory"):
        SearchAgent(rollout="forgetful")
    with pytest.raises(TypeError, match="needs the game state"):
        SearchAgent().act_batch(np.zeros((1, 5)), np.ones((1, 5)), np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be"):
        SearchAgent().act_states(Engine(Config()).reset(seeds=[0]), 3)  # type: ignore[arg-type]


def test_policy_actions_hands_the_same_world_for_the_same_information_set() -> None:
    """The entry points' side of the perturbation test: ``policy_actions`` hands a needs_state
    agent ``information_set(state)``, which is the same world for every state the seat
    cannot tell apart (here: the real game and a re-dealt twin) and never the real game;
    so the decision is the same too."""
    cfg = Config(num_players=3)
    eng = Engine(cfg)
    seen: list[GameState] = []

    class Recording(SearchAgent):
        def act_states(self, state: GameState, rng: np.random.Generator) -> np.ndarray:
            seen.append(state.copy())
            return super().act_states(state, rng)

    bot = Recording(worlds=3, candidates=3)
    observers = observers_for(cfg, [bot])
    positions = _positions(cfg, 6, 21)[::2][:20]
    for pos in positions:
        twin = sample_world(pos, int(pos.data["seat"][0]), np.random.default_rng(7))
        acts = []
        for s in (pos, twin):
            rng = np.random.default_rng(11)
            masks = eng.legal_masks(s)
            acts.append(policy_actions([bot], np.zeros(1, np.int64), s, masks, rng, observers)[0])
        world, world_twin = seen[-2], seen[-1]
        assert world.equals(world_twin) and acts[0] == acts[1]
        assert not world.equals(pos) and world.data["seed"][0] != pos.data["seed"][0]
        assert np.array_equal(eng.observe(world), eng.observe(pos))  # what the seat knows
    assert len(positions) == 20
