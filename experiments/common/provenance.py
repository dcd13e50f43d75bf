"""What made a result: the shared record (``mamma_mia_env.plumbing.provenance``) and the
few additions the experiments need.

The record itself lives in the package because the tournament runner writes result
files too; the scripts import it from there. This module adds: the record with numba's
thread count (timings depend on it), the short git revision string the training
summaries carry, and a fingerprint of the bots' sources (which bots a policy trained
against).
"""

from __future__ import annotations

import hashlib
from typing import Any

from experiments.common.output import ROOT
from mamma_mia_env.plumbing.provenance import git_state, provenance

__all__ = ["bot_sources", "git_revision", "provenance_with_threads"]


def provenance_with_threads(seeds: object = None, wall_time: float | None = None) -> dict:
    """:func:`provenance` plus numba's thread count, which the timings depend on."""
    import numba as nb

    return {**provenance(seeds=seeds, wall_time=wall_time), "numba_threads": nb.get_num_threads()}


def git_revision() -> str | None:
    """The repository's commit, with "+dirty" if tracked files differ from it (None
    outside a checkout): :func:`git_state` as one string."""
    state = git_state(ROOT)
    if state["revision"] is None:
        return None
    return state["revision"] + ("+dirty" if state["dirty"] else "")


def bot_sources() -> dict[str, Any]:
    """SHA-256 (first 12 hex digits) of every bot source file under ``agents/``
    (subpackages included, by path): which bots a run trained against."""
    agents = ROOT / "agents"
    return {
        f.relative_to(agents).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest()[:12]
        for f in sorted(agents.rglob("*.py"))
    }
