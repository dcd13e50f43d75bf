"""A training run's JSON config: defaults, a file, ``--set key=value`` overrides, checks.

One run is one config (``experiments/configs/``): the script's documented defaults,
deep-updated by the file, then by each ``--set a.b.c=value`` of the command line. Every
key must be one the defaults know (a typo would otherwise be silently ignored), except
inside the open sections (rule flags, which ``Config`` checks itself).
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Collection, Iterable
from typing import Any

from mamma_mia_env.plumbing.arguments import ArgumentTypeError, as_bool, as_float, as_int
from mamma_mia_env.plumbing.files import FileError, check_document, parse_json, read_json

__all__ = [
    "apply_override", "check_values", "deep_update", "load_config"
]  # fmt: skip


def deep_update(base: dict, new: dict) -> dict:
    """A copy of ``base`` with ``new`` merged in, section by section."""
    out = copy.deepcopy(base)
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_update(out[k], v)
        else:
            out[k] = v
    return out


def apply_override(cfg: dict, text: str) -> None:
    """``a.b.c=value`` (value read by the project's JSON reader, else kept as a
    string; ``check_values`` then checks it as the file's values are checked)."""
    key, _, raw = text.partition("=")
    if not key or not _:
        raise SystemExit(f"--set needs key=value, got {text!r}")
    try:  # bytes the command line could not decode (a lone surrogate): never saved
        check_document(text, "--set value")
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None
    try:
        value = parse_json(raw, f"--set {key}")
    except ValueError:  # not JSON: a string (a bad number stays text, refused by type)
        value = raw
    node = cfg
    parts = key.split(".")
    for i, p in enumerate(parts[:-1]):
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise SystemExit(f"--set {key}: {'.'.join(parts[: i + 1])!r} is not a section")
    node[parts[-1]] = value


def load_config(
    defaults: dict,
    path: str | None,
    overrides: Iterable[str] = (),
    open_sections: Collection[str] = (),
) -> dict:
    """``defaults``, updated by the JSON file at ``path`` (if any) and the overrides;
    checked against ``defaults``."""
    cfg = copy.deepcopy(defaults)
    if path:
        try:
            doc = read_json(path, "config file")
        except FileError as exc:
            raise SystemExit(f"error: {exc}") from None
        if not isinstance(doc, dict):
            raise SystemExit(f"error: {path}: the config file must be a JSON object")
        cfg = deep_update(cfg, doc)
    for o in overrides:
        apply_override(cfg, o)
    try:
        check_values(cfg, defaults, open_sections)
    except ValueError as exc:  # ArgumentTypeError too: one line, as a flag's refusal
        raise SystemExit(f"error: {exc}") from None
    return cfg


def check_values(
    cfg: dict, defaults: dict, open_sections: Collection[str] = (), path: str = ""
) -> None:
    """Every key one the defaults know (a typo would otherwise be ignored) and every
    value of the kind of its default, read by the flags' checkers
    (``plumbing.arguments``): an int default takes an int (no ``2.0`` or ``2.5``, which
    ``int()`` would truncate, no ``true``), a float default a finite number, a bool
    default ``true``/``false``, a string default a string, a list default a list of
    its items' kind. A ``None`` default (a number or nothing) takes ``null`` or a
    finite number or a list; an open section is checked by its reader (``Config``)."""
    for key, value in cfg.items():
        name = f"{path}{key}"
        if key not in defaults:
            close = difflib.get_close_matches(key, list(defaults), n=1)
            hint = f" (did you mean '{path}{close[0]}'?)" if close else ""
            raise ValueError(f"unknown config key {name!r}{hint}")
        known = defaults[key]
        if isinstance(known, dict):
            if not isinstance(value, dict):
                raise ValueError(f"config key {name!r} must be a section (a JSON object)")
            if name not in open_sections:
                check_values(value, known, open_sections, f"{name}.")
        elif isinstance(known, list):
            if not isinstance(value, list):
                raise ValueError(f"config key {name!r} must be a list, got {value!r:.60}")
            for i, item in enumerate(value):
                _check_value(item, known[0] if known else None, f"{name}[{i}]")
        else:
            _check_value(value, known, name)


def _check_value(value: Any, known: Any, name: str) -> None:
    """``value`` as its default ``known`` says (``check_values``)."""
    what = f"config key {name!r}"
    if isinstance(known, bool):
        as_bool(value, what)
    elif isinstance(known, int):
        as_int(value, what)
    elif isinstance(known, float):
        as_float(value, what)
    elif isinstance(known, str):
        if not isinstance(value, str):
            raise ArgumentTypeError(f"{what} must be a string, got {value!r:.60}")
    elif known is None and value is not None and not isinstance(value, (list, str)):
        as_float(value, what)  # a number or nothing (learning_rate_end, learner_seat, ...)
