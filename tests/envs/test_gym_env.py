"""The gymnasium single-agent env, the SB3 VecEnv and the seat symmetry under them."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import mamma_mia_env as mm
from mamma_mia_env import Config, Engine
from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
from mamma_mia_env.game.cards import N_KINDS
from mamma_mia_env.game.record import OVER
from mamma_mia_env.game.symmetry import (
    SeatCanonicalizer,
    card_map,
    ingredient_map,
    obs_scale,
    order_type_map,
)
from mamma_mia_env.policy import UniformRandomPolicy


class FirstLegal:
    """A deterministic opponent: the first legal action."""

    observation_mode = "fixed"

    def act_batch(self, observations, masks, rng, seats=None):
        return np.asarray(masks).argmax(axis=1).astype(np.int64)


class Scripted:
    """Plays the given env actions in order (one game), checking they are legal."""

    def __init__(self, actions):
        self.actions = list(actions)
        self.seats = []

    def act_batch(self, observations, masks, rng, seats=None):
        a = self.actions.pop(0)
        assert masks[0, a] == 1
        self.seats.append(int(seats[0]))
        return np.array([a])


def random_masked(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# -- API checkers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 4])
def test_gymnasium_check_env(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        gym_check_env(MammaMiaGymEnv(num_players=num_players), skip_render_check=True)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize(("mode", "size"), [("fixed", 462), ("top_card", 147)])
def test_gymnasium_check_env_of_either_mode(num_players, normalize, mode, size):
    """Either observation: one uint8 space for every table, or its scaled float view."""
    env = MammaMiaGymEnv(num_players=num_players, observation_mode=mode, normalize=normalize)
    box = env.observation_space
    if normalize:
        assert box.dtype == np.float32 and box.shape == (size,)
    else:
        assert (box.dtype, box.shape, box.low.min(), box.high.max()) == (np.uint8, (size,), 0, 255)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env, skip_render_check=True)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 2},
        {"num_players": 4, "canonical": False, "normalize": False},
        {"num_players": 3, "double_ingredients": True, "observation_mode": "top_card"},
        {"num_players": 5, "observation_mode": "fixed", "normalize": False},
    ],
)
def test_sb3_check_env(kwargs):
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(MammaMiaGymEnv(**kwargs), warn=True)


def test_masks_for_sb3_contrib():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from sb3_contrib.common.wrappers import ActionMasker

    env = MammaMiaGymEnv(num_players=2)
    assert is_masking_supported(env)
    env.reset(seed=0)
    m = get_action_masks(env)
    assert m.dtype == np.bool_ and m.shape == (env.action_space.n,) and m.any()
    wrapped = ActionMasker(MammaMiaGymEnv(num_players=2), lambda e: e.action_masks())
    wrapped.reset(seed=0)
    assert np.array_equal(get_action_masks(wrapped), m)


def test_illegal_action_terminates_or_raises():
    env = MammaMiaGymEnv(num_players=2)
    env.reset(seed=3)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, r, terminated, truncated, info = env.step(bad)
    assert (r, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, bad)
    strict = MammaMiaGymEnv(num_players=2, illegal_action="raise")
    strict.reset(seed=3)
    with pytest.raises(mm.IllegalActionError):
        strict.step(bad)


def test_seeded_reset_is_reproducible_and_seats_vary():
    rng = np.random.default_rng(0)
    runs = []
    for _ in range(2):
        env = MammaMiaGymEnv(num_players=3)
        seats, trace = [], []
        for ep in range(6):
            obs, info = env.reset(seed=100 + ep)
            seats.append(info["seat"])
            trace.append(obs.sum())
            for _ in range(5):
                obs, r, te, tr, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
                trace.append(obs.sum() + r)
        runs.append((seats, trace))
    assert runs[0] == runs[1]
    assert len(set(runs[0][0])) > 1  # learner_seat=None: a random seat per episode
    fixed = MammaMiaGymEnv(num_players=3, learner_seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(5)} == {2}
    del rng


# -- reward attribution: a hand-worked game --------------------------------------------------------
# Two players, last round. Seat 1 (mushroom) is the learner, seat 0 (salami) the
# opponent; seat 0 holds the Mamma Mia! card. Face up: 5 salami, 1 mushroom,
# 4 pineapple. In the oven: the learner's order type 0 (4 salami + 1 mushroom), then
# the opponent's order type 1 (4 pineapple + 1 salami). Two cards are left in the supply.
# Delivered so far: opponent 3, learner 2.
#
# 1. The learner plays 1 pepper and draws 1 card (the supply keeps 1): no reward.
# 2. The opponent plays 1 mushroom and draws the last card: the round ends and the
#    oven is revealed. The learner's order is met (the piles hold 4 salami + 1 mushroom)
#    and delivered: +1 to the learner, on the *opponent's* move. The opponent's order
#    is then met by what is left (1 salami, 4 pineapple): +1 to the opponent.
# 3. That was the third round: the game ends, opponent 4 orders, learner 3. Win/loss:
#    +1 opponent, -1 learner.
#
# So the learner's reward for its one step is: win_loss -1; delivered +1;
# delivered_win_loss +1 - 1 = 0; and with opponent_delivery_penalty=1 one less each
# (the opponent delivered one order). The last mover (the opponent) earned +1, +1, +2.
HAND_WORKED = {
    "config": {"num_players": 2},
    "round": 2,
    "seat": 1,
    "mm_holder": 0,
    "piles": {"salami": 5, "mushroom": 1, "pineapple": 4},
    "oven": [[1, "order 0"], [0, "order 1"]],
    "delivered": {"0": [2, 3, 4], "1": [1, 2]},
    "hands": {"1": {"pepper": 4, "olive": 3}, "0": {"salami": 3, "mushroom": 4}},
    "used": {"mushroom": 3, "pineapple": 4, "pepper": 4, "olive": 3},
    "supply": ["olive", "olive"],
}


@pytest.mark.parametrize(
    "reward_mode, penalty, learner, last_mover",
    [
        ("win_loss", 0.0, -1.0, 1.0),
        ("delivered", 0.0, 1.0, 1.0),
        ("delivered_win_loss", 0.0, 0.0, 2.0),
        ("win_loss", 1.0, -2.0, 1.0),
        ("delivered", 1.0, 0.0, 1.0),
        ("delivered_win_loss", 1.0, -1.0, 2.0),
    ],
)
@pytest.mark.parametrize("canonical", [True, False])
def test_reward_attribution_hand_worked(reward_mode, penalty, learner, last_mover, canonical):
    state = mm.build_position(HAND_WORKED)
    codec = mm.ActionCodec(Engine(Config(num_players=2)))
    opp_move = codec.encode_turn(kind="mushroom", singles=1, draw="supply")
    my_move = codec.encode_turn(kind="pepper", singles=1, draw="supply")
    opponent = Scripted([opp_move])
    env = MammaMiaGymEnv(
        opponents=opponent,
        learner_seat=1,
        num_players=2,
        reward_mode=reward_mode,
        opponent_delivery_penalty=penalty,
        canonical=canonical,
    )
    obs, info = env.reset(options={"state": state})
    assert info["seat"] == 1
    action = my_move
    if canonical:
        action = int(env.games.canon.to_canonical_actions([my_move], [1])[0])
    obs, reward, terminated, truncated, info = env.step(action)
    assert opponent.seats == [0]  # the opponent moved, as seat 0, inside step
    assert terminated and not truncated
    assert reward == learner
    assert info["result"] == {
        "win": 0.0,
        "delivered": 3,
        "opp_delivered": 4.0,
        "seat": 1,
        "truncated": False,
    }
    # episode statistics are gymnasium's RecordEpisodeStatistics', not the env's
    assert "episode" not in info and "TimeLimit.truncated" not in info
    # the engine's rewards of that last step: the last mover's differ from the learner's
    assert env.games.state.data["rewards"][0, 0] == last_mover
    assert not env.action_masks().any()


def test_reward_attribution_vec_env_hand_worked():
    """The same game in the SB3 VecEnv: the reward arrives with done, then autoreset."""
    pytest.importorskip("sb3_contrib")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    state = mm.build_position(HAND_WORKED)
    codec = mm.ActionCodec(Engine(Config(num_players=2)))
    opp_move = codec.encode_turn(kind="mushroom", singles=1, draw="supply")
    my_move = codec.encode_turn(kind="pepper", singles=1, draw="supply")
    scripted = Scripted([opp_move])
    venv = MammaMiaSB3VecEnv(
        2,
        opponents=[scripted, FirstLegal()],
        opponent_probs=[0.0, 1.0],
        learner_seat=1,
        num_players=2,
        reward_mode="delivered_win_loss",
        opponent_delivery_penalty=1.0,
        seed=0,
    )
    venv.reset()
    g = venv.games
    g.state.data[0] = state.data[0]  # game 0 = the hand-worked position ...
    g.opp[0] = [0, -1]  # ... with the scripted opponent in seat 0
    acts = np.array(
        [
            g.canon.to_canonical_actions([my_move], [1])[0],
            int(np.flatnonzero(venv.action_masks()[1])[0]),
        ]
    )
    obs, rewards, dones, infos = venv.step(acts)
    assert dones[0] and rewards[0] == -1.0
    assert infos[0]["result"]["delivered"] == 3 and infos[0]["result"]["win"] == 0.0
    assert infos[0]["terminal_observation"].shape == obs[0].shape
    # game 0 was dealt again and is at the learner's (seat 1) decision
    assert g.state.data["phase"][0] != OVER and g.state.data["seat"][0] == 1
    assert venv.action_masks()[0].any()


# -- reward attribution: random games against the AEC env ------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("reward_mode", ["win_loss", "delivered", "delivered_win_loss"])
def test_episode_return_equals_aec_rewards_of_learner_seat(num_players, reward_mode):
    """Replaying each episode in the AEC env, the learner seat's rewards sum to the
    gym return; the per-step rewards match the AEC rewards between its decisions."""
    rng = np.random.default_rng(num_players)
    env = gym.wrappers.RecordEpisodeStatistics(
        MammaMiaGymEnv(
            num_players=num_players,
            reward_mode=reward_mode,
            record_actions=True,
            opponents=UniformRandomPolicy(),
        )
    )
    for ep in range(6):
        _, info = env.reset(seed=1000 * num_players + ep)
        seat, game_seed = info["seat"], env.unwrapped.game_seed()  # the experimenter's, not in info
        rewards = []
        done = False
        while not done:
            _, r, te, tr, info = env.step(random_masked(env.unwrapped.action_masks(), rng))
            rewards.append(r)
            done = te or tr
        actions = info["actions"]
        aec = mm.raw_env(num_players=num_players, reward_mode=reward_mode)
        aec.reset(seed=game_seed)
        me = f"player_{seat}"
        per_decision, acc, started = [], 0.0, False
        for a in actions:
            if aec.agent_selection == me:
                if started:
                    per_decision.append(acc)
                acc, started = 0.0, True
            aec.step(a)
            acc += aec.rewards[me]
        per_decision.append(acc)
        assert all(aec.terminations.values())
        assert np.allclose(rewards, per_decision)
        assert np.isclose(sum(rewards), info["episode"]["r"])  # gymnasium's wrapper
        assert info["episode"]["l"] == len(rewards)


def test_vec_env_returns_match_aec_replay():
    """Each finished game of the VecEnv, replayed in the AEC env from its seed and every
    seat's actions, gives the learner's seat exactly the VecEnv's episode return."""
    pytest.importorskip("sb3_contrib")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    n = 3
    venv = MammaMiaSB3VecEnv(
        8,
        num_players=n,
        reward_mode="delivered_win_loss",
        opponent_delivery_penalty=0.5,
        opponents=[FirstLegal(), UniformRandomPolicy()],
        seed=5,
    )
    venv.games.record_history = True
    venv.reset()
    rng = np.random.default_rng(1)
    finished = 0
    ret = np.zeros(8)
    for _ in range(400):
        masks = venv.action_masks()
        acts = np.array([random_masked(m, rng) for m in masks])
        obs, rewards, dones, infos = venv.step(acts)
        ret += rewards
        final_seeds = venv.final_game_seeds()  # the experimenter's API: no info holds a seed
        for i in np.flatnonzero(dones):
            res = infos[i]["result"]
            assert np.isclose(ret[i], infos[i]["episode"]["r"])
            ret[i] = 0.0
            aec = mm.raw_env(num_players=n, reward_mode="delivered_win_loss")
            aec.reset(seed=int(final_seeds[i]))
            seat = f"player_{res['seat']}"
            total = 0.0
            for a in infos[i]["actions"]:  # every seat's actions, in order
                aec.step(a)
                total += aec.rewards[seat]
            assert all(aec.terminations.values())
            delivered = aec.game.data[0]["delivered"][:n].sum(axis=1)
            opp = delivered.sum() - delivered[res["seat"]]
            # the AEC rewards of the learner's seat, minus the penalty: 0.5 per order
            # an opponent delivered, over the N - 1 opponents
            assert np.isclose(total - 0.5 * opp / (n - 1), infos[i]["episode"]["r"])
            assert delivered[res["seat"]] == res["delivered"]
            finished += 1
    assert finished >= 8


