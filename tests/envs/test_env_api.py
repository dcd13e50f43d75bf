"""The PettingZoo AEC environment: PettingZoo's own API tests, whole games through
``env()``, rewards, infos, masks, illegal actions, config errors and the global state."""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict

import numpy as np
import pytest

import mamma_mia_env as mm
from mamma_mia_env import Config, ConfigError, IllegalActionError, build_position
from mamma_mia_env.game import kernels
from mamma_mia_env.game.observe import observation_size

with warnings.catch_warnings():  # pettingzoo.test imports a classic env that warns
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, render_test, seed_test

# PettingZoo's api_test warns that a Dict observation is "not a NumPy array" and that a
# Dict space "probably should be" a Box: expected for the action-mask convention.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
]

VARIANTS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=3, double_ingredients=True),
    dict(num_players=4, observation_mode="top_card"),
    dict(num_players=2, observation_mode="fixed"),
    dict(num_players=5, observation_mode="fixed", double_ingredients=True),
    dict(num_players=2, reward_mode="delivered"),
    dict(num_players=5, reward_mode="delivered_win_loss", double_ingredients=True),
    dict(num_players=4, mamma_mia_in_deal=True, pass_may_play_order=True, auto_reveal=True),
    dict(num_players=3, strict_minimale=True, random_start_player=True),
    # truncation path: no guard, a small turn limit
    dict(num_players=3, idle_cycle_guard=False, max_turns=40),
]


def _ids(cfg: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in cfg.items())


