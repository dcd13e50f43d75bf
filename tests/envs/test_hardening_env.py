"""The env-side entry points check what comes in, a refused call
changes nothing, and no agent is handed anything that determines hidden cards.

Every test here is a hole found by trying the envs as a hostile or careless user would;
before the fix each input either crashed the interpreter, was silently changed
(``seed=1.5`` read as 1), raised an error naming nothing, or left the env half-stepped.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import random_legal

import mamma_mia_env as mm
from mamma_mia_env import ArgumentTypeError, Config, Engine, GameState, StateError
from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
from mamma_mia_env.envs.learner import LearnerGames
from mamma_mia_env.envs.opponents import OpponentError
from mamma_mia_env.envs.vector import MammaMiaVectorEnv
from mamma_mia_env.game.engine import IllegalActionError
from mamma_mia_env.game.record import OVER
from mamma_mia_env.policy import UniformRandomPolicy


def _mid_game(cfg: Config, seed: int = 3, steps: int = 12) -> GameState:
    eng = Engine(cfg)
    state = eng.reset(seeds=[seed])
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        eng.step(state, random_legal(eng.legal_masks(state), rng))
    return state


def _oven_30000(cfg: Config) -> GameState:
    state = _mid_game(cfg)
    state.data["oven_len"] = 30000  # the hand edit that crashed reset-then-step
    return state


# -- every state entering reset is validated, whatever its form ---------------------------
def _forms(state: GameState) -> dict:
    return {"GameState": state, "json": state.to_json(), "dict": state.to_dict()}


@pytest.mark.parametrize("form", ["GameState", "json", "dict"])
def test_aec_reset_refuses_a_hand_edited_state_in_any_form(form: str) -> None:
    cfg = Config(num_players=3)
    given = _forms(_oven_30000(cfg))[form]
    for e in (mm.raw_env(num_players=3), mm.env(num_players=3)):
        e.reset(seed=5)
        before = e.unwrapped.save_state()
        with pytest.raises(StateError, match="oven_len"):
            e.reset(options={"state": given})
        assert e.unwrapped.save_state() == before  # the refused reset changed nothing


@pytest.mark.parametrize("form", ["GameState", "json", "dict"])
def test_gym_reset_refuses_a_hand_edited_state_in_any_form(form: str) -> None:
    cfg = Config(num_players=3)
    env = MammaMiaGymEnv(num_players=3)
    env.reset(seed=1)
    before = env.games.state.data.tobytes()
    with pytest.raises(StateError, match="oven_len"):
        env.reset(options={"state": _forms(_oven_30000(cfg))[form]})
    assert env.games.state.data.tobytes() == before


def test_learner_games_start_is_validated() -> None:
    cfg = Config(num_players=3)
    games = LearnerGames(1, cfg)
    with pytest.raises(StateError, match="start is corrupt.*oven_len"):
        games.reset(seed=0, start=_oven_30000(cfg).data)
    with pytest.raises(StateError, match="state_dtype"):
        games.reset(seed=0, start=np.zeros(1))
    assert games.state is None  # nothing was dealt by the refused call


@pytest.mark.parametrize("given", [None, 5, [1, 2], b"\xff"])
def test_state_option_of_the_wrong_kind_names_the_option(given) -> None:
    e = mm.raw_env(num_players=2)
    with pytest.raises(StateError, match=r"options\['state'\]|saved state|JSON"):
        e.reset(options={"state": given})
    env = MammaMiaGymEnv(num_players=2)
    with pytest.raises(StateError, match=r"options\['state'\]|saved state|JSON"):
        env.reset(options={"state": given})


def test_deeply_nested_json_is_a_state_error() -> None:
    with pytest.raises(StateError, match="nested too deeply"):
        GameState.from_json("[" * 200_000)
    doc = json.loads(_mid_game(Config(num_players=2)).to_json())
    doc["games"][0]["piles"] = json.loads("[" * 500 + "]" * 500)
    with pytest.raises(StateError, match=r"games\[0\]\.piles"):
        GameState.from_dict(doc)


# -- out= buffers -------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["legal_masks", "observe", "global_state"])
def test_out_buffers_are_checked(method: str) -> None:
    eng3 = Engine(Config(num_players=3))
    # other sizes throughout: masks by the doubles, observations by the mode, state by N
    eng2 = Engine(Config(num_players=2, double_ingredients=True, observation_mode="top_card"))
    state = eng3.reset(seeds=[1, 2])
    good = getattr(eng3, method)(state)
    call = getattr(eng3, method)
    bad_buffers = {
        "other config's buffer": np.empty_like(getattr(eng2, method)(eng2.reset(seeds=[1, 2]))),
        "one row short": np.empty((1, good.shape[1]), good.dtype),
        "wrong dtype": np.empty(good.shape, np.float64),
        "not contiguous": np.empty((good.shape[0], 2 * good.shape[1]), good.dtype)[:, ::2],
        "read-only": np.empty_like(good),
        "a list": good.tolist(),
    }
    bad_buffers["read-only"].flags.writeable = False
    for name, buf in bad_buffers.items():
        with pytest.raises(ValueError, match="out"):
            call(state, out=buf)
        assert name
    out = np.empty_like(good)
    assert call(state, out=out) is out and np.array_equal(out, good)


def test_engine_refuses_a_state_of_another_layout() -> None:
    eng = Engine(Config(num_players=2))
    for bad in (GameState(eng.config, np.zeros(3)), "state", None):
        with pytest.raises(StateError):
            eng.legal_masks(bad)


# -- the vector env trusts no buffer it handed out ----------------------------------------
@pytest.mark.parametrize("batch", [8, 300])  # serial and parallel kernels
def test_vector_copy_false_edited_mask_lets_no_illegal_action_in(batch: int) -> None:
    venv = MammaMiaVectorEnv(batch, num_players=3, copy=False)
    obs, info = venv.reset(seed=11)
    mask = info["action_mask"]  # the env's own buffer, with copy=False
    illegal = np.flatnonzero(mask[0] == 0)[0]
    legal = random_legal(mask.copy(), np.random.default_rng(0))
    actions = legal.copy()
    actions[0] = illegal
    mask[0, illegal] = 1  # the user writes into the buffer it was handed
    before = venv.state.data.tobytes()
    with pytest.raises(IllegalActionError, match="game 0"):
        venv.step(actions)
    assert venv.state.data.tobytes() == before
    mask[0, illegal] = 0
    venv.step(legal)  # still usable ...
    actions = legal.copy()
    actions[0] = 10_000  # ... and out of range is refused as well
    with pytest.raises(IllegalActionError, match="game 0"):
        venv.step(actions)


# -- no agent is handed a seed or anything that determines hidden cards -------------------
def _harvest(obj, out: set[int]) -> None:
    """Every integer an agent could read in ``obj`` (also integral floats, and numbers
    written in strings)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            _harvest(k, out)
            _harvest(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _harvest(v, out)
    elif isinstance(obj, np.ndarray):
        flat = obj.ravel()
        if flat.dtype.kind in "iub":
            out.update(int(v) for v in np.unique(flat))
        elif flat.dtype.kind == "f":
            v = np.unique(flat[np.isfinite(flat)])
            out.update(int(x) for x in v[v == np.round(v)])
    elif _integral(obj):
        out.add(int(obj))


def _integral(obj) -> bool:
    if isinstance(obj, (bool, int, np.integer)):
        return True
    if isinstance(obj, (float, np.floating)):
        return bool(np.isfinite(obj)) and float(obj).is_integer()
    return isinstance(obj, str) and obj.strip().isdigit()


def _hidden_hands(rec: np.void, viewer: int, n: int) -> bytes:
    """What ``viewer`` may not know of a fresh deal: the other hands and the supply."""
    others = [s for s in range(n) if s != viewer]
    return rec["hand"][others].tobytes() + rec["supply"].tobytes()


def _redeal_finds_nothing(cfg: Config, seen: set[int], games: list[tuple[int, int]]) -> None:
    """No number handed to an agent re-deals any of ``games`` (seed, viewer seat)."""
    eng = Engine(cfg)
    n = cfg.num_players
    truth = {_hidden_hands(eng.reset(seeds=[s]).data[0], v, n) for s, v in games}
    candidates = sorted(c % 2**64 for c in seen)
    dealt = eng.reset(seeds=np.array(candidates, dtype=np.uint64))
    for rec in dealt.data:
        for v in range(n):
            assert _hidden_hands(rec, v, n) not in truth


SEED = 987_654_321_987  # far from any count, so an accidental match would be telling


def test_aec_agents_are_handed_no_seed() -> None:
    cfg = Config(num_players=3)
    env = mm.env(num_players=3, render_mode="ansi")
    env.reset(seed=SEED)
    seen: set[int] = set()
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        _harvest(obs, seen)
        _harvest(info, seen)
        _harvest(env.infos, seen)
        _harvest([int(x) for x in env.render().replace(",", " ").split() if x.isdigit()], seen)
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    assert SEED not in seen and SEED % 2**32 not in seen and SEED >> 32 not in seen
    _redeal_finds_nothing(cfg, seen, [(SEED, s) for s in range(3)])
    assert env.unwrapped.seed_used == SEED  # the experimenter still has it
    assert env.unwrapped.event_log()["seed"] == str(SEED)


def test_gym_and_vector_agents_are_handed_no_seed() -> None:
    cfg = Config(num_players=2)
    seen: set[int] = set()
    seeds: list[tuple[int, int]] = []
    env = MammaMiaGymEnv(num_players=2, record_actions=True)
    rng = np.random.default_rng(1)
    for ep in range(3):
        obs, info = env.reset(seed=SEED + ep)
        _harvest(info, seen)
        seeds.append((env.game_seed(), env.learner_seat))
        done = False
        while not done:
            obs, r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            _harvest((obs * env.games.scale).round(), seen)
            _harvest(info, seen)
            done = te or tr
    assert not {s for s, _ in seeds} & seen
    assert "game_seed" not in info["result"]

    venv = MammaMiaVectorEnv(16, num_players=2)
    obs, info = venv.reset(seed=SEED)
    for _ in range(300):
        _harvest(info, seen)
        _harvest(obs, seen)
        seeds += [(int(s), int(v)) for s, v in zip(venv.game_seeds(), info["seat"], strict=True)]
        obs, rew, term, trunc, info = venv.step(random_legal(info["action_mask"], rng))
        assert "final_seed" not in info and "game_seed" not in info
    assert not {s for s, _ in seeds} & seen
    _redeal_finds_nothing(cfg, seen, seeds[:64])


class _RngSpy:
    """An opponent that keeps a copy of every generator state it is handed."""

    observation_mode = "fixed"

    def __init__(self) -> None:
        self.states: list[dict] = []
        self.inner = UniformRandomPolicy()

    def act_batch(self, observations, masks, rng, seats=None):
        self.states.append(rng.bit_generator.state)
        return self.inner.act_batch(observations, masks, rng, seats)


def test_opponents_cannot_predict_the_next_deals() -> None:
    """Before the fix, opponents got the generator that draws every later game seed."""
    pytest.importorskip("stable_baselines3")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    spy = _RngSpy()
    venv = MammaMiaSB3VecEnv(8, num_players=2, opponents=spy, seed=4)
    venv.reset()
    later: set[int] = set()
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, rewards, dones, infos = venv.step(
            np.array([int(rng.choice(np.flatnonzero(m))) for m in venv.action_masks()])
        )
        for i in np.flatnonzero(dones):
            assert "game_seed" not in infos[i]["result"]
        later.update(int(s) for s in venv.game_seeds())
    assert len(later) > 8
    for state in spy.states[:20]:
        g = np.random.default_rng()
        g.bit_generator.state = state
        predicted = set(g.integers(0, 2**63, size=64, dtype=np.uint64).tolist())
        assert not predicted & later


# -- no silent coercion; errors name the argument -----------------------------------------
BAD_SEEDS = [1.5, "5", True, np.float64(2.0), 2**64, -1, [3]]


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_bad_seeds_are_refused_everywhere(seed) -> None:
    with pytest.raises(ValueError, match="seed"):
        mm.raw_env(num_players=2).reset(seed=seed)
    with pytest.raises(ValueError, match="seed"):
        MammaMiaGymEnv(num_players=2).reset(seed=seed)
    venv = MammaMiaVectorEnv(4, num_players=2)
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=seed)
    with pytest.raises(ValueError, match="seeds"):
        Engine(Config(num_players=2)).reset(seeds=seed, batch_size=2)
    with pytest.raises(ValueError, match="seed"):
        LearnerGames(1, Config(num_players=2)).reset(seed=seed)


