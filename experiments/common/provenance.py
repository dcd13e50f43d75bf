"""What made a result: the package's record (``mamma_mia_env.plumbing.provenance``, which
the tournament runner writes too) plus numba's thread count, which timings depend on."""

from __future__ import annotations

from mamma_mia_env.plumbing.provenance import provenance

__all__ = ["provenance_with_threads"]


def provenance_with_threads(seeds: object = None, wall_time: float | None = None) -> dict:
    """:func:`provenance` plus numba's thread count, which the timings depend on."""
    import numba as nb

    return {**provenance(seeds=seeds, wall_time=wall_time), "numba_threads": nb.get_num_threads()}
