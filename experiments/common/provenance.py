"""What made a result: the shared record (``mamma_mia_env.plumbing.provenance``) and the
few additions the experiments need.

The record itself lives in the package because the tournament runner writes result
files too; the scripts import it from there. This module adds numba's thread count
(timings depend on it).
"""

from __future__ import annotations

from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["provenance_with_threads"]


def provenance_with_threads(seeds: object = None, wall_time: float | None = None) -> dict:
    """:func:`provenance` plus numba's thread count, which the timings depend on."""
    import numba as nb

    return {**provenance(seeds=seeds, wall_time=wall_time), "numba_threads": nb.get_num_threads()}
