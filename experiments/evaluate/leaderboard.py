"""The reference leaderboard of the bundled agents, for 2, 3, 4 and 5 players.

    python -m experiments.evaluate.leaderboard --export    # 10,000 games per count
    python -m experiments.evaluate.leaderboard --games 2000 --players 4
    python -m experiments.evaluate.leaderboard --backend ray --address auto   # on a cluster

For each player count, plays a duplicate-deal tournament of all bundled agents
(``mamma_mia_agents.tournament.run_tournament``; with five agents and fewer seats every table of
N agents is played in all N seat rotations) and writes, into ``runs/leaderboard/``
(``--export``: ``experiments/results/leaderboard/``; ``--out DIR``: elsewhere):

* ``{n}p.csv``, ``{n}p.json``, ``{n}p.png``;
* ``LEADERBOARD.md``: every table, the exact command, the check that each heuristic
  bot is strictly stronger than random (disjoint 95% intervals) and why the bots rank
  as they do.

A ``speed.json`` in ``--out`` (``experiments/benchmark/speed.py``) is added to the page.
Each count's batches run in ``--workers`` processes, or as Ray tasks with ``--backend
ray [--address ADDR]`` (docs/CLUSTER.md): the same games.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import sys

import numpy as np

from experiments.common.arguments import checked
from experiments.common.output import add_output_args, output_dir
from experiments.common.speed import speed_markdown
from mamma_mia_agents import REGISTRY
from mamma_mia_agents.bots.roster import HEURISTICS
from mamma_mia_agents.cli.evaluate import counts
from mamma_mia_agents.cli.options import add_backend_flags, check_backend_flags
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_agents.tournament.fanout import FanOutError, session
from mamma_mia_agents.tournament.output import markdown_table
from mamma_mia_env.plumbing.arguments import ArgumentParser
from mamma_mia_env.plumbing.files import read_json, write_file

AGENTS = ["random", *HEURISTICS]

WHY = """\
## Why the bots rank as they do

The decisive fact of Mamma Mia! is that **a failed order costs almost nothing**: it goes
under its owner's order stack and comes back later, while every delivered order scores.
How many orders a player gets into the oven (one per turn at most) limits the score more
than how many of them are met. So the ranking is first an order of *aggression*, then of
what each bot knows and how it uses its ingredient plays:

1. **builder** bets on an order almost every turn. It counts the oven exactly, so it knows
   which of its orders are met, which its hand can complete and which are a card or two
   short (smaller bets), and its ingredient plays both feed its own orders and starve the
   personal ingredients that nearly every rival order needs. It draws orders to keep three
   in hand, so one is usually worth playing. It wins the most and delivers the most at
   every player count, and its edge over chance grows with the number of rivals it starves
   (x1.5 chance with 2 players, about x3 with 5).
2. **hoarder** bets as often and counts as exactly, and completes orders from its hand at
   the reveal, keeping the cards it has promised to orders already in the oven. It does
   not steer its ingredient plays toward its orders or against its rivals. Second with 3 to
   5 players.
3. **forgetful** sees only the top card of the oven. It guesses the oven from its thickness
   and the mix of the cards it has not seen, and bets when the guess meets an order. The
   guess ignores what earlier orders take out, so it over-bets, but over-betting is cheap:
   it stays within a few points of the hoarder, and with 2 players, where only one rival's
   orders eat into the oven and its guess is nearest the truth, it passes it. Perfect
   memory adds less than betting often.
4. **counter** plays an order only when its count of the public oven shows it met by the
   piles. Among counters 99% of such orders are delivered, against the betting bots only
   60-70% (their gambles, completed from hand at the reveal, empty piles it counted on),
   and it plays few. Each rival order played between two of its turns takes from the
   piles, so orders it can count as met get rarer as players are added: it is at chance
   level with 2 players and falls to about a quarter of it with 5. Caution is the weakest
   of the four strategies, and still far above random. (A strict version that plays only
   orders met whatever anyone decides, `CounterAgent(proven=True)`, delivers every order
   it plays but finds about one per game, and loses to random.)
5. **random** plays orders at random moments (most fail), dumps random ingredient cards and
   declines about half of the deliveries it could make.

