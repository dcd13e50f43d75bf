"""An edited rule is always recompiled; a corrupt cache is a miss.

Each test copies the package into a temporary directory, runs a small probe in a fresh
interpreter (the cache is read at import), edits a rule the probe's kernel depends on
through *another* file (``cards.HAND_LIMIT``, used by ``rules.turn_is_legal``: numba's
own cache only notices edits to the kernel's file), and runs the probe again. Before
the fix the second run loaded the stale kernel with ``NUMBA_CACHE_DIR`` set, or when
the default cache directory was not writable (numba then caches in ``__pycache__``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mamma_mia_env

PROBE = r"""
import json, sys, tempfile, warnings
if len(sys.argv) > 1:
    tempfile.tempdir = sys.argv[1]  # a temp dir that cannot be written either
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import numpy as np
    import mamma_mia_env
    from mamma_mia_env import Config, Engine
    from mamma_mia_env.game import rules
    from mamma_mia_env.plumbing import jit_cache
    from mamma_mia_env.game.state import state_dtype

    eng = Engine(Config(num_players=2))
    d = np.zeros(1, state_dtype())
    d["hand"][0, 0, 0] = 7  # seat 0 holds 7 salami and a full order stack
    d["stack_len"][0, 0] = 8
    # play 1 salami, no order, draw from the stack: legal with a hand limit of 7 only
    legal = bool(rules.turn_is_legal(d[0], (1 * 9 + 0) * 2 + 1, eng.params, eng.play))
f = rules.turn_is_legal
print(json.dumps({
    "legal": legal,
    "hits": sum(f._cache_hits.values()),
    "misses": sum(f._cache_misses.values()),
    "dir": jit_cache.cache_dir(),
    "package": mamma_mia_env.__file__,
    "warnings": [str(w.message) for w in caught if "cache" in str(w.message)],
}))
"""


@pytest.fixture()
def package_copy(tmp_path: Path) -> Path:
    """A copy of the package (sources only) in a fresh directory."""
    src = Path(mamma_mia_env.__file__).resolve().parent
    root = tmp_path / "pkg"
    shutil.copytree(src, root / "mamma_mia_env", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _run(root: Path, env: dict[str, str], *args: str) -> dict:
    full = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    full.update(env, PYTHONPATH=str(root))
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=full,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["package"].startswith(str(root))
    return result


def _edit_hand_limit(root: Path) -> None:
    cards = root / "mamma_mia_env" / "game" / "cards.py"
    text = cards.read_text()
    assert "HAND_LIMIT = 7\n" in text
    cards.write_text(text.replace("HAND_LIMIT = 7\n", "HAND_LIMIT = 6\n"))  # same size


def _numba_files(path: Path) -> list[Path]:
    return [p for p in path.rglob("*") if p.suffix in (".nbi", ".nbc")]


def test_numba_cache_dir_is_keyed_on_the_sources(package_copy: Path, tmp_path: Path) -> None:
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    first = _run(package_copy, env)
    assert first["legal"] and first["misses"] == 1
    assert first["dir"].startswith(env["NUMBA_CACHE_DIR"])
    again = _run(package_copy, env)
    assert again["legal"] and again["hits"] == 1 and again["misses"] == 0  # the cache works
    _edit_hand_limit(package_copy)
    edited = _run(package_copy, env)
    assert not edited["legal"], "the stale kernel of the old rule was loaded"
    assert edited["misses"] == 1 and edited["dir"] != first["dir"]
    assert not _numba_files(package_copy)  # never numba's __pycache__ fallback


def test_unwritable_default_cache_falls_back_to_a_keyed_temp_dir(
    package_copy: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {"XDG_CACHE_HOME": str(blocker / "cache"), "TMPDIR": str(temp)}
    first = _run(package_copy, env)
    assert first["legal"] and first["dir"].startswith(str(temp))
    assert _run(package_copy, env)["hits"] == 1
    _edit_hand_limit(package_copy)
    edited = _run(package_copy, env)
    assert not edited["legal"] and edited["misses"] == 1
    assert not _numba_files(package_copy)


def test_no_writable_directory_compiles_without_caching(package_copy: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    env = {"XDG_CACHE_HOME": str(blocker / "cache")}
    first = _run(package_copy, env, str(blocker / "tmp"))
    assert first["legal"] and first["dir"] is None and first["hits"] == 0
    assert any("no writable cache directory" in w for w in first["warnings"])
    _edit_hand_limit(package_copy)
    assert not _run(package_copy, env, str(blocker / "tmp"))["legal"]
    assert not _numba_files(package_copy)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_corrupt_cache_file_is_recompiled(
    package_copy: Path, tmp_path: Path, damage: str
) -> None:
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    first = _run(package_copy, env)
    files = [p for p in _numba_files(Path(first["dir"])) if "turn_is_legal" in p.name]
    assert {p.suffix for p in files} == {".nbi", ".nbc"}
    for p in files:
        data = p.read_bytes()
        p.write_bytes(
            {"garbage": b"\x80\x04not a pickle" * 7, "truncated": data[:20], "empty": b""}[damage]
        )
    broken = _run(package_copy, env)  # a miss, not an error ...
    assert broken["legal"] and broken["misses"] == 1
    healed = _run(package_copy, env)  # ... and the file was written afresh
    assert healed["legal"] and healed["hits"] == 1
