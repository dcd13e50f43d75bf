"""The training scripts' evaluation (``experiments/common/evaluation.py``): a policy file
against the heuristic bots on duplicate deals, the same numbers for the same seed; and the
shipped network playing whole tournaments at every count it lists."""

from __future__ import annotations

import pytest
from helpers import POLICY_FILE

from experiments.common.evaluation import evaluate
from mamma_mia_agents.bots.ppo_agent import SHIPPED, PPOAgent
from mamma_mia_agents.tournament import run_tournament


def _rows(result: dict[str, dict]) -> dict[str, dict]:
    """The rows without their wall time."""
    return {bot: {k: v for k, v in row.items() if k != "elapsed"} for bot, row in result.items()}


def test_evaluation_with_the_same_seed_gives_the_same_result() -> None:
    a = evaluate(PPOAgent(POLICY_FILE[2]), ["counter", "random"], 2, 20, seed=9)
    b = evaluate(PPOAgent(POLICY_FILE[2]), ["counter", "random"], 2, 20, seed=9)
    assert _rows(a) == _rows(b) and a["counter"]["games"] == 20
    # a sampling policy is reproducible too: the tournament seeds its generator
    s1 = evaluate(PPOAgent(POLICY_FILE[2], deterministic=False), ["counter"], 2, 20, seed=4)
    s2 = evaluate(PPOAgent(POLICY_FILE[2], deterministic=False), ["counter"], 2, 20, seed=4)
    assert _rows(s1) == _rows(s2)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_shipped_policy_plays_legal_games(num_players: int) -> None:
    assert SHIPPED.exists()
    games = 2 * num_players  # whole duplicate deals: every seat rotation of two deals
    res = run_tournament(["ppo", "random"], num_players=num_players, games=games, seed=0,
                         workers=1, progress=False)  # fmt: skip
    assert res.games == games and not res.truncated.any()
