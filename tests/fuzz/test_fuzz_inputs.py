"""Generated cases for the inputs SECURITY.md's first table did not list: numbers JSON
cannot mean and strings no UTF-8 text holds (every JSON reader), a saved state's top
level, champion settings fields, ``search_strength.py --resume`` files, HTTP
``Content-Length`` values, ``serve --host``, env methods before ``reset()``, and
``python -m`` on an old module path.

Each case must be refused with the project's error naming the field, key, flag or
method (or accepted when it is good), never a ``TypeError``/``AttributeError`` about
something else or a traceback. The tournament stopped by signals is
tests/tournament/test_tournament_faults.py.
"""

from __future__ import annotations

import copy
import json
import string
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from fuzz_harness import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from mamma_mia_agents.bots.champion import FORMAT, ChampionFileError, read_settings
from mamma_mia_agents.cli.commands import build_parser
from mamma_mia_agents.cli.serve import settings_from
from mamma_mia_env import Config, GameState
from mamma_mia_env.game.state import StateError
from mamma_mia_env.plumbing.files import FileError, read_json

ROOT = Path(__file__).resolve().parents[2]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6,
)  # fmt: skip
BAD_NUMBER = st.one_of(
    st.integers(309, 10**6).map(lambda k: f"1e{k}"),
    st.integers(309, 10**6).map(lambda k: f"-2.5E+{k}"),
    st.integers(65, 30000).map(lambda k: "7" * k),
    st.integers(65, 30000).map(lambda k: "0." + "0" * k + "1"),
    st.sampled_from(["NaN", "Infinity", "-Infinity"]),
)
SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
LONE = st.tuples(st.text(max_size=4), SURROGATE, st.text(max_size=4)).map("".join)


def _escaped(text: str) -> str:
    """``text`` as a JSON string literal, a lone surrogate as its ``\\uXXXX`` escape."""
    return '"' + "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c
                         for c in json.dumps(text, ensure_ascii=True)[1:-1]) + '"'  # fmt: skip


def _paths(doc: object, path: str = "") -> list[str]:
    """Every field of ``doc`` as the readers name it (``a.b[2].c``)."""
    out = [path] if path else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, f"{path}.{k}" if path else k)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, f"{path}[{i}]")
    return out


def _set(doc: object, path: str, raw: str) -> str:
    """``doc`` as JSON with the field ``path`` replaced by the JSON text ``raw``."""
    marker = "\u0000MARK\u0000"
    doc = copy.deepcopy(doc)
    node: object = doc
    parts = path.replace("[", ".[").split(".")
    for p in parts[:-1]:
        node = node[int(p[1:-1])] if p.startswith("[") else node[p]  # type: ignore[index]
    last = parts[-1]
    key: object = int(last[1:-1]) if last.startswith("[") else last
    node[key] = marker  # type: ignore[index]
    return json.dumps(doc).replace(json.dumps(marker), raw)


STATE = GameState.empty(Config(num_players=2), 1).to_dict()
STATE_FIELDS = [p for p in _paths(STATE) if not p.startswith("config")][:60]


@fuzz_settings(120)
@given(field=st.sampled_from(STATE_FIELDS), number=BAD_NUMBER)
def test_fuzz_bad_numbers_are_refused_naming_the_field(field, number):
    from mamma_mia_env.plumbing.files import parse_json

    text = _set(STATE, field, number)
    with pytest.raises(ValueError, match="bad number") as err:
        parse_json(text, "saved state")
    assert field in str(err.value), (field, str(err.value))
    with pytest.raises(StateError, match="bad number"):
        GameState.from_json(text)


@fuzz_settings(120)
@given(field=st.sampled_from(STATE_FIELDS), text=LONE)
def test_fuzz_lone_surrogates_are_refused_naming_the_field(field, text, tmp_path_factory):
    raw = _set(STATE, field, _escaped(text))
    path = tmp_path_factory.mktemp("s") / "state.json"
    path.write_text(raw)
    with pytest.raises(FileError, match="not valid Unicode") as err:
        read_json(path, "saved state")
    assert field in str(err.value) and "state.json" in str(err.value)


@fuzz_settings(60)
@given(key=st.text(min_size=1, max_size=12), value=JSON)
def test_fuzz_unknown_state_fields_are_refused(key, value):
    doc = {**STATE, key: value}
    if key in STATE:
        return
    with pytest.raises(StateError, match="unknown field"):
        GameState.from_dict(doc)


CHAMPION = {"format": FORMAT, "num_players": 2, "search": {"worlds": 3, "candidates": 2,
            "margin": 0.02, "rollout": "builder", "prior": "ppo"}}  # fmt: skip


@fuzz_settings(150)
@given(field=st.sampled_from(_paths(CHAMPION)), value=JSON)
def test_fuzz_champion_fields_of_any_kind(field, value, tmp_path_factory):
    path = tmp_path_factory.mktemp("c") / "champion_2p.json"
    path.write_text(_set(CHAMPION, field, json.dumps(value)))
    try:
        read_settings(path)
    except ChampionFileError as exc:
        assert "champion_2p.json" in str(exc)
        assert field.split(".")[-1] in str(exc) or "object" in str(exc), str(exc)


