"""Agent interface conformance: legality over many games, single vs batched, loading,
the reveal decisions and the heuristic bots' reading of the oven."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from mamma_mia_agents import REGISTRY, Agent, game_info, load_agent
from mamma_mia_agents.bots.base import check_batch
from mamma_mia_agents.bots.loading import AgentLoadError
from mamma_mia_agents.bots.roster import HEURISTICS
from mamma_mia_agents.compiled.jit import workspace
from mamma_mia_agents.compiled.oven import simulate_oven
from mamma_mia_agents.compiled.tables import layout_vector
from mamma_mia_agents.tournament.matches import play_games
from mamma_mia_agents.tournament.schedule import seating_schedule
from mamma_mia_env import Config, Engine, GameState, build_position
from mamma_mia_env.game.actions import NO_ORDER, order_slot_of
from mamma_mia_env.game.config import OBSERVATION_MODES
from mamma_mia_env.game.observe import observation_size
from mamma_mia_env.game.record import OVER

# the agents that act on observations (the search bots need the state: tests/agents/test_search.py)
ALL = [name for name, cls in REGISTRY.items() if not getattr(cls, "needs_state", False)]


def playing(names: list[str], config: Config) -> list[str]:
    """The agents that can play ``config`` (trained policies: their player counts)."""
    out = []
    for name in names:
        try:
            load_agent(name).check_config(config)
        except ValueError:
            continue
        out.append(name)
    return out


CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=4, double_ingredients=True, strict_minimale=True),
    dict(num_players=3, mamma_mia_in_deal=True, pass_may_play_order=True),
    dict(num_players=5, double_ingredients=True, random_start_player=True),
    dict(num_players=2, auto_reveal=True, idle_cycle_guard=False, max_turns=300),
]


def _cid(cfg: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in cfg.items())


# -- every agent plays only legal actions ------------------------------------------------------
@pytest.mark.parametrize("cfg", CONFIGS, ids=_cid)
def test_every_agent_plays_only_legal_actions(cfg: dict) -> None:
    """All bundled agents together, seats rotated, 200+ games per config.

    ``play_games`` checks every returned action against the legal mask (AgentError
    otherwise) before ``Engine.step`` validates it again.
    """
    config = Config(**cfg)
    n = config.num_players
    agents = [load_agent(a) for a in playing(ALL, config)]
    schedule = seating_schedule(len(agents), n)
    deals = max(1, 200 // len(schedule))
    assign = np.tile(schedule, (deals, 1))
    seeds = np.repeat(np.arange(deals, dtype=np.uint64) + 1000 * n, len(schedule))
    out = play_games(config, agents, assign, seeds, np.random.default_rng(0))
    assert (out["turns"] > 0).all()
    if config.max_turns is None:
        assert not out["truncated"].any()
    assert (out["delivered"] >= 0).all() and (out["delivered"] <= 8).all()


def _observe_as(observer: Engine, state: GameState):
    """The games seen through an engine of another observation mode, the records
    labelled with the observer's own config."""
    return observer.observe(GameState(observer.config, state.data))


def _positions(cfg: Config, games: int = 40, seed: int = 5, every: int = 3):
    """(observations by mode, masks, seats) sampled along random games, turns and reveals."""
    eng = Engine(cfg)
    observers = {m: Engine(cfg.replace(observation_mode=m)) for m in OBSERVATION_MODES}
    state = eng.reset(seeds=seed, batch_size=games)
    rng = np.random.default_rng(seed)
    rand = load_agent("random")
    obs = {m: [] for m in observers}
    masks, seats = [], []
    step = 0
    while (state.data["phase"] != OVER).any():
        m = eng.legal_masks(state)
        live = np.flatnonzero(state.data["phase"] != OVER)
        seat = state.data["seat"].astype(np.int64)
        if step % every == 0 or (state.data["phase"][live] == 1).any():
            for mode, ob in observers.items():
                obs[mode].append(_observe_as(ob, state)[live])
            masks.append(m[live])
            seats.append(seat[live])
        acts = np.zeros(games, np.int64)
        acts[live] = rand.act_batch(None, m[live], rng)
        eng.step(state, acts)
        step += 1
    return (
        {k: np.concatenate(v) for k, v in obs.items()},
        np.concatenate(masks),
        np.concatenate(seats),
    )


