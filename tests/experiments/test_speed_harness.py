"""The benchmark harness (experiments/common/speed.py) every speed script times with:
the interleaved order, the ratio statistics, the flags refused before any work, the
AEC loop and a step's rates."""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
import pytest

from experiments.common.speed import (
    aec_turns,
    benchmark_parser,
    interleaved,
    parse,
    random_legal,
    ratios,
    timed_rates,
)


def test_interleaved_rounds_reverse_the_order_every_other_round() -> None:
    calls: list[str] = []
    rows = {name: (lambda name=name: calls.append(name) or len(calls)) for name in "abc"}
    samples = interleaved(rows, 3, "test")
    assert calls == list("abccbaabc")
    assert samples == {"a": [1, 6, 7], "b": [2, 5, 8], "c": [3, 4, 9]}


def test_ratios_are_per_round_with_their_median_and_quartiles() -> None:
    r = ratios([2.0, 3.0, 8.0, 5.0], [1.0, 1.0, 2.0, 1.0])
    assert r["ratios"] == [2.0, 3.0, 4.0, 5.0]
    assert r["median"] == 3.5 == r["quartiles"][1]
    assert r["quartiles"] == statistics.quantiles([2.0, 3.0, 4.0, 5.0], n=4)
    one = ratios([3.0], [2.0])  # one round: its ratio is every quartile
    assert one["median"] == 1.5 and one["quartiles"] == [1.5, 1.5, 1.5]
    with pytest.raises(ValueError):  # rounds of two sides always pair up
        ratios([1.0, 2.0], [1.0])


def test_flags_that_must_be_positive_are_named_before_the_output_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = benchmark_parser("Time something.\n\nMore.", "thing")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        parse(parser, ["--rounds", "0", "--seconds", "0", "--out", str(out)], "thing",
              positive=("rounds", "seconds"), problems=lambda a: ["--other is wrong"])  # fmt: skip
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--rounds, --seconds must be positive; --other is wrong" in err
    assert not out.exists()  # nothing made for a refused run
    args, folder = parse(parser, ["--out", str(out)], "thing", positive=("rounds", "seconds"))
    assert (args.rounds, args.seconds, folder) == (3, 1.0, out) and out.is_dir()
    assert parser.description == "Time something."


def test_the_aec_loop_plays_legal_actions_game_after_game() -> None:
    import mamma_mia_env

    env = mamma_mia_env.env(num_players=2)
    turns = aec_turns(env)
    games, seen_agents = 0, 0
    for _ in range(400):  # a two-player game lasts far fewer steps
        assert next(turns) == 1
        if not env.agents:  # the loop resets the env on its next step
            games += 1
        seen_agents = max(seen_agents, len(env.agents))
    assert seen_agents == 2 and games >= 1


def test_timed_rates_count_a_steps_units_over_the_time_given() -> None:
    wall, cpu = timed_rates(lambda: 5, 0.05)
    assert wall > 0 and cpu > 0
    masks = np.array([[0, 1, 0, 1], [1, 0, 0, 0]])
    actions = random_legal(masks, np.random.default_rng(0))
    assert masks[np.arange(2), actions].all()
