"""The documents the input fuzz suite edits (tests/fuzz/test_fuzz_cli_inputs.py): a valid
save, log, state, position and policy, and the edits (``mutate``) with the rule of
which edit a loader can only refuse (``must_refuse``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

BOMB_DEPTH = 100_000
_CACHE: dict[str, Any] = {}


# -- valid documents ----------------------------------------------------------------------
def valid_log() -> dict[str, Any]:
    """The event log of a short 2-player game (config, seed, actions, events)."""
    if "log" not in _CACHE:
        import numpy as np

        from mamma_mia_env import Config, Engine
        from mamma_mia_env.game.log import replay_events

        cfg = Config(num_players=2)
        eng = Engine(cfg)
        state = eng.reset(seeds=[11])
        rng = np.random.default_rng(0)
        actions = []
        for _ in range(12):
            legal = np.flatnonzero(eng.legal_masks(state)[0])
            a = int(rng.choice(legal))
            actions.append(a)
            eng.step(state, np.array([a], np.int64))
        _CACHE["log"] = replay_events(cfg, 11, actions)
    return json.loads(json.dumps(_CACHE["log"]))


def valid_save() -> dict[str, Any]:
    """A ``mamma-mia-play/1`` save of a 2-player game a few moves in, the person to act."""
    if "save" not in _CACHE:
        import numpy as np

        from mamma_mia_agents.cli.session import Game
        from mamma_mia_env import Config

        game = Game(Config(num_players=2), 0, ["random"], 5, [])
        rng = np.random.default_rng(1)
        for _ in range(6):
            if game.over():
                break
            if int(game.rec["seat"]) == game.seat:
                game.apply(int(rng.choice(np.flatnonzero(game.legal()))))
            else:
                game.apply(game.bot_action())
        _CACHE["save"] = game.to_dict()
    return json.loads(json.dumps(_CACHE["save"]))


def valid_state() -> dict[str, Any]:
    """A ``mamma-mia-state/1`` document of one game a few moves in."""
    if "state" not in _CACHE:
        import numpy as np

        from mamma_mia_env import Config, Engine

        eng = Engine(Config(num_players=3))
        state = eng.reset(seeds=[3])
        for _ in range(5):
            a = int(np.flatnonzero(eng.legal_masks(state)[0])[0])
            eng.step(state, np.array([a], np.int64))
        _CACHE["state"] = state.to_dict()
    return json.loads(json.dumps(_CACHE["state"]))


VALID_POSITION = {
    "config": {"num_players": 3},
    "seat": 1,
    "round": 0,
    "hands": {"1": {"salami": 2, "olive": 1}},
    "orders_in_hand": {"1": [0]},
    "piles": {"pepper": 1},
    "oven": [[0, "1 salami"]],
    "mm_holder": None,
    "turns": 1,
    "idle": 0,
    "seed": 4,
    "reveal": False,
}


def valid_policy() -> tuple[dict[str, Any], dict[str, Any]]:
    """The shipped 2-player policy's arrays and metadata."""
    if "policy" not in _CACHE:
        import numpy as np
        from helpers import POLICY_FILE

        with np.load(POLICY_FILE[2], allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        meta = json.loads(str(arrays.pop("meta")))
        _CACHE["policy"] = (arrays, meta)
    arrays, meta = _CACHE["policy"]
    return dict(arrays), json.loads(json.dumps(meta))


# -- one file-field case ---------------------------------------------------------------------
PLACEHOLDER = "@@MUTANT@@"


def mutate(doc: Any, path: list, op: str) -> tuple[Any, bytes | None]:
    """(the document with ``op`` applied at ``path``, raw bytes to write instead of JSON
    when the edit cannot be expressed as a value: a nesting bomb, non-UTF-8 bytes)."""
    doc = json.loads(json.dumps(doc))
    parent, key = doc, None
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    value = parent[key]
    new: Any
    if op == "missing":
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
        return doc, None
    if op == "extra":
        target = value if isinstance(value, dict) else parent
        if isinstance(target, dict):
            target["zz_extra"] = 1
        else:
            target.append(1)
        return doc, None
    if op in ("bomb", "latin1"):
        parent[key] = PLACEHOLDER
        text = json.dumps(doc)
        if op == "bomb":
            raw = text.replace(f'"{PLACEHOLDER}"', "[" * BOMB_DEPTH + "]" * BOMB_DEPTH)
            return doc, raw.encode()
        return doc, text.replace(PLACEHOLDER, "caf\xe9").encode("latin-1", "replace")
    new = {
        "str": "x",
        "digits": "7",
        "bool": True,
        "float": 1.5,
        "float_int": float(value) if _is_int(value) else 2.0,
        "huge": 2**70,
        "neg": -1,
        "null": None,
        "list": [],
        "dict": {},
    }[op]
    parent[key] = new
    return doc, None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


VALUE_OPS = ("str", "digits", "bool", "float", "float_int", "huge", "neg", "null", "list",
             "dict", "missing", "extra", "bomb", "latin1")  # fmt: skip


def must_refuse(original: Any, op: str) -> bool:
    """Whether a read field edited by ``op`` can only be refused: a nesting bomb or
    non-UTF-8 bytes anywhere; for an integer, any other type, 2.0 included, and a
    number far out of any range; for a string, a bool, a number or a container; for a
    container, a scalar; for a bool, anything but a bool."""
    if op in ("bomb", "latin1"):
        return True
    if op in ("missing", "extra", "neg"):
        return False
    if _is_int(original):
        return op not in ("digits",)
    if isinstance(original, bool):
        return op != "bool"
    if isinstance(original, str):
        return op in ("bool", "float", "float_int", "huge", "list", "dict")
    if isinstance(original, (list, dict)):
        return op not in ("list", "dict") or (op == "list") != isinstance(original, list)
    return False


def leaves(doc: Any, prefix: list | None = None, depth: int = 4) -> Iterator[list]:
    """Paths to edit: every key of every object, the first and last item of a list,
    down to ``depth`` levels."""
    prefix = prefix or []
    if depth == 0:
        return
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield [*prefix, k]
            yield from leaves(v, [*prefix, k], depth - 1)
    elif isinstance(doc, list) and doc:
        for i in sorted({0, len(doc) - 1}):
            yield [*prefix, i]
            yield from leaves(doc[i], [*prefix, i], depth - 1)