# -- PettingZoo's test suite --------------------------------------------------------------
@pytest.mark.parametrize("cfg", VARIANTS, ids=_ids)
def test_pettingzoo_api_test(cfg: dict) -> None:
    api_test(mm.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", VARIANTS, ids=_ids)
def test_pettingzoo_seed_test(cfg: dict) -> None:
    seed_test(functools.partial(mm.env, **cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", VARIANTS[:6], ids=_ids)
def test_pettingzoo_render_test(cfg: dict, capsys) -> None:
    render_test(functools.partial(mm.env, **cfg))
    assert "Mamma Mia! round 1/3" in capsys.readouterr().out  # "human" prints the table


def test_render_ansi_returns_text_and_no_mode_warns() -> None:
    e = mm.env(num_players=3, render_mode="ansi")
    e.reset(seed=5)
    text = e.render()
    assert isinstance(text, str)
    assert f"view of seat {e.unwrapped._seat[e.agent_selection]}" in text
    e2 = mm.raw_env(num_players=3)
    e2.reset(seed=5)
    with pytest.warns(UserWarning, match="render_mode"):
        assert e2.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        mm.raw_env(render_mode="rgb")  # rgb_array is a mode now (PLAY.md)


def test_same_seed_same_game_different_seed_different_game() -> None:
    def run(seed: int) -> list[bytes]:
        e = mm.env(num_players=4)
        e.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = []
        for agent in e.agent_iter(200):
            obs, reward, term, trunc, _ = e.last()
            trace.append(
                agent.encode() + obs["observation"].tobytes() + np.float32(reward).tobytes()
            )
            e.step(None if term or trunc else _pick(obs["action_mask"], rng))
        return trace

    assert run(11) == run(11)
    assert run(11)[0] != run(12)[0]
    e = mm.raw_env(num_players=4)
    e.reset(seed=2**64 - 1)
    assert e.seed_used == 2**64 - 1  # for the experimenter; no agent is handed it
    assert all("seed" not in info for info in e.infos.values())
    e.reset()  # no seed: a fresh random one
    first = e.seed_used
    e.reset()
    assert e.seed_used != first


# -- whole games through env() ------------------------------------------------------------
def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _winners(game) -> list[int]:
    """Most delivered orders, then most ingredient cards (not value) in hand."""
    rec = game.data[0]
    n = game.config.num_players
    keys = [(int(rec["delivered"][s].sum()), int(rec["hand"][s].sum())) for s in range(n)]
    best = max(keys)
    return [s for s in range(n) if keys[s] == best]


def _expected_totals(game, reward_mode: str) -> list[float]:
    rec = game.data[0]
    n = game.config.num_players
    out = [0.0] * n
    if reward_mode in ("delivered", "delivered_win_loss"):
        out = [float(rec["delivered"][s].sum()) for s in range(n)]
    if reward_mode in ("win_loss", "delivered_win_loss"):
        win = _winners(game)
        for s in range(n):
            if s not in win:
                out[s] -= 1.0
            elif len(win) == 1:
                out[s] += 1.0
    return out


def play_env_game(e, rng: np.random.Generator, checks: bool = True) -> dict:
    """Play one game of a wrapped env with random legal actions, checking every step.

    Returns the rewards summed from ``env.rewards`` after each live step and the
    rewards summed from ``last()``, per agent, and who ended terminated / truncated.
    """
    raw = e.unwrapped
    n_turn = raw.engine.n_turn_actions
    step_totals = defaultdict(float)
    last_totals = defaultdict(float)
    ended = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        last_totals[agent] += reward
        if term or trunc:
            ended[agent] = (term, trunc)
            assert not obs["action_mask"].any()
            e.step(None)
            continue
        assert agent == e.agent_selection
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.size > 0
        if checks:
            assert info["decision"] in (mm.Decision.TURN, mm.Decision.REVEAL)
            if info["decision"] == mm.Decision.TURN:
                assert info["phase"] == mm.Phase.PLAY and (legal < n_turn).all()
            else:
                assert info["phase"] == mm.Phase.REVEAL and (legal >= n_turn).all()
            assert info["round"] == int(raw.game.data["round"][0])
            for other in e.agents:
                other_obs = e.observe(other)
                assert e.observation_space(other).contains(other_obs)
                if other != agent:
                    assert not other_obs["action_mask"].any(), f"{other} is not to act"
                    # the same keys for every agent (TorchRL stacks them): no decision
                    assert e.infos[other] == {**info, "decision": mm.Decision.NONE}
            assert e.state().shape == e.state_space.shape
        a = _pick(mask, rng)
        e.step(a)
        for who, r in e.rewards.items():
            step_totals[who] += r
    return {"step": dict(step_totals), "last": dict(last_totals), "ended": ended}


@pytest.mark.parametrize("reward_mode", ["win_loss", "delivered", "delivered_win_loss"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_full_game_ends_terminated_with_rewards_of_the_mode(
    num_players: int, reward_mode: str
) -> None:
    rng = np.random.default_rng(num_players)
    for seed in range(3):
        e = mm.env(num_players=num_players, reward_mode=reward_mode)
        e.reset(seed=100 * num_players + seed)
        result = play_env_game(e, rng, checks=seed == 0)
        agents = e.possible_agents
        assert e.agents == []
        assert result["ended"] == dict.fromkeys(agents, (True, False))
        game = e.unwrapped.game
        assert bool(game.data["terminated"][0]) and not game.data["truncated"][0]
        expected = _expected_totals(game, reward_mode)
        for s, agent in enumerate(agents):
            assert result["step"][agent] == expected[s], (agent, result, expected)
            assert result["last"][agent] == expected[s], (agent, result, expected)
        if reward_mode == "win_loss":
            total = sum(expected)
            win = _winners(game)
            assert total == (1 - (num_players - 1) if len(win) == 1 else -(num_players - len(win)))


def test_max_turns_truncates_every_agent_without_reward() -> None:
    e = mm.env(num_players=3, idle_cycle_guard=False, max_turns=25)
    e.reset(seed=1)
    result = play_env_game(e, np.random.default_rng(0))
    assert result["ended"] == dict.fromkeys(e.possible_agents, (False, True))
    assert all(v == 0.0 for v in result["step"].values())
    assert int(e.unwrapped.game.data["turns"][0]) == 25


def _final_decision_position(num_players: int = 2) -> dict:
    """Round 3's last oven card is seat 0's order 0 (4 mushroom + 1 salami): the piles
    hold 2 mushroom + 1 salami, the hand 2 mushroom, so seat 0 decides. Seat 1 has two
    delivered orders and one card; seat 0 one order and, after delivering, one card."""
    return {
        "config": {"num_players": num_players},
        "round": 2,
        "reveal": True,
        "piles": {"mushroom": 2, "salami": 1},
        "oven": [[0, "order 0"]],
        "hands": {"0": {"mushroom": 2, "olive": 1}, "1": {"pepper": 1}},
        "delivered": {"0": [1], "1": [0, 1]},
    }


@pytest.mark.parametrize(
    ("reward_mode", "choice", "expected"),
    [
        ("win_loss", "deliver", [0.0, 0.0]),  # 2 orders and 1 card each: shared win
        ("win_loss", "decline", [-1.0, 1.0]),  # seat 1 wins alone
        ("delivered", "deliver", [1.0, 0.0]),
        ("delivered", "decline", [0.0, 0.0]),
        ("delivered_win_loss", "deliver", [1.0, 0.0]),
        ("delivered_win_loss", "decline", [-1.0, 1.0]),
    ],
)
def test_final_reveal_decision_rewards(reward_mode: str, choice: str, expected: list) -> None:
    state = build_position(
        _final_decision_position(), Config(num_players=2, reward_mode=reward_mode)
    )
    e = mm.env(num_players=2, reward_mode=reward_mode)
    e.reset(options={"state": state})
    assert e.agent_selection == "player_0"
    assert e.infos["player_0"]["decision"] == mm.Decision.REVEAL
    codec = e.unwrapped.codec
    legal = set(np.flatnonzero(e.observe("player_0")["action_mask"]).tolist())
    assert legal == {codec.encode_reveal("deliver"), codec.encode_reveal("decline")}
    e.step(codec.encode_reveal(choice))
    got = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        assert term and not trunc
        got[agent] = reward
        e.step(None)
    assert [got["player_0"], got["player_1"]] == expected


# -- rewards go to the order's owner ------------------------------------------------------
def _reveal_by_other_seat_position() -> dict:
    """4 players. Seat 1 is to act with 1 mushroom; the supply holds one olive, so its
    draw ends the round's play and the oven is revealed during seat 1's step. The oven
    holds seat 0's order 0 (4 mushroom + 1 salami), which the piles meet."""
    return {
        "config": {"num_players": 4, "reward_mode": "delivered"},
        "seat": 1,
        "mm_holder": 2,
        "piles": {"mushroom": 4, "salami": 1},
        "oven": [[0, "order 0"]],
        "hands": {"1": {"mushroom": 1}},
        "supply": ["olive"],
        "used": {"salami": 11, "mushroom": 7, "pineapple": 12, "pepper": 12, "olive": 11},
    }


@pytest.mark.parametrize("reward_mode", ["delivered", "win_loss"])
def test_delivery_in_reveal_triggered_by_another_seat_credits_the_owner(reward_mode: str) -> None:
    desc = _reveal_by_other_seat_position()
    desc["config"]["reward_mode"] = reward_mode
    state = build_position(desc)
    e = mm.env(num_players=4, reward_mode=reward_mode)
    e.reset(options={"state": state.to_json()})
    raw = e.unwrapped
    assert e.agent_selection == "player_1"
    play = raw.codec.encode_turn("mushroom", 1, draw="supply")
    e.step(play)
    game = raw.game.data[0]
    assert int(game["round"]) == 1, "the round ended during seat 1's step"
    assert game["delivered"][0, 0] == 1
    credited = 1.0 if reward_mode == "delivered" else 0.0
    assert e.rewards == {"player_0": credited, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}
    assert raw._cumulative_rewards["player_0"] == credited
    assert raw._cumulative_rewards["player_1"] == 0.0
    # the next round starts with the Mamma Mia! holder; seat 0's reward waits for it
    assert e.agent_selection == "player_2"
    seen = {}
    rng = np.random.default_rng(0)
    for agent in e.agent_iter(3):
        obs, reward, *_ = e.last()
        seen[agent] = reward
        e.step(_pick(obs["action_mask"], rng))
    assert seen["player_0"] == credited
    assert seen["player_2"] == 0.0 and seen["player_3"] == 0.0


def test_delivery_during_another_owners_decision_credits_both_owners() -> None:
    """Seat 2 decides on its order 3 (4 olive + 1 pineapple, covered from hand); the
    reveal then goes on to seat 0's order 0, which the piles meet, in the same step."""
    state = build_position(
        {
            "config": {"num_players": 4, "reward_mode": "delivered"},
            "reveal": True,
            "mm_holder": 1,
            "piles": {"mushroom": 4, "salami": 1},
            "oven": [[2, "order 3"], [0, "order 0"]],
            "hands": {"2": {"olive": 4, "pineapple": 1}},
        }
    )
    e = mm.env(num_players=4, reward_mode="delivered")
    e.reset(options={"state": state})
    assert e.agent_selection == "player_2"
    assert e.infos["player_2"]["decision"] == mm.Decision.REVEAL
    e.step(e.unwrapped.codec.encode_reveal("deliver"))
    assert e.rewards == {"player_0": 1.0, "player_1": 0.0, "player_2": 1.0, "player_3": 0.0}
    # the next round: the holder (seat 1) acts, then 2, 3, 0; each owner's +1 reaches it
    # through last() at its next turn (seat 2's own delivery too: its step earned it)
    order = []
    for agent in e.agent_iter(4):
        obs, reward, *_ = e.last()
        order.append((agent, reward))
        e.step(_pick(obs["action_mask"], np.random.default_rng(1)))
    assert order == [("player_1", 0.0), ("player_2", 1.0), ("player_3", 0.0), ("player_0", 1.0)]


# -- observations at the end of a game ----------------------------------------------------
def _true_obs(raw, agent: str) -> np.ndarray:
    out = np.empty(raw.engine.obs_dim, dtype=np.float32)
    kernels.observe_one(
        raw.game.data, raw._seat[agent], raw.config.num_players, raw.engine.obs_mode, out
    )
    return out


def test_observation_during_play_is_the_agents_own_view() -> None:
    e = mm.env(num_players=4)
    e.reset(seed=8)
    raw = e.unwrapped
    rng = np.random.default_rng(8)
    for _ in range(150):
        if not e.agents or e.terminations[e.agent_selection]:
            break
        for agent in e.agents:
            assert np.array_equal(e.observe(agent)["observation"], _true_obs(raw, agent))
        e.step(_pick(e.observe(e.agent_selection)["action_mask"], rng))


@pytest.mark.parametrize("ending", ["natural", "illegal_move"])
def test_final_observation_of_every_agent_is_its_own_view(ending: str) -> None:
    e = mm.env(num_players=3)
    e.reset(seed=3)
    raw = e.unwrapped
    rng = np.random.default_rng(1)
    if ending == "illegal_move":
        for _ in range(5):
            e.step(_pick(e.last()[0]["action_mask"], rng))
        mask = e.last()[0]["action_mask"]
        e.step(int(np.flatnonzero(mask == 0)[0]))
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert np.array_equal(obs["observation"], _true_obs(raw, agent)), agent
        e.step(None if term or trunc else _pick(obs["action_mask"], rng))


# -- illegal and malformed actions --------------------------------------------------------
def test_raw_env_illegal_action_raises_naming_action_and_reason() -> None:
    e = mm.raw_env(num_players=4)
    e.reset(seed=1)
    before = e.save_state()
    mask = e.observe(e.agent_selection)["action_mask"]
    assert mask[0] == 0  # a pass with ingredient cards in hand
    with pytest.raises(IllegalActionError, match=r"player_0: action 0 is illegal: .*must play"):
        e.step(0)
    reveal = e.engine.n_turn_actions
    with pytest.raises(IllegalActionError, match=rf"action {reveal} is illegal: .*reveal decision"):
        e.step(reveal)
    n = e.engine.n_actions
    with pytest.raises(IllegalActionError, match=rf"action {n} is illegal: outside the action"):
        e.step(n)
    with pytest.raises(IllegalActionError, match=r"action -1 is illegal"):
        e.step(-1)
    hand = e.game.data["hand"][0, 0]
    k = int(np.argmax(hand[:5]))  # one card more than seat 0 holds of an ingredient
    held = int(hand[k])
    bad = e.codec.encode_turn(k, held + 1)
    with pytest.raises(
        IllegalActionError, match=rf"action {bad} is illegal: .*holds only {held} single"
    ):
        e.step(bad)
    assert e.save_state() == before, "a refused action must not change the game"
    assert e.actions_taken == []
    e.step(int(np.flatnonzero(mask)[0]))  # a legal action still works
    assert len(e.actions_taken) == 1


@pytest.mark.parametrize("action", [1.0, "3", None, [2], np.float32(2.0)])
def test_non_int_actions_raise(action) -> None:
    e = mm.raw_env(num_players=3)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match="must be an int"):
        e.step(action)
    w = mm.env(num_players=3)
    w.reset(seed=0)
    with pytest.raises(AssertionError):  # PettingZoo's AssertOutOfBoundsWrapper
        w.step(action)


def test_numpy_integer_actions_are_accepted() -> None:
    e = mm.raw_env(num_players=3)
    e.reset(seed=0)
    a = np.int64(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    e.step(a)
    assert e.actions_taken == [int(a)]


def test_wrapped_env_illegal_action_terminates_and_penalises_the_offender() -> None:
    e = mm.env(num_players=4)
    e.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(7):
        e.step(_pick(e.last()[0]["action_mask"], rng))
    offender = e.agent_selection
    mask = e.last()[0]["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values())
    got = {}
    for agent in e.agent_iter():
        obs, reward, term, _, _ = e.last()
        assert term and not obs["action_mask"].any()
        got[agent] = reward
        e.step(None)
    assert got == {a: (-1.0 if a == offender else 0.0) for a in e.possible_agents}
    e.reset(seed=6)  # a new game after an illegal move is a normal game
    assert e.agents == e.possible_agents and not any(e.terminations.values())


def test_wrapped_env_custom_illegal_reward() -> None:
    e = mm.env(num_players=2, illegal_reward=-5.0)
    e.reset(seed=0)
    offender = e.agent_selection
    e.step(0)  # pass while holding cards
    rewards = {}
    for agent in e.agent_iter():
        rewards[agent] = e.last()[1]
        e.step(None)
    assert rewards[offender] == -5.0


# -- configuration ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        (dict(num_players=6), "num_players"),
        (dict(num_players=1), "num_players"),
        (dict(num_players="4"), "num_players"),
        (dict(num_players=True), "num_players"),
        (dict(num_players=4.0), "num_players"),
        (dict(observation_mode="x"), "observation_mode"),
        (dict(reward_mode="y"), "reward_mode"),
        (dict(colour_blind=True), "colour_blind"),
        (dict(idle_cycle_guard=False), "idle_cycle_guard"),
        (dict(max_turns=0), "max_turns"),
        (dict(max_turns=-3), "max_turns"),
        (dict(max_turns="10"), "max_turns"),
        (dict(max_turns=True), "max_turns"),
        (dict(double_ingredients=1), "double_ingredients"),
        (dict(auto_reveal="yes"), "auto_reveal"),
    ],
)
def test_bad_config_raises_config_error_naming_the_field(kwargs: dict, field: str) -> None:
    for make in (mm.env, mm.raw_env, Config.from_kwargs, mm.Engine):
        with pytest.raises(ConfigError, match=field):
            make(**kwargs)
    assert issubclass(ConfigError, ValueError)


def test_good_configs_construct() -> None:
    e = mm.raw_env(num_players=2, idle_cycle_guard=False, max_turns=1)
    assert e.config.max_turns == 1
    assert Config().replace(num_players=5).num_players == 5
    with pytest.raises(ConfigError, match="nonsense"):
        Config().replace(nonsense=1)


def test_reset_from_state_of_another_config_is_refused() -> None:
    state = mm.Engine(Config(num_players=3)).reset(seeds=[1])
    e = mm.raw_env(num_players=4)
    with pytest.raises(ValueError, match="config"):
        e.reset(options={"state": state})
    e3 = mm.raw_env(num_players=3)
    batch = mm.Engine(Config(num_players=3)).reset(seeds=[1, 2])
    with pytest.raises(ValueError, match="one game"):
        e3.reset(options={"state": batch})


# -- spaces and the global state ----------------------------------------------------------
def _stack_contents(rec, n: int) -> np.ndarray:
    out = np.zeros((n, 8), dtype=np.float32)
    for s in range(n):
        for j in range(int(rec["stack_len"][s])):
            out[s, rec["stack"][s, (int(rec["stack_head"][s]) + j) % 8]] = 1.0
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("mode", ["fixed", "top_card"])
def test_spaces_and_global_state(num_players: int, mode: str) -> None:
    e = mm.raw_env(num_players=num_players, observation_mode=mode)
    e.reset(seed=num_players)
    n_actions = 655
    for agent in e.possible_agents:
        space = e.observation_space(agent)
        assert space["observation"].shape == (observation_size(mode),)
        assert space["observation"].dtype == np.uint8
        assert space["action_mask"].shape == (n_actions,)
        assert e.action_space(agent).n == n_actions
    view = observation_size("fixed")
    n = num_players
    assert e.state_space.shape == (view + 10 * n + 8 * n + 8 * n + 11,)
    rng = np.random.default_rng(0)
    steps = 0
    while not all(e.terminations.values()) and steps < 400:
        st = e.state()
        assert st.shape == e.state_space.shape and st.dtype == np.float32
        rec = e.game.data[0]
        # seat 0's fixed view (as float32), then every hand, order hand, (stack
        # contents,) supply
        seat0 = np.empty(view, dtype=np.float32)
        kernels.observe_one(e.game.data, 0, n, 0, seat0)
        assert np.array_equal(st[:view], seat0)
        o = view
        assert np.array_equal(st[o : o + 10 * n].reshape(n, 10), rec["hand"][:n])
        o += 10 * n
        assert np.array_equal(st[o : o + 8 * n].reshape(n, 8), rec["orders_hand"][:n])
        o += 8 * n + 8 * n  # the stack section: see the test below
        supply = rec["supply"][rec["supply_pos"] : rec["supply_len"]]
        assert np.array_equal(st[o:], np.bincount(supply, minlength=11))
        for agent in e.agents:
            assert e.observation_space(agent).contains(e.observe(agent))
        e.step(_pick(e.observe(e.agent_selection)["action_mask"], rng))
        steps += 1
    assert all(e.terminations.values())


@pytest.mark.parametrize("num_players", [2, 5])
def test_global_state_stack_section_and_bounds(num_players: int) -> None:
    n = num_players
    eng = mm.Engine(Config(num_players=n))
    game = eng.reset(seeds=[3])
    view = observation_size("fixed")
    stack = slice(view + 18 * n, view + 26 * n)
    out = np.full((1, eng.state_dim), 7.0, dtype=np.float32)  # a reused buffer
    eng.global_state(game, out=out)
    assert np.array_equal(out[0, stack].reshape(n, 8), _stack_contents(game.data[0], n))
    e = mm.raw_env(num_players=n)
    rng = np.random.default_rng(0)
    for seed in range(10):
        e.reset(seed=seed)
        while not all(e.terminations.values()):
            st = e.state()
            assert e.state_space.contains(st)
            assert np.array_equal(st[stack].reshape(n, 8), _stack_contents(e.game.data[0], n))
            e.step(_pick(e.observe(e.agent_selection)["action_mask"], rng))


def test_double_ingredients_action_space() -> None:
    e = mm.raw_env(num_players=3, double_ingredients=True)
    assert e.action_space("player_0").n == 1825
