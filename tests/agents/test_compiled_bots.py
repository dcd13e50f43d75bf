"""The compiled heuristic bots: their documented scoring on hand-built positions, and the
kernels' own machinery (batch sizes, the compiled game loop, the oven sort, input checks).

The scoring (``bots/heuristic.py``'s module doc, docs/AGENTS.md) is checked where the
right answer can be worked out by hand: every term of a legal action's score, read back
through ``turn_scores_one``, and the choice it leads to.
"""

from __future__ import annotations

import numpy as np
import pytest

from mamma_mia_agents import CounterAgent, RandomAgent, load_agent
from mamma_mia_agents.bots.heuristic import HeuristicAgent
from mamma_mia_agents.compiled import batch as batch_module
from mamma_mia_agents.compiled.decisions import turn_scores_one
from mamma_mia_agents.compiled.tables import layout_vector, params_vector
from mamma_mia_env import ActionCodec, Config, Engine, build_position
from mamma_mia_env.game.kernels import random_actions
from mamma_mia_env.game.record import OVER


def _bots() -> list[HeuristicAgent]:
    return [load_agent(x) for x in ("builder", "hoarder", "counter", "forgetful")] + [
        CounterAgent(proven=True),
        HeuristicAgent(cover_credit=0.3, gamble=0.5, cover_cost=0.1, keep=0.2, drain=0.1,
                       type_bonus=(0.1, 0, 0, 0, 0.2, 0.3, 0, 0.05), build=0.2, drain_take=0.1),
    ]  # fmt: skip


def _scores(bot: HeuristicAgent, desc: dict) -> tuple[dict[str, float], str, ActionCodec]:
    """Every legal turn action's score (by its text) in a two-player position built from
    ``desc`` (seat 0, salami, to act), and the bot's choice."""
    cfg = Config(num_players=2)
    eng = Engine(cfg)
    state = build_position({"config": {"num_players": 2}, **desc}, cfg)
    obs = Engine(cfg.replace(observation_mode=bot.observation_mode)).observe(state)[0]
    mask = eng.legal_masks(state)[0].astype(np.int8)
    scores = np.full(len(mask), np.nan, np.float32)
    lay = layout_vector(2, bot.observation_mode, False)
    play, need = eng.play.astype(np.int64), eng.need.astype(np.int64)
    best = turn_scores_one(obs, mask, 0, lay, play, need, params_vector(bot.params), scores)
    codec = ActionCodec(eng)
    assert best == bot.act_batch(obs[None], mask[None], None, np.array([0]))[0]
    legal = np.flatnonzero(mask)
    assert not np.isnan(scores[legal]).any() and np.isnan(np.delete(scores, legal)).all()
    return {codec.to_str(int(a)): float(scores[a]) for a in legal}, codec.to_str(best), codec


# salami's order type 0 is 4 mushroom + 1 salami; its stack holds the 7 other orders
MET_IF_MUSHROOM = {
    "piles": {"salami": 1, "mushroom": 2},
    "hands": {"0": {"mushroom": 2, "olive": 1}, "1": {"pepper": 3}},
    "orders_in_hand": {"0": [0], "1": [1]},
    "stacks": {"0": [1, 2, 3, 4, 5, 6, 7]},
}