RESUME = {
    "experiment": "search_strength",
    "args": {"block": 100, "seed": 0},
    "curves": {"2p vs builder": [{"worlds": 2, "candidates": 6, "games": 100, "blocks": 1,
               "deal_wins": [1.0, 0.5], "deal_games": [2, 2], "tournament_seconds": 1.0,
               "delivered_total": 9.0}]},
    "timing": {"2p_worlds2": {"median_ms": 1.0}},
    "history": [],
}  # fmt: skip


@fuzz_settings(150)
@given(field=st.sampled_from(_paths(RESUME)), value=JSON)
def test_fuzz_resume_files_are_checked(field, value):
    from experiments.evaluate.search_strength import check_resume

    doc = json.loads(_set(RESUME, field, json.dumps(value)))
    try:
        check_resume(doc)
    except ValueError as exc:  # ArgumentTypeError too
        assert str(exc), field


@fuzz_settings(300)
@given(text=st.text(max_size=12) | st.integers(-(10**30), 10**30).map(str))
def test_fuzz_header_digits(text):
    from mamma_mia_env.plumbing.arguments import parse_digits

    plain = text.isascii() and text.isdigit() and len(text) <= 40
    try:
        value = parse_digits(text, "Content-Length", 0)
    except ValueError as exc:
        assert "Content-Length" in str(exc)
        assert not plain or int(text) < 0
    else:
        assert plain and value == int(text)


@fuzz_settings(100)
@given(host=st.text(string.printable + "é\u0000", max_size=20)
       | st.ip_addresses().map(str))  # fmt: skip
def test_fuzz_serve_hosts(host):
    import ipaddress

    try:
        loopback = host == host.strip() and ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host.lower() == "localhost"
    args = build_parser().parse_args(["serve", f"--host={host}"])
    if loopback:
        assert settings_from(args)["host"] == host
    else:
        with pytest.raises(SystemExit):
            settings_from(args)


def _envs() -> dict:
    import mamma_mia_env as mm
    from mamma_mia_env.envs.aec import raw_env
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
    from mamma_mia_env.envs.learner import LearnerGames
    from mamma_mia_env.envs.learner_vector import MammaMiaLearnerVectorEnv
    from mamma_mia_env.envs.vector import MammaMiaVectorEnv

    return {
        "raw_env": lambda: raw_env(num_players=2),
        "env": lambda: mm.env(num_players=2),
        "gym": lambda: MammaMiaGymEnv(num_players=2),
        "vector": lambda: MammaMiaVectorEnv(num_envs=2, num_players=2),
        "learner_vector": lambda: MammaMiaLearnerVectorEnv(num_envs=2, num_players=2),
        "learner": lambda: LearnerGames(2, Config(num_players=2)),
    }


ARGS = {"agent": "player_0", "action": 0, "actions": np.zeros(2, dtype=np.int64),
        "path": "unused.json", "observe": True}  # fmt: skip


@pytest.mark.parametrize("name", list(_envs()))
def test_every_method_before_reset_says_reset(name):
    """No public method of an env raises ``AttributeError`` before ``reset()`` (the
    attributes PettingZoo's wrapper refuses before reset stay ``AttributeError``, which
    ``hasattr`` needs; their methods do not)."""
    import inspect

    warnings.simplefilter("ignore")
    env = _envs()[name]()
    tried = 0
    for method in sorted(m for m in dir(type(env)) if not m.startswith("_")):
        if method in ("reset", "close", "render") or isinstance(
            inspect.getattr_static(type(env), method, None), property
        ):
            continue
        fn = getattr(env, method, None)
        if not inspect.ismethod(fn):
            continue
        required = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.default is p.empty and p.kind in required]  # fmt: skip
        if any(p.name not in ARGS for p in params):
            continue
        tried += 1
        try:
            fn(**{p.name: ARGS[p.name] for p in params})
        except AttributeError as exc:
            pytest.fail(f"{name}.{method}() before reset: AttributeError {exc}")
        except Exception:  # noqa: BLE001 - any other refusal is the method's own
            pass
    assert tried >= 2, name


def test_python_m_on_an_old_module_path_is_one_line():
    """Module paths earlier docs gave (the package is unreleased: no aliases are kept)
    answer with Python's one line naming the module, never a traceback."""
    old = ["mamma_mia_env.aec", "mamma_mia_env.rules", "mamma_mia_agents.play",
           "mamma_mia_agents.tournament_cli"]  # fmt: skip
    for path in old:
        proc = subprocess.run([sys.executable, "-m", path, "--help"], capture_output=True,
                              text=True, timeout=300, cwd=ROOT)  # fmt: skip
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1, (path, proc.stderr)
        assert f"No module named {path}" in lines[0] and "Traceback" not in proc.stderr
