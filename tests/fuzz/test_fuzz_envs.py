"""Fuzz: actions to every env, ``out=`` buffers, ``seats=``/``active=``, config values.

Every case runs in the crash-catching worker of ``fuzz_harness`` (docs/TESTING.md).
Actions: a game is played with a mix of legal moves and fuzzed actions of any type and
shape; a refused action must be refused with a message naming the action and leave
the env exactly as it was (the game bytes), an accepted one must leave a consistent
game. ``out=`` buffers are views into a larger block filled with a sentinel: whatever
the call does, nothing outside the buffer may change.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from fuzz_harness import attempt, fuzz_settings, play_forward, refusal_failures, run_case
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_states import ANY, CONFIG_FIELDS, CONFIGS, INTS, _reshape

ACTION_ANCHORS = ["action", "actions"]

# -- action values -----------------------------------------------------------------------------
ARRAY_DTYPES = ["int64", "int32", "int8", "uint8", "uint64", "float64", "float32", "bool",
                "object", "<U3", "complex64"]  # fmt: skip
ACTION_VALUES = st.one_of(
    st.fixed_dictionaries(
        {
            "array": st.lists(st.one_of(INTS, st.floats(), st.booleans()), max_size=9),
            "dtype": st.sampled_from(ARRAY_DTYPES),
            "shape": st.sampled_from(["flat", "col", "row", "square", "scalar", "batch"]),
        }
    ),
    st.fixed_dictionaries({"scalar": st.one_of(INTS, st.floats(), ANY), "np": st.booleans()}),
    st.fixed_dictionaries({"illegal": st.integers(0, 10**6)}),  # an in-range illegal action
)
OPS = st.lists(
    st.one_of(st.just("legal"), st.just("legal"), ACTION_VALUES, st.just("edit_mask")),
    min_size=1,
    max_size=8,
)


def _make_action(spec: Any, batch: int, legal: np.ndarray, n_actions: int) -> Any:
    """An action from its spec; ``legal`` is the (B, n_actions) mask of the env's games."""
    if isinstance(spec, dict) and "illegal" in spec:
        acts = []
        for g in range(batch):
            bad = np.flatnonzero(legal[g] == 0)
            acts.append(int(bad[spec["illegal"] % len(bad)]) if len(bad) else 0)
        return acts[0] if batch == 0 else np.array(acts)
    if isinstance(spec, dict) and "scalar" in spec:
        v = spec["scalar"]
        if spec["np"] and isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63:
            return np.int64(v)
        return v
    values = list(spec["array"])
    try:
        arr = np.array(values, dtype=spec["dtype"])
    except (OverflowError, ValueError, TypeError):
        arr = np.array([0] * len(values), dtype=spec["dtype"])
    shape = spec["shape"]
    if shape == "batch":  # the right length, legal first action of each game but the dtype
        first = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in legal])
        dtype = np.dtype(spec["dtype"] if spec["dtype"] != "<U3" else "int64")
        with np.errstate(all="ignore"):
            arr = first.astype(dtype)  # an int8 or bool array may not hold the action
    elif shape == "col":
        arr = arr.reshape(-1, 1)
    elif shape == "row":
        arr = arr.reshape(1, -1)
    elif shape == "square":
        k = int(np.sqrt(len(arr)))
        arr = arr[: k * k].reshape(k, k)
    elif shape == "scalar":
        arr = arr[:1].reshape(()) if len(arr) else np.array(3, dtype=spec["dtype"])
    return arr