@pytest.mark.parametrize(
    ("name", "cfg"),
    [
        pytest.param(name, cfg, id=f"{name}-{_cid(cfg)}")
        for cfg in (CONFIGS[0], CONFIGS[2], CONFIGS[3], CONFIGS[4])
        for name in playing(ALL, Config(**cfg))
    ],
)
def test_single_and_batched_agree(name: str, cfg: dict) -> None:
    config = Config(**cfg)
    obs, masks, seats = _positions(config)
    agent = load_agent(name)
    o = obs[agent.observation_mode]
    assert (masks[:, Engine(config).n_turn_actions :].any(1)).sum() > 0, "no reveal decision"
    batch = agent.act_batch(o, masks, np.random.default_rng(42), seats)
    assert batch.shape == (len(o),) and batch.dtype == np.int64
    assert (masks[np.arange(len(o)), batch] == 1).all()
    rng = np.random.default_rng(42)  # the same generator, drawn row by row
    single = [agent.act(o[i], masks[i], rng, int(seats[i])) for i in range(len(o))]
    assert all(isinstance(a, int) for a in single)
    np.testing.assert_array_equal(batch, np.array(single))
    # and any sub-batch gives the same actions as the whole batch
    idx = np.arange(0, len(o), 7)
    sub = agent.act_batch(o[idx], masks[idx], np.random.default_rng(42), seats[idx])
    if name != "random":  # the random agent's draws depend on the rows before
        np.testing.assert_array_equal(sub, batch[idx])


def test_random_is_uniform_over_legal_actions() -> None:
    mask = np.zeros((1, 20), np.int8)
    mask[0, [2, 5, 11, 19]] = 1
    masks = np.repeat(mask, 40000, axis=0)
    acts = load_agent("random").act_batch(None, masks, np.random.default_rng(1))
    counts = np.bincount(acts, minlength=20)
    assert set(np.flatnonzero(counts)) == {2, 5, 11, 19}
    assert np.allclose(counts[[2, 5, 11, 19]] / 40000, 0.25, atol=0.01)


# -- the interface ------------------------------------------------------------------------------
def test_base_class_derives_the_missing_method() -> None:
    class First(Agent):
        name = "first"

        def act(self, observation, action_mask, rng, seat=None):
            return int(np.flatnonzero(action_mask)[0])

    class Last(Agent):
        name = "last"

        def act_batch(self, observations, masks, rng, seats=None):
            return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)

    masks = np.array([[0, 1, 1, 0], [1, 0, 0, 1]], np.int8)
    obs = np.zeros((2, 3), np.float32)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(First().act_batch(obs, masks, rng), [1, 0])
    assert Last().act(obs[0], masks[0], rng) == 2
    assert Last().act(obs[1], masks[1], rng) == 3

    class Nothing(Agent):
        pass

    with pytest.raises(NotImplementedError):
        Nothing().act(obs[0], masks[0], rng)
    with pytest.raises(NotImplementedError):
        Nothing().act_batch(obs, masks, rng)
    with pytest.raises(TypeError, match="observation_mode"):

        class Bad(Agent):  # noqa: F841 - the class statement itself must fail
            observation_mode = "psychic"


def test_game_info_reads_the_shapes() -> None:
    for n in range(2, 6):
        for mode in ("fixed", "top_card"):
            for doubles in (False, True):
                eng = Engine(
                    Config(num_players=n, observation_mode=mode, double_ingredients=doubles)
                )
                info = game_info(eng.obs_dim, eng.n_actions, seats_present=n)
                assert (info.num_players, info.observation_mode) == (n, mode)
                assert info.double_ingredients == doubles
                assert info.n_turn_actions == eng.n_turn_actions
                assert info.slices == eng.obs_slices
    with pytest.raises(ValueError, match="observation"):
        game_info(observation_size("fixed") + 1, 655, seats_present=4)
    with pytest.raises(ValueError, match="observation"):  # the retired recall layout's size
        game_info(229, 655)
    for mode in ("fixed", "top_card"):  # one size for every count: the flags say which
        for n in range(2, 6):
            info = game_info(observation_size(mode), 655, seats_present=n)
            assert (info.num_players, info.observation_mode) == (n, mode)


@pytest.mark.parametrize("mode", ["fixed", "top_card"])
def test_a_batch_takes_its_count_from_the_seat_present_flags(mode: str) -> None:
    obs = {n: Engine(Config(num_players=n, observation_mode=mode)) for n in (2, 4)}
    states = {n: eng.reset(seeds=[1, 2]) for n, eng in obs.items()}
    views = {n: obs[n].observe(states[n]) for n in obs}
    masks = {n: obs[n].legal_masks(states[n]) for n in obs}
    info, _ = check_batch(views[4], masks[4], None)
    assert info.num_players == 4
    mixed = np.concatenate([views[2][:1], views[4][:1]])
    with pytest.raises(ValueError, match=r"one player count, got seats present \[2, 4\]"):
        check_batch(mixed, masks[4], None)
    bad = views[4].copy()
    bad[:, 0] = 3
    with pytest.raises(ValueError, match="seat_present flags must be 0 or 1"):
        check_batch(bad, masks[4], None)


