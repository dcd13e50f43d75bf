"""Regression tests for the defects the fuzz suite found (docs/TESTING.md).

One test per defect, named for what must hold, and tests of the same pattern found
elsewhere (its siblings). Each refusal is checked for its type, for a message naming
the argument (or the place in a description) and what was wrong, and, where there is
an object to change, that the refused call left it as it was.

A hole found and not fixed yet would be pinned here by a ``xfail(strict=True)`` test
and listed in ``fuzz_harness.KNOWN_HOLES``; none is left.
"""

from __future__ import annotations

import numpy as np
import pytest

import mamma_mia_env
from mamma_mia_env import ArgumentTypeError, Config, Engine, GameState, StateError
from mamma_mia_env.game.engine import IllegalActionError


def test_tournament_observes_top_card_agents_under_their_own_config() -> None:
    """A ``top_card`` agent (forgetful) is observed through an engine of its own mode,
    and the tournament hands that engine the games under the observer's config (found by
    the CLI fuzz when the engine briefly refused states of another observation mode:
    ``--agents forgetful`` raised "the state was made for another config")."""
    from mamma_mia_agents.tournament import run_tournament

    res = run_tournament(["forgetful", "random"], num_players=2, games=4, progress=False)
    assert res.games == 4
    res = run_tournament(["forgetful"], num_players=3, games=3, workers=1, progress=False)
    assert res.games == 3


@pytest.mark.parametrize("action", [10**9, -1, "3", 1.5, None, np.array([1, 2]), np.float64(2)])
def test_env_out_of_bounds_action_is_a_named_value_error(action) -> None:
    """``env()``'s bounds wrapper raised a bare ``AssertionError`` ("action is not in
    action space", gone under ``python -O``); now an ``IllegalActionError`` (still an
    ``AssertionError`` for PettingZoo code) naming the agent and the action."""
    from mamma_mia_env.game.engine import IllegalActionError

    e = mamma_mia_env.env(num_players=2)
    e.reset(seed=3)
    before = e.unwrapped.game.data.tobytes()
    with pytest.raises(IllegalActionError, match=r"player_\d: action .* is not in action space"):
        e.step(action)
    with pytest.raises(AssertionError):
        e.step(action)
    assert e.unwrapped.game.data.tobytes() == before


# -- real numbers read with float() --------------------------------------------------------------
BAD_REALS = [
    ([], TypeError, r"must be a real number, got \[\] \(list\)"),
    ("0.5", TypeError, r"must be a real number, got '0\.5' \(str\)"),  # was read as 0.5
    (True, TypeError, r"must be a real number, got True \(bool\)"),  # was read as 1.0
    (None, TypeError, r"must be a real number, got None"),
    (float("nan"), ValueError, r"must be a finite number, got nan"),
    (float("inf"), ValueError, r"must be a finite number, got inf"),
]


@pytest.mark.parametrize(("penalty", "error", "what"), BAD_REALS)
@pytest.mark.parametrize("api", ["gym", "learner", "sb3"])
def test_gym_opponent_delivery_penalty_of_the_wrong_type_is_named(
    penalty, error, what, api
) -> None:
    """``opponent_delivery_penalty=[]`` raised ``TypeError: float() argument must be a
    string or a real number`` (naming nothing); ``"0.5"`` and ``True`` were silently
    read as 0.5 and 1.0. Each is refused naming the argument and what was wrong."""
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
    from mamma_mia_env.envs.learner import LearnerGames
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    make = {
        "gym": lambda: MammaMiaGymEnv(num_players=2, opponent_delivery_penalty=penalty),
        "learner": lambda: LearnerGames(
            2, Config(num_players=2), opponent_delivery_penalty=penalty
        ),
        "sb3": lambda: MammaMiaSB3VecEnv(2, num_players=2, opponent_delivery_penalty=penalty),
    }[api]
    with pytest.raises(error, match="opponent_delivery_penalty " + what):
        make()


def test_opponent_delivery_penalty_keeps_the_number_given() -> None:
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv

    for value in (0, 1, 0.25, np.float32(0.5), np.int64(2)):
        env = MammaMiaGymEnv(num_players=2, opponent_delivery_penalty=value)
        assert env.games.opponent_delivery_penalty == float(value)
        assert type(env.games.opponent_delivery_penalty) is float