@pytest.mark.parametrize("seeds", ["12", [1.5, 2], [True, 1], np.array([1.0, 2.0]), {1: 2}])
def test_engine_reset_refuses_seed_lists_that_are_not_ints(seeds) -> None:
    with pytest.raises(ValueError, match="seeds"):
        Engine(Config(num_players=2)).reset(seeds=seeds)


def test_a_wrong_type_is_both_a_type_error_and_a_value_error() -> None:
    """Callers that caught the ValueError a bad seed always raised keep working."""
    with pytest.raises(ArgumentTypeError, match="seed must be an int"):
        mm.raw_env(num_players=2).reset(seed=1.5)
    assert issubclass(ArgumentTypeError, TypeError) and issubclass(ArgumentTypeError, ValueError)


def test_numpy_integers_are_ints() -> None:
    s = np.int64(7)
    e = mm.raw_env(num_players=2)
    e.reset(seed=s)
    assert e.seed_used == 7
    env = MammaMiaGymEnv(num_players=2)
    env.reset(seed=np.uint32(7), options={"learner_seat": np.int8(1), "game_seed": np.uint64(9)})
    assert env.learner_seat == 1 and env.game_seed() == 9
    env.step(np.int64(np.flatnonzero(env.action_masks())[0]))
    env.step(np.array(np.flatnonzero(env.action_masks())[0]))  # predict()'s 0-d array
    venv = MammaMiaVectorEnv(2, num_players=2)
    venv.reset(seed=np.uint64(2**64 - 1))  # the last seed; slot 1 wraps to 0
    assert venv.game_seeds().tolist() == [2**64 - 1, 0]
    assert Engine(Config(num_players=2)).reset(seeds=np.array([3, 4])).batch_size == 2
    assert Config(num_players=np.int64(3)).num_players == 3


