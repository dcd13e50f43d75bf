"""Fuzz: saved states, hand-edited ``GameState`` objects, positions and reset options.

Every case runs in the crash-catching worker of ``fuzz_harness`` (docs/TESTING.md). A
base state is a real game: a random config, dealt from a random seed and played a random
number of random legal moves; the fuzz then changes any field to any value (mostly
small steps from the true value, which is where an incomplete check hides), and the
entry point must refuse it with a message naming a field, or accept it and survive being
played to the end with ``check_state`` clean after every move.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import numpy as np
from fuzz_harness import attempt, fuzz_settings, play_forward, refusal_failures, run_case
from hypothesis import given
from hypothesis import strategies as st

from mamma_mia_env.game.config import Config
from mamma_mia_env.game.positions import _KEYS as POSITION_KEYS
from mamma_mia_env.game.record import state_dtype

DTYPE = state_dtype()
FIELDS = {name: DTYPE.fields[name][0].shape for name in DTYPE.names}
CONFIG_FIELDS = list(Config.__dataclass_fields__)
STATE_ANCHORS = [*FIELDS, *CONFIG_FIELDS, "format", "config", "games", "json", "card"]

# -- value strategies ------------------------------------------------------------------------
BOUNDARY_INTS = [
    -(2**63), -(2**31), -(2**15), -129, -128, -2, -1, 0, 1, 2, 4, 5, 7, 8, 9, 12, 13,
    17, 18, 30, 100, 111, 112, 113, 127, 128, 255, 256, 2**15 - 1, 2**15, 30000,
    2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30,
]  # fmt: skip
INTS = st.one_of(st.integers(-3, 14), st.sampled_from(BOUNDARY_INTS), st.integers())
SCALARS = st.one_of(
    INTS,
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.5, 2.0, -0.0, float("nan"), float("inf")]),
    st.booleans(),
    st.none(),
    st.text(max_size=6),
    st.sampled_from(["7", "0", "", "salami", "-1", "1e3"]),
)
ANY = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=10,
)
CONFIGS = st.fixed_dictionaries(
    {
        "num_players": st.integers(2, 5),
        "double_ingredients": st.booleans(),
        "auto_reveal": st.booleans(),
        "mamma_mia_in_deal": st.booleans(),
        "pass_may_play_order": st.booleans(),
        "strict_minimale": st.booleans(),
        "random_start_player": st.booleans(),
    }
)


@st.composite
def field_edit(draw: Any) -> dict[str, Any]:
    """One change to one field of game 0: an element or the whole field."""
    name = draw(st.sampled_from(list(FIELDS)))
    shape = FIELDS[name]
    index = [draw(st.integers(0, d - 1)) for d in shape]
    kind = draw(st.sampled_from(["add", "add", "add", "set", "set", "whole", "delete"]))
    if kind == "add":
        return {"op": "add", "field": name, "index": index, "delta": draw(st.integers(-3, 3))}
    if kind == "set":
        return {"op": "set", "field": name, "index": index, "value": draw(ANY)}
    if kind == "whole":
        return {"op": "set", "field": name, "index": [], "value": draw(ANY)}
    return {"op": "delete", "field": name}


DOC_EDITS = st.one_of(
    field_edit(),
    st.builds(
        lambda k, v: {"op": "config", "key": k, "value": v},
        st.sampled_from([*CONFIG_FIELDS, "bogus"]),
        ANY,
    ),  # fmt: skip
    st.builds(
        lambda k, v: {"op": "top", "key": k, "value": v},
        st.sampled_from(["format", "config", "games", "extra"]),
        ANY,
    ),  # fmt: skip
    st.builds(lambda k, v: {"op": "extra_field", "key": k, "value": v}, st.text(max_size=5), ANY),
    st.just({"op": "dup_game"}),
)
TEXT_EDITS = st.one_of(
    st.none(),
    st.builds(lambda f: {"op": "truncate", "frac": f}, st.floats(0, 1)),
    st.builds(lambda d: {"op": "deep", "depth": d}, st.sampled_from([10, 1000, 100_000])),
    st.builds(lambda t: {"op": "replace", "text": t}, st.text(max_size=30)),
)


# -- building cases (in the worker) -------------------------------------------------------------
def base_state(cfg: dict[str, Any], seed: int, steps: int):
    from mamma_mia_env import Engine
    from mamma_mia_env.game.record import OVER

    eng = Engine(Config(**cfg))
    state = eng.reset(seeds=[seed])
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.data["phase"][0] == OVER:
            break
        legal = np.flatnonzero(eng.legal_masks(state)[0])
        eng.step(state, np.array([rng.choice(legal)]))
    return state


def _edit_doc(doc: dict[str, Any], edit: dict[str, Any]) -> None:
    op = edit["op"]
    games = doc.get("games")
    game = games[0] if isinstance(games, list) and games and isinstance(games[0], dict) else {}
    if op in ("add", "set"):
        name = edit["field"]
        if name not in game:
            return
        box, idx = game, [name, *edit["index"]]
        for k in idx[:-1]:
            box = box[k] if isinstance(box, (list, dict)) else None
            if box is None:
                return
        last = idx[-1]
        if isinstance(box, list) and not (isinstance(last, int) and last < len(box)):
            return
        if not isinstance(box, (list, dict)):
            return
        if op == "set":
            box[last] = edit["value"]
        elif isinstance(box[last], (int, str)) and not isinstance(box[last], bool):
            with contextlib.suppress(ValueError):
                box[last] = type(box[last])(int(box[last]) + edit["delta"])
    elif op == "delete":
        game.pop(edit["field"], None)
    elif op == "config" and isinstance(doc.get("config"), dict):
        doc["config"][edit["key"]] = edit["value"]
    elif op == "top":
        doc[edit["key"]] = edit["value"]
    elif op == "extra_field":
        game[edit["key"]] = edit["value"]
    elif op == "dup_game" and isinstance(games, list) and games:
        games.append(json.loads(json.dumps(games[0])))


def _edit_text(text: str, edit: dict[str, Any] | None) -> str:
    if edit is None:
        return text
    if edit["op"] == "truncate":
        return text[: int(len(text) * edit["frac"])]
    if edit["op"] == "deep":
        d = edit["depth"]
        return text.replace('"games": [', '"games": ' + "[" * d, 1) + "]" * (d - 1)
    return edit["text"]


def run_from_json(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import GameState

    doc = base_state(p["config"], p["seed"], p["steps"]).to_dict()
    for edit in p["edits"]:
        _edit_doc(doc, edit)
    text = _edit_text(json.dumps(doc), p["text"])
    ok, res = attempt(lambda: GameState.from_json(text))
    if not ok:  # a top-level key an edit added is a field too ("extra": Infinity)
        added = [e["key"] for e in p["edits"] if e["op"] == "top"]
        return refusal_failures(res, [*STATE_ANCHORS, *added]), "refused"
    return play_forward(res, seed=p["seed"]), "accepted"


# -- GameState objects edited in numpy, through every env API that takes one -----------------------
def _edit_record(state: Any, edit: dict[str, Any]) -> None:
    if edit["op"] not in ("add", "set") or not edit["index"]:
        return
    name, idx = edit["field"], tuple(edit["index"])
    field = state.data[name][0]
    base = field.dtype if isinstance(field, np.ndarray) else state.data.dtype[name]
    if edit["op"] == "add":
        old = int(field[idx]) if idx else int(field)
        value = old + edit["delta"]
    else:
        value = edit["value"]
        if isinstance(value, bool) or not isinstance(value, int):
            return
    info = np.iinfo(base) if base.kind in "iu" else None
    if info is None:
        return
    value = (value - info.min) % (info.max - info.min + 1) + info.min  # any stored value
    if idx:
        state.data[name][(0, *idx)] = value
    else:
        state.data[name][0] = value


def _reshape(state: Any, form: str) -> Any:
    """The same game in a wrong form: what a careless caller might hand over."""
    from mamma_mia_env import GameState

    d = state.data
    forms = {
        "two_games": lambda: GameState(state.config, np.concatenate([d, d])),
        "zero_games": lambda: GameState(state.config, d[:0].copy()),
        "strided": lambda: GameState(state.config, np.concatenate([d, d])[::2]),
        "readonly": lambda: _readonly(GameState(state.config, d.copy())),
        "float_data": lambda: GameState(state.config, np.zeros(1, np.float64)),
        "2d_data": lambda: GameState(state.config, np.stack([d, d], axis=1)),
        "other_config": lambda: GameState(
            state.config.replace(num_players=2 + state.config.num_players % 4), d.copy()
        ),
        "list_data": lambda: GameState(state.config, d.tolist()),
        "dict": lambda: state.to_dict(),
        "none": lambda: None,
        "int": lambda: 7,
        "bytes": lambda: state.to_json().encode(),
    }
    return forms[form]() if form in forms else state


def _readonly(state: Any) -> Any:
    state.data.flags.writeable = False
    return state


def _play_env(api: str, env: Any, seed: int, max_steps: int = 3000) -> list[str]:
    """Play an env that accepted a state to its end, checking the game after each step."""
    from mamma_mia_env.game.state import check_state

    rng = np.random.default_rng(seed)
    try:
        for step in range(max_steps):
            if api in ("aec_raw", "aec_env"):
                agent = env.agent_selection
                if env.terminations[agent] or env.truncations[agent]:
                    return []
                mask = env.observe(agent)["action_mask"]
                env.step(int(rng.choice(np.flatnonzero(mask))))
                game = env.unwrapped.game
            elif api == "gym":
                a = int(rng.choice(np.flatnonzero(env.action_masks())))
                _, _, term, trunc, _ = env.step(a)
                game = env.games.state
                if term or trunc:
                    return check_state(game) and [f"after the end: {check_state(game)[:3]}"]
            else:  # learner
                masks = env.action_masks()
                acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
                _, _, term, trunc, _ = env.step(acts)
                game = env.state
                if (term | trunc).any():
                    return []
            problems = check_state(game)
            if problems:
                return [f"accepted, then after {step + 1} steps: {problems[:3]}"]
        return [f"the game did not end within {max_steps} steps"]
    except Exception as exc:
        return [f"accepted, then playing on raised {type(exc).__name__}: {exc}"]


def run_state_object(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import env as aec_env
    from mamma_mia_env import raw_env
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
    from mamma_mia_env.envs.learner import LearnerGames

    state = base_state(p["config"], p["seed"], p["steps"])
    for edit in p["edits"]:
        _edit_record(state, edit)
    given = _reshape(state, p["form"])
    api, cfg = p["api"], p["config"]
    anchors = [*STATE_ANCHORS, "options", "state", "start", "GameState", "data"]
    if api == "aec_raw":
        env = raw_env(**cfg)
        ok, res = attempt(lambda: env.reset(options={"state": given}))
    elif api == "aec_env":
        env = aec_env(**cfg)
        ok, res = attempt(lambda: env.reset(options={"state": given}))
    elif api == "gym":
        env = MammaMiaGymEnv(learner_seat=p["seat"] % cfg["num_players"], **cfg)
        ok, res = attempt(lambda: env.reset(seed=1, options={"state": given}))
    else:
        env = LearnerGames(1, Config(**cfg), learner_seat=p["seat"] % cfg["num_players"])
        data = given.data if hasattr(given, "data") else given
        ok, res = attempt(lambda: env.reset(seed=1, start=data))
    if not ok:
        return refusal_failures(res, anchors), "refused"
    return _play_env(api, env, p["seed"]), "accepted"


# -- positions ------------------------------------------------------------------------------
CARD_NAMES = ["salami", "olive", "pepper", "pineapple", "mushroom", "mamma_mia"]
CARD_NAMES += [f"double {c}" for c in CARD_NAMES[:5]] + ["Salami", "bogus"]
COUNTS = st.dictionaries(st.sampled_from(CARD_NAMES), st.one_of(st.integers(-1, 6), ANY))
SEATMAP = st.one_of(
    st.dictionaries(
        st.sampled_from(["0", "1", "2", "3", "4", "5", "-1", "x", "1.5"]),
        st.one_of(COUNTS, st.lists(st.integers(-1, 9), max_size=9), ANY),
    ),  # fmt: skip
    st.lists(st.one_of(COUNTS, st.lists(st.integers(0, 8), max_size=8)), max_size=5),
    ANY,
)
OVEN_ENTRY = st.one_of(
    st.tuples(
        st.one_of(st.integers(-1, 5), ANY),
        st.one_of(
            st.builds(lambda n, c: f"{n} {c}", st.integers(-1, 9), st.sampled_from(CARD_NAMES)),
            st.builds(lambda t: f"order {t}", st.one_of(st.integers(-1, 9), st.just("x"))),
            ANY,
        ),
    ).map(list),
    ANY,
)
POSITION_VALUES = {
    "config": st.one_of(CONFIGS, st.dictionaries(st.sampled_from(CONFIG_FIELDS), ANY), ANY),
    "seat": st.one_of(st.integers(-1, 5), ANY),
    "round": st.one_of(st.integers(-1, 3), ANY),
    "hands": SEATMAP,
    "orders_in_hand": SEATMAP,
    "stacks": SEATMAP,
    "delivered": SEATMAP,
    "piles": st.one_of(COUNTS, ANY),
    "used": st.one_of(COUNTS, ANY),
    "oven": st.one_of(st.lists(OVEN_ENTRY, max_size=12), ANY),
    "supply": st.one_of(st.lists(st.sampled_from(CARD_NAMES), max_size=30), ANY),
    "mm_holder": st.one_of(st.none(), st.integers(-2, 5), ANY),
    "turns": st.one_of(st.integers(-1, 300), ANY),
    "idle": st.one_of(st.integers(-1, 30), ANY),
    "seed": st.one_of(st.integers(0, 2**64), ANY),
    "reveal": st.one_of(st.booleans(), ANY),
}
POSITIONS = st.one_of(
    st.fixed_dictionaries({}, optional=POSITION_VALUES),
    st.dictionaries(st.text(max_size=6), ANY, max_size=3),
    ANY,
)
POSITION_ANCHORS = [*POSITION_KEYS, *CONFIG_FIELDS, *FIELDS, "description", "card", "position"]


def run_build_position(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import build_position

    ok, res = attempt(lambda: build_position(p["description"]))
    if not ok:
        return refusal_failures(res, POSITION_ANCHORS), "refused"
    return play_forward(res, seed=7), "accepted"


# -- reset options and seeds ---------------------------------------------------------------------
SEEDS = st.one_of(st.none(), INTS, ANY, st.just(np.uint64(5)), st.just(np.int8(-3)))
OPTIONS = st.one_of(
    st.none(),
    st.dictionaries(
        st.sampled_from(["state", "game_seed", "learner_seat", "seed", "bogus"]), ANY, max_size=3
    ),
    ANY,
)


def run_reset(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import Engine, raw_env
    from mamma_mia_env import env as aec_env
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
    from mamma_mia_env.envs.vector import MammaMiaVectorEnv
    from mamma_mia_env.game.state import check_state

    api, cfg, seed, options = p["api"], p["config"], p["seed"], p["options"]
    anchors = ["seed", "options", "state", "learner_seat", "game_seed", "batch_size", "reset"]
    if api == "engine":
        eng = Engine(Config(**cfg))
        ok, res = attempt(lambda: eng.reset(seeds=seed, batch_size=p["batch"]))
        state = res
    elif api == "vector":
        venv = MammaMiaVectorEnv(3, **cfg)
        ok, res = attempt(lambda: venv.reset(seed=seed))
        state = venv.state
    elif api == "gym":
        genv = MammaMiaGymEnv(**cfg)
        ok, res = attempt(lambda: genv.reset(seed=seed, options=options))
        state = genv.games.state
    elif api == "sb3":
        from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

        venv = MammaMiaSB3VecEnv(2, **cfg)
        ok, res = attempt(lambda: (venv.seed(seed), venv.reset()))
        state = venv.games.state
    else:
        e = raw_env(**cfg) if api == "aec_raw" else aec_env(**cfg)
        ok, res = attempt(lambda: e.reset(seed=seed, options=options))
        state = e.unwrapped.game
    if not ok:
        return refusal_failures(res, anchors), "refused"
    if state is None:
        return ["reset returned without a game"], "accepted"
    if state.batch_size == 0:
        return [f"reset accepted seeds={seed!r} and dealt an empty batch"], "accepted"
    problems = check_state(state)
    return ([f"reset accepted, state: {problems[:3]}"] if problems else []), "accepted"


# -- the tests -----------------------------------------------------------------------------
@fuzz_settings(ci=80)
@given(
    config=CONFIGS,
    seed=st.integers(0, 2**64 - 1),
    steps=st.one_of(st.integers(0, 40), st.integers(0, 400)),
    edits=st.lists(DOC_EDITS, min_size=1, max_size=4),
    text=st.one_of(st.none(), st.none(), st.none(), TEXT_EDITS),
)
def test_fuzz_game_state_from_json(config, seed, steps, edits, text) -> None:
    payload = dict(config=config, seed=seed, steps=steps, edits=edits, text=text)
    run_case("GameState.from_json", "test_fuzz_states:run_from_json", payload)


@fuzz_settings(ci=80)
@given(
    api=st.sampled_from(["aec_raw", "aec_env", "gym", "learner"]),
    config=CONFIGS,
    seed=st.integers(0, 2**64 - 1),
    steps=st.one_of(st.integers(0, 40), st.integers(0, 400)),
    edits=st.lists(field_edit(), max_size=3),
    form=st.one_of(
        st.just("as_is"),
        st.just("as_is"),
        st.sampled_from(
            [
                "two_games",
                "zero_games",
                "strided",
                "readonly",
                "float_data",
                "2d_data",
                "other_config",
                "list_data",
                "dict",
                "none",
                "int",
                "bytes",
            ]
        ),  # fmt: skip
    ),
    seat=st.integers(0, 4),
)
def test_fuzz_reset_with_a_state_object(api, config, seed, steps, edits, form, seat) -> None:
    payload = dict(
        api=api, config=config, seed=seed, steps=steps, edits=edits, form=form, seat=seat
    )
    run_case(f"reset(options state) [{api}]", "test_fuzz_states:run_state_object", payload)


@fuzz_settings(ci=150)
@given(description=POSITIONS)
def test_fuzz_build_position(description) -> None:
    run_case("build_position", "test_fuzz_states:run_build_position", {"description": description})


@fuzz_settings(ci=100)
@given(
    api=st.sampled_from(["engine", "vector", "gym", "sb3", "aec_raw", "aec_env"]),
    config=CONFIGS,
    seed=SEEDS,
    options=OPTIONS,
    batch=st.one_of(st.none(), st.integers(-1, 3), ANY),
)
def test_fuzz_reset_seeds_and_options(api, config, seed, options, batch) -> None:
    payload = dict(api=api, config=config, seed=seed, options=options, batch=batch)
    run_case(f"reset(seed, options) [{api}]", "test_fuzz_states:run_reset", payload)