def test_counter_scores_every_term_as_documented() -> None:
    """The counter (card_cost 0.05, order_floor 0.5, target_orders 3, orders_weight 0.1,
    min_cards 3, cards_weight 0.3): order 0 is met once 2 mushroom are played."""
    scores, best, _ = _scores(load_agent("counter"), MET_IF_MUSHROOM)
    # 2 mushroom + order 0: play -0.1, met 1; after: 1 card, 0 orders, 6 to draw
    assert scores["play 2 mushroom, order type 0, draw supply"] == pytest.approx(
        -0.1 + 1.0 - 0.1 * (0 - 3) ** 2 - 0.3 * max(3 - (1 + 6), 0), abs=1e-6
    )
    assert scores["play 2 mushroom, order type 0, draw stack"] == pytest.approx(
        -0.1 + 1.0 - 0.1 * (0 + 6 - 3) ** 2 - 0.3 * max(3 - 1, 0), abs=1e-6
    )
    # 1 olive, no order: play -0.05, floor 0.5; after: 2 cards, 1 order, 4 to draw
    assert scores["play 1 olive, no order, draw supply"] == pytest.approx(
        -0.05 + 0.5 - 0.1 * (1 - 3) ** 2, abs=1e-6
    )
    assert scores["play 1 olive, no order, draw stack"] == pytest.approx(
        -0.05 + 0.5 - 0.1 * (1 + 4 - 3) ** 2 - 0.3 * max(3 - 2, 0), abs=1e-6
    )
    # 1 mushroom does not meet order 0 (3 of 4): the counter gives it no worth
    assert scores["play 1 mushroom, order type 0, draw supply"] == pytest.approx(
        -0.05 + 0.0 - 0.1 * (0 - 3) ** 2 - 0.3 * max(3 - (2 + 5), 0), abs=1e-6
    )
    assert best == max(scores, key=scores.__getitem__)
    # 1 mushroom without an order ties with 1 olive: the first legal action wins
    tie = scores["play 1 mushroom, no order, draw supply"]
    assert tie == scores["play 1 olive, no order, draw supply"]
    assert best == "play 1 mushroom, no order, draw supply"


def test_cover_credit_gamble_and_reserve() -> None:
    """An order the hand can complete at the reveal is worth ``cover_credit``; one a gap
    away ``cover_credit * gamble ** gap``; a met order 1 (``HeuristicAgent`` weights)."""
    bot = HeuristicAgent(cover_credit=0.6, gamble=0.7, order_floor=0.5, orders_weight=0.0,
                         cards_weight=0.0, card_cost=0.0)  # fmt: skip
    scores, best, _ = _scores(bot, MET_IF_MUSHROOM)
    # olive played: 2 mushroom still in hand cover the order (credit 0.6)
    assert scores["play 1 olive, order type 0, draw supply"] == pytest.approx(0.6, abs=1e-6)
    assert scores["play 2 mushroom, order type 0, draw supply"] == pytest.approx(1.0, abs=1e-6)
    # 1 mushroom played, the other in hand: covered (pool 3 + hand 1 = 4)
    assert scores["play 1 mushroom, order type 0, draw supply"] == pytest.approx(0.6, abs=1e-6)
    assert best == "play 2 mushroom, order type 0, draw supply"
    gap = dict(MET_IF_MUSHROOM, hands={"0": {"mushroom": 1, "olive": 1}, "1": {"pepper": 3}})
    scores, _, _ = _scores(bot, gap)
    # 1 mushroom played: pool 3 of 4 and nothing left to add, a gap of 1
    assert scores["play 1 mushroom, order type 0, draw supply"] == pytest.approx(
        float(np.float32(0.6) * np.float32(0.7)), abs=1e-6
    )
    # olive played: a gap of 1 (hand adds 1 mushroom, 1 missing)
    assert scores["play 1 olive, order type 0, draw supply"] == pytest.approx(0.42, abs=1e-6)
    # no gamble: a gap is worth nothing, below the floor
    plain = HeuristicAgent(cover_credit=0.6, order_floor=0.5, orders_weight=0.0,
                           cards_weight=0.0, card_cost=0.0)  # fmt: skip
    scores, best, _ = _scores(plain, gap)
    assert scores["play 1 mushroom, order type 0, draw supply"] == pytest.approx(0.0, abs=1e-6)
    assert best.endswith("no order, draw supply")


def test_a_rival_order_in_the_oven_takes_its_share_first() -> None:
    """The pool is the piles after the orders already in the oven: a rival's met order
    (pepper's 4 mushroom + 1 pepper... here mushroom's order 0: 4 salami + 1 mushroom)
    empties what the counter's own order needed, so the counter no longer counts on it."""
    desc = dict(
        MET_IF_MUSHROOM,
        piles={"salami": 5, "mushroom": 3},
        hands={"0": {"mushroom": 1, "olive": 1}, "1": {"pepper": 3}},
    )
    scores, _, _ = _scores(load_agent("counter"), desc)
    met = scores["play 1 mushroom, order type 0, draw supply"]  # pool 4 mushroom, 5 salami
    desc["oven"] = [[1, "order 0"]]  # seat 1 (mushroom): takes 4 salami + 1 mushroom
    desc["orders_in_hand"] = {"0": [0], "1": []}
    scores, _, _ = _scores(load_agent("counter"), desc)
    assert scores["play 1 mushroom, order type 0, draw supply"] == pytest.approx(
        met - 1.0, abs=1e-6
    )


