"""Starting Ray for this project's jobs: a Ray instance started here keeps every node, its
GCS and its workers on loopback, so a run on one machine opens no port on the machine's
network interfaces.

On Linux, Ray gives a node the network interface's address, even when asked for
``127.0.0.1`` (``ray.init(_node_ip_address=...)`` turns a loopback address back into the
interface's). The one switch Ray reads for "this machine is no member of a multi-machine
cluster" is the environment variable below: with it, the GCS, the raylet, the driver and
every worker use and listen on 127.0.0.1. A cluster named by an address (``--address``,
``RAY_ADDRESS``) is joined as it is. docs/INTEGRATIONS.md, "Tournaments".
"""

from __future__ import annotations

import os
import sys
from typing import Any

LOOPBACK = "127.0.0.1"
#: Ray's switch for a machine that runs no multi-machine cluster: its nodes take the
#: loopback address. Ray reads it when imported, and the processes it starts inherit it.
LOCAL_ONLY_VARIABLE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def keep_ray_on_loopback() -> None:
    """Make the Ray instance this process starts next use 127.0.0.1 for every node."""
    os.environ[LOCAL_ONLY_VARIABLE] = "0"
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None:  # ray was imported before: it read the switch then
        constants.ENABLE_RAY_CLUSTER = False  # type: ignore[attr-defined]


def init_ray(address: str | None = None, **options: Any) -> Any:
    """``ray.init`` without the dashboard and the workers' log lines: a new instance on
    loopback when no cluster address is given (none here nor in ``RAY_ADDRESS``), even
    if another instance runs on this machine (Ray's ``ray.init()`` would join the last
    one ``ray start`` made here); otherwise the cluster at ``address`` (one at
    127.0.0.1 joined on loopback too). ``options`` go to ``ray.init``."""
    named = address or os.environ.get("RAY_ADDRESS")
    if not named or on_loopback(named):  # else Ray dials the interface's address for it
        keep_ray_on_loopback()
    import ray

    where = address or (None if named else "local")  # None: Ray reads RAY_ADDRESS
    return ray.init(address=where, include_dashboard=False, log_to_driver=False, **options)


def on_loopback(address: str) -> bool:
    """Whether a cluster address (``HOST:PORT``, ``ray://HOST:PORT``) names this machine's
    loopback interface."""
    host = address.split("://")[-1].rpartition(":")[0] or address
    return host in (LOOPBACK, "localhost")


def node_addresses() -> list[str]:
    """The addresses of the live nodes of the Ray instance this process is connected to."""
    import ray

    return sorted({node["NodeManagerAddress"] for node in ray.nodes() if node["Alive"]})
