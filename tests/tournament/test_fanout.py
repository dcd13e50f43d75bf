"""tournament/fanout.py, the one way every heavy job fans out: results in item order on
every backend, a progress bar that counts the units the items report (games,
positions), a setup error raised as its own type, a dead worker process a clear
``FanOutError``, and the backend and address checked before anything runs."""

from __future__ import annotations

import os

import pytest

from mamma_mia_agents.tournament.fanout import FanOutError, Job, check_backend, fan_out, placements


class Bar:
    """A stand-in for tqdm: the units counted."""

    def __init__(self) -> None:
        self.n = 0

    def update(self, k: int) -> None:
        self.n += k


def square(offset: int, item: int, report) -> int:
    report(item)  # "item" units of work
    return item * item + offset


def add_offset(shared: int) -> int:
    return shared


def refuse(shared: object) -> object:
    raise KeyError("no such agent")


def die(context: object, item: int, report) -> None:
    os._exit(3)


ITEMS = [3, 1, 4, 1, 5, 9, 2, 6]


@pytest.mark.parametrize("workers", [1, 3])
def test_results_come_in_item_order_and_the_bar_counts_units(workers: int) -> None:
    bar = Bar()
    with placements() as where:
        got = fan_out(Job(add_offset, square, 10), ITEMS, workers=workers, bar=bar)
    assert got == [i * i + 10 for i in ITEMS]
    assert bar.n == sum(ITEMS)  # units, not items or stages
    assert sorted(i for i, _ in where) == list(range(len(ITEMS)))
    assert {node for _, node in where} == {"local"}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_setup_error_is_raised_as_its_own_type(workers: int) -> None:
    with pytest.raises(KeyError, match="no such agent"):
        fan_out(Job(refuse, square), ITEMS, workers=workers)


def test_a_dead_worker_process_is_a_clear_error() -> None:
    with pytest.raises(FanOutError, match=r"a worker process died with 0 of 4 items done.*rerun"):
        fan_out(Job(add_offset, die, 0), [1, 2, 3, 4], workers=2)


@pytest.mark.parametrize(
    ("backend", "address", "message"),
    [
        ("dask", None, "backend must be 'local' or 'ray'"),
        ("local", "auto", "address is for backend='ray'"),
        ("ray", " ", "address must name a Ray cluster"),
        ("ray", 6379, "address must name a Ray cluster"),
    ],
)
def test_backend_and_address_are_checked(backend: object, address: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_backend(backend, address)
    with pytest.raises(ValueError, match=message):
        fan_out(Job(add_offset, square, 0), ITEMS, backend=backend, address=address)  # type: ignore[arg-type]


@pytest.mark.parametrize("command", ["tournament", "evaluate"])
def test_an_address_where_no_cluster_answers_is_a_one_line_error(command: str, capsys) -> None:
    pytest.importorskip("ray")
    from mamma_mia_agents.cli.commands import main

    lineup = ["--agents", "random,builder"] if command == "tournament" else ["builder"]
    argv = [command, *lineup, "--players", "2", "--games", "4", "--no-progress",
            "--backend", "ray", "--address", "127.0.0.1:1"]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "no Ray cluster answers at '127.0.0.1:1'" in err and "Traceback" not in err, err


def test_a_cluster_on_loopback_is_joined_on_loopback() -> None:
    from mamma_mia_env.integrations.ray_cluster import on_loopback

    assert on_loopback("127.0.0.1:6379") and on_loopback("ray://localhost:10001")
    assert not on_loopback("auto") and not on_loopback("10.0.0.5:6379")


@pytest.mark.parametrize(
    "script",
    ["train.tune_champion", "train.expert_iteration", "evaluate.search_strength",
     "evaluate.leaderboard"],
)  # fmt: skip
def test_a_script_names_a_cluster_that_does_not_answer(script: str, tmp_path, capsys) -> None:
    pytest.importorskip("ray")
    import importlib

    main = importlib.import_module(f"experiments.{script}").main
    argv = ["--backend", "ray", "--address", "127.0.0.1:1", "--out", str(tmp_path / "run")]
    if script == "train.expert_iteration":  # its default start: a previous step's runs/ file
        from helpers import POLICY_FILE

        argv += ["--init-policy", str(POLICY_FILE[2])]
    assert main(argv) == 1
    assert "no Ray cluster answers at '127.0.0.1:1'" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.json")), "a result written as if complete"