def test_every_heuristic_bot_runs_the_kernels() -> None:
    """Any ``Params`` runs in the compiled loop and in ``act_batch``: one implementation."""
    for bot in _bots():
        assert bot.kernel_bot() is not None and bot.kernel_bot().prm is not None


def test_single_game_batch_and_serial_kernel_agree() -> None:
    """Batches below and above the parallel threshold give the same actions."""
    eng = Engine(Config(num_players=4))
    state = eng.reset(seeds=np.arange(600))
    rng = np.random.default_rng(0)
    bot = load_agent("builder")
    for _ in range(30):
        masks, obs = eng.legal_masks(state), eng.observe(state)
        seats = state.data["seat"].astype(np.int64)
        big = bot.act_batch(obs, masks, rng, seats)
        small = np.concatenate(
            [bot.act_batch(obs[i : i + 50], masks[i : i + 50], rng, seats[i : i + 50])
             for i in range(0, 600, 50)]
        )  # fmt: skip
        assert (big == small).all()
        eng.step(state, big)


@pytest.mark.parametrize("batch", [3, 600])  # the serial and the parallel kernel
def test_env_observations_reach_the_kernel_in_place(batch: int, monkeypatch) -> None:
    """The envs' uint8 observations go to the batch kernel as they are, not as a float32
    copy (four times the memory, which the decisions waited on): the kernel reads each
    entry as float32 (``jit.at``), and decides as on the float32 copy."""
    eng = Engine(Config(num_players=4))
    state = eng.reset(seeds=np.arange(batch))
    bot, rng = load_agent("builder"), np.random.default_rng(0)
    for _ in range(12):  # some orders in the oven
        seats = state.data["seat"].astype(np.int64)
        eng.step(state, bot.act_batch(eng.observe(state), eng.legal_masks(state), rng, seats))
    obs, masks = eng.observe(state), eng.legal_masks(state)
    seats = state.data["seat"].astype(np.int64)
    seen: list[np.ndarray] = []
    name = "DECIDE_PARALLEL" if batch >= batch_module.PARALLEL_MIN_BATCH else "DECIDE_SERIAL"
    kernel = getattr(batch_module, name)

    def spy(rows: np.ndarray, *args: object) -> None:
        seen.append(rows)
        kernel(rows, *args)

    monkeypatch.setattr(batch_module, name, spy)
    got = bot.act_batch(obs, masks, rng, seats)
    assert len(seen) == 1 and seen[0].dtype == np.uint8 and np.shares_memory(seen[0], obs)
    assert (got == bot.act_batch(obs.astype(np.float32), masks, rng, seats)).all()
    assert seen[1].dtype == np.float32


def test_random_agent_same_stream_as_before() -> None:
    """The kernel of the random agent keeps its rule: the floor(u * count)-th legal
    action, one uniform per game, so tournaments stay bit-identical."""
    eng = Engine(Config(num_players=4, double_ingredients=True))
    state = eng.reset(seeds=np.arange(300))
    for _ in range(40):
        live = state.data["phase"] != OVER
        masks = eng.legal_masks(state)
        masks[~live, 0] = 1  # finished games: any action, ignored by step
        u = np.random.default_rng(1).random(len(masks))
        counts = np.cumsum(masks != 0, axis=1, dtype=np.int32)
        pick = (u * counts[:, -1]).astype(np.int32)
        expected = np.argmax(counts > pick[:, None], axis=1)
        out = np.empty(len(masks), np.int64)
        assert random_actions(masks, u, out) == -1
        assert (out == expected).all()
        eng.step(state, out)
    empty = np.zeros((2, 5), np.int8)
    empty[0, 3] = 1
    with pytest.raises(ValueError, match="game 1 has no legal action"):
        RandomAgent().act_batch(np.zeros((2, 1)), empty, np.random.default_rng(0))


