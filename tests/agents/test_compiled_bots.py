"""The compiled bots (agents/compiled/) choose exactly what the numpy bots choose.

Positions come from games played by a mix of every heuristic bot and random moves (so
that the bots meet positions their own play would not reach), in every player count,
with and without double ingredients, and in both observation modes; reveal decisions
are included (``auto_reveal`` off, the default).
"""

from __future__ import annotations

import numpy as np
import pytest

from mamma_mia_agents import CounterAgent, RandomAgent, load_agent
from mamma_mia_agents.bots.heuristic import HeuristicAgent, Params
from mamma_mia_agents.compiled import random_actions
from mamma_mia_env import Config, Engine
from mamma_mia_env.game.state import OVER


def _bots() -> list[HeuristicAgent]:
    return [load_agent(x) for x in ("builder", "hoarder", "counter", "forgetful")] + [
        CounterAgent(proven=True),
        HeuristicAgent(cover_credit=0.3, gamble=0.5, cover_cost=0.1, keep=0.2, drain=0.1,
                       type_bonus=(0.1, 0, 0, 0, 0.2, 0.3, 0, 0.05), build=0.2, drain_take=0.1),
    ]  # fmt: skip


def _compare(num_players: int, doubles: bool, games: int, seed: int) -> tuple[int, int, int]:
    """Play ``games`` mixed games; at every position compare every bot both ways."""
    cfg = Config(num_players=num_players, double_ingredients=doubles)
    eng = Engine(cfg)
    top = Engine(cfg.replace(observation_mode="top_card"))
    bots = _bots()
    state = eng.reset(seeds=np.arange(games) + seed)
    rng = np.random.default_rng(seed)
    positions = reveals = mismatches = 0
    while True:
        live = np.flatnonzero(state.data["phase"] != OVER)
        if not len(live):
            break
        masks = eng.legal_masks(state)[live]
        seats = state.data["seat"].astype(np.int64)[live]
        obs = {"recall": eng.observe(state)[live], "top_card": top.observe(state)[live]}
        chosen = []
        for bot in bots:
            o = obs[bot.observation_mode]
            fast = bot.act_batch(o, masks, rng, seats)
            ref = bot.act_batch_reference(o, masks, rng, seats)
            mismatches += int((fast != ref).sum())
            chosen.append(fast)
        positions += len(live)
        reveals += int(masks[:, eng.n_turn_actions :].any(1).sum())
        pick = rng.integers(0, len(bots) + 1, len(live))
        actions = np.zeros(state.batch_size, np.int64)
        moves = RandomAgent().act_batch(obs["recall"], masks, rng, seats)
        for i, c in enumerate(chosen):
            moves = np.where(pick == i, c, moves)
        actions[live] = moves
        eng.step(state, actions)
    return positions, reveals, mismatches


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("doubles", [False, True])
def test_same_decisions_as_numpy(num_players: int, doubles: bool) -> None:
    positions, reveals, mismatches = _compare(num_players, doubles, 150, 1000 * num_players)
    assert positions > 8_000 and reveals > 800
    assert mismatches == 0, f"{mismatches} of {positions} x 6 decisions differ"


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


def test_subclass_with_own_scoring_keeps_numpy_path() -> None:
    """A subclass overriding a scoring hook is not silently replaced by the kernel."""

    class Odd(HeuristicAgent):
        params = Params()

        def turn_scores(self, v, personal, info, cand):  # type: ignore[no-untyped-def]
            return -super().turn_scores(v, personal, info, cand)

    assert not Odd()._kernel_ok()
    assert load_agent("builder")._kernel_ok()
    eng = Engine(Config(num_players=3))
    state = eng.reset(seeds=np.arange(20))
    masks, obs = eng.legal_masks(state), eng.observe(state)
    seats = state.data["seat"].astype(np.int64)
    rng = np.random.default_rng(0)
    assert (Odd().act_batch(obs, masks, rng, seats) == Odd().act_batch_reference(
        obs, masks, rng, seats)).all()  # fmt: skip


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
    from mamma_mia_agents.compiled import CompiledBots, play_out
    from mamma_mia_agents.tournament import play_games

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
    from mamma_mia_agents.tournament import play_games, seating_schedule

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
        lay = layout_vector(n, "recall", False)
        o_oo = int(lay[L_OO])
        for trial in range(300):
            ob = np.zeros(observation_size(n, "recall"), np.float32)
            present = rng.random(n * 8) < rng.random()
            high = [3, 40, 112, 255][trial % 4]  # few values: many ties
            keys = rng.integers(0, high, n * 8).astype(np.float32)
            if trial % 5 == 0:
                keys += np.float32(0.5) * rng.integers(0, 2, n * 8)
            ob[o_oo : o_oo + n * 8 * 7 : 7] = present
            ob[o_oo + 1 : o_oo + n * 8 * 7 : 7] = keys
            slots = np.full(104, -1, np.int64)
            m = oven_slots(ob, lay, slots, np.zeros(40, np.float32))
            idx = np.flatnonzero(present)
            want = idx[np.argsort(keys[idx], kind="stable")]
            assert m == len(idx)
            assert slots[:m].tolist() == want.tolist()


def test_oven_order_sort_on_odd_indices() -> None:
    """Observations whose oven indices are not distinct whole numbers below the oven's
    capacity (no engine makes one) still get numpy's decision."""
    from mamma_mia_env.game.observe import observation_slices

    eng = Engine(Config(num_players=4))
    state = eng.reset(seeds=np.arange(40))
    for _ in range(60):
        eng.step(state, load_agent("builder").act_batch(
            eng.observe(state), eng.legal_masks(state), None, state.data["seat"]))  # fmt: skip
    obs = eng.observe(state)
    masks = eng.legal_masks(state)
    seats = state.data["seat"].astype(np.int64)
    oo = observation_slices(4, "recall")["oven_orders"]
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
    rng = np.random.default_rng(0)
    for bot in _bots()[:3] + _bots()[4:5]:
        fast = bot.act_batch(odd, masks, rng, seats)
        assert (fast == bot.act_batch_reference(odd, masks, rng, seats)).all()


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
    assert (good == bot.act_batch_reference(obs, masks, rng, seats)).all()
    row = batch - 2
    bad_values = [-1.0, np.nan, 256.0] + ([255.00001, -1e-46] if dtype is np.float64 else [])
    for value in bad_values:
        bad = obs.copy()
        bad[row, 7] = value
        bad[row, 9] = value
        with pytest.raises(ValueError, match=rf"^observations must be finite .* at \[{row}, 7\]"):
            bot.act_batch(bad, masks, rng, seats)