@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristics_need_seats_and_their_observation_mode(name: str) -> None:
    cfg = Config(num_players=3)
    obs, masks, seats = _positions(cfg, games=4)
    bot = load_agent(name)
    with pytest.raises(ValueError, match="seats"):
        bot.act_batch(obs[bot.observation_mode], masks, np.random.default_rng(0))
    others = ["top_card"] if bot.observation_mode == "fixed" else ["fixed"]
    for other in others:
        with pytest.raises(ValueError, match=f"observations, got '{other}'"):
            bot.act_batch(obs[other], masks, np.random.default_rng(0), seats)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("doubles", [False, True])
def test_bots_decide_the_same_on_a_float_copy_of_the_observation(n: int, doubles: bool) -> None:
    """A bot reads the uint8 observation and a float32 copy of it (the values the retired
    float32 layout held) the same way, in a batch and one game at a time."""
    obs, masks, seats = _positions(Config(num_players=n, double_ingredients=doubles), games=24)
    assert obs["fixed"].dtype == obs["top_card"].dtype == np.uint8 and len(masks) > 300
    for name in HEURISTICS:
        bot = load_agent(name)
        mine = obs[bot.observation_mode]
        rng = np.random.default_rng(0)
        wide = bot.act_batch(mine.astype(np.float32), masks, rng, seats)
        assert np.array_equal(bot.act_batch(mine, masks, rng, seats), wide), name
        assert np.array_equal(  # the one-game path too
            [bot.act(mine[i], masks[i], rng, seats[i]) for i in range(0, len(masks), 37)],
            wide[::37],
        ), name