class _Api:
    """One env behind a uniform face: masks, a legal step, a fuzzed step, its game."""

    def __init__(self, api: str, cfg: dict[str, Any], seed: int) -> None:
        from mamma_mia_env import env as aec_env
        from mamma_mia_env import raw_env
        from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
        from mamma_mia_env.envs.vector import MammaMiaVectorEnv

        self.name = api
        self.info: dict[str, Any] = {}
        if api in ("aec_raw", "aec_env"):
            self.env = raw_env(**cfg) if api == "aec_raw" else aec_env(**cfg)
            self.env.reset(seed=seed)
        elif api == "gym":
            self.env = MammaMiaGymEnv(**cfg)
            self.env.reset(seed=seed)
        elif api in ("vector", "vector_nocopy"):
            self.env = MammaMiaVectorEnv(3, copy=api == "vector", **cfg)
            _, self.info = self.env.reset(seed=seed % 2**32)
        elif api == "sb3":
            from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

            self.env = MammaMiaSB3VecEnv(3, seed=seed % 2**32, **cfg)
            self.env.reset()
        else:  # engine
            from mamma_mia_env import Config, Engine

            self.env = Engine(Config(**cfg))
            self.state = self.env.reset(seeds=[seed, seed + 1])

    @property
    def batched(self) -> bool:
        return self.name in ("vector", "vector_nocopy", "sb3", "engine")

    def game(self) -> Any:
        if self.name in ("aec_raw", "aec_env"):
            return self.env.unwrapped.game
        if self.name == "gym":
            return self.env.games.state
        if self.name == "sb3":
            return self.env.games.state
        if self.name == "engine":
            return self.state
        return self.env.state

    def masks(self) -> np.ndarray:
        if self.name in ("aec_raw", "aec_env"):
            return self.env.observe(self.env.agent_selection)["action_mask"][None]
        if self.name == "gym":
            return self.env.action_masks()[None].astype(np.int8)
        if self.name == "sb3":
            return self.env.action_masks().astype(np.int8)
        if self.name == "engine":
            return self.env.legal_masks(self.state)
        return self.env.engine.legal_masks(self.env.state)

    def over(self) -> bool:
        if self.name in ("aec_raw", "aec_env"):
            a = self.env.agent_selection
            return bool(self.env.terminations[a] or self.env.truncations[a])
        return False  # the others deal again at once (or stay mid-game)

    def step(self, action: Any) -> None:
        if self.name in ("aec_raw", "aec_env"):
            self.env.step(action)
        elif self.name == "gym":
            _, _, term, trunc, _ = self.env.step(action)
            if term or trunc:
                self.env.reset()
        elif self.name in ("vector", "vector_nocopy"):
            _, _, _, _, self.info = self.env.step(action)
        elif self.name == "sb3":
            self.env.step_async(action)
            self.env.step_wait()
        else:
            self.env.step(self.state, action)

    def snapshot(self) -> bytes:
        return self.game().data.tobytes()


