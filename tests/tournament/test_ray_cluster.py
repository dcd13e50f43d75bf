"""Every heavy job on a multi-node Ray cluster: Ray's own test cluster (``Cluster``: a
head and two worker nodes of one CPU each, every address on 127.0.0.1) runs a
tournament, a scorecard, expert iteration's labelling and evaluations, champion tuning,
the search bot's strength curve and the leaderboard spread over all its nodes, with the
local run's exact results; and a worker node removed in the
middle of a run either changes nothing (Ray runs its lost tasks again) or, with no
retry left, stops the run with a clear message and no result file written."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from helpers import POLICY_FILE  # noqa: E402

from experiments.common.search_labels import LabelJob, label_games, label_parallel  # noqa: E402
from experiments.reproduce.comparison import strip  # noqa: E402
from experiments.train import tune_champion  # noqa: E402
from mamma_mia_agents.cli.commands import main as cli_main  # noqa: E402
from mamma_mia_agents.tournament import fanout, run_tournament  # noqa: E402
from mamma_mia_agents.tournament.runner import finish, play_all, prepare  # noqa: E402
from mamma_mia_agents.tournament.scorecard import evaluate  # noqa: E402
from mamma_mia_env.integrations.ray_cluster import (  # noqa: E402
    LOOPBACK,
    init_ray,
    keep_ray_on_loopback,
    node_addresses,
)

#: Seconds a test may take: Ray stalls on a saturated CPU, so generous, but bounded.
TIME_LIMIT = 300

AGENTS = ["random", "counter", "builder"]
#: Items of a second or more (the search bot plays): a node removed after its first item
#: is in the middle of its next one.
SLOW = ["random", "builder", "search"]
#: Node deaths noticed within about 1.5 s, not Ray's default of about 15 s.
HEALTH = {"health_check_period_ms": 500, "health_check_failure_threshold": 3}


@pytest.fixture(scope="module")
def cluster():
    keep_ray_on_loopback()  # the same switch as init_ray: every node, the GCS, the driver
    try:
        head = {"num_cpus": 1, "include_dashboard": False, "_system_config": HEALTH}
        made = cluster_utils.Cluster(initialize_head=True, head_node_args=head)
        for _ in range(2):
            made.add_node(num_cpus=1)
        made.wait_for_nodes()
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"Ray cannot start a test cluster here: {exc}")
    init_ray(made.address)
    yield made
    ray.shutdown()
    made.shutdown()


@pytest.fixture(autouse=True)
def time_limit():
    """A test that outlives ``TIME_LIMIT`` fails (the driver waits in Python, between
    ``ray.wait`` calls, where the alarm's exception lands)."""

    def expire(signum, frame):
        raise TimeoutError(f"a Ray cluster test took more than {TIME_LIMIT} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TIME_LIMIT)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def live_nodes() -> set[str]:
    return {n["NodeID"] for n in ray.nodes() if n["Alive"]}


@pytest.fixture
def whole(cluster):
    """Three live nodes on loopback before any work is sent (a node-loss test adds a
    fresh worker node for the one it removed)."""
    while len(live_nodes()) < 3:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
    assert sum(n["Resources"].get("CPU", 0) for n in ray.nodes() if n["Alive"]) == 3
    assert node_addresses() == [LOOPBACK]
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {LOOPBACK}
    return cluster


def spread(where: list[tuple[int, str]], items: int) -> None:
    assert sorted(i for i, _ in where) == list(range(items))
    assert {node for _, node in where} == live_nodes()  # every node played


def same_tournament(a, b) -> None:
    for key in ("assign", "deal", "delivered", "cards", "turns", "truncated"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key), err_msg=key)
    assert a.compute_table() == b.compute_table()


def test_every_node_is_on_loopback(whole) -> None:
    assert len(live_nodes()) == 3
    assert ray.get_runtime_context().gcs_address.startswith(f"{LOOPBACK}:")


def test_a_tournament_spreads_over_every_node(whole) -> None:
    kwargs = dict(num_players=3, games=240, seed=7, batch_size=20, progress=False)
    with fanout.placements() as where:
        on_ray = run_tournament(AGENTS, backend="ray", **kwargs)
    spread(where, 12)
    same_tournament(on_ray, run_tournament(AGENTS, workers=1, **kwargs))


def card_games(card: dict) -> dict:
    return {n: block["pairings"] for n, block in card["players"].items()} | {
        "rating": card["rating"]
    }


def test_a_scorecard_spreads_over_every_node(whole) -> None:
    kwargs = dict(ladder=["random", "counter"], players=(2, 3), games=750, progress=False)
    with fanout.placements() as where:
        on_ray = evaluate("builder", backend="ray", **kwargs)
    spread(where, 12)  # four pairings of three batches each, together
    assert card_games(on_ray) == card_games(evaluate("builder", workers=1, **kwargs))


def test_labelling_spreads_over_every_node(whole) -> None:
    job = LabelJob(str(POLICY_FILE[2]), "builder", 3, 3, 2, 2, first_game=0, games=6,
                   seed=5, batch=2)  # fmt: skip
    with fanout.placements() as where:
        on_ray = label_parallel(job, workers=1, progress=False, backend="ray")
    spread(where, 3)
    local = label_games(job)
    for key in local:
        assert np.array_equal(on_ray[key], local[key], equal_nan=True), key


def test_champion_tuning_spreads_over_every_node(whole) -> None:
    args, _ = tune_champion.parse_args(["--grid", "4x2,6x2,8x2", "--priors", "none",
                                        "--games", "4", "--workers", "1"])  # fmt: skip
    grid = tune_champion.settings(args)
    with fanout.placements() as where:
        on_ray = tune_champion.play_all(args, grid, "ray")
    spread(where, 3)
    local = tune_champion.play_all(args, grid)
    rows = [{k: v for k, v in row.items() if k != "seconds"} for row in on_ray]
    assert rows == [{k: v for k, v in row.items() if k != "seconds"} for row in local]


def test_the_scripts_backend_flag_runs_them_on_the_cluster(whole, tmp_path: Path) -> None:
    """``--backend ray`` of champion tuning and expert iteration: the connected cluster
    plays (every node), the files hold the local run's games, labels and fit."""
    from experiments.train import expert_iteration
    from mamma_mia_agents.bots.ppo_policy import NumpyPolicy

    tune = ["--grid", "4x2,6x2,8x2", "--priors", "none", "--games", "4", "--positions", "2",
            "--workers", "1", "--max-ms", "1000"]  # fmt: skip
    expert = ["--games", "6", "--iterations", "1", "--curve-games", "2", "--final-games",
              "4", "--opponent", "builder", "--init-policy", str(POLICY_FILE[2]),
              "--workers", "1", "--threads", "1", "--labeller-worlds", "2",
              "--labeller-candidates", "2"]  # fmt: skip
    docs = {}
    for backend in ("ray", "local"):
        out = tmp_path / backend
        with fanout.placements() as where:
            assert tune_champion.main([*tune, "--backend", backend, "--out", str(out)]) == 0
            run = [*expert, "--backend", backend, "--out", str(out / "expert")]
            assert expert_iteration.main(run) == 0
        if backend == "ray":  # every item on the cluster: the evaluations' games too
            assert live_nodes() <= {node for _, node in where}
            assert "local" not in {node for _, node in where}
        tuning = json.loads((out / "tuning.json").read_text())
        result = json.loads((out / "expert" / "result.json").read_text())
        docs[backend] = (
            [{k: r[k] for k in ("label", "games", "wins", "win_rate")} for r in tuning["rows"]],
            [{k: r[k] for k in ("positions", "win_rate_while_labelled", "curve")}
             for r in result["rounds"]],
            (result["start_curve"], result["final"]),
            NumpyPolicy.load(out / "expert" / "policy.npz").w_out.tolist(),
        )  # fmt: skip
    assert docs["ray"] == docs["local"]


def test_search_strength_on_the_cluster(whole, tmp_path: Path) -> None:
    """Each stage's blocks (the headline, then each budget: three blocks of two games)
    spread over every node; the file holds the local run's rows."""
    from experiments.evaluate import search_strength

    argv = ["--worlds", "2,3", "--headline-worlds", "2", "--games", "6", "--block", "2",
            "--opponents", "builder", "--players", "2", "--positions", "1", "--seed", "3",
            "--workers", "1", "--name", "s"]  # fmt: skip
    docs = {}
    for backend in ("ray", "local"):
        with fanout.placements() as where:
            out = tmp_path / backend
            assert search_strength.main([*argv, "--backend", backend, "--out", str(out)]) == 0
        if backend == "ray":
            assert [i for i, _ in where].count(0) == 2  # two stages of three items
            assert live_nodes() == {node for _, node in where}
        docs[backend] = strip(json.loads((out / "s.json").read_text()))
    assert [r["blocks"] for r in docs["local"]["curves"]["2p vs builder"]] == [3, 3]
    assert docs["ray"] == docs["local"]


def test_the_leaderboard_on_the_cluster(whole, tmp_path: Path) -> None:
    """Each count's tournament as Ray tasks: the files hold the local run's tables."""
    from experiments.evaluate import leaderboard

    argv = ["--games", "40", "--players", "2,3", "--workers", "1"]
    files, codes = {}, {}
    for backend in ("ray", "local"):
        out = tmp_path / backend
        with fanout.placements() as where:
            codes[backend] = leaderboard.main([*argv, "--backend", backend, "--out", str(out)])
        if backend == "ray":
            assert len(where) == 2 and "local" not in {node for _, node in where}
        files[backend] = [strip(json.loads((out / f"{n}p.json").read_text())) for n in (2, 3)]
        files[backend] += [(out / f"{n}p.csv").read_text() for n in (2, 3)]
    assert codes["ray"] == codes["local"]
    assert files["ray"] == files["local"]


def test_evaluate_joins_a_cluster_by_its_address(whole, capsys) -> None:
    argv = ["evaluate", "builder", "--ladder", "random", "--players", "2", "--games", "8",
            "--json", "--no-progress"]  # fmt: skip
    ray.shutdown()  # the command connects itself, by --address
    try:
        assert cli_main([*argv, "--backend", "ray", "--address", whole.address]) == 0
    finally:
        init_ray(whole.address)
    via_ray = json.loads(capsys.readouterr().out)
    assert cli_main([*argv, "--workers", "1"]) == 0
    assert card_games(via_ray) == card_games(json.loads(capsys.readouterr().out))


class NodeKiller:
    """A progress bar that removes a worker node once an item has finished on it: the
    node dies while the run goes on (its next item already sent to it)."""

    def __init__(self, cluster, where: list[tuple[int, str]]) -> None:
        self.cluster, self.where, self.removed = cluster, where, None
        self.victims = {n.node_id: n for n in cluster.worker_nodes}

    def update(self, k: int) -> None:
        if self.removed is None:
            done = [node for _, node in self.where if node in self.victims]
            if done:
                self.removed = (done[0], len(self.where))
                self.cluster.remove_node(self.victims[done[0]])


def test_a_node_lost_mid_run_changes_nothing(whole) -> None:
    kwargs = dict(num_players=3, games=72, seed=11, batch_size=6)
    planned = prepare(SLOW, backend="ray", **kwargs)
    with fanout.placements() as where:
        killer = NodeKiller(whole, where)
        (batches,) = play_all([planned], "ray", 1, None, killer)
    assert killer.removed is not None, "no item ran on a worker node"
    node, finished_before = killer.removed
    assert node not in live_nodes() and finished_before < 12
    assert sorted(i for i, _ in where) == list(range(12))  # every item once, in the end
    local = run_tournament(SLOW, workers=1, progress=False, **kwargs)
    same_tournament(finish(planned, batches, 0.0), local)


def test_a_node_lost_with_no_retry_left_stops_cleanly(whole, tmp_path: Path, capsys,
                                                      monkeypatch) -> None:  # fmt: skip
    monkeypatch.setattr(fanout, "RETRIES", 0)
    out = tmp_path / "results"
    killed = []

    def kill_on_first_update(self, k: int) -> None:
        if not killed:
            for victim in list(whole.worker_nodes):
                killed.append(victim.node_id)
                whole.remove_node(victim)

    # the CLI's own bar: both worker nodes die as soon as the first batch is counted, in
    # the middle of their own batches (three nodes, twelve batches of a second or more)
    monkeypatch.setattr("tqdm.auto.tqdm.update", kill_on_first_update)
    argv = ["tournament", "--agents", ",".join(SLOW), "--players", "3", "--games", "72",
            "--batch-size", "6", "--seed", "11", "--backend", "ray", "--out", str(out),
            "--no-plot"]  # fmt: skip
    code = cli_main(argv)
    err = capsys.readouterr().err
    assert killed, "the run ended before the node was removed"
    assert code == 1, err
    assert "Ray lost an item 1 times" in err and "nothing was kept: rerun" in err, err
    assert "Traceback" not in err
    assert not list(out.glob("tournament.*")), "a result written as if complete"