# -- loading agents -----------------------------------------------------------------------------
def test_load_agent_by_name_and_import_path(tmp_path, monkeypatch) -> None:
    for name, cls in REGISTRY.items():
        assert type(load_agent(name)) is cls
    (tmp_path / "my_bots.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from mamma_mia_agents import Agent, RandomAgent, agent_factory

            class FirstLegal(Agent):
                name = "first-legal"
                def act_batch(self, observations, masks, rng, seats=None):
                    return np.argmax(masks, axis=1)

            instance = FirstLegal()

            @agent_factory
            def make():
                return RandomAgent()

            CALLED = []

            def unmarked():
                CALLED.append(1)
                return RandomAgent()

            class NotAnAgent:
                def __init__(self):
                    CALLED.append(1)

            class Duck:
                def act_batch(self, observations, masks, rng, seats=None):
                    return np.argmax(masks, axis=1)

            not_an_agent = 42
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_bots", None)
    assert load_agent("my_bots:FirstLegal").name == "first-legal"
    assert load_agent("my_bots:instance").name == "first-legal"
    assert load_agent("my_bots:make").name == "random"
    assert hasattr(load_agent("my_bots:Duck"), "act_batch")
    bot = load_agent("counter")
    assert load_agent(bot) is bot
    with pytest.raises(AgentLoadError, match="did you mean 'counter'"):
        load_agent("countr")
    with pytest.raises(AgentLoadError, match="cannot import module 'no_such_mod'"):
        load_agent("no_such_mod:Bot")
    with pytest.raises(AgentLoadError, match="has no attribute 'Missing'"):
        load_agent("my_bots:Missing")
    with pytest.raises(AgentLoadError, match="is not an agent"):
        load_agent("my_bots:not_an_agent")
    with pytest.raises(AgentLoadError, match="must look like"):
        load_agent("my_bots:")
    # an import path names code to run only when it is an agent class or a marked factory:
    # anything else is refused before it is called (a file's "os:abort")
    with pytest.raises(AgentLoadError, match="not marked as an agent factory"):
        load_agent("my_bots:unmarked")
    with pytest.raises(AgentLoadError, match="is not an agent"):
        load_agent("my_bots:NotAnAgent")
    assert sys.modules["my_bots"].CALLED == []
    with pytest.raises(AgentLoadError, match="not marked as an agent factory"):
        load_agent("os:abort")
    with pytest.raises(AgentLoadError, match="not marked as an agent factory"):
        load_agent("code:interact")
    with pytest.raises(AgentLoadError, match="is not an agent"):
        load_agent("code:InteractiveConsole")


# -- the reveal decisions -----------------------------------------------------------------------
def _reveal(desc: dict):
    cfg = Config(num_players=2)
    state = build_position({"config": {"num_players": 2}, "reveal": True, **desc}, cfg)
    eng = Engine(cfg)
    assert state.data["phase"][0] == 1, "the position should stop at a reveal decision"
    masks = eng.legal_masks(state)
    return (
        eng,
        masks,
        {m: _observe_as(Engine(cfg.replace(observation_mode=m)), state) for m in OBSERVATION_MODES},
    )


@pytest.mark.parametrize("name", HEURISTICS)
def test_reveal_deliver_from_hand_rather_than_decline(name: str) -> None:
    # salami's order type 0 (4 mushroom + 1 salami): piles hold 3 mushroom + 1 salami
    eng, masks, obs = _reveal(
        {
            "hands": {"0": {"mushroom": 2}},
            "piles": {"salami": 1, "mushroom": 3},
            "oven": [[0, "order 0"]],
        }
    )
    bot = load_agent(name)
    a = bot.act(obs[bot.observation_mode][0], masks[0], np.random.default_rng(0), seat=0)
    assert a - eng.n_turn_actions == 1  # DELIVER, not DECLINE


@pytest.mark.parametrize("name", HEURISTICS)
def test_reveal_monotoni_joker_takes_fewest_hand_cards(name: str) -> None:
    # joker mushroom is met by the piles; pineapple would cost a hand card
    eng, masks, obs = _reveal(
        {
            "hands": {"0": {"salami": 1, "pineapple": 2}},
            "piles": {"salami": 1, "mushroom": 6, "pineapple": 5},
            "oven": [[0, "order 6"]],
        }
    )
    legal = set(np.flatnonzero(masks[0]) - eng.n_turn_actions)
    assert legal == {0, 3, 4}  # decline, as mushroom, as pineapple
    bot = load_agent(name)
    a = bot.act(obs[bot.observation_mode][0], masks[0], np.random.default_rng(0), seat=0)
    assert a - eng.n_turn_actions == 3


@pytest.mark.parametrize("name", HEURISTICS)
def test_reveal_minimale_tie_avoids_what_own_orders_need(name: str) -> None:
    # Minimale of seat 0 (salami): mushroom and olive tie at 3; seat 0 holds order 0
    # (4 mushroom + 1 salami), so it should spend olive and keep mushroom
    eng, masks, obs = _reveal(
        {
            "hands": {"0": {"pepper": 1}},
            "orders_in_hand": {"0": [0]},
            "piles": {"salami": 1, "mushroom": 3, "olive": 3, "pineapple": 5, "pepper": 4},
            "oven": [[0, "order 7"]],
        }
    )
    legal = set(np.flatnonzero(masks[0]) - eng.n_turn_actions)
    assert legal == {2 + 1, 2 + 4}  # both candidates met: no decline
    bot = load_agent(name)
    a = bot.act(obs[bot.observation_mode][0], masks[0], np.random.default_rng(0), seat=0)
    assert a - eng.n_turn_actions == 2 + 4


# -- the heuristics' reading of the oven ----------------------------------------------------------
def test_oven_replay_matches_the_engine() -> None:
    """The public replay of the oven predicts the piles the engine leaves after the reveal.

    Orders only of the observer and of rivals with empty hands (no cover possible), so
    the replay is exact: its residual pool equals the engine's piles after the reveal.
    """
    cfg = Config(num_players=3)
    desc = {
        "config": {"num_players": 3},
        "seat": 0,
        "hands": {"0": {"olive": 2}, "1": {}, "2": {}},
        "piles": {"salami": 3, "pepper": 1},
        "oven": [
            [1, "4 salami"],
            [1, "1 mushroom"],
            [1, "order 0"],  # mushroom's 4 salami + 1 mushroom: met
            [2, "1 pineapple"],
            [2, "3 pepper"],
            [2, "order 7"],  # pineapple's Minimale: salami (3) is the fewest: met
            [0, "2 olive"],
            [0, "order 5"],  # salami's Bombastica: 6 face up + 2 in hand < 15: fails
            [1, "order 6"],  # mushroom's Monotoni: no mushroom left: fails
        ],
    }
    state = build_position(desc, cfg)
    eng = Engine(cfg)
    ob = eng.observe(state, seats=np.array([0]))[0]
    lay = layout_vector(3, "fixed", False)
    piles = state.data["piles"][0]
    pv = (piles[:5] + 2 * piles[5:]).astype(np.float32)
    hand = state.data["hand"][0, 0]
    hv = (hand[:5] + 2 * hand[5:]).astype(np.float32)
    pool, reserve = np.zeros((2, 5), np.float32)
    ws, wd, wi = workspace()
    need = eng.need.astype(np.int64)
    simulate_oven(ob, lay, 0, need, 0.0, pv, hv, pool, reserve, ws, wd, wi)
    np.testing.assert_array_equal(reserve, 0)
    after = build_position({**desc, "reveal": True}, cfg)
    assert after.data["phase"][0] == 0  # no owner decision on the way
    piles = after.data["piles"][0]
    np.testing.assert_array_equal(pool, piles[:5] + 2 * piles[5:])
    np.testing.assert_array_equal(pool, [0, 0, 0, 4, 2])
    assert after.data["delivered"][0, :3].sum() == 2


def test_counter_only_plays_orders_that_are_delivered() -> None:
    """Among four counters, the orders a counter plays are (almost) all delivered."""
    cfg = Config(num_players=4)
    eng = Engine(cfg)
    bot = load_agent("counter")
    state = eng.reset(seeds=77, batch_size=150)
    played = delivered = 0
    while (state.data["phase"] != OVER).any():
        live = state.data["phase"] != OVER
        masks = eng.legal_masks(state)
        seat = state.data["seat"].astype(np.int64)
        acts = np.zeros(len(masks), np.int64)
        rows = np.flatnonzero(live)
        acts[rows] = bot.act_batch(eng.observe(state)[rows], masks[rows], None, seat[rows])
        turn = acts[rows] < eng.n_turn_actions
        played += int((turn & (order_slot_of(acts[rows]) != NO_ORDER)).sum())
        delivered += int(eng.step(state, acts).sum())
    assert played > 150 * 8
    assert delivered >= 0.95 * played


def _order_success(
    agents: list, seat_of_interest: int, games: int, seed: int, **config: bool
) -> tuple[int, int]:
    """(orders played, orders delivered) of one seat over ``games`` games."""
    cfg = Config(num_players=len(agents), **config)
    eng = Engine(cfg)
    observers = {m: Engine(cfg.replace(observation_mode=m)) for m in OBSERVATION_MODES}
    state = eng.reset(seeds=seed, batch_size=games)
    rng = np.random.default_rng(seed)
    played = delivered = 0
    while (state.data["phase"] != OVER).any():
        live = state.data["phase"] != OVER
        masks = eng.legal_masks(state)
        seat = state.data["seat"].astype(np.int64)
        acts = np.zeros(games, np.int64)
        for s, agent in enumerate(agents):
            rows = np.flatnonzero(live & (seat == s))
            if len(rows):
                obs = _observe_as(observers[agent.observation_mode], state)[rows]
                acts[rows] = agent.act_batch(obs, masks[rows], rng, seat[rows])
                if s == seat_of_interest:
                    a = acts[rows]
                    played += int(((a < eng.n_turn_actions) & (order_slot_of(a) != NO_ORDER)).sum())
        delivered += int(eng.step(state, acts)[:, seat_of_interest].sum())
    return played, delivered


@pytest.mark.parametrize("doubles", [False, True])
def test_proven_counter_orders_are_always_delivered(doubles: bool) -> None:
    """``bound_oven`` is sound: whatever the betting rivals decide, a proven order is met."""
    from mamma_mia_agents import CounterAgent

    agents = [CounterAgent(proven=True), load_agent("builder"), load_agent("hoarder")]
    agents += [load_agent("random")] if not doubles else []
    played, delivered = _order_success(
        agents, 0, games=300, seed=21 + doubles, double_ingredients=doubles
    )
    assert played > 100
    assert delivered == played


@pytest.mark.parametrize(
    ("cfg", "reason"),
    [
        (
            dict(num_players=4, double_ingredients=True),
            "the policy .*ppo.npz. was trained without double ingredients",
        ),
    ],
)
def test_trained_policy_refuses_games_it_was_not_trained_for(cfg: dict, reason: str) -> None:
    from mamma_mia_agents.tournament import run_tournament

    n = cfg.pop("num_players")
    with pytest.raises(ValueError, match=f"agent 'ppo' cannot play this game: {reason}"):
        run_tournament(["ppo", "builder"], num_players=n, games=4, progress=False, **cfg)


def test_compilable_bots_are_the_kernel_bots() -> None:
    """The bots reach the kernels without the kernels knowing them: the heuristic and
    random bots compile, ppo and a foreign object do not."""
    from mamma_mia_agents.compiled.playout import compilable

    assert compilable(load_agent("builder")) and compilable(load_agent("random"))
    assert not compilable(load_agent("ppo")) and not compilable(object())
