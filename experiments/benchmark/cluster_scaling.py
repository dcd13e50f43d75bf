"""The fan-out's scaling on Ray's multi-node test cluster, against the local process pool.

    python -m experiments.benchmark.cluster_scaling            # the published table
    python -m experiments.benchmark.cluster_scaling --nodes 1,2 --games 1000 --label-games 8

For each node count in ``--nodes``, a ``ray.cluster_utils.Cluster`` (a head and worker
nodes of ``--cpus`` CPUs each, every address on 127.0.0.1) plays the same jobs as the
local backend (``tournament/fanout.py``) with ``--workers`` processes:

* a tournament (random, counter, builder, hoarder at 4 players, ``--games`` games in
  batches of ``--batch``): games per second;
* expert iteration's labelling (the shipped 2-player network against builder, labelled by
  a 32-world search: ``--label-games`` games in blocks of ``--label-batch``): labelled
  positions per second;
* ``--empty`` items that do nothing: the fan-out's own cost per item (driver, scheduling,
  serialisation), the overhead a real item pays on top of its work. The local pool
  starts its processes for every job (spawned: imports, kernels from the cache), so its
  figure is mostly that start-up shared out over the items; Ray's workers stay up.

Every job is played once before it is timed (the workers import the package and load
the compiled kernels from numba's cache), and each Ray result is checked identical to
the local one. Every item runs on one core (numba's threads: 1), in this process too.
Writes ``--out`` (default experiments/results/cluster_scaling/cluster_scaling.json) with
provenance. On one machine the "nodes" share its cores: the
table shows the fan-out's overhead and that it adds nothing wrong, not a cluster's
speed-up (docs/PERFORMANCE.md, "Past one machine").
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from experiments.common.arguments import checked
from experiments.common.output import RESULTS, write_json
from experiments.common.provenance import provenance_with_threads
from experiments.common.search_labels import LabelJob, label_parallel
from mamma_mia_agents.tournament import fanout, run_tournament

AGENTS = ["random", "counter", "builder", "hoarder"]
SEED = 5
#: the labelling runs' policy: the expert-iteration 2-player network (a 2-player file)
LABEL_POLICY = RESULTS / "expert_iteration" / "expert_iteration_2p_vs_search_2.npz"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", default="1,2,3", help="node counts of the test clusters")
    p.add_argument("--cpus", type=int, default=1, help="CPUs of every node")
    p.add_argument("--workers", type=int, default=2, help="processes of the local pool")
    p.add_argument("--games", type=int, default=4000, help="tournament games")
    p.add_argument("--batch", type=int, default=250, help="tournament games per item")
    p.add_argument("--label-games", type=int, default=16, help="labelled games")
    p.add_argument("--label-batch", type=int, default=2, help="labelled games per item")
    p.add_argument("--empty", type=int, default=200, help="empty items, for the overhead")
    p.add_argument("--out", type=Path, default=RESULTS / "cluster_scaling" / "cluster_scaling.json",
                   help="the result file (JSON)")  # fmt: skip
    ns = checked(p).parse_args(argv)
    try:
        ns.node_counts = [int(n) for n in ns.nodes.split(",")]
    except ValueError:
        p.error(f"--nodes is a list of node counts, e.g. 1,2,3; got {ns.nodes!r}")
    counts = [ns.cpus, ns.workers, ns.games, ns.batch, ns.label_games, ns.label_batch, ns.empty]
    if min(counts + ns.node_counts) < 1:
        p.error("every count must be at least 1")
    return ns


def _none(shared: Any) -> None:
    return None


def _empty(context: Any, item: int, report: Callable[[int], None]) -> int:
    report(1)
    return item


def timed(run: Callable[[], Any]) -> tuple[Any, float]:
    """``run()`` once to warm the workers, then once timed: its result and seconds."""
    run()
    start = time.perf_counter()
    out = run()
    return out, time.perf_counter() - start


def measure(
    ns: argparse.Namespace, backend: str, workers: int = 1
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The three jobs on ``backend`` (Ray: the instance this process is connected to)."""
    tour, t_tour = timed(lambda: run_tournament(AGENTS, 4, games=ns.games, seed=SEED,
                                                workers=workers, batch_size=ns.batch,
                                                progress=False, backend=backend))  # fmt: skip
    job = LabelJob(str(LABEL_POLICY), "builder", 32, 6, 2, 2, first_game=0,
                   games=ns.label_games, seed=SEED, batch=ns.label_batch)  # fmt: skip
    labels, t_label = timed(lambda: label_parallel(job, workers, False, backend))
    items = list(range(ns.empty))
    _, t_empty = timed(lambda: fanout.fan_out(fanout.Job(_none, _empty), items, backend, workers))
    row = {
        "games": tour.games,
        "tournament_items": len(range(0, ns.games, ns.batch)),
        "tournament_seconds": round(t_tour, 3),
        "games_per_second": round(tour.games / t_tour, 1),
        "positions": len(labels["obs"]),
        "label_items": len(range(0, ns.label_games, ns.label_batch)),
        "label_seconds": round(t_label, 3),
        "positions_per_second": round(len(labels["obs"]) / t_label, 2),
        "empty_items": ns.empty,
        "overhead_ms_per_item": round(1000 * t_empty / ns.empty, 2),
    }
    return row, {"delivered": tour.delivered, **labels}


