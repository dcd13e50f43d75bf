"""What made a result file: code revision, library versions, machine, command, seeds.

Every result file (tournaments, experiments) carries a ``provenance`` record so that a
number can be traced to the code and libraries that produced it; it lives here because
the tournament runner in ``agents/`` writes results too. JSON results embed it under
``"provenance"``, CSV and PNG results get a sidecar ``<file>.meta.json``
(``write_sidecar``). ``python -m experiments reproduce --check`` ignores the record: it
holds what legitimately differs between two runs (timestamps, wall time, machine).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGES = (
    "mamma-mia-env",
    "numpy",
    "numba",
    "gymnasium",
    "pettingzoo",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "openskill",
    "ray",  # the optional integrations (extras rllib, tianshou, openspiel)
    "tianshou",
    "open_spiel",
)
ROOT = Path(__file__).resolve().parent.parent


def git_state(root: str | os.PathLike = ROOT) -> dict[str, Any]:
    """The revision and whether tracked files other than results differ from it (None
    outside a checkout)."""

    def run(*args: str) -> str | None:
        try:
            out = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, timeout=20
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    rev = run("rev-parse", "HEAD")
    # the whole checkout's code (``:(top)``: not only the folder ``root`` names), not the
    # result files a run is rewriting (an export writes several)
    status = run(
        "status", "--porcelain", "--untracked-files=no", "--",
        ":(top)", ":(top,exclude)experiments/results",
    )  # fmt: skip
    return {"revision": rev, "dirty": None if status is None else bool(status)}


def package_versions() -> dict[str, str]:
    """Installed versions of the libraries that can change a result (absent ones left out)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


#: the environment variables that choose the CPU-specific routines of numpy, numba and
#: OpenBLAS (CI sets them to re-make the results with the baseline routines)
CPU_ROUTINE_VARIABLES = ("NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME", "OPENBLAS_CORETYPE")


def cpu_routines() -> dict[str, Any]:
    """numpy's SIMD targets in use, the CPU numba compiles for and the variables that pin
    them: a timing depends on these, the bots' results do not (docs/AGENTS.md)."""
    import numba

    try:
        from numpy._core._multiarray_umath import (  # type: ignore[import-not-found]
            __cpu_dispatch__,
            __cpu_features__,
        )
    except ImportError:  # another numpy layout: record what can be read
        numpy_simd: list[str] | None = None
    else:
        numpy_simd = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    from llvmlite import binding  # type: ignore[import-untyped]  # numba's dependency

    return {
        "numpy_simd": numpy_simd,
        "numba_cpu": getattr(numba.config, "CPU_NAME", None) or binding.get_host_cpu_name(),
        "set": {k: os.environ[k] for k in CPU_ROUTINE_VARIABLES if k in os.environ},
    }


def provenance(
    *,
    seeds: Any = None,
    wall_time: float | None = None,
    command: str | list[str] | None = None,
) -> dict[str, Any]:
    """The record to store with a result; ``command`` defaults to this process's argv."""
    if command is None:
        command = [os.path.basename(sys.executable), *sys.argv]
    if isinstance(command, list):
        command = " ".join(command)
    try:
        load = round(os.getloadavg()[0], 2)
    except OSError:
        load = None
    return {
        "git": git_state(),
        "packages": package_versions(),
        "python": platform.python_version(),
        "machine": {
            "platform": platform.platform(),
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "load_average": load,
            "routines": cpu_routines(),
        },
        "command": command,
        "seeds": seeds,
        "wall_time_s": None if wall_time is None else round(float(wall_time), 3),
        "utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def write_sidecar(path: str | os.PathLike, record: dict[str, Any]) -> str:
    """Write ``<path>.meta.json`` next to a CSV/PNG result (atomically, saying when it
    replaces an earlier run's); returns its path."""
    from mamma_mia_env.plumbing.files import write_file  # a sibling; keeps imports light

    side = f"{os.fspath(path)}.meta.json"
    doc = {"file": os.path.basename(os.fspath(path)), "provenance": record}
    write_file(side, json.dumps(doc, indent=2, default=str) + "\n", "provenance record")
    return side
