"""The engine against the independent oracle (tests/support/oracle.py) on random games.

Both follow docs/SPEC.md; the oracle was written from the spec and the rule texts
alone. For every step of every game the two must agree on the whole state (hands,
stacks, supply order, oven, piles, used cards, holder, round, phase, seat), on the
set of legal actions, and on the orders delivered.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracle import OracleGame
from snapshot import engine_snapshot

from mamma_mia_env import Config, Engine
from mamma_mia_env.game.record import OVER

# 9 configurations x 250 games = 2,250 games
CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=3, double_ingredients=True, strict_minimale=True, pass_may_play_order=True),
    dict(num_players=4, mamma_mia_in_deal=True, auto_reveal=True, random_start_player=True),
    dict(num_players=2, double_ingredients=True, idle_cycle_guard=False, max_turns=150),
    dict(num_players=5, double_ingredients=True, mamma_mia_in_deal=True, auto_reveal=True),
    dict(num_players=4, strict_minimale=True, pass_may_play_order=True, random_start_player=True),
]
GAMES = 250


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_engine_agrees_with_oracle(cfg: dict) -> None:
    n = cfg["num_players"]
    engine = Engine(Config(**cfg))
    seed = 10_000 + 97 * len(CONFIGS) * n + len(cfg)
    state = engine.reset(seeds=seed, batch_size=GAMES)
    oracles = [OracleGame(cfg, seed + i) for i in range(GAMES)]
    rng = np.random.default_rng(seed)
    totals = np.zeros((GAMES, n), dtype=np.int64)
    while (state.data["phase"] != OVER).any():
        masks = engine.legal_masks(state)
        actions = np.zeros(GAMES, dtype=np.int64)
        expected = np.zeros((GAMES, n), dtype=np.int64)
        for i, oracle in enumerate(oracles):
            assert engine_snapshot(state.data, i, n) == oracle.snapshot(), f"game {i}"
            if oracle.is_over():
                continue
            legal = oracle.legal_actions()
            assert np.flatnonzero(masks[i]).tolist() == legal, f"game {i}: legal actions"
            actions[i] = legal[rng.integers(len(legal))]
            for seat, _order in oracle.apply(int(actions[i])):
                expected[i, seat] += 1
        delivered = engine.step(state, actions)
        assert (delivered == expected).all()
        totals += delivered
    for i, oracle in enumerate(oracles):
        assert engine_snapshot(state.data, i, n) == oracle.snapshot()
        assert bool(state.data["truncated"][i]) == oracle.truncated()
        assert totals[i].tolist() == oracle.scores()
        if not oracle.truncated() and engine.config.reward_mode == "win_loss":
            winners = oracle.winners()
            rewards = state.data["rewards"][i, :n]
            sole = len(winners) == 1
            for s in range(n):
                assert rewards[s] == ((1.0 if sole else 0.0) if s in winners else -1.0)
