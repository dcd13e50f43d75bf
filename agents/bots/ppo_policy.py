"""A trained policy's network run with numpy, and its file format (``ppo_agent`` plays it).

A trainer (``experiments/train/cleanrl_ppo.py``, ``expert_iteration.py``) exports its actor
network (the layers that map an observation to action logits) to a small ``.npz`` file;
``PPOAgent`` plays it. Playing needs numpy only, not torch.

    >>> from mamma_mia_agents.bots.ppo_agent import PPOAgent
    >>> agent = PPOAgent()                      # the shipped policy, 2-5 players
    >>> agent = PPOAgent("runs/2p_ten_minutes/policy.npz")

On the command line and in tournaments: ``ppo`` (the shipped network,
``agents/policies/ppo.npz``, at every player count its file lists).

A policy sees the game in its seat's canonical frame (``mamma_mia_env.game.symmetry``:
every seat relabelled to look like seat 0), with observations divided by a fixed
scale; both are recorded in the file, and the agent maps the chosen action back. It
needs the acting seats (``act_batch(..., seats=...)``), as the heuristic bots do.

File format (``mamma-mia-policy/1``): ``meta`` (a JSON string: player count,
observation mode, double ingredients, activation, the observation sections the network
reads (``obs_sections``: its layout's, in order; a network of an observation that has
changed since is refused), how it was trained), ``scale`` (the observation divisor),
``w0, b0, w1, b1, ...`` (hidden layers, ``x @ w + b`` then the activation) and
``w_out, b_out`` (the action logits).

**Untrusted files.** Loading never unpickles and checks the whole file before a weight
is used (SECURITY.md, "policy files"); anything else, a network of the retired
``recall`` layout among them (also a file with no ``observation_mode``, which meant
it) and one of raw seat views (``canonical`` false: no exporter writes one), is a
``PolicyFileError`` naming the file.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import math
import os
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from mamma_mia_env.game.config import OBSERVATION_MODES, Config
from mamma_mia_env.game.observe import observation_layout, observation_size
from mamma_mia_env.game.symmetry import SeatCanonicalizer
from mamma_mia_env.plumbing.files import parse_json, write_npz

FORMAT = "mamma-mia-policy/1"
ACTIVATIONS = ("tanh", "relu")
#: A float32 lead below this is decided in float64 (``NumpyPolicy.best_actions``): the
#: float32 logits of the shipped networks differ by at most about 1e-4 between CPUs.
NEAR_TIE = 1e-2
#: Limits of a policy file: its size on disk, its arrays unpacked, its hidden layers and
#: its metadata. The shipped policies are about 1.2 MB (1.2 MB unpacked, two layers).
MAX_POLICY_BYTES = 64 * 2**20
MAX_ARRAY_BYTES = 256 * 2**20
MAX_LAYERS = 32
MAX_META_CHARS = 100_000
_LAYER_KEY = re.compile(r"[wb](0|[1-9][0-9]{0,3})")
#: The observation layout networks read before ``fixed`` (float32, N seat slots): its
#: files are refused with what to do.
RETIRED_MODE = "recall"


class PolicyFileError(ValueError):
    """A policy file is missing, corrupt, oversized or inconsistent; names the file."""


def _check_meta(meta: Any) -> None:
    if not isinstance(meta, dict):
        raise ValueError(f"meta must be a JSON object, got {type(meta).__name__}")
    if meta.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} policy (meta format {meta.get('format')!r})")
    if meta.get("activation") not in ACTIVATIONS:
        act = meta.get("activation")
        raise ValueError(f"meta activation must be one of {ACTIVATIONS}, got {act!r}")
    mode = meta.get("observation_mode", RETIRED_MODE)  # none given meant the retired one
    if mode == RETIRED_MODE:
        raise ValueError(
            f"the network reads the retired {RETIRED_MODE!r} observation layout: train it "
            "again with the 'fixed' layout (observation_mode 'fixed')"
        )
    if mode not in OBSERVATION_MODES:
        raise ValueError(f"meta observation_mode must be one of {OBSERVATION_MODES}, got {mode!r}")
    n = meta.get("num_players")
    counts = n if isinstance(n, list) else [n]
    if not counts or not all(type(c) is int and 2 <= c <= 5 for c in counts):
        raise ValueError(f"meta num_players must be an int 2-5 or a list of them, got {n!r}")
    if counts != sorted(set(counts)):
        raise ValueError(f"meta num_players must list each count once, in order, got {n!r}")
    if "double_ingredients" in meta and not isinstance(meta["double_ingredients"], bool):
        raise ValueError(
            f"meta double_ingredients must be true or false, got {meta['double_ingredients']!r}"
        )
    if meta.get("canonical", True) is not True:  # no exporter writes a raw-view network
        raise ValueError(
            f"meta canonical must be true (a network of the canonical frame), got "
            f"{meta['canonical']!r:.40}: a network of raw seat views is not played"
        )
    layout = [list(x) for x in observation_layout(mode)]
    sections = meta.get("obs_sections", layout)
    if _json(sections) != _json(layout):  # the observation changed since training
        rows = sections if isinstance(sections, list) else [sections]
        at = next(
            i for i in range(len(rows) + 1) if _json(rows[i : i + 1]) != _json(layout[i : i + 1])
        )
        got, want = ((x[at : at + 1] or ["nothing"])[0] for x in (rows, layout))
        raise ValueError(
            f"meta obs_sections: the network reads section {got!r:.80} where the {mode!r} "
            f"layout has {want!r}: train it again on this layout"
        )


def _json(value: Any) -> str:
    """``value`` as JSON text, compared instead of ``==``: a section size of ``16.0`` or
    ``true`` equals ``16`` in Python but is not the layout's size."""
    return json.dumps(value)


