"""How the compiled kernels' worker threads wait between calls.

numba's parallel kernels run on its OpenMP layer (GNU libgomp here), whose threads by
default spin on a core for a while after every parallel region, waiting for the next.
The batched engine calls many short parallel kernels with Python in between (the
caller's policy, the opponents' decisions), so a spinning worker takes the core that
Python needs: on 2 cores the vector env at B=4096 ran ~25% slower and the learner
env at B=256 ~20x slower than with idle-waiting threads (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import os


def configure_threads() -> None:
    """Ask OpenMP for passive (sleeping) waits unless the user chose a policy.

    Only an unset ``OMP_WAIT_POLICY`` is filled in; libgomp reads it when numba first
    starts its threads, at the first parallel kernel call. ``jit_cache.njit`` calls this
    at the first compile or load of any kernel, which comes before that call."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