# -- the SB3 VecEnv --------------------------------------------------------------------------------
def test_vec_env_api_and_masks():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    venv = MammaMiaSB3VecEnv(16, num_players=4, seed=0)
    assert is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (16, venv.observation_space.shape[0]) and obs.dtype == np.float32
    m = get_action_masks(venv)
    assert m.shape == (16, venv.action_space.n) and m.dtype == np.bool_ and m.any(axis=1).all()
    assert np.array_equal(m, venv.action_masks())
    # every game is at the learner's decision
    assert (venv.games.state.data["seat"] == venv.learner_seats).all()
    mon = VecMonitor(venv)
    mon.reset()
    assert np.stack(mon.env_method("action_masks")).shape == m.shape
    assert len(venv.env_method("action_masks", indices=[1, 3])) == 2
    assert venv.env_is_wrapped(object) == [False] * 16


def test_vec_env_seeded_runs_are_identical():
    pytest.importorskip("sb3_contrib")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    def run():
        venv = MammaMiaSB3VecEnv(8, num_players=2, seed=42)
        out = [venv.reset().copy()]
        rng = np.random.default_rng(0)
        for _ in range(60):
            acts = np.array([random_masked(m, rng) for m in venv.action_masks()])
            obs, r, d, _ = venv.step(acts)
            out += [obs.copy(), r.copy(), d.copy()]
        return out

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_vec_env_matches_gym_env_on_same_deals():
    """Same deal, same seat, same deterministic players: same rewards, same obs."""
    pytest.importorskip("sb3_contrib")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    kwargs = dict(num_players=4, reward_mode="delivered_win_loss", opponents=FirstLegal())
    venv = MammaMiaSB3VecEnv(3, **kwargs)
    seeds = np.array([11, 12, 13], dtype=np.uint64)
    seats = np.array([0, 2, 3])
    obs = venv.games.reset(seed=0, game_seeds=seeds, seats=seats)
    singles = []
    for i in range(3):
        env = MammaMiaGymEnv(**kwargs)
        o, _ = env.reset(options={"game_seed": int(seeds[i]), "learner_seat": int(seats[i])})
        assert np.array_equal(o, obs[i])
        singles.append(env)
    done = np.zeros(3, bool)
    for _ in range(200):
        masks = venv.action_masks()
        acts = masks.argmax(axis=1)
        obs, r, d, infos = venv.step(acts)
        for i in range(3):
            if done[i]:
                continue
            o, r1, te, tr, _ = singles[i].step(int(acts[i]))
            assert np.isclose(r1, r[i])
            if te or tr:
                assert d[i]
                assert np.array_equal(o, infos[i]["terminal_observation"])
                done[i] = True
            else:
                assert np.array_equal(o, obs[i])
        if done.all():
            break
    assert done.all()


