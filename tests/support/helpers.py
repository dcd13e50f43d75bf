"""Test helpers shared by several test modules (plain functions, no fixtures)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

from mamma_mia_env import Engine, GameState
from mamma_mia_env.game.record import OVER


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (0 for rows with no legal action)."""
    cs = masks.cumsum(axis=1, dtype=np.int64)
    total = cs[:, -1]
    pick = (rng.random(len(masks)) * np.maximum(total, 1)).astype(np.int64)
    return np.argmax(cs > pick[:, None], axis=1)


def play_random(
    engine: Engine, state: GameState, rng: np.random.Generator, max_steps: int = 5000, check=None
) -> int:
    """Play every game of ``state`` to the end with random legal actions; returns steps."""
    steps = 0
    while (state.data["phase"] != OVER).any():
        masks = engine.legal_masks(state)
        active = state.data["phase"] != OVER
        assert masks[active].any(axis=1).all(), "an acting seat has no legal action"
        engine.step(state, random_legal(masks, rng))
        steps += 1
        if check is not None:
            check(state)
        assert steps < max_steps, "games did not terminate"
    return steps


ROOT = Path(__file__).resolve().parents[2]
#: Committed per-count networks of the retired ``recall`` observation layout (records of
#: experiments; this version refuses them).
RECALL_FILE = {
    2: ROOT
    / "experiments"
    / "results"
    / "expert_iteration"
    / "expert_iteration_2p_vs_search_2.npz",
    4: ROOT / "experiments" / "results" / "champion_prior" / "4p.npz",
}
#: The seat-slot sections: the recall layout held N slots of these, ``fixed`` holds five.
_PER_SLOT = {"seats", "delivered", "oven_by_seat", "oven_orders"}


def fixed_copy(src: Path) -> Path:
    """The network of ``src`` (a per-count file of the retired recall layout) over the
    ``fixed`` layout: its first layer's weights moved to where ``fixed`` holds the same
    values, zero on the empty seat slots and ``seat_present``, so it decides as it did.
    Written once into the temporary directory (a test fixture, not a migration: the
    package refuses recall files)."""
    import json
    import os
    import tempfile
    import zlib

    from mamma_mia_env.game.observe import observation_layout, observation_slices
    from mamma_mia_env.game.record import MAX_SEATS
    from mamma_mia_env.game.symmetry import obs_scale

    raw = src.read_bytes()
    out = Path(tempfile.gettempdir()) / f"mamma-mia-fixed-{src.stem}-{zlib.crc32(raw):08x}-2.npz"
    if out.exists():
        return out
    with np.load(src, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")))
    n, fixed = meta["num_players"], observation_slices("fixed")
    rows = []
    for name, size in meta.pop("obs_sections"):
        at = np.arange(fixed[name].start, fixed[name].stop)
        if name == "pending_order":  # the owner's N slots, then the 8 order types
            at = np.concatenate([at[:n], at[MAX_SEATS:]])
        elif name in _PER_SLOT:  # slot-major: the first N slots
            at = at[:size]
        assert len(at) == size, name
        rows.append(at)
    where = np.concatenate(rows)
    scale = obs_scale("fixed")
    assert np.allclose(scale[where], arrays["scale"]), "the recall scale is the fixed one's"
    w0 = np.zeros((len(scale), arrays["w0"].shape[1]), np.float32)
    w0[where] = arrays["w0"]
    arrays |= {"scale": scale, "w0": w0}
    meta["observation_mode"] = "fixed"  # the sections as an exporter lists them
    meta["obs_sections"] = [list(x) for x in observation_layout("fixed")]
    tmp = out.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(tmp, meta=np.array(json.dumps(meta)), **arrays)
    os.replace(tmp, out)
    return out


#: A policy file for one player count each, of the fixed layout: the networks ``ppo``
#: played at 2 and 4 players before the one network (the expert-iteration policy; the SB3
#: network, now the 4-player champion's prior), moved onto the fixed layout. The shipped
#: ``agents/policies/ppo.npz`` plays every count.
POLICY_FILE = {n: fixed_copy(path) for n, path in RECALL_FILE.items()}


def run_script(module: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``python -m experiments.<module> args`` from the repository root, as a user runs it:
    its exit code, stdout and stderr (text)."""
    return subprocess.run(
        [sys.executable, "-m", f"experiments.{module}", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=timeout,
    )  # fmt: skip


def champion_at(counts: tuple[int, ...], monkeypatch, where: Path) -> None:
    """The bundled champion with settings for ``counts`` only (copies of the shipped files
    in ``where``, ``monkeypatch`` pointing the champion's folder there), so that a test
    sees the refusal at the other counts that a missing settings file gives."""
    import shutil

    from mamma_mia_agents.bots import champion

    dropped = {f"champion_{n}p.json" for n in range(2, 6)} - {f"champion_{n}p.json" for n in counts}
    for path in champion.POLICY_DIR.iterdir():
        if path.name not in dropped:
            shutil.copy(path, where / path.name)  # the networks, the settings kept
    monkeypatch.setattr(champion, "POLICY_DIR", where)


def ctrl_c_as_at_a_terminal() -> None:
    """A ``preexec_fn``: Ctrl-C's default disposition in the child, as a shell at a
    terminal gives its commands. A test run started in the background (``cmd &`` in a
    script, ``nohup``) hands its children SIGINT ignored; Python then installs no
    ``KeyboardInterrupt`` handler, and a test of what Ctrl-C does would wait in vain."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
