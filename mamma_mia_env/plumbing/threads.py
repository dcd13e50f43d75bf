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
    """Ask OpenMP for passive (sleeping) waits unless ``OMP_WAIT_POLICY`` is set; called
    at the first compile or load of any kernel, before libgomp reads the variable."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
