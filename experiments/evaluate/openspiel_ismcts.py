"""OpenSpiel's ISMCTS bot on Mamma Mia! against builder, next to our search bot.

    python -m experiments.evaluate.openspiel_ismcts [--deals 10] [--simulations 50]
        [--export]

Two players, duplicate deals (every deal played twice, seats swapped): OpenSpiel's
``ISMCTSBot`` (random rollouts, ``--simulations`` per decision, worlds from our
``resample_from_infostate``) against ``builder``. Records the win rate (Wilson 95%)
and the time per ISMCTS decision; the games are deterministic for a given ``--seed``
(the worlds ISMCTS samples come from a generator seeded by it). Writes
``openspiel_ismcts.json`` into ``--out``
(default runs/openspiel_ismcts/; ``--export``: experiments/results/openspiel_ismcts/).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
from tqdm import tqdm

from experiments.common.arguments import checked
from experiments.common.output import add_output_args, output_dir, write_json
from experiments.common.provenance import provenance_with_threads as provenance
from mamma_mia_agents import load_agent
from mamma_mia_agents.tournament.results import wilson_interval
from mamma_mia_env.integrations.openspiel import _engines, load_game
from mamma_mia_env.plumbing.arguments import ArgumentParser


def play(game: Any, rec: Any, bot: Any, builder: Any, deals: int) -> tuple[float, int, list]:
    """Each of the first ``deals`` deals twice, ISMCTS in each seat against ``builder``;
    returns ISMCTS's wins (a shared win counts half), the games and its decision times."""
    wins, games, times = 0.0, 0, []
    for deal in tqdm(range(deals), desc="deals"):
        for ismcts_seat in (0, 1):
            state = game.new_initial_state()
            state.apply_action(deal)
            while not state.is_terminal():
                p = state.current_player()
                if p == ismcts_seat:
                    start = time.perf_counter()
                    action = bot.step(state)
                    times.append(time.perf_counter() - start)
                else:
                    obs, mask = rec.observe(state.state), rec.legal_masks(state.state)
                    action = int(builder.act_batch(obs, mask, None, np.array([p]))[0])
                state.apply_action(action)
            r = state.returns()
            if r[ismcts_seat] >= r[1 - ismcts_seat]:
                wins += 1.0 if r[ismcts_seat] > r[1 - ismcts_seat] else 0.5
            games += 1
    return wins, games, times


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--simulations", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    add_output_args(ap, "openspiel_ismcts")
    args = checked(ap).parse_args(argv)
    if args.deals < 1 or args.simulations < 1:
        ap.error("--deals and --simulations must be >= 1")
    from open_spiel.python.algorithms import ismcts, mcts

    t0 = time.perf_counter()
    args.out = str(output_dir(args, "openspiel_ismcts"))  # the arguments are written as JSON
    game = load_game(num_players=2, num_deals=2**20, deal_base=args.seed << 32)
    rec, _ = _engines(game.config)
    rs = np.random.RandomState(args.seed)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0,
        max_simulations=args.simulations, random_state=rs,
    )  # fmt: skip
    # The bot's own resampler draws from pyspiel.UniformProbabilitySampler(0, 1), seeded
    # from the system's entropy: the worlds (and so the games) would change from run to
    # run. Draw them from a generator seeded by --seed instead.
    worlds = np.random.default_rng(args.seed)
    bot.set_resampler(lambda st, player: st.resample_from_infostate(player, worlds.random))
    wins, games, times = play(game, rec, bot, load_agent("builder"), args.deals)
    lo, hi = wilson_interval(wins, games)
    t = np.array(times) * 1e3
    record = {
        "experiment": "openspiel_ismcts",
        "args": vars(args),
        "opponent": "builder",
        "num_players": 2,
        "games": games,
        "ismcts_wins": wins,
        "ismcts_win_rate": round(wins / games, 4),
        "wilson95": [round(lo, 4), round(hi, 4)],
        "ms_per_decision_median": round(float(np.median(t)), 1),
        "ms_per_decision_mean": round(float(t.mean()), 1),
        "decisions": len(t),
        "load_average": os.getloadavg(),
    }
    path = f"{args.out}/openspiel_ismcts.json"
    write_json(path, record, provenance(seeds=args.seed, wall_time=time.perf_counter() - t0))
    print(
        f"ISMCTS ({args.simulations} sims) vs builder, 2p: {wins}/{games} = "
        f"{wins / games:.1%} [{lo:.1%}, {hi:.1%}], {np.median(t):.0f} ms/decision\nwrote {path}"
    )
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.evaluate.openspiel_ismcts"))