# -- the seat symmetry -----------------------------------------------------------------------------
def relabel(rec: np.ndarray, p: int, n: int) -> np.ndarray:
    """The game record with seat p renamed seat 0 (seats, ingredients, order types)."""
    out = rec.copy()
    pi, cm = ingredient_map(p, n), card_map(p, n)
    sig = {s: order_type_map(p, (s - p) % n, n) for s in range(n)}
    for f in ("hand", "orders_hand", "delivered", "stack", "stack_head", "stack_len"):
        out[f][:] = 0
    for s in range(n):
        t = (s - p) % n
        out["hand"][t, cm] = rec["hand"][s]
        out["orders_hand"][t, sig[s]] = rec["orders_hand"][s]
        out["delivered"][t, sig[s]] = rec["delivered"][s]
        out["stack"][t] = sig[s][rec["stack"][s]]
        out["stack_head"][t] = rec["stack_head"][s]
        out["stack_len"][t] = rec["stack_len"][s]
    out["piles"][cm] = rec["piles"]
    out["used"][cm] = rec["used"]
    if rec["mm_holder"] >= 0:
        out["mm_holder"] = (rec["mm_holder"] - p) % n
    out["seat"] = (rec["seat"] - p) % n
    for i in range(rec["oven_len"]):
        w, what = rec["oven_who"][i], rec["oven_what"][i]
        out["oven_who"][i] = (w - p) % n
        out["oven_what"][i] = pi[what] if what < N_KINDS else N_KINDS + sig[w][what - N_KINDS]
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("mode", ["fixed", "top_card"])
@pytest.mark.parametrize("doubles", [False, True])
def test_canonical_view_is_seat_zero_of_relabelled_game(num_players, mode, doubles):
    """Seat p's canonical observation and mask equal seat 0's in the game relabelled so
    that p is seat 0; canonical actions map back to the same legal env actions."""
    cfg = Config(num_players=num_players, observation_mode=mode, double_ingredients=doubles)
    eng, can = Engine(cfg), SeatCanonicalizer(cfg)
    games = 12
    state = eng.reset(seeds=77, batch_size=games)
    rng = np.random.default_rng(0)
    checked = 0
    while (state.data["phase"] != OVER).any():
        live = state.data["phase"] != OVER
        seats = state.data["seat"].astype(np.int64)
        obs, masks = eng.observe(state), eng.legal_masks(state)
        rel = state.copy()
        for b in range(games):
            rel.data[b] = relabel(state.data[b], int(seats[b]), num_players)
        assert np.array_equal(can.obs(obs, seats)[live], eng.observe(rel)[live])
        assert np.array_equal(can.masks(masks, seats)[live], eng.legal_masks(rel)[live])
        cs = masks.cumsum(axis=1)
        pick = (rng.random(games) * np.maximum(cs[:, -1], 1)).astype(np.int64)
        acts = np.argmax(cs > pick[:, None], axis=1)
        canon_acts = can.to_canonical_actions(acts, seats)
        assert np.array_equal(can.to_env_actions(canon_acts, seats), acts)
        eng.step(state, acts)
        checked += int(live.sum())
    assert checked > 100


