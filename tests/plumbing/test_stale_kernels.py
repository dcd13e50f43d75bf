"""A rule edited in the env is picked up by the engine AND the bots' kernels.

The bug this guards against: the bots' kernels (``mamma_mia_agents.compiled``) used
numba's own ``cache=True``, which checks only the file a kernel is written in. After a
one-line edit to the turn counter in the env's rules, the engine counted the new way
while ``play_out`` (tournaments, search rollouts) loaded its stale kernel from the cache
and counted the old way. Every kernel now goes through ``jit_cache.njit``, whose cache
is keyed on every source file of both packages.

The test plays the same games twice in a fresh interpreter, once step by step through
the engine (``play_games(compiled=False)``: the engine's step kernel, the builder's
decision kernel) and once inside the compiled game loop (``play_out``), in a temporary
copy of both packages with its own cache directory:

1. original sources: the cache is filled, both count the same turns;
2. nothing changed: the kernels come from that cache (hits, no compile);
3. the rule edited (every turn counts twice): both count twice the turns, recompiled;
4. the rule restored: the first run's cache is used again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mamma_mia_agents
import mamma_mia_env

RULE = "r.turns += 1\n"  # the turn counter, in the env's rules (wherever they live)
EDITED = "r.turns += 2\n"

PROBE = r"""
import json
import numpy as np
import mamma_mia_agents
import mamma_mia_env
from mamma_mia_env import Config, Engine
from mamma_mia_env.plumbing import jit_cache
from mamma_mia_agents import load_agent
from mamma_mia_agents.compiled.batch import DECIDE_SERIAL
from mamma_mia_agents.compiled.playout import PLAY_SERIAL, CompiledBots, play_out
from mamma_mia_agents.tournament.matches import play_games

cfg = Config(num_players=3)
builder = load_agent("builder")
seeds = np.arange(3, dtype=np.uint64)
seats = np.zeros((len(seeds), 3), np.int64)
stepped = play_games(cfg, [builder], seats, seeds, np.random.default_rng(0), compiled=False)
eng = Engine(cfg)
state = eng.reset(seeds=seeds)
play_out(eng, state, CompiledBots([builder], 3, False), seats)
print(json.dumps({
    "engine_turns": stepped["turns"].tolist(),
    "compiled_turns": state.data["turns"].astype(int).tolist(),
    "hits": sum(DECIDE_SERIAL._cache_hits.values()) + sum(PLAY_SERIAL._cache_hits.values()),
    "misses": sum(DECIDE_SERIAL._cache_misses.values())
    + sum(PLAY_SERIAL._cache_misses.values()),
    "dir": jit_cache.cache_dir(),
    "files": [mamma_mia_env.__file__, mamma_mia_agents.__file__],
}))
"""


@pytest.fixture()
def packages_copy(tmp_path: Path) -> Path:
    """Both packages (sources only) under their import names in a fresh directory."""
    root = tmp_path / "pkgs"
    ignore = shutil.ignore_patterns("__pycache__")
    env_src = Path(mamma_mia_env.__file__).resolve().parent
    agents_src = Path(mamma_mia_agents.__file__).resolve().parent  # the folder agents/
    shutil.copytree(env_src, root / "mamma_mia_env", ignore=ignore)
    shutil.copytree(agents_src, root / "mamma_mia_agents", ignore=ignore)
    return root


def _run(root: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(cache))
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert all(f.startswith(str(root)) for f in result["files"]), result["files"]
    assert result["dir"].startswith(str(cache))
    return result


def _rule_file(root: Path) -> Path:
    """The one source file of the env copy that counts the turns."""
    found = [p for p in (root / "mamma_mia_env").rglob("*.py") if RULE in p.read_text()]
    assert len(found) == 1, f"the turn counter {RULE.strip()!r} should be in one file: {found}"
    return found[0]


def test_an_edited_rule_reaches_the_engine_and_the_compiled_bots(
    packages_copy: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "numba-cache"
    first = _run(packages_copy, cache)
    turns = first["engine_turns"]
    assert first["compiled_turns"] == turns and min(turns) > 0
    assert first["misses"] >= 1 and first["hits"] == 0  # compiled, and saved

    again = _run(packages_copy, cache)  # nothing changed: the cache is used
    assert again["engine_turns"] == again["compiled_turns"] == turns
    assert again["hits"] >= 1 and again["misses"] == 0 and again["dir"] == first["dir"]

    rules = _rule_file(packages_copy)
    original = rules.read_text()
    rules.write_text(original.replace(RULE, EDITED))
    edited = _run(packages_copy, cache)
    doubled = [2 * t for t in turns]
    assert edited["engine_turns"] == doubled, "the engine ran the old rule"
    assert edited["compiled_turns"] == doubled, "the compiled bots ran a stale kernel"
    assert edited["misses"] >= 1 and edited["dir"] != first["dir"]

    rules.write_text(original)
    restored = _run(packages_copy, cache)  # the first run's cache, still valid
    assert restored["engine_turns"] == restored["compiled_turns"] == turns
    assert restored["hits"] >= 1 and restored["misses"] == 0 and restored["dir"] == first["dir"]
    assert not [p for p in packages_copy.rglob("*") if p.suffix in (".nbi", ".nbc")]