def on_cluster(ns: argparse.Namespace, nodes: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """``measure`` on a test cluster of ``nodes`` nodes, all on loopback."""
    import ray
    from ray.cluster_utils import Cluster

    from mamma_mia_env.integrations.ray_cluster import init_ray, keep_ray_on_loopback

    keep_ray_on_loopback()
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": ns.cpus, "include_dashboard": False})  # fmt: skip
    try:
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=ns.cpus)
        cluster.wait_for_nodes()
        init_ray(cluster.address)
        addresses = {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
        if addresses != {"127.0.0.1"}:
            raise RuntimeError(f"a node is not on loopback: {sorted(addresses)}")
        with fanout.placements() as where:
            row, arrays = measure(ns, "ray")
        used = len({node for _, node in where})
        return {"nodes": nodes, "cpus": nodes * ns.cpus, "nodes_used": used, **row}, arrays
    finally:
        ray.shutdown()
        cluster.shutdown()


def main(argv: list[str] | None = None) -> int:
    ns = parse_args(argv)
    numba.set_num_threads(1)  # one core per item, here as in every worker
    started = time.perf_counter()
    loads = list(os.getloadavg())
    serial, expected = measure(ns, "local")
    rows = [{"backend": "local, in this process", "cpus": 1, **serial}]
    pool, _ = measure(ns, "local", ns.workers)
    rows.append({"backend": f"local pool, {ns.workers} processes", "cpus": ns.workers, **pool})
    print(rows, flush=True)
    for nodes in ns.node_counts:
        row, arrays = on_cluster(ns, nodes)
        for key, value in expected.items():  # the same games and labels, or no row
            if not np.array_equal(value, arrays[key], equal_nan=True):
                raise AssertionError(f"{nodes} nodes: {key} differs from the local run")
        rows.append({"backend": f"Ray test cluster, {nodes} node(s)", **row})
        print(rows[-1], flush=True)
    doc = {
        "experiment": "cluster_scaling",
        "args": {k: v for k, v in vars(ns).items() if k not in ("out", "node_counts")},
        "machine_cpus": os.cpu_count(),
        "load_average_before": loads,
        "rows": rows,
        "identical_to_local": True,
    }
    record = provenance_with_threads(seeds={"seed": SEED}, wall_time=time.perf_counter() - started)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(ns.out, doc, record)
    print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    from mamma_mia_env.plumbing.interrupts import run_command  # one line on Ctrl-C

    raise SystemExit(run_command(main, "python -m experiments.benchmark.cluster_scaling"))