def _check_arrays(arrays: dict[str, Any]) -> dict[str, np.ndarray]:
    """Float32 copies of the weight arrays, after checking keys, dtypes and values."""
    keys = set(arrays)
    missing = sorted({"scale", "w_out", "b_out"} - keys)
    if missing:
        raise ValueError(f"missing arrays {missing}")
    unknown = sorted(k for k in keys - {"scale", "w_out", "b_out"} if not _LAYER_KEY.fullmatch(k))
    if unknown:
        raise ValueError(f"unknown arrays {unknown}")
    n_layers = sum(1 for k in keys if _LAYER_KEY.fullmatch(k) and k[0] == "w")
    if n_layers > MAX_LAYERS:
        raise ValueError(f"{n_layers} hidden layers, more than {MAX_LAYERS}")
    layer_keys = {f"{c}{i}" for i in range(n_layers) for c in "wb"}
    if layer_keys != {k for k in keys if _LAYER_KEY.fullmatch(k)}:
        raise ValueError("hidden layers must be w0, b0, w1, b1, ... without gaps")
    out = {}
    for key in sorted(keys):
        a = arrays[key]
        if not isinstance(a, np.ndarray):
            raise ValueError(f"array {key!r} is a {type(a).__name__}, not a numpy array")
        if a.dtype.kind != "f" or a.dtype.fields is not None:
            raise ValueError(f"array {key!r} has dtype {a.dtype}; weights are floating point")
        with np.errstate(over="ignore", invalid="ignore"):
            f32 = a.astype(np.float32)
        if not np.isfinite(f32).all():
            raise ValueError(f"array {key!r} holds NaN or infinite values (as float32)")
        out[key] = f32
    return out