@pytest.mark.parametrize(("reward", "error", "what"), BAD_REALS)
@pytest.mark.parametrize("api", ["gym", "aec_env"])
def test_illegal_reward_of_the_wrong_type_is_named(reward, error, what, api) -> None:
    """The sibling: ``illegal_reward`` went through ``float()`` in the gym env and
    unchecked into PettingZoo's wrapper in ``env()`` (a string reward was handed out)."""
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv

    make = {
        "gym": lambda: MammaMiaGymEnv(num_players=2, illegal_reward=reward),
        "aec_env": lambda: mamma_mia_env.env(num_players=2, illegal_reward=reward),
    }[api]
    with pytest.raises(error, match="illegal_reward " + what):
        make()


@pytest.mark.parametrize(
    ("probs", "error", "what"),
    [
        (["a", 1], TypeError, r"opponent_probs\[0\] must be a real number, got 'a'"),
        ([True, 1], TypeError, r"opponent_probs\[0\] must be a real number, got True"),
        ([float("nan"), 1], ValueError, r"opponent_probs\[0\] must be a finite number"),
        ([-1, 1], ValueError, r"opponent_probs\[0\] must be at least 0.0, got -1.0"),
        ([1], ValueError, r"opponent_probs must be 2 non-negative weights .*got \[1.0\]"),
        ([0, 0], ValueError, r"opponent_probs must be .* with a positive sum"),
        ("ab", TypeError, r"opponent_probs must be a list of weights"),
        (3, TypeError, r"opponent_probs must be a list of weights"),
    ],
)
def test_opponent_probs_of_the_wrong_type_are_named(probs, error, what) -> None:
    """The sibling in ``set_opponents``: ``np.asarray(probs, float)`` raised numpy's
    "could not convert string to float" and read ``True`` as weight 1. A refused
    ``set_opponents`` keeps the pool it had."""
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
    from mamma_mia_env.policy import UniformRandomPolicy

    pool = [UniformRandomPolicy(), UniformRandomPolicy()]
    with pytest.raises(error, match=what):
        MammaMiaGymEnv(num_players=2, opponents=pool, opponent_probs=probs)
    env = MammaMiaGymEnv(num_players=2, opponents=pool, opponent_probs=[1, 3])
    before = (list(env.games.pool), env.games.pool_p.copy())
    with pytest.raises(error, match=what):
        env.set_opponents(pool, probs)
    assert env.games.pool == before[0]
    assert np.array_equal(env.games.pool_p, before[1])
    assert np.allclose(before[1], [0.25, 0.75])


@pytest.mark.parametrize(
    ("argument", "value"),
    [("canonical", "no"), ("normalize", 0), ("canonical", None), ("record_actions", "yes")],
)
def test_gym_switches_are_bools(argument, value) -> None:
    """A sibling of the silent coercions: ``canonical="no"`` was truthy, so read as True."""
    from mamma_mia_env.envs.gym_env import MammaMiaGymEnv

    with pytest.raises(TypeError, match=f"{argument} must be True or False, got {value!r}"):
        MammaMiaGymEnv(num_players=2, **{argument: value})


def test_vector_env_copy_is_a_bool() -> None:
    from mamma_mia_env.envs.vector import MammaMiaVectorEnv

    with pytest.raises(TypeError, match="copy must be True or False, got 'no'"):
        MammaMiaVectorEnv(2, num_players=2, copy="no")
    assert MammaMiaVectorEnv(2, num_players=2, copy=np.bool_(False)).copy is False


