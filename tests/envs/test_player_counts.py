"""Mixed player counts in one batch: the all-seat and the learner vector envs take a
count per game (``num_players=[...]``) or draw one per deal (``player_count_probs``).

A mixed batch plays, game by game and bit for bit, the games single-count envs play
from the same seeds; drawn counts follow their probabilities and come back with the
same seed; bad input is refused with a message naming it."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import random_legal

from mamma_mia_env import Config, Engine, replay
from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
from mamma_mia_env.envs.vector import MammaMiaVectorEnv
from mamma_mia_env.game import kernels
from mamma_mia_env.game.config import ConfigError
from mamma_mia_env.game.observe import observation_size
from mamma_mia_env.plumbing.arguments import ArgumentTypeError

COUNTS = [2, 3, 4, 5, 5, 4, 3, 2]
FIXED = {"observation_mode": "fixed", "max_turns": 40}  # short games: many deals


def pick(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A policy that is a function of each game's own observation: the same game seen
    in two envs gets the same action (0 where a game has none: it is over)."""
    out = np.zeros(len(masks), dtype=np.int64)
    for i in range(len(masks)):
        legal = np.flatnonzero(masks[i])
        if len(legal):
            out[i] = legal[int((obs[i].astype(np.float64) * 64).sum()) % len(legal)]
    return out


class FirstLegal:
    """An opponent that ignores its generator (so the games do not depend on how the
    batch is split into calls)."""

    def act_batch(self, observations, masks, rng, seats=None):
        return np.argmax(masks, axis=1)


def _info_convention(info: dict, b: int) -> None:
    for key, value in info.items():
        if key.startswith("_"):
            assert value.dtype == np.bool_ and value.shape == (b,), key
        elif isinstance(value, dict):
            assert f"_{key}" in info, key
            _info_convention(value, b)
        else:
            assert f"_{key}" in info and len(value) == b, key


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_mixed_vector_env_plays_the_single_count_games(mode) -> None:
    b = len(COUNTS)
    mixed = MammaMiaVectorEnv(b, num_players=COUNTS, autoreset_mode=mode, **FIXED)
    single = {
        n: MammaMiaVectorEnv(b, num_players=n, autoreset_mode=mode, **FIXED) for n in (2, 3, 4, 5)
    }
    assert mixed.num_players == 5 and mixed.single_observation_space.shape == (462,)
    obs, info = mixed.reset(seed=100)
    assert info["num_players"].tolist() == COUNTS
    _info_convention(info, b)
    outs = {n: env.reset(seed=100) for n, env in single.items()}
    ends = 0
    for _ in range(150):
        rows = {n: np.flatnonzero(np.array(COUNTS) == n) for n in single}
        for n, (o, inf) in outs.items():
            assert np.array_equal(o[rows[n]], obs[rows[n]])
            assert np.array_equal(inf["action_mask"][rows[n]], info["action_mask"][rows[n]])
            assert np.array_equal(single[n].game_seeds()[rows[n]], mixed.game_seeds()[rows[n]])
        steps = {
            n: env.step(pick(outs[n][0], outs[n][1]["action_mask"])) for n, env in single.items()
        }
        acts = pick(obs, info["action_mask"])
        assert mixed.action_space.contains(acts)
        obs, rew, term, trunc, info = mixed.step(acts)
        assert rew.shape == (b, 5) and mixed.observation_space.contains(obs)
        _info_convention(info, b)
        for n, (o, r, te, tr, inf) in steps.items():
            g = rows[n]
            assert np.array_equal(r[g], rew[g, :n]) and not rew[g, n:].any()
            assert np.array_equal(te[g], term[g]) and np.array_equal(tr[g], trunc[g])
            done = (te | tr)[g]
            if done.any():
                d = g[done]
                assert np.array_equal(inf["final_delivered"][d], info["final_delivered"][d, :n])
                assert not info["final_delivered"][d, n:].any()
                if mode is AutoresetMode.SAME_STEP:
                    assert np.array_equal(inf["final_obs"][d], info["final_obs"][d])
                    assert (info["final_info"]["num_players"][d] == n).all()
            outs[n] = (o, inf)
        ends += int((term | trunc).sum())
    assert ends >= 2 * b  # every slot was dealt again, some more than once