class NumpyPolicy:
    """An exported actor network: canonical observation -> masked action choice.

    ``source`` names where the weights came from (the file), for error messages.
    """

    def __init__(
        self, arrays: dict[str, np.ndarray], meta: dict[str, Any], source: str = "<in memory>"
    ) -> None:
        self.source = source
        try:
            self._build(arrays, meta)
        except (ValueError, TypeError) as exc:
            if source == "<in memory>":
                raise
            raise PolicyFileError(f"policy file {source!r}: {exc}") from None

    def _build(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        _check_meta(meta)
        arrays = _check_arrays(arrays)
        self.meta = meta
        n = meta["num_players"]
        #: the player counts it plays: one, or several (the observation has one size for
        #: every count), each played through ``for_count``
        self.counts: tuple[int, ...] = tuple(n) if isinstance(n, list) else (n,)
        self.num_players = self.counts[0]
        self.observation_mode = meta["observation_mode"]
        self.config = Config(
            num_players=self.num_players,
            observation_mode=self.observation_mode,
            double_ingredients=meta.get("double_ingredients", False),
        )
        self.canon = SeatCanonicalizer(self.config)
        self.scale = arrays["scale"]
        width = observation_size(self.observation_mode)
        if self.scale.shape != (width,):
            raise ValueError(
                f"scale has shape {self.scale.shape}, the policy reads {width} observation values"
            )
        if not (self.scale > 0).all():
            raise ValueError("scale must be positive (observations are divided by it)")
        self.layers = []
        for i in range(len(arrays) // 2 - 1):  # scale, w_out, b_out and w0, b0, ... (no gaps)
            w, b = arrays[f"w{i}"], arrays[f"b{i}"]
            if w.ndim != 2 or w.shape[0] != width or w.shape[1] < 1 or b.shape != w.shape[1:]:
                raise ValueError(
                    f"layer {i}: w{i} {w.shape} and b{i} {b.shape} do not take {width} inputs "
                    f"to (n,) outputs"
                )
            self.layers.append((w, b))
            width = w.shape[1]
        self.w_out, self.b_out = arrays["w_out"], arrays["b_out"]
        n_actions = self.canon.n_actions
        if self.w_out.shape != (width, n_actions) or self.b_out.shape != (n_actions,):
            raise ValueError(
                f"w_out {self.w_out.shape} and b_out {self.b_out.shape} must map {width} "
                f"inputs to the game's {n_actions} actions"
            )
        self.activation = np.tanh if meta["activation"] == "tanh" else _relu
        # the forward pass in float64 (``logits``), from copies made once
        self._net64 = [
            (w.astype(np.float64), b.astype(np.float64))
            for w, b in [*self.layers, (self.w_out, self.b_out)]
        ]
        self._scale64 = self.scale.astype(np.float64)

    def for_count(self, num_players: int) -> NumpyPolicy:
        """This network at a ``num_players`` table (one of ``counts``): the same weights,
        with that count's seat relabelling (``SeatCanonicalizer``)."""
        if num_players not in self.counts:
            raise ValueError(
                f"the policy {self.source!r} plays {' or '.join(map(str, self.counts))} "
                f"players, not {num_players}"
            )
        if num_players == self.num_players:
            return self
        other = copy.copy(self)
        other.num_players = num_players
        other.config = dataclasses.replace(self.config, num_players=num_players)
        other.canon = SeatCanonicalizer(other.config)
        return other

    @classmethod
    def load(cls, path: str | os.PathLike) -> NumpyPolicy:
        """Read a policy file, refusing anything but a well-formed one (module doc)."""
        arrays, meta = read_policy_file(path)
        return cls(arrays, meta, source=os.fspath(path))

    def save(self, path: str | os.PathLike) -> None:
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(self.meta)), "scale": self.scale}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        arrays["w_out"], arrays["b_out"] = self.w_out, self.b_out
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        write_npz(path, arrays, "policy file")  # never a half-written policy in place

    def logits(self, canonical_obs: np.ndarray) -> np.ndarray:
        """The action logits (float32) of a batch of canonical observations."""
        x = np.asarray(canonical_obs, dtype=np.float32)
        return self._forward(x, self.scale, [*self.layers, (self.w_out, self.b_out)])

    def logits64(self, canonical_obs: np.ndarray) -> np.ndarray:
        """The action logits computed in float64, the same to about 1e-15 on every CPU.

        The matrix products (BLAS) and ``tanh`` are routines picked by the CPU's SIMD
        level, whose last bits differ between CPUs; in float32 that moves a logit by up to
        about 1e-4 (measured on the shipped networks), enough to flip a near-tie between
        two actions now and then. ``act`` decides near-ties with these."""
        x = np.asarray(canonical_obs, dtype=np.float64)
        return self._forward(x, self._scale64, self._net64)

    def _forward(
        self, x: np.ndarray, scale: np.ndarray, net: list[tuple[np.ndarray, np.ndarray]]
    ) -> np.ndarray:
        """The network ``net`` (hidden layers, then the logits layer) on observations ``x``."""
        x = x / scale
        *hidden, (w_out, b_out) = net
        for w, b in hidden:
            x = self.activation(x @ w + b)
        return x @ w_out + b_out

    def best_actions(self, canonical_obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The most likely legal action of each row, the same on every CPU: the float32
        argmax where its lead is at least ``NEAR_TIE`` (far above float32's CPU-dependent
        error), the float64 argmax for the other rows (a few in a hundred)."""
        logits = np.where(legal, self.logits(canonical_obs), -np.inf)
        chosen = logits.argmax(axis=1)
        rows = np.arange(len(logits))
        best = logits[rows, chosen]
        logits[rows, chosen] = -np.inf
        near = np.flatnonzero(~(best - logits.max(axis=1, initial=-np.inf) >= NEAR_TIE))
        if len(near):
            exact = np.where(legal[near], self.logits64(canonical_obs[near]), -np.inf)
            chosen[near] = exact.argmax(axis=1)
        return chosen

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        rng: np.random.Generator | None = None,
        deterministic: bool = True,
    ) -> np.ndarray:
        """Env actions for raw env observations and masks of the acting ``seats``."""
        seats = np.asarray(seats, dtype=np.int64)
        obs = self.canon.obs(observations, seats)
        cmask = self.canon.masks(masks, seats) != 0
        if not cmask.any(axis=1).all():
            raise ValueError("a game has no legal action")
        if deterministic or rng is None:
            chosen = self.best_actions(obs, cmask)
        else:
            logits = np.where(cmask, self.logits64(obs), -np.inf)
            z = np.exp(logits - logits.max(axis=1, keepdims=True))
            c = np.cumsum(z, axis=1)
            u = rng.random(len(c)) * c[:, -1]
            chosen = np.minimum((c <= u[:, None]).sum(axis=1), c.shape[1] - 1)
            chosen = np.where(cmask[np.arange(len(c)), chosen], chosen, logits.argmax(axis=1))
        return self.canon.to_env_actions(chosen, seats)


def read_policy_file(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], Any]:
    """The arrays and metadata of a ``.npz`` policy file, read without unpickling.

    The zip's members are read one by one with their sizes checked against the limits
    and their ``.npy`` headers (dtype, shape) checked against the bytes present before
    anything is allocated; ``PolicyFileError`` names the file and the problem.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"a policy path must be a str or os.PathLike, got {path!r}")
    name = os.fspath(path)

    def fail(problem: str) -> PolicyFileError:
        return PolicyFileError(f"policy file {name!r}: {problem}")

    try:
        size = os.stat(name).st_size
    except (OSError, ValueError) as exc:
        raise fail(f"cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    if not os.path.isfile(name):
        raise fail("not a regular file")
    if size > MAX_POLICY_BYTES:
        raise fail(f"{size:,} bytes, more than the {MAX_POLICY_BYTES:,} a policy may have")
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(name) as zf:
            infos = zf.infolist()
            if len(infos) > 2 * MAX_LAYERS + 4:
                raise fail(f"{len(infos)} members, too many for a policy")
            total = sum(i.file_size for i in infos)
            if total > MAX_ARRAY_BYTES:
                raise fail(f"{total:,} bytes unpacked, more than {MAX_ARRAY_BYTES:,}")
            for info in infos:
                key = info.filename[:-4] if info.filename.endswith(".npy") else None
                if key is None or key in arrays or info.flag_bits & 0x1:
                    raise fail(f"unexpected member {info.filename!r} (not one .npy per array)")
                arrays[key] = _read_npy(zf.read(info), key, fail)
    except PolicyFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as exc:
        raise fail(f"not a readable .npz (zip) file: {exc}") from None
    raw = arrays.pop("meta", None)
    if raw is None:
        raise fail("missing array 'meta'")
    if raw.dtype.kind != "U" or raw.shape != ():
        raise fail(f"meta must be one JSON string, got dtype {raw.dtype} shape {raw.shape}")
    if raw.dtype.itemsize // 4 > MAX_META_CHARS:
        raise fail(f"meta is {raw.dtype.itemsize // 4:,} characters, more than {MAX_META_CHARS:,}")
    try:
        return arrays, parse_json(str(raw), "meta")
    except ValueError as exc:  # the object's fields are checked by NumpyPolicy
        raise fail(str(exc)) from None


def _read_npy(raw: bytes, key: str, fail: Any) -> np.ndarray:
    fmt = np.lib.format
    buf = io.BytesIO(raw)
    try:
        version = fmt.read_magic(buf)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(buf)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(buf)
        else:
            raise ValueError(f"unsupported .npy version {version}")
        if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
            raise ValueError(f"dtype {dtype} is not a plain number or string type")
        if math.prod(shape) * dtype.itemsize != len(raw) - buf.tell():
            raise ValueError(
                f"header says {shape} of {dtype}, the data holds {len(raw) - buf.tell()} bytes"
            )
        buf.seek(0)
        return fmt.read_array(buf, allow_pickle=False)
    except (ValueError, SyntaxError, TypeError, OverflowError, EOFError) as exc:
        raise fail(f"array {key!r} is corrupt: {exc}") from None


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)