# -- card names read without their place ---------------------------------------------------------
@pytest.mark.parametrize(
    ("description", "where"),
    [
        ({"piles": {"bogus": 0}}, r"piles: unknown ingredient 'bogus'"),
        ({"hands": {"0": {"double bogus": 1}}}, r"hands\[0\]: unknown ingredient 'bogus'"),
        ({"hands": {"1": {"salami": 1, "x": 1}}}, r"hands\[1\]: unknown ingredient 'x'"),
        ({"used": {"mamma miaa": 1}}, r"used: unknown ingredient 'mamma miaa'"),
        ({"used": {3: 1}}, r"used: a card is named by a string, got 3"),
        ({"supply": ["salami", "ham"]}, r"supply\[1\]: unknown ingredient 'ham'"),
        ({"supply": ["salami", None]}, r"supply\[1\]: a card is named by a string, got None"),
        ({"oven": [[0, "3 ham"]]}, r"oven\[0\]: unknown ingredient 'ham'"),
        ({"oven": [[0, "1 double ham"]]}, r"oven\[0\]: unknown ingredient 'ham'"),
    ],
)
def test_build_position_names_where_an_unknown_card_name_is(description, where) -> None:
    """``{"piles": {"bogus": 0}}`` was refused with "unknown ingredient 'bogus'", which
    did not say where the name was (piles, which seat's hand, the oven, the supply)."""
    with pytest.raises(StateError, match=where):
        mamma_mia_env.build_position(description)


def test_card_code_names_its_place() -> None:
    from mamma_mia_env.game.positions import card_code

    assert card_code("double olive") == 9
    with pytest.raises(StateError, match=r"^card: unknown ingredient 'ham'"):
        card_code("ham")
    with pytest.raises(StateError, match=r"^hands\[2\]: a card is named by a string"):
        card_code(7, "hands[2]")  # type: ignore[arg-type]


# -- np.asarray(...) raising before the check ----------------------------------------------------
RAGGED = [[0, []], [[0], 1]]


@pytest.mark.parametrize("seats", RAGGED)
def test_observe_names_seats_that_are_not_an_array(seats) -> None:
    """``Engine.observe(state, seats=[0, []])`` raised numpy's "setting an array element
    with a sequence ... inhomogeneous shape", which named nothing."""
    eng = Engine(num_players=2)
    state = eng.reset(seeds=[1, 2])
    before = state.data.tobytes()
    with pytest.raises(ArgumentTypeError, match=r"^seats must be an array .*inhomogeneous"):
        eng.observe(state, seats=seats)
    assert state.data.tobytes() == before


@pytest.mark.parametrize("active", RAGGED)
def test_step_names_an_active_mask_that_is_not_an_array(active) -> None:
    """``Engine.step(state, actions, active=[[], 0])`` raised numpy's "inhomogeneous
    shape" ``ValueError``, naming nothing; the refused step moves no game."""
    eng = Engine(num_players=2)
    state = eng.reset(seeds=[1, 2])
    acts = np.array([np.flatnonzero(m)[0] for m in eng.legal_masks(state)])
    before = state.data.tobytes()
    with pytest.raises(ArgumentTypeError, match=r"^active must be an array .*inhomogeneous"):
        eng.step(state, acts, active=active)
    assert state.data.tobytes() == before


@pytest.mark.parametrize("actions", RAGGED)
@pytest.mark.parametrize("api", ["engine", "check_actions", "vector", "learner", "sb3"])
def test_actions_that_are_not_an_array_are_named(actions, api) -> None:
    """The sibling at every batched action entry point: a ragged list raised numpy's
    "inhomogeneous shape"; now an ``IllegalActionError`` (as any other bad action)
    naming ``actions``, and no game moved."""
    from mamma_mia_env.envs.learner import LearnerGames
    from mamma_mia_env.envs.vector import MammaMiaVectorEnv
    from mamma_mia_env.integrations.sb3 import MammaMiaSB3VecEnv

    if api in ("engine", "check_actions"):
        eng = Engine(num_players=2)
        state = eng.reset(seeds=[1, 2])
        call = (
            (lambda: eng.step(state, actions))
            if api == "engine"
            else (lambda: eng.check_actions(state, actions))
        )
    elif api == "vector":
        env = MammaMiaVectorEnv(2, num_players=2)
        env.reset(seed=1)
        state, call = env.state, lambda: env.step(actions)
    else:
        if api == "learner":
            games = LearnerGames(2, Config(num_players=2))
            games.reset(seed=1)
            call = lambda: games.step(actions)  # noqa: E731
        else:
            venv = MammaMiaSB3VecEnv(2, num_players=2)
            venv.reset()
            games = venv.games
            call = lambda: venv.step(actions)  # noqa: E731
        state = games.state
    before = state.data.tobytes()
    with pytest.raises(IllegalActionError, match=r"^actions must be an array .*inhomogeneous"):
        call()
    assert state.data.tobytes() == before