def test_play_out_replays_the_tournament_and_checks_its_input() -> None:
    """The compiled game loop plays the same games as ``play_games`` (deterministic bots),
    and refuses bad tables before the kernel sees them."""
    from mamma_mia_agents.compiled.playout import CompiledBots, play_out
    from mamma_mia_agents.tournament.matches import play_games

    cfg = Config(num_players=4)
    eng = Engine(cfg)
    agents = [load_agent(a) for a in ("builder", "hoarder", "counter", "forgetful")]
    bots = CompiledBots(agents, 4, False)
    g = 120
    seats = (np.arange(g)[:, None] + np.arange(4)[None]) % 4
    state = eng.reset(seeds=np.arange(g))
    steps = play_out(eng, state, bots, seats)
    assert (state.data["phase"] == OVER).all() and (steps > 0).all()
    ref = play_games(
        cfg, agents, seats, np.arange(g, dtype=np.uint64), np.random.default_rng(0), compiled=False
    )
    assert (ref["delivered"] == state.data["delivered"][:, :4].sum(2)).all()
    assert (ref["turns"] == state.data["turns"]).all()
    cut = eng.reset(seeds=np.arange(5))
    assert (play_out(eng, cut, bots, seats[:5], max_steps=7) == 7).all()
    with pytest.raises(ValueError, match="seat_agents must be"):
        play_out(eng, eng.reset(seeds=[1]), bots, np.zeros((1, 3), np.int64))
    with pytest.raises(ValueError, match="must index the 4 agents"):
        play_out(eng, eng.reset(seeds=[1]), bots, np.full((1, 4), 4))
    with pytest.raises(ValueError, match="max_steps"):
        play_out(eng, eng.reset(seeds=[1]), bots, np.zeros((1, 4), np.int64), max_steps=-1)
    with pytest.raises(ValueError, match="another game"):
        play_out(Engine(Config(num_players=2)), Engine(Config(num_players=2)).reset(seeds=[1]),
                 bots, np.zeros((1, 2), np.int64))  # fmt: skip
    with pytest.raises(ValueError, match="no compiled kernel"):
        CompiledBots([load_agent("ppo")], 4, False)


@pytest.mark.parametrize("num_players", [2, 4])
def test_tournament_compiled_path_plays_the_same_games(num_players: int) -> None:
    """``play_games`` plays all-heuristic tables in ``play_out``: the results equal the
    batched loop's, also when random (its own generator) and heuristic tables mix and
    when the first games are recorded."""
    from mamma_mia_agents.tournament.matches import play_games
    from mamma_mia_agents.tournament.schedule import seating_schedule

    cfg = Config(num_players=num_players)
    agents = [load_agent(a) for a in ("random", "builder", "hoarder", "counter", "forgetful")]
    sched = seating_schedule(len(agents), num_players)
    assign = np.tile(sched, (3, 1))
    seeds = np.repeat(np.arange(3, dtype=np.uint64) + 77, len(sched))
    rng = np.random.default_rng
    slow = play_games(cfg, agents, assign, seeds, rng(5), compiled=False, record=3)
    seen = []
    fast = play_games(cfg, agents, assign, seeds, rng(5), record=3, progress=seen.append)
    for key in ("delivered", "cards", "turns", "truncated"):
        assert (slow[key] == fast[key]).all(), key
    assert slow["actions"] == fast["actions"]
    assert sum(seen) == len(seeds)
    assert (~(assign == 0).any(1)).any()  # some tables had no random seat: the fast path ran


def test_oven_order_sort_is_a_stable_sort() -> None:
    """``oven_slots`` ranks the present orders by oven index: the same order as a
    stable sort (numpy's ``argsort(kind="stable")``) for any indices, ties included."""
    from mamma_mia_agents.compiled.oven import oven_slots
    from mamma_mia_agents.compiled.tables import L_OO, layout_vector
    from mamma_mia_env.game.observe import observation_size

    rng = np.random.default_rng(5)
    for n in (2, 3, 4, 5):
        lay = layout_vector(n, "fixed", False)
        o_oo = int(lay[L_OO])
        for trial in range(300):
            ob = np.zeros(observation_size("fixed"), np.float32)
            present = rng.random(n * 8) < rng.random()
            high = [3, 40, 112, 255][trial % 4]  # few values: many ties
            keys = rng.integers(0, high, n * 8).astype(np.float32)
            if trial % 5 == 0:
                keys += np.float32(0.5) * rng.integers(0, 2, n * 8)
            ob[o_oo : o_oo + n * 8 * 7 : 7] = present
            ob[o_oo + 1 : o_oo + n * 8 * 7 : 7] = keys
            slots = np.full(40, -1, np.int64)
            m = oven_slots(ob, lay, slots, np.zeros(40, np.int64), np.zeros(40, np.float32))
            idx = np.flatnonzero(present)
            want = idx[np.argsort(keys[idx], kind="stable")]
            assert m == len(idx)
            assert slots[:m].tolist() == want.tolist()


