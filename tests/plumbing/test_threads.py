"""The package asks OpenMP for passive waits (mamma_mia_env/plumbing/threads.py), unless the
user set a policy of their own."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = (
    "import os, numpy as np, mamma_mia_env as mm\n"
    "e = mm.Engine(num_players=2); s = e.reset(seeds=list(range(300)))\n"  # parallel path
    "e.legal_masks(s)\n"
    "print(os.environ['OMP_WAIT_POLICY'])\n"
)


def _run(env: dict[str, str]) -> str:
    res = subprocess.run(
        [sys.executable, "-c", CODE], env=env, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout.strip()


def test_passive_wait_is_the_default() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    assert _run(env) == "PASSIVE"


def test_a_policy_the_user_set_is_kept() -> None:
    assert _run({**os.environ, "OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE"