def test_learner_games_seats_that_are_not_an_array_are_named() -> None:
    from mamma_mia_env.envs.learner import LearnerGames

    games = LearnerGames(2, Config(num_players=2), learner_seat=None)
    games.reset(seed=1)
    before = (games.state.data.tobytes(), games.seat.copy())
    with pytest.raises(ArgumentTypeError, match=r"^seats must be an array .*inhomogeneous"):
        games.reset(seed=2, seats=[0, []])
    with pytest.raises(ValueError, match=r"seats must be 2 integer seats, got array\(\[0\.5"):
        games.reset(seed=2, seats=[0.5, 1])
    assert games.state.data.tobytes() == before[0]
    assert np.array_equal(games.seat, before[1])


@pytest.mark.parametrize("start", ["records as a list", "a dict", "a GameState", "an int array"])
def test_learner_games_start_names_records_that_are_not_an_array(start) -> None:
    """``LearnerGames.reset(start=state.data.tolist())`` (records as a list) raised
    numpy's "inhomogeneous shape" ``ValueError``, naming nothing. ``start`` is records
    (``GameState.data``); anything else is refused naming it, and the games in
    progress are left as they were."""
    from mamma_mia_env.envs.learner import LearnerGames

    games = LearnerGames(1, Config(num_players=2), learner_seat=0)
    games.reset(seed=1)
    before = games.state.data.tobytes()
    dealt = Engine(num_players=2).reset(seeds=[4])
    given = {
        "records as a list": dealt.data.tolist(),
        "a dict": dealt.to_dict(),
        "a GameState": dealt,
        "an int array": np.zeros(3, np.int64),
    }[start]
    if start == "an int array":
        error, what = StateError, r"^start\.data must be an array of state_dtype\(\) records"
    else:
        error, what = TypeError, r"^start must be a numpy array of state_dtype\(\) records"
    with pytest.raises(error, match=what):
        games.reset(seed=1, start=given)
    assert games.state.data.tobytes() == before
    games.reset(seed=1, start=dealt.data)  # records are what start takes
    assert games.state.data["seed"][0] == dealt.data["seed"][0]
    games.reset(seed=1, start=dealt.data[0])  # one record too


# -- actions range-checked by int64 assignment ---------------------------------------------------
@pytest.mark.parametrize("which", ["replay", "replay_events"])
@pytest.mark.parametrize("action", [2**63, -(2**63) - 1, 10**30, -1, 10**6])
def test_replay_names_an_action_too_large_for_int64(which, action) -> None:
    """``replay(config, seed, [2**63])`` raised ``OverflowError: Python int too large to
    convert to C long``: not a ValueError, and naming nothing. Every action outside the
    action space is refused before any is played, naming its index."""
    fn = getattr(mamma_mia_env, which)
    cfg = Config(num_players=2)
    n = Engine(cfg).n_actions
    with pytest.raises(ValueError, match=rf"^actions\[1\] must be in 0-{n - 1}, got {action}$"):
        fn(cfg, 1, [0, action])


@pytest.mark.parametrize("which", ["replay", "replay_events"])
def test_replay_names_the_index_of_an_illegal_or_late_action(which) -> None:
    """Siblings: an illegal action in a replay was reported as "game 0: action ..."
    (the engine's batch index, not the action's place in the list), and an action
    after the end as "action i" (not the argument's name)."""
    from mamma_mia_env.game.log import replay

    cfg = Config(num_players=2)
    eng = Engine(cfg)
    state = eng.reset(seeds=[1])
    legal = np.flatnonzero(eng.legal_masks(state)[0])
    illegal = int(np.flatnonzero(eng.legal_masks(state)[0] == 0)[0])
    fn = getattr(mamma_mia_env, which)
    with pytest.raises(IllegalActionError, match=rf"^actions\[0\]: action {illegal} is illegal"):
        fn(cfg, 1, [illegal])
    actions, rng = [], np.random.default_rng(0)
    while state.data["phase"][0] != 2:
        a = int(rng.choice(np.flatnonzero(eng.legal_masks(state)[0])))
        eng.step(state, np.array([a]))
        actions.append(a)
    assert replay(cfg, 1, actions).equals(state)
    k = len(actions)
    with pytest.raises(IllegalActionError, match=rf"^actions\[{k}\] comes after the end"):
        fn(cfg, 1, [*actions, int(legal[0])])