@pytest.mark.parametrize("action", [True, 18.7, "3", np.float64(3.0), np.array([3]), None])
def test_gym_step_refuses_non_int_actions_in_both_modes(action) -> None:
    for mode in ("terminate", "raise"):
        env = MammaMiaGymEnv(num_players=2, illegal_action=mode)
        env.reset(seed=0)
        before = env.games.state.data.tobytes()
        with pytest.raises(IllegalActionError, match="action must be an int"):
            env.step(action)
        assert env.games.state.data.tobytes() == before


@pytest.mark.parametrize("action", [True, np.bool_(True), 3.0])
def test_aec_step_refuses_non_int_actions(action) -> None:
    e = mm.raw_env(num_players=2)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match="action must be an int"):
        e.step(action)


def test_aec_step_after_everyone_left_names_reset() -> None:
    e = mm.raw_env(num_players=2, max_turns=2, idle_cycle_guard=False)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents
    with pytest.raises(RuntimeError, match="reset"):
        e.step(None)
    with pytest.raises(RuntimeError, match="reset"):
        mm.raw_env(num_players=2).step(0)


BAD_POSITIONS = {
    "float round": ({"round": 1.0}, "'round'"),
    "bool round": ({"round": True}, "'round'"),
    "string round": ({"round": "1"}, "'round'"),
    "round 300": ({"round": 300}, "'round'"),
    "float seat": ({"seat": 1.5}, "'seat'"),
    "seat 2**70": ({"seat": 2**70}, "'seat'"),
    "float count": ({"hands": {"0": {"salami": 2.0}}}, r"hands\[0\]"),
    "bool count": ({"hands": {"0": {"salami": True}}}, r"hands\[0\]"),
    "string count": ({"piles": {"salami": "2"}}, "piles"),
    "huge count": ({"piles": {"salami": 10**30}}, "piles"),
    "float seat key": ({"hands": {1.0: {"salami": 1}}}, "'hands' seat"),
    "float oven seat": ({"oven": [[1.0, "1 salami"]]}, r"oven\[0\] seat"),
    "float order type": ({"orders_in_hand": {"0": [1.0]}}, r"orders_in_hand\[0\]"),
    "bool stack entry": ({"stacks": {"0": [True]}}, r"stacks\[0\]"),
    "bool mm_holder": ({"mm_holder": True}, "'mm_holder'"),
    "float seed": ({"seed": 1.5}, "'seed'"),
    "seed 2**64": ({"seed": 2**64}, "'seed'"),
    "string turns": ({"turns": "3"}, "'turns'"),
    "int reveal": ({"reveal": 1}, "'reveal'"),
    "oven not a list": ({"oven": "1 salami"}, "'oven'"),
    "supply of ints": ({"supply": [1, 2]}, "card is named by a string"),
    "not a dict": (None, "description is a dict"),
}