def run_actions(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env.game.record import OVER
    from mamma_mia_env.game.state import check_state

    api = _Api(p["api"], p["config"], p["seed"])
    rng = np.random.default_rng(p["seed"])
    statuses = []
    for i, op in enumerate(p["ops"]):
        if api.over():
            break
        masks = api.masks()
        if api.name == "engine":
            live = api.state.data["phase"] != OVER
            if not live.any():
                break
        if op == "edit_mask":
            if api.name != "vector_nocopy":
                continue
            # the user writes into the mask buffer it was handed, then plays an action
            # that the real rules forbid: it must still be refused
            real = api.masks().copy()
            api.info["action_mask"][:] = 1
            op = {"illegal": int(rng.integers(10**6))}
            masks = real
        if op == "legal":
            acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            action = acts if api.batched else int(acts[0])
        else:
            action = _make_action(op, len(masks), masks, masks.shape[1])
            if not api.batched and isinstance(action, np.ndarray) and "illegal" in op:
                action = int(action[0])
        before = api.snapshot()
        ok, res = attempt(lambda a=action: api.step(a))
        if not ok:
            if op == "legal":
                return [f"op {i}: a legal action was refused: {type(res).__name__}: {res}"], "x"
            fails = refusal_failures(res, ACTION_ANCHORS)
            if api.snapshot() != before:
                fails.append(f"op {i}: the refused action {action!r} changed the game")
            if fails:
                return [f"op {i} ({action!r:.200}): {f}" for f in fails], "refused"
            statuses.append("refused")
            continue
        statuses.append("accepted")
        problems = check_state(api.game())
        if problems:
            return [f"op {i}: after accepting {action!r:.200}: {problems[:3]}"], "accepted"
        if op != "legal" and api.name == "aec_raw":
            # an accepted fuzzed action must have been a legal int-like one (env() and
            # the gym env end the game on an illegal action instead, by design)
            legal = masks[0]
            a = int(action)
            if not (0 <= a < len(legal) and legal[a]):
                return [f"op {i}: illegal action {action!r} was accepted"], "accepted"
    return [], "refused" if "refused" in statuses else "accepted"


# -- out= buffers, seats=, active= and the state's form -------------------------------------------
SENTINEL = {"f": 12345.0, "i": 77, "u": 77, "b": True}
BUFFERS = st.fixed_dictionaries(
    {
        "rows": st.sampled_from(["b", "b-1", "b+1", "0", "1"]),
        "cols": st.sampled_from(["n", "n-1", "n+1", "other_players", "0", "1"]),
        "ndim": st.sampled_from([2, 2, 2, 1, 3]),
        "dtype": st.sampled_from(
            ["float32", "float32", "int8", "int8", "float64", "int16", "uint8", "bool", "int64"]
        ),  # fmt: skip
        "layout": st.sampled_from(["c", "c", "f", "strided", "offset", "readonly"]),
    }
)


def _buffer(spec: dict[str, Any], b: int, n: int, other: int) -> tuple[np.ndarray, np.ndarray]:
    rows = {"b": b, "b-1": max(b - 1, 0), "b+1": b + 1, "0": 0, "1": 1}[spec["rows"]]
    cols = {"n": n, "n-1": n - 1, "n+1": n + 1, "other_players": other, "0": 0, "1": 1}
    cols = cols[spec["cols"]]
    shape = {1: (rows * cols,), 2: (rows, cols), 3: (rows, cols, 1)}[spec["ndim"]]
    dtype = np.dtype(spec["dtype"])
    size = int(np.prod(shape))
    pad = 64
    block = np.full(2 * size + 2 * pad, SENTINEL[dtype.kind], dtype=dtype)
    if spec["layout"] == "strided":
        out = block[pad : pad + 2 * size : 2][:size].reshape(shape)
    elif spec["layout"] == "f":
        out = np.asfortranarray(block[pad : pad + size].reshape(shape))
        if not np.shares_memory(out, block):
            out = block[pad : pad + size].reshape(shape[::-1]).T
    elif spec["layout"] == "offset":
        out = block[pad + 1 : pad + 1 + size].reshape(shape)
    else:
        out = block[pad : pad + size].reshape(shape)
        if spec["layout"] == "readonly":
            out.flags.writeable = False
    return block, out


def run_views(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import Config, Engine

    cfg = Config(**p["config"])
    eng = Engine(cfg)
    b = p["batch"]
    state = eng.reset(seeds=list(range(p["seed"], p["seed"] + b)))
    rng = np.random.default_rng(p["seed"])
    for _ in range(p["steps"]):
        masks = eng.legal_masks(state)
        if not masks.any(axis=1).all():
            break
        eng.step(state, np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    given = _reshape(state, p["form"])
    method = p["method"]
    other_n = 2 + p["config"]["num_players"] % 4
    other = Engine(cfg.replace(num_players=other_n))
    n, n_other = {
        "observe": (eng.obs_dim, other.obs_dim),
        "legal_masks": (eng.n_actions, Engine(cfg.replace(double_ingredients=True)).n_actions),
        "global_state": (eng.state_dim, other.state_dim),
    }[method]
    block, out = _buffer(p["buffer"], b, n, n_other) if p["buffer"] else (None, None)
    before = None if block is None else block.copy()
    inside = np.zeros(block.shape, bool) if block is not None else None
    if block is not None:
        inside[np.isin(np.arange(block.size), _covered(block, out))] = True
    kwargs: dict[str, Any] = {"out": out} if p["buffer"] else {}
    if method == "observe" and p["seats"] != "default":
        kwargs["seats"] = _make_action(p["seats"], b, np.ones((b, 5), np.int8), 5)
    fn = getattr(eng, method)
    ok, res = attempt(lambda: fn(given, **kwargs))
    fails = []
    if block is not None and not np.array_equal(block[~inside], before[~inside], equal_nan=True):
        fails.append(f"{method}(out=...) wrote outside its buffer")
    if not ok:
        anchors = ["out", "seats", "state", "GameState", "data", "config", "batch"]
        return fails + refusal_failures(res, anchors), "refused"
    if "seats" in kwargs:
        seats = np.asarray(kwargs["seats"])
        if seats.dtype.kind not in "iu" or seats.shape != (b,):
            fails.append(f"seats={kwargs['seats']!r} were accepted (coerced?)")
    if given is not state:
        return fails, "accepted"  # an odd form was accepted and survived: nothing to compare
    fresh = getattr(eng, method)(state.copy(), **{k: v for k, v in kwargs.items() if k != "out"})
    if not np.array_equal(np.asarray(res), fresh):
        fails.append(f"{method} with out= gave a different result than without")
    return fails, "accepted"


def _covered(block: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Indices of ``block`` elements that ``out`` views."""
    if out.size == 0:
        return np.arange(0)
    base = block.__array_interface__["data"][0]
    start = out.__array_interface__["data"][0]
    item = block.itemsize
    idx = np.indices(out.shape).reshape(out.ndim, -1).T
    offs = (start - base) + idx @ np.array(out.strides)
    return (offs // item).astype(np.int64)


def run_active(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import Config, Engine
    from mamma_mia_env.game.state import check_state

    eng = Engine(Config(**p["config"]))
    state = eng.reset(seeds=[1, 2, 3])
    masks = eng.legal_masks(state)
    acts = np.array([np.flatnonzero(m)[0] for m in masks])
    active = _make_action(p["active"], 3, np.ones((3, 2), np.int8), 2)
    before = state.data.tobytes()
    ok, res = attempt(lambda: eng.step(state, acts, active=active))
    if not ok:
        fails = refusal_failures(res, ["active"])
        if state.data.tobytes() != before:
            fails.append("a refused step changed the game")
        return fails, "refused"
    problems = check_state(state)
    return ([f"accepted active={active!r}: {problems[:3]}"] if problems else []), "accepted"


# -- config values -----------------------------------------------------------------------------
CONFIG_VALUES = st.dictionaries(
    st.sampled_from([*CONFIG_FIELDS, "bogus", "render_mode"]),
    st.one_of(
        st.booleans(),
        st.integers(-2, 6),
        st.sampled_from(
            [
                "fixed",
                "top_card",
                "recall",
                "win_loss",
                "delivered",
                None,
                1.0,
                np.int64(3),
                np.bool_(True),
            ]
        ),
        ANY,
    ),  # fmt: skip
    max_size=4,
)
EXTRA_ARGS = st.dictionaries(
    st.sampled_from(
        [
            "num_envs",
            "learner_seat",
            "opponent_delivery_penalty",
            "opponents",
            "opponent_probs",
            "illegal_reward",
            "canonical",
            "normalize",
        ]
    ),  # fmt: skip
    st.one_of(st.integers(-2, 6), st.floats(), ANY),
    max_size=2,
)


def run_config(p: dict[str, Any]) -> tuple[list[str], str]:
    from mamma_mia_env import Config, Engine, raw_env
    from mamma_mia_env import env as aec_env
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
    from mamma_mia_env.envs.vector import MammaMiaVectorEnv

    kw, extra, api = dict(p["config"]), dict(p["extra"]), p["api"]
    anchors = [*CONFIG_FIELDS, *EXTRA_ARGS_NAMES, "config", "render_mode", "keyword", "field"]

    def build() -> Any:
        if api == "Config":
            return Config.from_kwargs(**kw)
        if api == "Engine":
            return Engine(**kw)
        if api in ("aec_raw", "aec_env"):
            f = raw_env if api == "aec_raw" else aec_env
            args = {k: v for k, v in extra.items() if k == "illegal_reward" and api == "aec_env"}
            return f(**kw, **args)
        if api == "vector":
            return MammaMiaVectorEnv(extra.pop("num_envs", 2), **kw)
        gym_args = {k: v for k, v in extra.items() if k != "num_envs" and k != "illegal_reward"}
        if api == "gym":
            return MammaMiaGymEnv(**gym_args, **kw)
        from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

        return MammaMiaSB3VecEnv(extra.get("num_envs", 2), **gym_args, **kw)

    ok, res = attempt(build)
    if not ok:
        return refusal_failures(res, anchors), "refused"
    cfg = res if isinstance(res, Config) else getattr(res, "config", None)
    if cfg is None:
        cfg = res.unwrapped.config
    fails = []
    for f in CONFIG_FIELDS:  # no silent coercion: what was accepted is what is used
        if f in kw and not (getattr(cfg, f) is kw[f] or getattr(cfg, f) == kw[f]):
            fails.append(f"{f}={kw[f]!r} was accepted as {getattr(cfg, f)!r}")
        v = getattr(cfg, f)
        want = type(Config.__dataclass_fields__[f].default)
        if f == "max_turns" and v is not None:
            want = int
        if not isinstance(v, want) or (want is int and isinstance(v, bool)):
            fails.append(f"config {f} holds {v!r} ({type(v).__name__})")
    games = getattr(res, "games", None)
    for name in ("opponent_delivery_penalty", "canonical", "normalize"):
        if games is not None and name in extra and api in ("gym", "sb3"):
            v, want = getattr(games, name), extra[name]  # what was accepted is what is used
            kind = float if name == "opponent_delivery_penalty" else bool
            if type(v) is not kind or v != want:
                fails.append(f"{name}={want!r} was accepted as {v!r}")
    try:
        if api == "vector":
            res.reset(seed=1)
            state = res.state
        elif api in ("gym",):
            res.reset(seed=1)
            state = res.games.state
        elif api == "sb3":
            res.reset()
            state = res.games.state
        else:
            state = Engine(cfg).reset(seeds=[1])
    except Exception as exc:
        return fails + [f"accepted, then reset raised {type(exc).__name__}: {exc}"], "accepted"
    return fails + play_forward(state.copy(), max_steps=3000), "accepted"


EXTRA_ARGS_NAMES = [
    "num_envs",
    "n_envs",
    "learner_seat",
    "opponent_delivery_penalty",
    "opponent",
    "opponent_probs",
    "illegal_reward",
    "canonical",
    "normalize",
]


# -- agents' act_batch ------------------------------------------------------------------------
BOT_OBS_EDITS = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {
                "where": st.floats(0, 1),  # the share of entries changed
                "value": st.one_of(
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(-5, 300),
                    st.sampled_from([0.0, 255.0, 255.5, -1e-6]),
                ),
            }
        ),
        st.sampled_from(["uniform", "small_ints", "list", "ragged", "object", "str", "transpose"]),
    ),
    max_size=3,
)


def run_agent(p: dict[str, Any]) -> tuple[list[str], str]:
    """An agent's ``act_batch`` on real observations of a batch, then edited: any value
    in any share of the entries, random numbers in the observation space, other forms.
    An accepted call must return one legal action per game."""
    from mamma_mia_agents import load_agent
    from mamma_mia_env import Config, Engine

    cfg = Config(**p["config"])
    bot = load_agent(p["agent"])
    if getattr(bot, "check_config", None) is not None:
        try:
            bot.check_config(cfg)
        except ValueError:
            return [], "not for this config"
    eng = Engine(cfg.replace(observation_mode=bot.observation_mode))
    rng = np.random.default_rng(p["seed"])
    state = eng.reset(seeds=p["seed"], batch_size=p["batch"])
    obs, masks = eng.observe(state), eng.legal_masks(state)
    seats: Any = state.data["seat"].astype(np.int64)
    given: Any = obs
    for edit in p["edits"]:
        if not (isinstance(given, np.ndarray) and given.dtype.kind == "f"):
            break  # a list, ragged, object or text form: the edits after it do not apply
        if isinstance(edit, dict):
            sel = rng.random(np.shape(given)) < edit["where"]
            with np.errstate(all="ignore"):
                given = np.array(given, dtype=np.float64)
                given[sel] = edit["value"]
        elif edit == "uniform":
            given = rng.uniform(0, 255, obs.shape).astype(np.float32)
        elif edit == "small_ints":
            given = rng.integers(0, 9, obs.shape).astype(np.float32)
        elif edit == "list":
            given = np.asarray(given).tolist()
        elif edit == "ragged":
            given = [*np.asarray(given)[:-1].tolist(), [0.0]]
        elif edit == "object":
            given = np.asarray(given).astype(object)
        elif edit == "str":
            given = np.asarray(given).astype(str)
        else:
            given = np.asarray(given).T
    ok, res = attempt(lambda: bot.act_batch(given, masks, rng, seats))
    if not ok:
        return refusal_failures(res, ["observations", "masks", "seats", "act_batch"]), "refused"
    acts = np.asarray(res)
    if acts.shape != (p["batch"],) or acts.dtype.kind not in "iu":
        return [f"accepted, but returned {acts!r:.200}"], "accepted"
    if ((acts < 0) | (acts >= eng.n_actions)).any() or not masks[np.arange(len(acts)), acts].all():
        return [f"accepted, but chose an illegal action: {acts.tolist()[:8]}"], "accepted"
    return [], "accepted"


# -- the tests -----------------------------------------------------------------------------
APIS = ["aec_raw", "aec_env", "gym", "vector", "vector_nocopy", "sb3", "engine"]


@fuzz_settings(ci=120)
@given(
    api=st.sampled_from(APIS),
    config=CONFIGS,
    seed=st.integers(0, 2**63),
    ops=OPS,
)
def test_fuzz_actions(api, config, seed, ops) -> None:
    payload = dict(api=api, config=config, seed=seed, ops=ops)
    run_case(f"step(actions) [{api}]", "test_fuzz_envs:run_actions", payload)


@fuzz_settings(ci=100)
@given(
    method=st.sampled_from(["observe", "legal_masks", "global_state"]),
    config=CONFIGS,
    seed=st.integers(0, 2**32),
    batch=st.sampled_from([1, 2, 3, 300]),
    steps=st.integers(0, 30),
    buffer=st.one_of(st.none(), BUFFERS),
    seats=st.one_of(st.just("default"), ACTION_VALUES),
    form=st.one_of(
        st.just("as_is"),
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
                "none",
            ]
        ),  # fmt: skip
    ),
)
def test_fuzz_out_buffers_seats_and_state_forms(
    method, config, seed, batch, steps, buffer, seats, form
) -> None:
    payload = dict(
        method=method, config=config, seed=seed, batch=batch, steps=steps, buffer=buffer,
        seats=seats, form=form,
    )  # fmt: skip
    run_case(f"Engine.{method}(out=, seats=, state)", "test_fuzz_envs:run_views", payload)


@fuzz_settings(ci=40)
@given(config=CONFIGS, active=ACTION_VALUES)
def test_fuzz_step_active(config, active) -> None:
    run_case(
        "Engine.step(active=)", "test_fuzz_envs:run_active", dict(config=config, active=active)
    )


@fuzz_settings(ci=100)
@given(
    api=st.sampled_from(["Config", "Engine", "aec_raw", "aec_env", "vector", "gym", "sb3"]),
    config=CONFIG_VALUES,
    extra=EXTRA_ARGS,
)
def test_fuzz_config_values(api, config, extra) -> None:
    payload = dict(api=api, config=config, extra=extra)
    run_case(f"config values [{api}]", "test_fuzz_envs:run_config", payload)


@fuzz_settings(ci=60)
@given(
    agent=st.sampled_from(["random", "counter", "builder", "hoarder", "forgetful", "ppo"]),
    config=CONFIGS,
    seed=st.integers(0, 2**32),
    batch=st.sampled_from([1, 3, 300]),
    edits=BOT_OBS_EDITS,
)
def test_fuzz_agent_act_batch(agent, config, seed, batch, edits) -> None:
    payload = dict(agent=agent, config=config, seed=seed, batch=batch, edits=edits)
    run_case(f"act_batch [{agent}]", "test_fuzz_envs:run_agent", payload)