# -- a message naming no argument ----------------------------------------------------------------
def test_encode_turn_names_the_cards_of_a_pass() -> None:
    """``encode_turn(kind=None, doubles=1)`` was refused with "a pass plays no cards",
    which did not name the arguments at fault (``singles`` / ``doubles``)."""
    codec = mamma_mia_env.ActionCodec(Engine(num_players=2))
    with pytest.raises(
        ValueError,
        match=r"^a pass \(kind=None\) plays no cards: singles and doubles must be 0, got "
        r"singles=0, doubles=1$",
    ):
        codec.encode_turn(kind=None, doubles=1)
    with pytest.raises(ValueError, match=r"singles=2, doubles=0$"):
        codec.encode_turn(kind=None, singles=2)


@pytest.mark.parametrize(
    ("call", "error", "what"),
    [
        (lambda c: c.encode_turn("ham", 1), ValueError, r"^kind: unknown ingredient 'ham'"),
        (lambda c: c.encode_turn(7, 1), ValueError, r"^kind: an ingredient index must be 0-4"),
        (lambda c: c.encode_turn(1.0, 1), TypeError, r"^kind must be an ingredient name"),
        (lambda c: c.encode_reveal("deliver_as"), ValueError, r"deliver_as' needs kind"),
        (lambda c: c.encode_reveal("deliver_as", "x"), ValueError, r"^kind: unknown ingr"),
    ],
)
def test_codec_names_the_kind_argument(call, error, what) -> None:
    """Siblings: the codec's ingredient messages ("unknown ingredient", "deliver_as needs
    an ingredient") did not name the argument ``kind``."""
    codec = mamma_mia_env.ActionCodec(Engine(num_players=2))
    with pytest.raises(error, match=what):
        call(codec)


# -- empty batches -------------------------------------------------------------------------------
@pytest.mark.parametrize("seeds", [[], np.zeros(0, np.uint64), ()])
def test_engine_reset_refuses_an_empty_list_of_seeds(seeds) -> None:
    """``Engine.reset(seeds=[])`` returned a batch of 0 games (docs/ENV.md: batch_size
    >= 1), on which ``check_state`` itself then failed ("cannot reshape array of size
    0"). Refused as the rest of the API refuses empty input: a batch holds a game."""
    eng = Engine(num_players=2)
    with pytest.raises(ValueError, match=r"^seeds must hold at least one seed"):
        eng.reset(seeds=seeds)
    with pytest.raises(ValueError, match=r"^seeds must hold at least one seed"):
        eng.reset(seeds=seeds, batch_size=2)
    with pytest.raises(ValueError, match=r"^seeds: got 1 seeds for a batch of 2"):
        eng.reset(seeds=[5], batch_size=2)
    with pytest.raises(ValueError, match=r"^batch_size must be in 1-4194304, got 0"):
        eng.reset(seeds=seeds, batch_size=0)


def test_reset_games_checks_its_index() -> None:
    """The sibling ``Engine.reset_games(state, index, seeds)``: the index went unchecked
    into ``state.data[index]`` (numpy's ``IndexError``, or a game dealt twice)."""
    eng = Engine(num_players=2)
    state = eng.reset(seeds=[1, 2, 3])
    before = state.data.tobytes()
    for index, error, what in [
        ([3], ValueError, r"^index: game indices must be in 0-2, got \[3\]"),
        ([-1], ValueError, r"^index: game indices must be in 0-2"),
        ([1, 1], ValueError, r"^index: a game is given twice"),
        ([0.0], TypeError, r"^index must be a 1-d array of game indices"),
        ([[0], 1], TypeError, r"^index must be an array"),
        (np.ones(2, bool), ValueError, r"^index: a bool mask must have shape \(3,\)"),
    ]:
        with pytest.raises(error, match=what):
            eng.reset_games(state, index, [9])
    with pytest.raises(ValueError, match=r"^seeds: got 1 seeds for a batch of 2"):
        eng.reset_games(state, [0, 1], [9])
    assert state.data.tobytes() == before
    eng.reset_games(state, np.array([False, True, False]), [9])
    assert state.data["seed"].tolist() == [1, 9, 3]
    eng.reset_games(state, [], [])  # nothing to deal
    assert state.data["seed"].tolist() == [1, 9, 3]