@pytest.mark.parametrize("name", list(BAD_POSITIONS))
def test_build_position_refuses_coercions(name: str) -> None:
    desc, pattern = BAD_POSITIONS[name]
    if desc is not None:
        desc = {"config": {"num_players": 3}, **desc}
    with pytest.raises(StateError, match=pattern):
        mm.build_position(desc)


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"kind": "salami", "singles": 1, "order": 2.5}, "order"),
        ({"kind": "salami", "singles": 1.0}, "singles"),
        ({"kind": "salami", "singles": True}, "singles"),
        ({"kind": "salami", "singles": 1, "doubles": "0"}, "doubles"),
        ({"kind": 1.0, "singles": 1}, "ingredient"),
        ({"kind": "salami", "singles": 1, "draw": 1}, "draw"),
    ],
)
def test_encode_turn_refuses_coercions(kwargs: dict, pattern: str) -> None:
    codec = mm.ActionCodec(Engine(Config(num_players=2)))
    with pytest.raises(ValueError, match=pattern):
        codec.encode_turn(**kwargs)
    for bad in (2.5, True, "3"):
        with pytest.raises(ValueError, match="action"):
            codec.decode(bad)


def test_sb3_actions_of_the_wrong_shape_are_refused() -> None:
    pytest.importorskip("stable_baselines3")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    venv = MammaMiaSB3VecEnv(8, num_players=2, seed=0)
    venv.reset()
    first = venv.action_masks().argmax(axis=1)
    for bad in (first.reshape(4, 2), first[:4], first.astype(str), first + 0.5):
        venv.step_async(bad)
        with pytest.raises(IllegalActionError, match="shape|integers|whole"):
            venv.step_wait()
    with pytest.raises(ValueError, match="seed"):
        venv.seed(1.5)
    venv.step(first)  # the env is still at the same decisions