def test_oven_order_sort_on_odd_indices() -> None:
    """Observations whose oven indices are not distinct whole numbers below the oven's
    capacity (no engine makes one) are read in the order of a stable sort: the same
    decision as with the indices replaced by their ranks."""
    from mamma_mia_env.game.observe import observation_slices

    eng = Engine(Config(num_players=4))
    state = eng.reset(seeds=np.arange(40))
    for _ in range(60):
        eng.step(state, load_agent("builder").act_batch(
            eng.observe(state), eng.legal_masks(state), None, state.data["seat"]))  # fmt: skip
    obs = eng.observe(state).astype(np.float32)  # odd values need a float copy
    masks = eng.legal_masks(state)
    seats = state.data["seat"].astype(np.int64)
    oo = observation_slices("fixed")["oven_orders"]
    slots = obs[:, oo].reshape(len(obs), -1, 7)
    present = slots[:, :, 0] > 0
    assert (present.sum(1) >= 2).all()
    odd = obs.copy()
    view = odd[:, oo].reshape(len(obs), -1, 7)
    for g in range(len(obs)):
        first, second = np.flatnonzero(present[g])[:2]
        if g % 3 == 0:
            view[g, first, 1] = view[g, second, 1]  # two orders at one index
        elif g % 3 == 1:
            view[g, first, 1] = 250.0  # beyond the oven (the bots refuse more than 255)
        else:
            view[g, first, 1] = 3.5  # not a whole index (negatives are refused)
    odd[:, oo] = view.reshape(len(obs), -1)
    ranked = odd.copy()
    rview = ranked[:, oo].reshape(len(obs), -1, 7)
    for g in range(len(obs)):
        idx = np.flatnonzero(present[g])
        order = idx[np.argsort(view[g, idx, 1], kind="stable")]
        rview[g, order, 1] = np.arange(len(order))
    ranked[:, oo] = rview.reshape(len(obs), -1)
    rng = np.random.default_rng(0)
    changed = 0
    for bot in _bots()[:3] + _bots()[4:5]:
        fast = bot.act_batch(odd, masks, rng, seats)
        assert (fast == bot.act_batch(ranked, masks, rng, seats)).all()
        changed += int((fast != bot.act_batch(obs, masks, rng, seats)).sum())
    assert changed > 0  # the odd indices did change the order the bots read


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [3, 600])  # the serial and the parallel kernel
def test_kernel_checks_observation_values(batch: int, dtype: type) -> None:
    """The compiled bots check the observations' values inside the kernel (float32) or
    before the conversion to float32 (any other dtype, where 255.00001 would round into
    range): the error names the first bad entry either way, as ``check_values`` does."""
    eng = Engine(Config(num_players=3))
    state = eng.reset(seeds=np.arange(batch))
    obs, masks = eng.observe(state).astype(dtype), eng.legal_masks(state)
    seats = state.data["seat"].astype(np.int64)
    bot, rng = load_agent("builder"), np.random.default_rng(0)
    good = bot.act_batch(obs, masks, rng, seats)
    assert (good == bot.act_batch(obs.astype(np.float32), masks, rng, seats)).all()
    row = batch - 2
    bad_values = [-1.0, np.nan, 256.0] + ([255.00001, -1e-46] if dtype is np.float64 else [])
    for value in bad_values:
        bad = obs.copy()
        bad[row, 7] = value
        bad[row, 9] = value
        with pytest.raises(ValueError, match=rf"^observations must be finite .* at \[{row}, 7\]"):
            bot.act_batch(bad, masks, rng, seats)