def test_learner_games_refuse_an_empty_list_of_game_seeds() -> None:
    from mamma_mia_env.envs.learner import LearnerGames

    games = LearnerGames(2, Config(num_players=2))
    with pytest.raises(ValueError, match=r"^game_seeds must hold 2 seeds, got 0"):
        games.reset(seed=1, game_seeds=[])
    assert games.state is None  # the refused first reset dealt nothing


def test_check_state_handles_an_empty_batch() -> None:
    """``check_state`` on a batch of 0 games raised "cannot reshape array of size 0 into
    shape (0,newaxis)" instead of returning its (empty) list of problems; the engine's
    entry points still refuse the empty batch (``check_layout``)."""
    from mamma_mia_env.game.state import StateTypeError, check_layout, check_state

    empty = GameState.empty(Config(), 0)
    assert check_state(empty) == []
    with pytest.raises(StateError, match=r"^state\.data must be one-dimensional and non-empty"):
        check_layout(empty)
    with pytest.raises(StateTypeError, match=r"^state must be a GameState, got dict"):
        check_state({})  # type: ignore[arg-type]
    with pytest.raises(StateError, match=r"^state must be a GameState, got dict"):
        Engine().observe({})  # type: ignore[arg-type]


def test_game_state_empty_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match=r"^batch_size must be in 0-4194304, got -1"):
        GameState.empty(Config(), -1)
    with pytest.raises(TypeError, match=r"^batch_size must be an int, got 2\.0"):
        GameState.empty(Config(), 2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^config must be a Config, got dict"):
        GameState.empty({}, 1)  # type: ignore[arg-type]


# -- siblings in the samplers and the bots -------------------------------------------------------
def test_sampling_reads_seats_and_counts_without_coercion() -> None:
    """``sample_worlds(state, 1.7, rng, True)`` sampled 1 world as seat 1 (``np.full``
    and ``isinstance(True, int)``); a state of another layout went to the kernel."""
    from mamma_mia_env.game.sampling import sample_world, sample_worlds

    state = Engine(num_players=2).reset(seeds=[1])
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match=r"^seat must be an int, got 1\.7"):
        sample_worlds(state, 1.7, rng, 3)
    with pytest.raises(TypeError, match=r"^count must be an int, got True"):
        sample_worlds(state, 1, rng, True)
    with pytest.raises(TypeError, match=r"^seat must be an array .*inhomogeneous"):
        sample_world(state, [[0], 1], rng)
    with pytest.raises(StateError, match=r"^state\.data must be an array of state_dtype"):
        sample_world(GameState(state.config, np.zeros(1)), 0, rng)
    frozen = state.copy()
    frozen.data.flags.writeable = False  # read only: sampling copies it
    assert sample_world(frozen, 0, rng).batch_size == 1


def test_agents_read_seats_without_coercion() -> None:
    """``act(obs, mask, rng, seat=1.7)`` and ``act_batch(..., seats=[0.5])`` were read
    as seat 1 / 0 (``np.array(..., dtype=int64)``)."""
    from mamma_mia_agents import load_agent

    eng = Engine(num_players=2)
    state = eng.reset(seeds=[1])
    obs, masks = eng.observe(state), eng.legal_masks(state)
    bot, rng = load_agent("builder"), np.random.default_rng(0)
    with pytest.raises(TypeError, match=r"^seat must be an int, got 1\.7"):
        bot.act(obs[0], masks[0], rng, seat=1.7)
    with pytest.raises(TypeError, match=r"^seats must be integers, got dtype float64"):
        bot.act_batch(obs, masks, rng, seats=[0.5])
    with pytest.raises(TypeError, match=r"^seats must be an array .*inhomogeneous"):
        bot.act_batch(obs, masks, rng, seats=[[0], 1])
    seat = int(state.data["seat"][0])
    assert bot.act(obs[0], masks[0], rng, seat=np.int64(seat)) >= 0