# -- a failed call leaves the env as it was ------------------------------------------------
class _Flaky:
    """Uniformly random, but raises on demand (after drawing from its generator)."""

    observation_mode = "fixed"

    def __init__(self) -> None:
        self.fail = False
        self.inner = UniformRandomPolicy()

    def __repr__(self) -> str:
        return "Flaky()"

    def act_batch(self, observations, masks, rng, seats=None):
        acts = self.inner.act_batch(observations, masks, rng, seats)
        if self.fail:
            raise ZeroDivisionError("boom")
        return acts


def _gym_fingerprint(env: MammaMiaGymEnv) -> tuple:
    g = env.games
    return (
        g.state.data.tobytes(), g.carry.tobytes(), g.ep_return.tobytes(), g.ep_length.tobytes(),
        g.act_rng.bit_generator.state["state"]["state"], env.action_masks().tobytes(),
        [len(h) for h in g.history],
    )  # fmt: skip


def test_gym_step_with_a_raising_opponent_is_undone() -> None:
    flaky, twin_opp = _Flaky(), _Flaky()
    env = MammaMiaGymEnv(num_players=3, opponents=flaky, learner_seat=0, record_actions=True)
    twin = MammaMiaGymEnv(num_players=3, opponents=twin_opp, learner_seat=0, record_actions=True)
    env.reset(seed=21)
    twin.reset(seed=21)
    rng = np.random.default_rng(2)
    failed = 0
    for step in range(40):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        out = None
        if step % 3 == 1:
            before = _gym_fingerprint(env)
            flaky.fail = True
            try:
                out = env.step(a)  # no opponent moved: the step is complete
            except OpponentError as exc:
                assert "opponent Flaky() raised ZeroDivisionError" in str(exc)
                assert _gym_fingerprint(env) == before  # the learner's move is not applied
                failed += 1
            flaky.fail = False
        if out is None:
            out = env.step(a)  # the retry: must equal the step that never failed
        ref = twin.step(a)
        assert out[1:4] == ref[1:4] and np.array_equal(out[0], ref[0])
        assert env.games.state.data.tobytes() == twin.games.state.data.tobytes()
        if out[2] or out[3]:
            env.reset()
            twin.reset()
    assert failed >= 10


