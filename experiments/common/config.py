"""A training run's JSON config: defaults, a file, ``--set key=value`` overrides, checks.

One run is one config (``experiments/configs/``): the script's documented defaults,
deep-updated by the file, then by each ``--set a.b.c=value`` of the command line. Every
key must be one the defaults know (a typo would otherwise be silently ignored), except
inside the open sections (rule flags, which ``Config`` checks itself).
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Collection, Iterable
from typing import Any

from mamma_mia_env.plumbing.files import FileDoorError, read_json

__all__ = ["apply_override", "check_keys", "deep_update", "game_config", "load_config"]


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
    """``a.b.c=value`` (value parsed as JSON, else kept as a string)."""
    key, _, raw = text.partition("=")
    if not key or not _:
        raise SystemExit(f"--set needs key=value, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    node = cfg
    parts = key.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value


def check_keys(
    cfg: dict, defaults: dict, open_sections: Collection[str] = (), path: str = ""
) -> None:
    """Refuse keys the script does not know (a typo would otherwise be ignored)."""
    for key, value in cfg.items():
        name = f"{path}{key}"
        if key not in defaults:
            close = difflib.get_close_matches(key, list(defaults), n=1)
            hint = f" (did you mean '{path}{close[0]}'?)" if close else ""
            raise SystemExit(f"unknown config key {name!r}{hint}")
        known = defaults[key]
        if isinstance(known, dict) and name not in open_sections:
            if not isinstance(value, dict):
                raise SystemExit(f"config key {name!r} must be a section (a JSON object)")
            check_keys(value, known, open_sections, f"{name}.")


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
        except FileDoorError as exc:
            raise SystemExit(f"error: {exc}") from None
        if not isinstance(doc, dict):
            raise SystemExit(f"error: {path}: the config file must be a JSON object")
        cfg = deep_update(cfg, doc)
    for o in overrides:
        apply_override(cfg, o)
    check_keys(cfg, defaults, open_sections)
    return cfg


def game_config(cfg: dict[str, Any]) -> Any:
    """The game's ``Config`` of a run's ``env`` section (players, reward, rule flags)."""
    from mamma_mia_env import Config

    env = cfg["env"]
    return Config.from_kwargs(
        num_players=env["num_players"], reward_mode=env["reward_mode"], **env.get("rules", {})
    )
