"""Fuzz: the action codec and replays (``ActionCodec``, ``replay``, ``replay_events``).

Every case runs in the crash-catching worker of ``fuzz_harness`` (docs/TESTING.md). The
codec gets arguments of any type; an accepted encoding must decode back to what was
asked. A replay gets a real game's seed and actions with edits (any value, dropped,
repeated, appended after the end); an accepted replay must end in a consistent state
equal to playing the same actions step by step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from fuzz_harness import attempt, fuzz_settings, refusal_failures, run_case
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_states import ANY, CONFIGS, INTS

KINDS = st.one_of(
    st.none(),
    st.sampled_from(["salami", "olive", "pepper", "pineapple", "mushroom", "Salami", "x"]),
    st.integers(-2, 6),
    ANY,
)
CODEC_CALLS = st.one_of(
    st.fixed_dictionaries(
        {
            "call": st.just("encode_turn"),
            "kind": KINDS,
            "singles": st.one_of(st.integers(-1, 8), ANY),
            "doubles": st.one_of(st.integers(-1, 4), ANY),
            "order": st.one_of(st.none(), st.integers(-1, 8), ANY),
            "draw": st.one_of(st.sampled_from(["supply", "stack", "pile"]), ANY),
        }
    ),
    st.fixed_dictionaries(
        {
            "call": st.just("encode_reveal"),
            "choice": st.one_of(st.text(max_size=10), ANY),
            "kind": KINDS,
        }
    ),
    st.fixed_dictionaries({"call": st.sampled_from(["decode", "to_str"]), "action": INTS}),
    st.fixed_dictionaries({"call": st.just("from_str"), "text": st.one_of(st.text(), ANY)}),
)
CODEC_ANCHORS = ["kind", "singles", "doubles", "order", "draw", "choice", "action", "text",
                 "personal", "ingredient"]  # fmt: skip


def run_codec(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import ActionCodec, Config, Engine

    codec = ActionCodec(Engine(Config(**p["config"])))
    c = dict(p["call"])
    name = c.pop("call")
    ok, res = attempt(lambda: getattr(codec, name)(**c))
    if not ok:
        return refusal_failures(res, CODEC_ANCHORS), "refused"
    n = codec.engine.n_actions if hasattr(codec, "engine") else None
    fails = []
    if name.startswith("encode") or name == "from_str":
        if not isinstance(res, int) or isinstance(res, bool) or (n and not 0 <= res < n):
            fails.append(f"{name} returned {res!r}, not an action index")
        else:
            back = attempt(lambda: codec.decode(res))
            if not back[0]:
                fails.append(f"{name} gave {res}, which decode refuses: {back[1]}")
    return fails, "accepted"


def run_replay(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import Config, Engine, replay, replay_events
    from mamma_mia_env.game.record import OVER
    from mamma_mia_env.game.state import check_state

    cfg = Config(**p["config"])
    eng = Engine(cfg)
    state = eng.reset(seeds=[p["seed"]])
    rng = np.random.default_rng(p["seed"])
    actions: list[Any] = []
    while state.data["phase"][0] != OVER and len(actions) < p["length"]:
        a = int(rng.choice(np.flatnonzero(eng.legal_masks(state)[0])))
        eng.step(state, np.array([a]))
        actions.append(a)
    for e in p["edits"]:
        if e["op"] == "set" and actions:
            actions[e["at"] % len(actions)] = e["value"]
        elif e["op"] == "drop" and actions:
            actions.pop(e["at"] % len(actions))
        elif e["op"] == "append":
            actions.append(e["value"])
    given_actions: Any = actions if not p["as_array"] else np.asarray(actions, dtype=object)
    seed = p["seed"] if p["seed_edit"] is None else p["seed_edit"]
    fn = replay if p["which"] == "replay" else replay_events
    anchors = ["seed", "action", "actions", "start", "config"]
    ok, res = attempt(lambda: fn(cfg, seed, given_actions))
    if not ok:
        return refusal_failures(res, anchors), "refused"
    if p["which"] != "replay":
        return [], "accepted"
    problems = check_state(res)
    if problems:
        return [f"replay accepted, state: {problems[:3]}"], "accepted"
    again = eng.reset(seeds=[int(seed)])
    for a in actions:
        eng.step(again, np.array([int(a)]))
    if not again.equals(res):
        return ["replay differs from playing the same actions"], "accepted"
    return [], "accepted"


REPLAY_EDITS = st.lists(
    st.one_of(
        st.builds(
            lambda at, v: {"op": "set", "at": at, "value": v},
            st.integers(0, 500),
            st.one_of(INTS, ANY),
        ),  # fmt: skip
        st.builds(lambda at: {"op": "drop", "at": at}, st.integers(0, 500)),
        st.builds(lambda v: {"op": "append", "value": v}, st.one_of(st.integers(0, 700), ANY)),
    ),
    max_size=3,
)


@fuzz_settings(ci=60)
@given(config=CONFIGS, call=CODEC_CALLS)
def test_fuzz_action_codec(config, call) -> None:
    run_case("ActionCodec", "test_fuzz_replays:run_codec", dict(config=config, call=call))


@fuzz_settings(ci=40)
@given(
    config=CONFIGS,
    seed=st.integers(0, 2**64 - 1),
    length=st.one_of(st.integers(0, 30), st.integers(0, 2000)),
    edits=REPLAY_EDITS,
    as_array=st.booleans(),
    seed_edit=st.one_of(st.none(), st.none(), st.none(), INTS, ANY),
    which=st.sampled_from(["replay", "replay_events"]),
)
def test_fuzz_replays(config, seed, length, edits, as_array, seed_edit, which) -> None:
    payload = dict(
        config=config, seed=seed, length=length, edits=edits, as_array=as_array,
        seed_edit=seed_edit, which=which,
    )  # fmt: skip
    run_case(f"{which}(config, seed, actions)", "test_fuzz_replays:run_replay", payload)