@pytest.mark.parametrize("agent", ["builder", "counter", "hoarder", "ppo"])
@pytest.mark.parametrize(
    ("edit", "error", "what"),
    [
        (
            -1.0,
            ValueError,
            r"^observations must be finite numbers in 0-255 .*got .*-1\.0.* at \[1, 3\]",
        ),
        (float("nan"), ValueError, r"^observations must be finite .*got .*nan.* at \[1, 3\]"),
        (float("inf"), ValueError, r"^observations must be finite .*got .*inf.* at \[1, 3\]"),
        (255.5, ValueError, r"^observations must be finite .*got .*255\.5.* at \[1, 3\]"),
        ("ragged", TypeError, r"^observations must be an array .*inhomogeneous"),
        ("text", TypeError, r"^observations must be numbers and masks integers or bools"),
    ],
)
def test_bots_refuse_observations_no_env_gives(agent, edit, error, what) -> None:
    """Found by the agents' fuzz (``test_fuzz_agent_act_batch``): a negative count in an
    observation made the compiled bots divide by zero (``ZeroDivisionError`` from the
    kernel, naming nothing); NaN and text went in unchecked. ``act_batch`` now takes
    what an env's observation can be: finite numbers in the observation space."""
    from mamma_mia_agents import load_agent

    bot, rng = load_agent(agent), np.random.default_rng(0)
    eng = Engine(num_players=2, observation_mode=bot.observation_mode)  # the one it reads
    state = eng.reset(seeds=[1, 2])
    obs, masks = eng.observe(state), eng.legal_masks(state)
    given: object
    if edit == "ragged":
        given = [obs[0].tolist(), [0.0]]
    elif edit == "text":
        given = obs.astype(str)
    else:
        given = obs.astype(np.float64)  # a float copy: the edit need not fit the dtype
        given[1, 3] = edit
    with pytest.raises(error, match=what):
        bot.act_batch(given, masks, rng, state.data["seat"].astype(np.int64))
    acts = bot.act_batch(obs, masks, rng, state.data["seat"].astype(np.int64))
    assert masks[np.arange(2), acts].all()


def test_random_agent_refuses_masks_it_cannot_read() -> None:
    from mamma_mia_agents import load_agent

    bot, rng = load_agent("random"), np.random.default_rng(0)
    with pytest.raises(TypeError, match=r"^masks must be an array .*inhomogeneous"):
        bot.act_batch(np.zeros((2, 3)), [[1, 0], [1]], rng)
    with pytest.raises(TypeError, match=r"^masks must be numbers or bools, got dtype <U1"):
        bot.act_batch(np.zeros((2, 3)), np.array([["1", "0"], ["0", "1"]]), rng)


@pytest.mark.parametrize(
    ("obs_cols", "mask_cols", "what"),
    [
        (1, None, r"^observations: no Mamma Mia! observation has size 1"),
        (None, 5, r"^masks: no Mamma Mia! action space has 5 actions"),
    ],
)
@pytest.mark.parametrize("agent", ["counter", "builder", "ppo"])
def test_bots_name_observations_or_masks_of_no_game(agent, obs_cols, mask_cols, what) -> None:
    """Found by the long fuzz run (``fuzz_long_run/3.json``): ``act_batch([[0.0]], ...)``
    was refused with "no Mamma Mia! observation has size 1", naming no argument."""
    from mamma_mia_agents import load_agent

    eng = Engine(num_players=2)
    state = eng.reset(seeds=[1])
    obs, masks = eng.observe(state), eng.legal_masks(state)
    obs = obs[:, :obs_cols] if obs_cols else obs
    masks = masks[:, :mask_cols] if mask_cols else masks
    with pytest.raises(ValueError, match=what):
        load_agent(agent).act_batch(obs, masks, np.random.default_rng(0), np.array([0]))