def test_vector_env_draws_counts_per_deal_reproducibly() -> None:
    probs = {2: 0.1, 3: 0.2, 5: 0.7}
    kw = dict(player_count_probs=probs, **FIXED)
    a, b = MammaMiaVectorEnv(128, **kw), MammaMiaVectorEnv(128, **kw)
    (obs_a, info_a), (obs_b, info_b) = a.reset(seed=9), b.reset(seed=9)
    drawn = [info_a["num_players"]]
    rng = np.random.default_rng(0)
    played: list[int] = []  # slot 0's actions since its game was dealt
    replayed = 0
    for _ in range(200):
        acts = random_legal(info_a["action_mask"], rng)
        played.append(int(acts[0]))
        obs_a, rew_a, term, trunc, info_a = a.step(acts)
        obs_b, rew_b, _, _, info_b = b.step(acts)
        if term[0] or trunc[0]:  # replayed alone from its seed and count
            n = int(a.final_game_counts()[0])
            assert n == info_a["final_info"]["num_players"][0]
            game = replay(Config(num_players=n, **FIXED), int(a.final_game_seeds()[0]), played)
            delivered = game.data["delivered"][0, :n].sum(axis=1)
            assert np.array_equal(delivered, info_a["final_delivered"][0, :n])
            played, replayed = [], replayed + 1
        assert np.array_equal(obs_a, obs_b) and np.array_equal(rew_a, rew_b)
        assert np.array_equal(info_a["num_players"], info_b["num_players"])
        done = term | trunc
        drawn.append(info_a["num_players"][done])  # the counts of the games just dealt
        n = info_a["num_players"]
        for s in range(5):  # a seat a game does not have gets nothing
            assert not rew_a[n <= s, s].any()
    counts = np.concatenate(drawn)
    assert len(counts) > 400 and set(counts.tolist()) <= {2, 3, 5}
    freq = np.bincount(counts, minlength=6)[[2, 3, 5]] / len(counts)
    assert np.allclose(freq, [0.1, 0.2, 0.7], atol=0.06), freq
    assert replayed >= 2
    # a game dealt is the game its seed and count deal alone, bit for bit (the records
    # of games of fewer players keep no trace of the five-player games before them)
    a.reset(options={"reset_mask": np.ones(128, dtype=bool)})  # into the used records
    for n in (2, 3, 5):
        rows = np.flatnonzero(a.game_counts() == n)
        alone = Engine(Config(num_players=n, **FIXED)).reset(seeds=a.game_seeds()[rows])
        assert alone.data.tobytes() == a.state.data[rows].tobytes()


def test_seed_count_follows_the_probabilities() -> None:
    p = np.array([0, 0, 0.25, 0.25, 0.4, 0.1])
    seeds = np.arange(200_000, dtype=np.uint64) * np.uint64(7919)
    out = np.empty(len(seeds), dtype=np.int64)
    kernels.seed_counts(seeds, kernels.count_cdf(p), out)
    freq = np.bincount(out, minlength=6) / len(out)
    assert np.allclose(freq, p, atol=0.005), freq


def test_mixed_learner_env_plays_the_single_count_games() -> None:
    b = len(COUNTS)
    seeds = np.arange(1000, 1000 + b, dtype=np.uint64)
    seats = np.array([1, 2, 3, 4, 0, 1, 2, 0])
    kw = dict(observation_mode="fixed", opponents=FirstLegal(), opponent_delivery_penalty=1.0)
    mixed = MammaMiaLearnerVectorEnv(b, num_players=COUNTS, **kw)
    single = {n: MammaMiaLearnerVectorEnv(b, num_players=n, **kw) for n in (2, 3, 4, 5)}
    obs, info = mixed.reset(seed=1, options={"game_seeds": seeds, "learner_seats": seats})
    assert info["num_players"].tolist() == COUNTS and mixed.game_counts().tolist() == COUNTS
    _info_convention(info, b)
    outs = {
        n: env.reset(seed=1, options={"game_seeds": seeds, "learner_seats": seats % n})
        for n, env in single.items()
    }
    live = np.ones(b, dtype=bool)
    while live.any():
        steps = {n: single[n].step(pick(o, inf["action_mask"])) for n, (o, inf) in outs.items()}
        for i in np.flatnonzero(live):
            o, inf = outs[COUNTS[i]]
            assert np.array_equal(o[i], obs[i])
            assert np.array_equal(inf["action_mask"][i], info["action_mask"][i])
        obs, rew, term, trunc, info = mixed.step(pick(obs, info["action_mask"]))
        assert rew.shape == (b,) and mixed.observation_space.contains(obs)
        _info_convention(info, b)
        for i in np.flatnonzero(live):
            n = COUNTS[i]
            _o, r, te, tr, inf = steps[n]
            assert r[i] == rew[i] and te[i] == term[i] and tr[i] == trunc[i]
            if te[i] or tr[i]:
                live[i] = False
                res, want = info["final_info"]["result"], inf["final_info"]["result"]
                for key in want:
                    assert res[key][i] == want[key][i], key
                assert res["num_players"][i] == n and mixed.final_game_counts()[i] == n
                assert np.array_equal(info["final_obs"][i], inf["final_obs"][i])
        outs = {n: (s[0], s[4]) for n, s in steps.items()}


