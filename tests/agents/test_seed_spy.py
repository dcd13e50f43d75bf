"""A spy agent at every entry point finds no route to the seeds.

``user_agents.SeedSpy`` tries the known routes from what it is handed (the generator's
seed sequence, spawn key and state, generators rebuilt from them, the deals those
seeds make, the arrays it gets, the state a ``needs_state`` agent gets) and raises
``SpyFound`` when one leads to the user's seed, a game seed or the real hidden cards.
The controls first show that it does find them through the generators the entry points
handed out before (``default_rng([seed, batch])``, a spawned child of the env's
sequence) and through the real state; then every entry point must leave it empty-handed. The
worker-process and Ray tournaments run the spy in tests/agents/test_agent_entry_points.py
(``PROCESS_AGENTS``): a find there fails the tournament with an ``AgentError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from user_agents import SeedSpy, SpyFound, ints

import mamma_mia_env.policy as policy_module
from mamma_mia_agents.cli.session import Game
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env import Config, Engine
from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv
from mamma_mia_env.plumbing.seeding import agent_rng
from mamma_mia_env.policy import PolicyFailure, observers_for, policy_actions

MODES = [False, True]  # act_batch (observations), act_states (needs_state)


def _ask(spy: SeedSpy, seeds: np.ndarray, rng: np.random.Generator) -> None:
    cfg = Config(num_players=3)
    eng = Engine(cfg)
    state = eng.reset(seeds=seeds)
    who = np.zeros(len(seeds), np.int64)
    policy_actions([spy], who, state, eng.legal_masks(state), rng, observers_for(cfg, [spy]))


def _found(spy: SeedSpy, seeds: np.ndarray, rng: np.random.Generator) -> str:
    with pytest.raises(PolicyFailure) as failure:
        _ask(spy, seeds, rng)
    assert isinstance(failure.value.error, SpyFound)
    return str(failure.value.error)


@pytest.mark.parametrize("needs_state", MODES)
def test_the_spy_finds_the_old_leaks(needs_state: bool) -> None:
    """Controls: the generators the entry points used to hand out, and the real state."""
    tour = np.array([(5 << 32) + d for d in range(4)], np.uint64)  # tournament seed 5
    text = _found(SeedSpy(5, needs_state), tour, np.random.default_rng([5, 0]))
    assert "the user's seed 5" in text and "the tournament seed [5]" in text
    sequence = np.random.SeedSequence(9)  # the learner env's seed 9 and its spawned child
    seeds = np.random.default_rng(sequence).integers(0, 2**63, 4, dtype=np.uint64)
    text = _found(SeedSpy(9, needs_state), seeds, np.random.default_rng(sequence.spawn(1)[0]))
    assert "game seeds" in text and "a derived seed deals the real game" in text
    # the same games with the generator the entry points hand out now: nothing
    spy = SeedSpy(9, needs_state)
    _ask(spy, seeds, agent_rng("learner opponents", 9))
    assert spy.calls == 1 and spy.routes > 100 and not spy.found


def test_the_spy_finds_the_real_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: a needs_state agent handed the real games sees their seed."""
    monkeypatch.setattr(policy_module, "information_set", lambda state: state.copy())
    text = _found(SeedSpy(None, True), np.arange(4, dtype=np.uint64), agent_rng(1))
    assert "the state holds the real game's seed or generator" in text


def test_the_spy_finds_real_cards_left_in_the_world(monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: a world that keeps the supply's real drawn part (as the sampler once
    did) or the real hands is caught by the spy's tallies."""
    real_set = policy_module.information_set

    def leaky(state: Any) -> Any:
        world = real_set(state)
        world.data["supply"] = state.data["supply"]
        world.data["hand"] = state.data["hand"]
        return world

    monkeypatch.setattr(policy_module, "information_set", leaky)
    spy = SeedSpy(None, True)
    res = run_tournament([spy, "random"], num_players=3, games=2, seed=3, workers=1,
                         batch_size=2, progress=False)  # fmt: skip
    assert (res.turns > 0).all() and not spy.found
    for name in ("hand", "supply", "supply (drawn part)"):
        assert spy.same[name] == spy.total[name] > 0, name


def _infos_hold_no_seed(infos: Any, real: set[int]) -> None:
    """Nothing in ``infos`` (what the learner is handed) is a game seed (the envs draw
    63-bit seeds; ``final_game_seeds`` is 0 for a slot with no finished game yet)."""
    assert not set(ints(infos)) & {s for s in real if s >= 2**20}