The rating (PlackettLuce, from the whole finishing order) mostly agrees; where two bots are
within a few points of win rate it may order them the other way, since it also rewards
second and third places and depends by a point or two on the order in which games are
rated (its interval is the model's, not a sampling interval).
"""


def check_vs_random(rows: list[dict]) -> list[str]:
    """One line per heuristic bot: is its win-rate interval strictly above random's?"""
    by_name = {r["agent"]: r for r in rows}
    rnd = by_name["random"]
    lines = []
    for name in HEURISTICS:
        r = by_name[name]
        ok = r["win_rate_low"] > rnd["win_rate_high"]
        lines.append(
            f"- {name}: {100 * r['win_rate_low']:.1f}% > {100 * rnd['win_rate_high']:.1f}% "
            f"(random's upper bound): {'yes' if ok else '**NO**'}"
        )
    return lines


def render(out: str, players: tuple[int, ...]) -> bool:
    """Write LEADERBOARD.md from the JSON files in ``out``; True if every check passes."""
    sections = []
    all_ok = True
    command = None
    for n in players:
        stem = f"{n}p"
        doc = read_json(os.path.join(out, f"{stem}.json"), "tournament result")
        command = doc["command"]
        rows = doc["results"]
        checks = check_vs_random(rows)
        all_ok &= all(c.endswith("yes") for c in checks)
        order = " > ".join(r["agent"] for r in rows)
        cli = (f"mamma-mia tournament --players {n} --games {doc['games_requested']} "
               f"--agents {','.join(AGENTS)} --seed {doc['seed']}")  # fmt: skip
        sections += [
            f"## {n} players",
            "",
            f"{doc['summary']}.",
            "",
            markdown_table(rows),
            "",
            f"Order by win rate: {order}. Chance level: {100 / n:.1f}%.",
            "",
            "Each heuristic bot strictly stronger than random (its 95% interval lies above "
            "random's):",
            *checks,
            "",
            f"Files: [`{stem}.csv`]({stem}.csv), [`{stem}.json`]({stem}.json)",
            "",
            f"![{n} players]({stem}.png)",
            "",
            f"The same games from the command line (with {doc['workers']} workers): `{cli}`",
            "",
        ]
    speed_path = os.path.join(out, "speed.json")
    if os.path.exists(speed_path):
        sections.append(speed_markdown(read_json(speed_path, "speed record")))
    head = [
        "# Reference leaderboard",
        "",
        "Written by `experiments/evaluate/leaderboard.py`; do not edit by hand. Reproduce with:",
        "",
        "```",
        command or "",
        "```",
        "",
        "Agents: " + ", ".join(f"`{a}` ({REGISTRY[a].__name__})" for a in AGENTS) + ". "
        f"Rendered {datetime.date.today().isoformat()} on {platform.machine()} with "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}.",
        "",
        "Win rate = wins / seat-games, a shared win split between the sharers; 95% Wilson "
        "score interval. Delivered = mean delivered orders per seat-game (95% normal "
        "interval). Rating = openskill PlackettLuce mu from every game's finishing order "
        "(delivered orders, then ingredient cards in hand), mu -/+ 1.96 sigma. Every deal "
        "is played once per seating (duplicate deals): with five agents and N seats, every "
        "table of N agents in all N seat rotations. See docs/AGENTS.md.",
        "",
        "All heuristic bots strictly stronger than random at every player count: "
        + ("**yes**" if all_ok else "**NO**"),
        "",
    ]
    text = "\n".join(head + sections + [WHY])
    write_file(os.path.join(out, "LEADERBOARD.md"), text, "leaderboard")
    return all_ok


def play(args: argparse.Namespace, command: str) -> None:
    """One tournament per player count, its batches fanned out (``--backend``: worker
    processes or Ray tasks, the same games), its files written when it ends. The
    counts are played one after another, so each file's time is its own tournament's."""
    for n in args.players:
        res = run_tournament(
            AGENTS,
            num_players=n,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            command=command,
            backend=args.backend,
        )
        res.write(args.out, f"{n}p")
        print(res.summary())
        print(res.format_table())


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000, help="games per player count")
    parser.add_argument(
        "--players", type=counts("--players"), default="2,3,4,5", help="player counts, 2-5"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    add_backend_flags(parser, "the tournaments' batches")
    add_output_args(parser, "leaderboard")
    args = checked(parser).parse_args(argv)
    check_backend_flags(parser, args)
    args.out = str(output_dir(args, "leaderboard"))
    command = "python -m experiments.evaluate.leaderboard " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    try:
        with session(args.backend, args.address):  # a cluster that does not answer: now
            play(args, command.strip())
    except FanOutError as exc:  # nothing written for the count it stopped in
        print(f"leaderboard: {exc}", file=sys.stderr)
        return 1
    ok = render(args.out, args.players)
    print(f"wrote {os.path.join(args.out, 'LEADERBOARD.md')}")
    return 0 if ok else 1


if __name__ == "__main__":
    from mamma_mia_interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.evaluate.leaderboard"))