def test_symmetry_maps_are_permutations_and_scale_is_positive():
    for n in range(2, 6):
        for p in range(n):
            assert sorted(ingredient_map(p, n)) == list(range(5))
            assert ingredient_map(p, n)[p] == 0  # own ingredient first
            for j in range(n):
                assert sorted(order_type_map(p, j, n)) == list(range(8))
        for mode in ("fixed", "top_card"):
            s = obs_scale(mode)
            can = SeatCanonicalizer(Config(num_players=n, observation_mode=mode))
            assert (s > 0).all() and len(s) == can.obs_dim
            for p in range(n):
                assert sorted(can._obs_src[p]) == list(range(can.obs_dim))
                assert sorted(can._c2e[p]) == list(range(can.n_actions))


# -- opponents, bad input ----------------------------------------------------------------------
class Tagged:
    """Plays the first legal action and remembers which games it was asked about."""

    observation_mode = "fixed"

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0

    def act_batch(self, observations, masks, rng, seats=None):
        self.calls += 1
        return np.asarray(masks).argmax(axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return f"Tagged({self.name})"


def test_new_opponent_pool_applies_to_games_dealt_later_only():
    from mamma_mia_env.envs.learner import LearnerGames

    a, b, c = Tagged("a"), Tagged("b"), Tagged("c")
    games = LearnerGames(8, Config(num_players=3), opponents=[a, b], learner_seat=0)
    games.reset(seed=1)
    before = games.opp.copy()
    games.set_opponents([c])  # a smaller pool: games in progress keep a and b
    c_id = games._registry.index(c)
    rng = np.random.default_rng(0)
    for step in range(40):
        a.calls = b.calls = c.calls = 0
        masks = games.action_masks()
        acts = np.array([random_masked(m, rng) for m in masks])
        games.step(acts)
        kept = (games.opp == before).all(axis=1)
        # a game keeps its opponents until it is dealt again, then plays c only
        assert (games.opp[~kept, 1:] == c_id).all()
        if step == 0:
            assert kept.all() and c.calls == 0 and a.calls + b.calls > 0
    # every game dealt from now on draws from the new pool only
    games.reset(seed=2)
    registry = [games._registry[i] for i in np.unique(games.opp[games.opp >= 0])]
    assert registry == [c]


@pytest.mark.parametrize("seat", [-1, 3, 1.7, "1"])
def test_bad_learner_seat_is_refused(seat):
    env = MammaMiaGymEnv(num_players=3)
    with pytest.raises(ValueError, match="learner_seat|seat"):
        env.reset(seed=0, options={"learner_seat": seat})
    with pytest.raises(ValueError, match="learner_seat"):
        MammaMiaGymEnv(num_players=3, learner_seat=seat)


def test_unknown_reset_option_is_refused():
    env = MammaMiaGymEnv(num_players=2)
    with pytest.raises(ValueError, match="unknown reset options \\['gmae_seed'\\]"):
        env.reset(seed=0, options={"gmae_seed": 3})


def test_given_position_that_ends_before_the_learner_moves_is_refused():
    """The opponent to act draws the last supply card; the game ends at the reveal."""
    used = dict(HAND_WORKED["used"], olive=4)
    spec = dict(HAND_WORKED, seat=0, supply=["olive"], used=used)
    state = mm.build_position(spec)
    codec = mm.ActionCodec(Engine(Config(num_players=2)))
    opp_move = codec.encode_turn(kind="mushroom", singles=1, draw="supply")
    env = MammaMiaGymEnv(opponents=Scripted([opp_move]), learner_seat=1, num_players=2)
    with pytest.raises(ValueError, match="ends before the learner \\(seat 1\\) has a decision"):
        env.reset(options={"state": state})


def test_opponent_that_cannot_play_the_game_is_refused():
    from helpers import POLICY_FILE

    from mamma_mia_agents.bots.ppo_agent import PPOAgent
    from mamma_mia_env.envs.learner import LearnerGames

    with pytest.raises(ValueError, match="cannot play this game: .*double ingredients"):
        LearnerGames(4, Config(num_players=2, double_ingredients=True), opponents=PPOAgent())
    with pytest.raises(ValueError, match="cannot play this game: the policy .* not 5"):
        MammaMiaGymEnv(num_players=5, opponents=PPOAgent(POLICY_FILE[2]))


class Broken:
    observation_mode = "fixed"

    def __init__(self, how: str) -> None:
        self.how = how

    def act_batch(self, observations, masks, rng, seats=None):
        if self.how == "scalar":
            return np.int64(0)
        return np.flatnonzero(np.asarray(masks)[0] == 0)[:1].repeat(len(masks))

    def __repr__(self) -> str:
        return f"Broken({self.how})"


@pytest.mark.parametrize(
    ("how", "message"),
    [("scalar", "Broken\\(scalar\\) returned int64 actions of shape \\(\\)"),
     ("illegal", "Broken\\(illegal\\) chose illegal action")],
)  # fmt: skip
def test_opponent_bad_output_is_named(how, message):
    env = MammaMiaGymEnv(num_players=2, opponents=Broken(how), learner_seat=1)
    with pytest.raises(mm.IllegalActionError, match=message):
        env.reset(seed=0)


def test_learner_illegal_action_is_named_in_its_own_frame_and_keeps_carried_reward():
    from mamma_mia_env.envs.learner import LearnerGames

    games = LearnerGames(4, Config(num_players=3), learner_seat=2)
    games.reset(seed=0)
    games.carry[:] = [0.5, 0.0, 0.0, 0.0]
    masks = games.action_masks()
    acts = masks.argmax(axis=1)
    bad = int(np.flatnonzero(~masks[1])[0])
    acts[1] = bad
    before = games.state.data.copy()
    with pytest.raises(mm.IllegalActionError, match=f"game 1: action {bad} is illegal"):
        games.step(acts)
    assert (games.state.data == before).all()  # no game moved
    assert games.carry[0] == 0.5


def test_vec_env_refuses_fractional_actions_and_partial_indices():
    pytest.importorskip("sb3_contrib")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    venv = MammaMiaSB3VecEnv(4, num_players=2)
    venv.seed(0)
    venv.reset()
    acts = venv.action_masks().argmax(axis=1).astype(np.float32)
    acts[2] += 0.5
    with pytest.raises(mm.IllegalActionError, match="game 2: action .* is not a whole number"):
        venv.step(acts)
    with pytest.raises(ValueError, match="applies to all 4 games"):
        venv.env_method("set_opponents", None, indices=[0])
    with pytest.raises(ValueError, match="applies to all 4 games"):
        venv.set_attr("anything", 1, indices=[1, 2])
    assert len(venv.env_method("action_masks", indices=[1, 3])) == 2