def test_sb3_step_with_a_raising_opponent_is_undone() -> None:
    pytest.importorskip("stable_baselines3")
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    flaky = _Flaky()
    venv = MammaMiaSB3VecEnv(6, num_players=3, opponents=flaky, seed=3)
    twin = MammaMiaSB3VecEnv(6, num_players=3, opponents=_Flaky(), seed=3)
    venv.reset()
    twin.reset()
    rng = np.random.default_rng(0)
    failed = 0
    for step in range(60):
        masks = venv.action_masks()
        acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        out = None
        if step % 4 == 0:
            before = (venv.games.state.data.tobytes(), masks.tobytes())
            flaky.fail = True
            try:
                out = venv.step(acts)
            except OpponentError as exc:
                assert "Flaky" in str(exc)
                assert venv.games.state.data.tobytes() == before[0]
                assert venv.action_masks().tobytes() == before[1]  # not stale
                failed += 1
            flaky.fail = False
        obs, rewards, dones, infos = out if out is not None else venv.step(acts)
        obs2, rewards2, dones2, _ = twin.step(acts)
        assert np.array_equal(obs, obs2) and np.array_equal(rewards, rewards2)
        assert np.array_equal(dones, dones2)
    assert failed >= 10


def test_gym_reset_that_fails_leaves_the_previous_game() -> None:
    flaky = _Flaky()
    env = MammaMiaGymEnv(num_players=2, opponents=flaky, learner_seat=1)
    env.reset(seed=8)
    before = _gym_fingerprint(env)
    flaky.fail = True  # seat 0 moves first: reset runs the opponent
    with pytest.raises(OpponentError):
        env.reset(seed=9)
    assert _gym_fingerprint(env) == before
    flaky.fail = False
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # the old game goes on


def test_vector_reset_with_a_bad_seed_leaves_the_env_usable() -> None:
    venv = MammaMiaVectorEnv(16, num_players=4)
    obs, info = venv.reset(seed=5)
    rng = np.random.default_rng(0)
    obs, _, _, _, info = venv.step(random_legal(info["action_mask"], rng))
    before = (venv.state.data.tobytes(), venv.game_seeds().tobytes())
    for bad in (2**64, -1, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            venv.reset(seed=bad)
    assert (venv.state.data.tobytes(), venv.game_seeds().tobytes()) == before
    for _ in range(200):  # later steps and autoresets run as if nothing happened
        obs, _, _, _, info = venv.step(random_legal(info["action_mask"], rng))
    assert (venv.state.data["phase"] != OVER).all()


def test_replay_checks_seed_actions_and_start() -> None:
    cfg = Config(num_players=2)
    eng = Engine(cfg)
    state = eng.reset(seeds=[0])
    a = int(np.flatnonzero(eng.legal_masks(state)[0])[0])
    assert mm.replay(cfg, np.int64(0), [np.int64(a)]).data["turns"][0] == 1
    for bad_seed in (1.5, True, "0"):
        with pytest.raises(ValueError, match="seed"):
            mm.replay(cfg, bad_seed, [a])
    for bad in ([float(a)], [True], "12", 5):
        with pytest.raises(ValueError, match="actions"):
            mm.replay(cfg, 0, bad)
        with pytest.raises(ValueError, match="actions"):
            mm.replay_events(cfg, 0, bad)
    with pytest.raises(StateError, match="start is corrupt"):
        mm.replay(cfg, 0, [a], start=_oven_30000(cfg))
    with pytest.raises(StateError, match="start"):
        mm.replay_events(cfg, 0, [a], start="not a state")


@pytest.mark.parametrize("action", [True, False, np.bool_(True), 18.7, "3"])
def test_wrapped_aec_env_refuses_non_int_actions_as_out_of_space(action) -> None:
    """Before the fix ``env().step(True)`` was read as action 1 by the bounds check."""
    e = mm.env(num_players=2)
    e.reset(seed=0)
    before = e.unwrapped.save_state()
    with pytest.raises(AssertionError, match=r"^player_0: action .* is not in action space"):
        e.step(action)
    assert e.unwrapped.save_state() == before
