"""The env package's layers: old import paths still work (with a warning), the package
itself never goes through them, and the gymnasium entry points resolve."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import gymnasium as gym
import pytest

import mamma_mia_env
from mamma_mia_env._moved import MOVED

NEW_MODULES = sorted(set(MOVED.values()) | {"mamma_mia_env.policy", "mamma_mia_env.render"})


def test_the_package_imports_no_old_path():
    """``import mamma_mia_env`` and every moved module, with DeprecationWarning an error."""
    code = "import mamma_mia_env\n" + "".join(
        f"import {m}\n"
        for m in NEW_MODULES
        if not m.endswith("sb3")  # sb3: optional
    )
    subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_is_the_new_module_with_a_warning(old):
    new = MOVED[old]
    if new.endswith("sb3"):
        pytest.importorskip("stable_baselines3")
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_render_package_keeps_the_old_module_names():
    from mamma_mia_env.render import render_table
    from mamma_mia_env.render.text import render_table as text_render

    assert render_table is text_render


def test_gymnasium_entry_points_resolve():
    for env_id in ("MammaMia-v0", "MammaMia-2p-v0", "MammaMia-5p-v0"):
        spec = gym.spec(env_id)
        for point in (spec.entry_point, spec.vector_entry_point):
            module, name = str(point).split(":")
            assert getattr(importlib.import_module(module), name)
    assert mamma_mia_env.env and mamma_mia_env.raw_env
