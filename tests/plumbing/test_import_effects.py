"""Importing the package only defines names: no environment variable, no hashed file.

The kernels' cache directory (keyed on a hash of every source file) and the OpenMP wait
policy are chosen when the first kernel is compiled or loaded (``jit_cache.njit``); the
kernels then still load from the source-keyed cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = r"""
import json, os
import gymnasium, numba, pettingzoo  # these set variables of their own on import
before = dict(os.environ)
import mamma_mia_env as mm
from mamma_mia_env.plumbing import jit_cache
at_import = {"environ_same": dict(os.environ) == before, "chosen": dict(jit_cache._state)}
engine = mm.Engine(num_players=2)
state = engine.reset(seeds=list(range(300)))  # the parallel path
engine.legal_masks(state)
kernel = engine._k(300).masks  # the parallel mask kernel just called
print(json.dumps({
    **at_import,
    "omp": os.environ.get("OMP_WAIT_POLICY"),
    "dir": jit_cache.cache_dir(),
    "digest": jit_cache.source_digest(),
    "kernel_cache": kernel.stats.cache_path,
    "hits": sum(kernel._cache_hits.values()),
    "misses": sum(kernel._cache_misses.values()),
}))
"""


def _probe() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    res = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=600
    )
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_import_sets_nothing_and_the_first_kernel_sets_the_cache_and_threads() -> None:
    _probe()  # compiles the kernels for the current sources, if no run has yet
    got = _probe()
    assert got["environ_same"], "import mamma_mia_env changed os.environ"
    assert got["chosen"] == {}, "import mamma_mia_env chose the cache (hashed the sources)"
    assert got["omp"] == "PASSIVE"
    assert got["dir"] is not None and got["dir"].endswith(got["digest"])
    assert got["kernel_cache"] == got["dir"]
    assert got["hits"] >= 1 and got["misses"] == 0, got  # loaded from the source-keyed cache