def _done(spy: SeedSpy) -> None:
    assert spy.calls > 0 and spy.routes > 0 and not spy.found
    if spy.needs_state:  # every hidden part is re-dealt, not the real one (user_agents.HIDDEN):
        # each compared part can lie in many ways (supply, stacks, orders: 20 or more), so a
        # coincidence is rare (+2: the positions
        # of one game are compared one after the other, and repeat a coincidence)
        assert spy.total.get("hand", 0) > 0 and spy.total.get("supply (drawn part)", 0) > 0
        for name, total in spy.total.items():
            assert spy.same[name] <= 0.1 * total + 2, (name, spy.same[name], total)


@pytest.mark.parametrize("needs_state", MODES)
def test_tournament(needs_state: bool) -> None:
    spy = SeedSpy(11, needs_state)
    res = run_tournament([spy, "random"], num_players=3, games=6, seed=11, workers=1,
                         batch_size=3, progress=False)  # fmt: skip
    assert (res.turns > 0).all()
    _done(spy)


@pytest.mark.parametrize("seed", [12, None])  # None: the env's generator from the OS
@pytest.mark.parametrize("needs_state", MODES)
def test_gym_env(needs_state: bool, seed: int | None) -> None:
    spy = SeedSpy(seed, needs_state)
    env = MammaMiaGymEnv(num_players=3, opponents=spy)
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(40):
        real = set(int(s) for s in env.games.game_seeds())
        _infos_hold_no_seed(info, real)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, term, trunc, info = env.step(action)
        _infos_hold_no_seed(info, real)
        if term or trunc:
            _, info = env.reset()
    _done(spy)


@pytest.mark.parametrize("needs_state", MODES)
def test_learner_vector_env_and_self_play(needs_state: bool) -> None:
    spy = SeedSpy(13, needs_state)
    env = MammaMiaLearnerVectorEnv(4, num_players=2, opponents=[spy])
    _, info = env.reset(seed=13)
    rng = np.random.default_rng(0)
    for t in range(30):
        real = set(int(s) for s in env.game_seeds()) | set(int(s) for s in env.final_game_seeds())
        _infos_hold_no_seed(info, real)
        if t == 10:
            env.set_opponents([spy, SeedSpy(13, not needs_state)])
        u = rng.random(info["action_mask"].shape) * info["action_mask"]
        _, _, _, _, info = env.step(u.argmax(1))
        _infos_hold_no_seed(info, real | set(int(s) for s in env.final_game_seeds()))
    _done(spy)


@pytest.mark.parametrize("needs_state", MODES)
def test_sb3_vec_env(needs_state: bool) -> None:
    spy = SeedSpy(14, needs_state)
    venv = MammaMiaSB3VecEnv(4, num_players=2, opponents=spy, seed=14)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        real = set(int(s) for s in venv.game_seeds())
        u = rng.random(venv.action_masks().shape) * venv.action_masks()
        _, _, _, infos = venv.step(u.argmax(1))
        _infos_hold_no_seed(infos, real | set(int(s) for s in venv.final_game_seeds()))
    _done(spy)


@pytest.mark.parametrize("needs_state", MODES)
def test_play(needs_state: bool) -> None:
    """``mamma-mia play``'s game (the terminal and browser games drive it)."""
    spy = SeedSpy(15, needs_state)
    game = Game(Config(num_players=3), 0, [spy], 15, [])  # type: ignore[list-item]
    rng = np.random.default_rng(0)
    for _ in range(40):
        if game.over():
            break
        if int(game.rec["seat"]) == 0:
            game.apply(int(rng.choice(np.flatnonzero(game.legal()))))
        else:
            game.apply(game.bot_action())
    _done(spy)


def test_openspiel_resampled_worlds_carry_no_real_seed() -> None:
    """OpenSpiel's bots get OpenSpiel's State (its model: the chance node's deal is
    public to them); the worlds ``resample_from_infostate`` gives its ISMCTS are
    re-dealt with fresh ``seed`` and ``rng`` fields."""
    pyspiel = pytest.importorskip("pyspiel")
    from mamma_mia_env.integrations.openspiel import load_game

    state = load_game(num_players=2, num_deals=8).new_initial_state()
    state.apply_action(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(10):
        p = state.current_player()
        world = state.resample_from_infostate(p, sampler).state.data
        real = state.state.data
        assert world["seed"][0] != real["seed"][0] and world["rng"][0] != real["rng"][0]
        state.apply_action(state.legal_actions()[0])
