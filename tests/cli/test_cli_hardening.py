"""The tournament CLI and runner at their edges.

``--out`` is checked writable before a game is played, ``--name`` cannot leave
``--out``, ``--games`` (and the schedule, and ``--workers``) are bounded before anything
is allocated, and an agent that raises or exits, in this process or in a worker, stops
the run with a one-line error naming it.
"""

from __future__ import annotations

import textwrap
import time

import pytest

import mamma_mia_agents.tournament.runner as runner
from mamma_mia_agents.cli.commands import main
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_agents.tournament.matches import AgentError
from mamma_mia_agents.tournament.output import OutputError, check_stem, prepare_output
from mamma_mia_agents.tournament.results import TournamentResult
from mamma_mia_agents.tournament.schedule import (
    MAX_GAMES,
    TournamentSizeError,
    max_workers,
    schedule_size,
    seating_schedule,
)


def _run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _no_games(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a game was played before the arguments were checked")

    monkeypatch.setattr(runner, "fan_out", refuse)


BASE = ["tournament", "--agents", "random,counter", "--players", "2", "--games", "4"]
QUIET = ["--workers", "1", "--no-progress", "--no-plot"]


# -- --out ------------------------------------------------------------------------------------
def test_unwritable_out_fails_before_playing(capsys, tmp_path, monkeypatch) -> None:
    _no_games(monkeypatch)
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    code, _, err = _run_cli(capsys, *BASE, *QUIET, "--out", str(blocker / "results"))
    assert code == 2, err
    assert "--out" in err and "not a writable directory" in err and str(blocker) in err
    assert "Traceback" not in err


def test_out_whose_target_is_a_directory_fails_before_playing(capsys, tmp_path, monkeypatch):
    _no_games(monkeypatch)
    (tmp_path / "t.json").mkdir()
    code, _, err = _run_cli(capsys, *BASE, *QUIET, "--out", str(tmp_path), "--name", "t")
    assert code == 2 and "t.json" in err and "is a directory" in err


def test_out_is_checked_without_leaving_anything(tmp_path) -> None:
    out = tmp_path / "new" / "deeper"
    paths = prepare_output(out, "run1", plot=True)
    assert not (tmp_path / "new").exists()  # created only when the results are written
    out.mkdir(parents=True)
    assert prepare_output(out, "run1", plot=True) == paths
    assert list(out.iterdir()) == []  # the probe file is gone
    assert [p.rsplit("/", 1)[1] for p in paths] == ["run1.csv", "run1.json", "run1.png"]


def test_a_failed_write_at_the_end_is_a_clear_error(capsys, tmp_path, monkeypatch) -> None:
    def full_disk(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(TournamentResult, "write", full_disk)
    code, out, err = _run_cli(capsys, *BASE, *QUIET, "--out", str(tmp_path))
    assert code == 1
    assert "could not write the results to --out" in err and "No space left" in err
    assert "win rate" in out  # the table was printed before the write failed


# -- --name -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["../escaped", "/tmp/abs", "sub/name", "..", ".", "", "  ", "a\\b", "x\x00y", "a\nb"]
)
def test_name_cannot_leave_out(capsys, tmp_path, monkeypatch, name: str) -> None:
    _no_games(monkeypatch)
    out = tmp_path / "out"
    code, _, err = _run_cli(capsys, *BASE, *QUIET, "--out", str(out), "--name", name)
    assert code == 2, err
    assert "--name" in err
    assert list(tmp_path.iterdir()) == []  # nothing written, inside --out or beside it


def test_name_rules_hold_for_the_python_api(tmp_path) -> None:
    res = run_tournament(["random"], num_players=2, games=2, workers=1, progress=False)
    with pytest.raises(OutputError, match="plain file name"):
        res.write(tmp_path, "../outside", plot=False)
    assert list(tmp_path.parent.glob("outside*")) == []
    with pytest.raises(OutputError, match="at most"):
        check_stem("x" * 101)
    assert check_stem("leaderboard_4p") == "leaderboard_4p"


# -- --games, the schedule, --workers -----------------------------------------------------------
def test_huge_games_is_refused_at_once(capsys, monkeypatch) -> None:
    _no_games(monkeypatch)
    code, _, err = _run_cli(capsys, *BASE[:-1], str(MAX_GAMES + 1), *QUIET)
    assert code == 2 and "--games must be 1-1000000" in err
    code, _, err = _run_cli(capsys, *BASE[:-1], "9" * 40, *QUIET)
    assert code == 2 and "--games must be" in err


def test_huge_games_is_refused_by_run_tournament_before_allocating() -> None:
    start = time.perf_counter()
    with pytest.raises(TournamentSizeError, match="games=10,000,000,000,000"):
        run_tournament(["random", "counter"], num_players=2, games=10**13, progress=False)
    # rounding up to whole deals can push a count below the limit over it
    with pytest.raises(TournamentSizeError, match="after rounding up to whole deals"):
        run_tournament(["random"] * 5, num_players=4, games=MAX_GAMES, seating="permute")
    assert time.perf_counter() - start < 5  # refused, not attempted


def test_a_huge_schedule_is_refused_before_it_is_built(capsys, monkeypatch) -> None:
    _no_games(monkeypatch)
    monkeypatch.setattr(
        runner,
        "seating_schedule",
        lambda *a: (_ for _ in ()).throw(AssertionError("schedule built")),
    )
    many = ",".join(["random"] * 40)  # C(40, 5) * 120 = 79 million seatings per deal
    argv = ["tournament", "--agents", many, "--players", "5", "--seating", "permute", *QUIET]
    code, _, err = _run_cli(capsys, *argv)
    assert code == 2 and "seatings per deal" in err and "use fewer agents" in err


@pytest.mark.parametrize("seating", ["rotate", "permute"])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_schedule_size_is_the_schedule_length(k: int, n: int, seating: str) -> None:
    assert schedule_size(k, n, seating) == len(seating_schedule(k, n, seating))


def test_too_many_workers_is_refused(capsys, monkeypatch) -> None:
    _no_games(monkeypatch)
    code, _, err = _run_cli(capsys, *BASE, "--workers", str(max_workers() + 1), "--no-progress")
    assert code == 2 and "--workers must be" in err
    with pytest.raises(TournamentSizeError, match="workers must be"):
        run_tournament(["random"], num_players=2, games=2, workers=10**6, progress=False)
    with pytest.raises(TypeError, match="games must be an int"):
        run_tournament(["random"], num_players=2, games=2.5, progress=False)


# -- agents that fail ---------------------------------------------------------------------------
BOTS = """
import os, sys
import multiprocessing
import numpy as np
from mamma_mia_agents import Agent

def in_worker():
    return multiprocessing.parent_process() is not None

class First(Agent):
    name = "first"
    def act_batch(self, observations, masks, rng, seats=None):
        return np.argmax(masks, axis=1)

class InitRaises(Agent):
    def __init__(self):
        raise RuntimeError("kaboom in init")

class InitExits(Agent):
    def __init__(self):
        sys.exit(3)

class InitRaisesInWorker(First):
    name = "worker-shy"
    def __init__(self):
        if in_worker():
            raise RuntimeError("not in a worker")

class ActRaises(First):
    name = "act-raises"
    def act_batch(self, observations, masks, rng, seats=None):
        raise ZeroDivisionError("bad arithmetic")

class ActExits(First):
    name = "act-exits"
    def act_batch(self, observations, masks, rng, seats=None):
        sys.exit(0)

class ActKillsProcess(First):
    name = "act-kills"
    def act_batch(self, observations, masks, rng, seats=None):
        if in_worker():
            os._exit(9)
        return super().act_batch(observations, masks, rng, seats)

class ConfigRaises(First):
    name = "config-raises"
    def check_config(self, config):
        raise KeyError("no such thing")

class BadMode(First):
    name = "bad-mode"
    observation_mode = "fixed"

BadMode.observation_mode = "everything"
"""

IMPORT_FAILS = "raise ImportError('a broken dependency')\n"
IMPORT_RAISES = "import json\njson.loads('{')\n"
IMPORT_EXITS = "import sys\nsys.exit('bye')\n"


@pytest.fixture
def bots(tmp_path, monkeypatch):
    (tmp_path / "hard_bots.py").write_text(textwrap.dedent(BOTS))
    (tmp_path / "hard_import_fails.py").write_text(IMPORT_FAILS)
    (tmp_path / "hard_import_raises.py").write_text(IMPORT_RAISES)
    (tmp_path / "hard_import_exits.py").write_text(IMPORT_EXITS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    ("spec", "code", "message"),
    [
        ("hard_bots:InitRaises", 1, "'hard_bots:InitRaises' failed to load: it raised "),
        ("hard_bots:InitExits", 1, "'hard_bots:InitExits' failed to load: it called sys.exit(3)"),
        ("hard_import_fails:Bot", 2, "cannot import module 'hard_import_fails'"),
        ("hard_import_raises:Bot", 1, "'hard_import_raises:Bot' failed to load: it raised JSON"),
        ("hard_import_exits:Bot", 1, "failed to load: it called sys.exit('bye')"),
        ("hard_bots:ActRaises", 1, "agent 'act-raises' raised ZeroDivisionError: bad arithmetic"),
        ("hard_bots:ActExits", 1, "agent 'act-exits' called sys.exit(0) in act_batch"),
        ("hard_bots:ConfigRaises", 1, "agent 'config-raises' raised KeyError"),
        ("hard_bots:BadMode", 1, "agent 'bad-mode' asks for observation_mode 'everything'"),
    ],
)
def test_a_failing_agent_is_named(capsys, bots, spec: str, code: int, message: str) -> None:
    got, out, err = _run_cli(capsys, *BASE[:2], f"random,{spec}", *BASE[3:], *QUIET)
    assert got == code, err
    assert message in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("hard_bots:InitRaisesInWorker", "in a worker process: agent "),
        ("hard_bots:ActRaises", "agent 'act-raises' raised ZeroDivisionError"),
        ("hard_bots:ActExits", "agent 'act-exits' called sys.exit(0) in act_batch"),
        ("hard_bots:ActKillsProcess", "Agents 'random', 'act-kills' were playing"),
    ],
)
def test_a_failing_agent_is_named_from_worker_processes(
    capsys, bots, spec: str, message: str
) -> None:
    # two batches of 2 games, so that both worker processes play
    argv = [*BASE[:2], f"random,{spec}", *BASE[3:], "--workers", "2", "--batch-size", "2"]
    argv.append("--no-progress")
    code, _, err = _run_cli(capsys, *argv)
    assert code == 1, err
    assert message in err, err
    assert "Traceback" not in err


def test_failing_agents_raise_agent_error_from_python(bots) -> None:
    import hard_bots

    with pytest.raises(AgentError, match="act-raises.*first with seed"):
        run_tournament(
            ["random", hard_bots.ActRaises()], num_players=2, games=2, workers=1, progress=False
        )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["serve", "--host=--"], "--host -- is not a loopback address"),
        (["tournament", "--agents=--"], "unknown agent '--'"),
        (["play", "--seed=--"], "--seed must be an integer"),
        (["evaluate", "--players=--", "builder"], "--players"),
    ],
)
def test_a_flag_given_as_equals_dash_dash_is_that_value(capsys, argv, said) -> None:
    """``--flag=--``: Python 3.11's argparse handed the flag an empty list, which its
    check met as a list (a traceback); the flag now gets ``"--"`` and refuses it by name."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
