"""A policy's strength: its win rate against each heuristic bot on duplicate deals.

The training scripts' curve and final evaluations all go through the tournament
runner, so every deal is played with the seats rotated (luck of the deal cancels out)
and the numbers are the same tournament rows the leaderboard shows.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

__all__ = ["CURVE_SEED", "FINAL_SEED", "evaluate", "final_evaluation", "policy_against"]

#: The deals of a training run's learning-curve evaluations and of its final evaluation
#: (cleanrl_ppo.py, expert_iteration.py): constants that no training run uses (the
#: training's deals come from ``--seed`` through the env's generator, the teacher's from
#: ``[seed, 7]``), and different from each other, so that the final figure is measured on
#: deals the run never chose anything by.
CURVE_SEED = 230_001
FINAL_SEED = 230_023
#: the agent's tournament row as an evaluation keeps it
_ROW = ("win_rate", "win_rate_low", "win_rate_high", "mean_delivered")


def evaluate(
    agent,
    bots: list[str],
    num_players: int,
    games: int,
    seed: int,
    workers: int = 1,
    backend: str = "local",
) -> dict[str, dict]:
    """Win rate of ``agent`` against each bot on duplicate deals (seats rotated).

    Two players: ``agent`` vs the bot. More: the agent against ``num_players - 1``
    copies of the bot. Returns per bot the tournament row of the agent.
    ``backend="ray"``: the batches as Ray tasks, on the Ray instance this process is
    connected to (``fanout.session``): the same games.
    """
    from mamma_mia_agents import load_agent
    from mamma_mia_agents.tournament import run_tournament

    out = {}
    for name in bots:
        bot = load_agent(name)
        lineup = [agent] + [bot] * (num_players - 1)
        res = run_tournament(
            lineup,
            num_players=num_players,
            games=games,
            seed=seed,
            workers=workers,
            progress=False,
            backend=backend,
        )
        row = next(r for r in res.table if r["agent"] == res.names[0])
        out[name] = {"games": res.games, **{k: row[k] for k in _ROW}, "elapsed": res.elapsed}
    return out


def policy_against(
    policy: Any,
    rival: str,
    num_players: int,
    games: int,
    seed: int,
    workers: int = 1,
    backend: str = "local",
) -> dict[str, Any]:
    """A policy (a file path or a ``NumpyPolicy``, played by ``PPOAgent``: its most
    likely legal action) against ``rival`` on duplicate deals: the :func:`evaluate` row."""
    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    agent = PPOAgent(policy)
    rows = evaluate(agent, [rival], num_players, games, seed, workers=workers, backend=backend)
    return rows[rival]


def final_evaluation(policy_file: Path, rival: str, num_players: int, games: int) -> dict[str, Any]:
    """A trained policy file against ``rival``: ``games`` duplicate-deal games at
    ``FINAL_SEED``, its win rate with the Wilson 95% interval; and the same deals with
    actions drawn from the policy (``PPOAgent(deterministic=False)``, the tournament's
    generator): what the choice of the most likely action is worth."""
    from mamma_mia_agents.bots.ppo_agent import PPOAgent

    t0 = time.perf_counter()
    policy = PPOAgent(policy_file).policy(num_players)
    res = policy_against(policy, rival, num_players, games, FINAL_SEED)
    sampled = evaluate(PPOAgent(policy, deterministic=False), [rival], num_players, games,
                       FINAL_SEED)[rival]  # fmt: skip
    return {
        "opponent": rival,
        "games": res["games"],
        "seed": FINAL_SEED,
        "play": "deterministic (PPOAgent: the most likely legal action)",
        **{k: res[k] for k in _ROW},
        "sampled": {k: sampled[k] for k in ("win_rate", "win_rate_low", "win_rate_high")},
        "seconds": round(time.perf_counter() - t0, 2),
    }
