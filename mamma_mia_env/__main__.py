"""``python -m mamma_mia_env``: what is installed, and one game of random play as a smoke test.

Prints the version, the versions of the libraries the rules run on, the registered
gymnasium ids, then plays one game with uniformly random legal moves in the PettingZoo
env and prints each seat's result. ``--quiet`` prints only the summary line.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mamma_mia_env.plumbing.arguments import ArgumentParser, add_int_flag


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = ArgumentParser(
        prog="python -m mamma_mia_env",
        description="Show what is installed and play one random game (a smoke test).",
    )
    add_int_flag(p, "--players", 2, 5, default=4, help="number of players, 2-5 (default 4)")
    add_int_flag(p, "--seed", 0, 2**64 - 1, default=0, help="game seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="print only the summary line")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    import gymnasium
    import numba
    import pettingzoo

    import mamma_mia_env as mm
    from mamma_mia_env.envs.registration import ENV_ID, PLAYER_COUNT_IDS

    if not args.quiet:
        print(f"mamma-mia-env {mm.__version__} ({mm.__file__})")
        print(
            f"numpy {np.__version__}, numba {numba.__version__}, "
            f"gymnasium {gymnasium.__version__}, pettingzoo {pettingzoo.__version__}"
        )
        print("gymnasium ids:", ", ".join([ENV_ID, *PLAYER_COUNT_IDS.values()]))
        print(f"playing one {args.players}-player game of random legal moves, seed {args.seed} ...")
    t0 = time.perf_counter()
    env = mm.env(num_players=args.players)
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    elapsed = time.perf_counter() - t0  # includes compiling the rules on a first run
    raw = env.unwrapped
    result = raw.event_log()["result"]
    if not args.quiet:
        for seat, (d, cards) in enumerate(
            zip(result["delivered"], result["ingredient_cards_in_hand"], strict=True)
        ):
            print(f"  seat {seat}: {d} orders delivered, {cards} ingredient cards in hand")
    print(
        f"game over after {len(raw.actions_taken)} actions: orders delivered "
        f"{result['delivered']}, winners {result['winners']} ({elapsed:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m mamma_mia_env"))