def test_learner_env_draws_counts_per_deal() -> None:
    from mamma_mia_agents import load_agent

    kw = dict(
        player_count_probs={2: 0.5, 4: 0.25, 5: 0.25},
        opponents=load_agent("builder"),
        observation_mode="fixed",
        max_turns=10,
    )
    a, b = MammaMiaLearnerVectorEnv(32, **kw), MammaMiaLearnerVectorEnv(32, **kw)
    obs_a, info_a = a.reset(seed=4)
    obs_b, info_b = b.reset(seed=4)
    drawn = [info_a["num_players"]]
    rng = np.random.default_rng(0)
    for _ in range(80):
        assert np.array_equal(obs_a, obs_b)
        assert (info_a["seat"] < info_a["num_players"]).all()
        acts = random_legal(info_a["action_mask"], rng)
        obs_a, rew_a, term, trunc, info_a = a.step(acts)
        obs_b, rew_b, _, _, info_b = b.step(acts)
        assert np.array_equal(rew_a, rew_b)
        assert np.array_equal(info_a["num_players"], info_b["num_players"])
        done = term | trunc
        if done.any():
            res = info_a["final_info"]["result"]
            assert (res["seat"][done] < res["num_players"][done]).all()
        drawn.append(info_a["num_players"][done])
    counts = np.concatenate(drawn)
    assert len(counts) > 300 and set(counts.tolist()) <= {2, 4, 5}
    freq = np.bincount(counts, minlength=6)[[2, 4, 5]] / len(counts)
    assert np.allclose(freq, [0.5, 0.25, 0.25], atol=0.07), freq


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_players": [2, 3, 6, 2]}, ValueError, r"player counts must be in 2-5, got \[6\]"),
        ({"num_players": [2, 3]}, ValueError, r"one count per game \(4\), got 2"),
        ({"num_players": [2, 3.0, 4, 5]}, ArgumentTypeError, "num_players must be ints"),
        ({"num_players": "2345"}, ArgumentTypeError, "an int or a list"),
        ({"player_count_probs": {2: 0.5, 3: 0.4}}, ValueError, "must be a distribution"),
        ({"player_count_probs": {2: 1.5, 3: -0.5}}, ValueError, r"player_count_probs\[3\]"),
        ({"player_count_probs": {1: 1.0}}, ValueError, "counts must be in 2-5, got 1"),
        ({"player_count_probs": [0.5, 0.5]}, ArgumentTypeError, "must be a dict"),
        (
            {"player_count_probs": {2: 1.0}, "num_players": 3},
            ValueError,
            "not both",
        ),
    ],
)
@pytest.mark.parametrize("env", [MammaMiaVectorEnv, MammaMiaLearnerVectorEnv])
def test_bad_counts_are_refused(env, kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        env(4, observation_mode="fixed", **kwargs)


@pytest.mark.parametrize("env", [MammaMiaVectorEnv, MammaMiaLearnerVectorEnv])
@pytest.mark.parametrize("mode", ["fixed", "top_card"])
def test_mixed_counts_in_either_layout(env, mode: str) -> None:
    """Both layouts have one size for every count: a mixed batch in either."""
    venv = env(2, num_players=[2, 4], observation_mode=mode)
    obs, info = venv.reset(seed=0)
    assert obs.shape == (2, observation_size(mode))  # uint8, or normalised float32
    assert info["num_players"].tolist() == [2, 4]
    drawn = env(2, player_count_probs={2: 0.5, 3: 0.5}, observation_mode=mode)
    assert drawn.reset(seed=0)[0].shape == (2, observation_size(mode))
    with pytest.raises(ConfigError, match="observation_mode"):  # the retired layout
        env(2, num_players=[2, 4], observation_mode="recall")


def test_learner_seats_must_exist_in_every_game() -> None:
    with pytest.raises(ValueError, match="the 2-player games have no seat 3"):
        MammaMiaLearnerVectorEnv(2, num_players=[2, 5], learner_seat=3, observation_mode="fixed")
    env = MammaMiaLearnerVectorEnv(2, num_players=[2, 5], observation_mode="fixed")
    env.reset(seed=0)
    before = env.games.state.data.copy()
    with pytest.raises(ValueError, match=r"learner seat 3 of game 0: its game has 2 players"):
        env.reset(seed=1, options={"learner_seats": np.array([3, 3])})
    assert env.games.state.data.tobytes() == before.tobytes()  # refused: nothing changed


def test_opponents_are_built_for_each_count() -> None:
    """Bots read observations of their own count (each count's own observer engines)."""
    from mamma_mia_agents import load_agent

    env = MammaMiaLearnerVectorEnv(
        8, num_players=COUNTS, opponents=load_agent("builder"), observation_mode="fixed"
    )
    pools = env.games.groups.pools
    assert {n: p.config.num_players for n, p in pools.items()} == {2: 2, 3: 3, 4: 4, 5: 5}
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(30):
        obs, *_rest, info = env.step(random_legal(info["action_mask"], rng))


@pytest.mark.parametrize("env", [MammaMiaVectorEnv, MammaMiaLearnerVectorEnv])
def test_counts_per_game_with_a_config(env) -> None:
    """The config gives every other field; the games' counts replace its num_players."""
    config = Config(num_players=3, observation_mode="fixed", max_turns=20)
    venv = env(2, config=config, num_players=[2, 5])
    assert venv.config.max_turns == 20
    assert venv.reset(seed=0)[1]["num_players"].tolist() == [2, 5]
    with pytest.raises(ValueError, match="not both"):
        env(2, config=config, num_players=4)
