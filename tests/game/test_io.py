"""Saving, loading and replaying: JSON round trips, copies, replays from seed and
actions, event logs, resuming the AEC env, refusing corrupt states and positions, and
the action codec."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import random_legal

import mamma_mia_env as mm
from mamma_mia_env import (
    ActionCodec,
    Config,
    ConfigError,
    Engine,
    GameState,
    IllegalActionError,
    StateError,
    build_position,
    replay,
)
from mamma_mia_env.game.actions import RevealAction, TurnAction
from mamma_mia_env.game.cards import INGREDIENTS
from mamma_mia_env.game.record import OVER, PLAY, REVEAL

CONFIGS = [
    dict(num_players=2),
    dict(num_players=3, double_ingredients=True),
    dict(num_players=4, mamma_mia_in_deal=True, strict_minimale=True),
    dict(num_players=5, pass_may_play_order=True, random_start_player=True),
    dict(num_players=3, observation_mode="top_card", reward_mode="delivered_win_loss"),
    dict(num_players=4, idle_cycle_guard=False, max_turns=60, double_ingredients=True),
]


def _ids(cfg: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in cfg.items())


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# -- JSON round trips and copies ---------------------------------------------------------
@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_json_round_trip_is_exact_throughout_random_games(cfg: dict) -> None:
    config = Config(**cfg)
    eng = Engine(config)
    seeds = [0, 1, 2**63, 2**64 - 1] + list(range(1000, 1012))
    state = eng.reset(seeds=seeds)
    rng = np.random.default_rng(len(cfg))
    singles = {PLAY: 0, REVEAL: 0, OVER: 0}
    step = 0
    while True:
        over = bool((state.data["phase"] == OVER).all())
        if step % 4 == 0 or over:  # the whole batch
            text = state.to_json()
            back = GameState.from_json(text)
            assert back.config == config
            assert back.data.tobytes() == state.data.tobytes(), step
            assert back.to_json() == text
        # single games: one in turn each step, plus a reveal decision whenever there is one
        picks = [step % state.batch_size]
        picks += np.flatnonzero(state.data["phase"] == REVEAL)[:1].tolist()
        for b in picks:
            one = state[[b]]
            again = GameState.from_json(one.to_json())
            assert again.data.tobytes() == one.data.tobytes(), (step, b)
            singles[int(one.data["phase"][0])] += 1
        if over:
            break
        eng.step(state, random_legal(eng.legal_masks(state), rng))
        step += 1
    assert int(GameState.from_json(state.to_json()).data["seed"][3]) == 2**64 - 1
    assert singles[PLAY] and singles[OVER] and step > 30
    if not config.auto_reveal:
        assert singles[REVEAL] > 0, "reveal decisions were saved and loaded"


def test_dict_round_trip_and_json_is_plain() -> None:
    state = Engine(Config(num_players=3)).reset(seeds=[2**64 - 1, 5])
    obj = state.to_dict()
    assert obj["format"] == "mamma-mia-state/1"
    assert obj["config"] == Config(num_players=3).to_dict()
    assert obj["games"][0]["seed"] == str(2**64 - 1)  # 64-bit values as strings
    assert json.loads(json.dumps(obj)) == obj
    assert GameState.from_dict(obj).equals(state)


def test_copy_is_independent_of_the_original() -> None:
    eng = Engine(Config(num_players=4))
    state = eng.reset(seeds=3, batch_size=8)
    rng = np.random.default_rng(3)
    for _ in range(5):
        eng.step(state, random_legal(eng.legal_masks(state), rng))
    snapshot = state.data.tobytes()
    clone = state.copy()
    assert clone.equals(state) and clone.data is not state.data
    eng.step(clone, random_legal(eng.legal_masks(clone), rng))
    clone.data["hand"][0, 0, 0] += 1
    assert state.data.tobytes() == snapshot
    eng.step(state, random_legal(eng.legal_masks(state), rng))
    other = state.copy()
    state.data["piles"][:] = 9
    assert not (other.data["piles"] == 9).all()
    sub = other[[2]]  # a sub-batch is a copy too
    sub.data["round"][0] = 7
    assert other.data["round"][2] != 7


# -- replays -----------------------------------------------------------------------------
@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_game_replays_bit_for_bit_from_seed_and_actions(cfg: dict) -> None:
    config = Config(**cfg)
    eng = Engine(config)
    rng = np.random.default_rng(7)
    for seed in (7, 2**64 - 2):
        state = eng.reset(seeds=[seed])
        actions, snapshots = [], [state.data.tobytes()]
        while state.data["phase"][0] != OVER:
            a = random_legal(eng.legal_masks(state), rng)
            eng.step(state, a)
            actions.append(int(a[0]))
            snapshots.append(state.data.tobytes())
        assert replay(config, seed, actions).data.tobytes() == snapshots[-1]
        for k in (0, 1, len(actions) // 3, len(actions) // 2):
            assert replay(config, seed, actions[:k]).data.tobytes() == snapshots[k]
        with pytest.raises(ValueError, match="after the end"):
            replay(config, seed, [*actions, 0])
        middle = eng.reset(seeds=[seed])
        start_k = len(actions) // 2
        for a in actions[:start_k]:
            eng.step(middle, np.array([a]))
        assert replay(config, 0, actions[start_k:], start=middle).equals(state)
        assert middle.data.tobytes() == snapshots[start_k], "replay must not touch start"


def test_replay_refuses_an_illegal_action() -> None:
    config = Config(num_players=3)
    with pytest.raises(IllegalActionError, match="action 0 is illegal"):
        replay(config, 1, [0])  # a pass with cards in hand


def _play_env(e, rng: np.random.Generator) -> dict:
    """Random legal game through a wrapped env; rewards and decisions as seen."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    decisions = []
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        decisions.append((agent, info["decision"].name.lower()))  # the log's word
        e.step(_pick(obs["action_mask"], rng))
        for who, r in e.rewards.items():
            totals[who] += r
    return {"totals": totals, "decisions": decisions}


def _rewards_from_result(result: dict, reward_mode: str, n: int) -> list[float]:
    out = [0.0] * n
    if reward_mode != "win_loss":
        out = [float(x) for x in result["delivered"]]
    if reward_mode != "delivered" and result["terminated"]:
        win = result["winners"]
        for s in range(n):
            out[s] += (1.0 if len(win) == 1 else 0.0) if s in win else -1.0
    return out


@pytest.mark.parametrize(
    "cfg",
    [
        dict(num_players=2),
        dict(num_players=4, reward_mode="delivered_win_loss", double_ingredients=True),
        dict(num_players=5, reward_mode="delivered"),
        dict(num_players=3, idle_cycle_guard=False, max_turns=30),
    ],
    ids=_ids,
)
def test_event_log_replays_to_the_final_state_and_matches_rewards(cfg: dict, tmp_path) -> None:
    e = mm.env(**cfg)
    e.reset(seed=321)
    played = _play_env(e, np.random.default_rng(5))
    raw = e.unwrapped
    path = tmp_path / "game.json"
    raw.write_event_log(str(path))
    log = json.loads(path.read_text())
    assert log == json.loads(json.dumps(raw.event_log()))
    assert log["format"] == "mamma-mia-log/2"
    config = Config(**log["config"])
    assert config == raw.config
    assert int(log["seed"]) == raw.seed_used == 321
    assert log["start_state"] is None
    assert log["actions"] == raw.actions_taken
    final = replay(config, int(log["seed"]), log["actions"])
    assert final.data.tobytes() == raw.game.data.tobytes()

    n = config.num_players
    result = log["result"]
    rec = raw.game.data[0]
    assert result["delivered"] == [int(rec["delivered"][s].sum()) for s in range(n)]
    assert result["terminated"] == bool(rec["terminated"])
    assert result["truncated"] == bool(rec["truncated"])
    expected = _rewards_from_result(result, config.reward_mode, n)
    assert [played["totals"][f"player_{s}"] for s in range(n)] == expected
    # per event: who acted, what kind of decision, and the step's rewards
    events = log["events"]
    assert len(events) == len(log["actions"])
    assert [(f"player_{ev['seat']}", ev["decision"]) for ev in events] == played["decisions"]
    summed = np.sum([ev["rewards"] for ev in events], axis=0).tolist()
    assert summed == expected
    codec = raw.codec
    assert all(codec.from_str(ev["text"]) == ev["action"] for ev in events)
    assert all("order" in ev for ev in events if ev["decision"] == "reveal")


def _advance(e, actions: list[int], rng: np.random.Generator, stop) -> None:
    """Step a wrapped env with random legal actions until ``stop(raw)``; log them."""
    raw = e.unwrapped
    while not stop(raw):
        a = _pick(e.last()[0]["action_mask"], rng)
        actions.append(a)
        e.step(a)


def _snapshot(e) -> tuple:
    views = {a: (e.observe(a)["observation"].tobytes(), e.observe(a)["action_mask"].tobytes())
             for a in e.agents}  # fmt: skip
    return (
        e.agent_selection,
        views,
        dict(e.rewards),
        dict(e.terminations),
        dict(e.truncations),
        {a: dict(i) for a, i in e.infos.items()},
        e.unwrapped.game.data.tobytes(),
    )


@pytest.mark.parametrize("where", ["turn", "reveal"])
@pytest.mark.parametrize("as_json", [True, False])
def test_save_state_and_resume_continue_identically(where: str, as_json: bool) -> None:
    cfg = dict(num_players=4, reward_mode="delivered_win_loss")
    rng = np.random.default_rng(11)
    a = mm.env(**cfg)
    a.reset(seed=99)
    prefix: list[int] = []
    if where == "turn":
        _advance(
            a,
            prefix,
            rng,
            lambda raw: len(raw.actions_taken) >= 23 and raw.game.data["phase"][0] == PLAY,
        )
    else:
        _advance(a, prefix, rng, lambda raw: raw.game.data["phase"][0] == REVEAL)
        assert a.infos[a.agent_selection]["decision"] == mm.Decision.REVEAL
    saved = a.unwrapped.save_state()
    b = mm.env(**cfg)
    b.reset(options={"state": saved if as_json else GameState.from_json(saved)})
    assert b.unwrapped.seed_used == 99
    snap_a, snap_b = _snapshot(a), _snapshot(b)
    assert snap_a[0] == snap_b[0] and snap_a[1] == snap_b[1] and snap_a[5] == snap_b[5]
    assert snap_a[6] == snap_b[6]
    rest = []
    while not all(a.terminations.values()):
        act = _pick(a.last()[0]["action_mask"], rng)
        rest.append(act)
        a.step(act)
        b.step(act)
        assert _snapshot(a) == _snapshot(b)
    # b's log starts from the saved state and replays to the same end
    log = json.loads(json.dumps(b.unwrapped.event_log()))
    assert log["actions"] == rest
    start = GameState.from_dict(log["start_state"])
    assert start.to_json() == saved
    end = replay(Config(**log["config"]), int(log["seed"]), log["actions"], start=start)
    assert end.data.tobytes() == a.unwrapped.game.data.tobytes()
    # a's own log is the whole game
    whole = replay(Config(**cfg), 99, a.unwrapped.event_log()["actions"])
    assert whole.equals(a.unwrapped.game) and a.unwrapped.actions_taken == prefix + rest


def test_saved_state_survives_later_steps_and_resets() -> None:
    e = mm.raw_env(num_players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(10):
        e.step(_pick(e.observe(e.agent_selection)["action_mask"], rng))
    saved = e.save_state()
    given = GameState.from_json(saved)
    e.reset(options={"state": given})
    e.step(_pick(e.observe(e.agent_selection)["action_mask"], rng))
    assert given.to_json() == saved, "the env copies a given GameState"
    e.reset(seed=5)
    assert GameState.from_json(saved).to_json() == saved


# -- corrupt saved states ----------------------------------------------------------------
def _saved_doc() -> dict:
    """A mid-game 3-player state as a JSON object (seat 0 holds cards, stacks not full)."""
    eng = Engine(Config(num_players=3))
    state = eng.reset(seeds=[12])
    rng = np.random.default_rng(12)
    for _ in range(9):
        eng.step(state, random_legal(eng.legal_masks(state), rng))
    assert state.data["phase"][0] == PLAY
    return json.loads(state.to_json())


def _corrupt(change) -> str:
    doc = _saved_doc()
    change(doc, doc["games"][0])
    return json.dumps(doc)


def _set(field, value):
    def change(doc, g):
        g[field] = value

    return change


def _set_item(field, index, value):
    def change(doc, g):
        target = g[field]
        for i in index[:-1]:
            target = target[i]
        target[index[-1]] = value

    return change


def _add_item(field, index, delta):
    def change(doc, g):
        target = g[field]
        for i in index[:-1]:
            target = target[i]
        target[index[-1]] += delta

    return change


def _duplicate_order(doc, g):
    """Seat 1's top stack order also appears in its hand."""
    t = g["stack"][1][g["stack_head"][1]]
    g["orders_hand"][1][t] = 1


def _remove_card(doc, g):
    """One of seat 0's ingredient cards disappears."""
    c = next(c for c, count in enumerate(g["hand"][0]) if count > 0)
    g["hand"][0][c] -= 1


CORRUPTIONS = {
    "wrong format tag": (lambda d, g: d.update(format="mamma-mia-state/2"), r"'format'"),
    "no format": (lambda d, g: d.pop("format"), r"'format'"),
    "config not an object": (lambda d, g: d.update(config=3), r"'config'"),
    "no games": (lambda d, g: d.update(games=[]), r"'games'"),
    "game not an object": (lambda d, g: d.update(games=[1]), r"games\[0\] is not an object"),
    "missing field": (lambda d, g: g.pop("piles"), r"missing fields \['piles'\]"),
    "extra field": (_set("bonus", 1), r"unknown fields \['bonus'\]"),
    "wrong shape": (_set("hand", [[0] * 10] * 4), r"games\[0\]\.hand: shape \(4, 10\)"),
    "wrong inner shape": (_set("piles", [0] * 9), r"games\[0\]\.piles: shape"),
    "scalar as list": (_set("round", [0]), r"games\[0\]\.round: shape"),
    "hand count 300": (_set_item("hand", (0, 0), 300), r"games\[0\]\.hand: value out of range"),
    "fractional count": (_set_item("piles", (0,), 1.5), r"games\[0\]\.piles: expected integers"),
    "text in a number": (_set("oven_len", "ten"), r"games\[0\]\.oven_len"),
    "negative seed": (_set("seed", "-1"), r"games\[0\]\.seed"),
    "seed beyond 64 bits": (_set("rng", str(2**64)), r"games\[0\]\.rng"),
    "seed not a number": (_set("rng", "abc"), r"games\[0\]\.rng"),
    "ingredient card duplicated": (_add_item("piles", (2,), 1), r"ingredient cards not conserved"),
    "card missing": (_remove_card, r"ingredient cards not conserved"),
    "order card duplicated": (_duplicate_order, r"order cards not conserved"),
    "negative hand count": (_set_item("hand", (1, 3), -1), r"negative hand count"),
    "negative pile count": (_set_item("piles", (4,), -2), r"piles: negative count"),
    "stack_len 9": (_set_item("stack_len", (0,), 9), r"stack_len"),
    "negative stack_len": (_set_item("stack_len", (2,), -1), r"stack_len"),
    "stack_head 8": (_set_item("stack_head", (0,), 8), r"stack_head"),
    "phase 3": (_set("phase", 3), r"phase not in 0-2"),
    "round 3": (_set("round", 3), r"round not in 0-2"),
    "seat 3 of 3": (_set("seat", 3), r"seat not in 0-2"),
    "mm_holder 5": (_set("mm_holder", 5), r"mm_holder"),
    "supply_pos past supply_len": (_set("supply_pos", 70), r"supply_pos"),
    "supply_len 67": (_set("supply_len", 67), r"supply_len"),
    "oven_len 113": (_set("oven_len", 113), r"oven_len"),
    "reveal_pos past oven_len": (_set("reveal_pos", 100), r"reveal_pos"),
    "bad supply card code": (
        lambda d, g: g["supply"].__setitem__(g["supply_pos"], 11),
        r"supply card code|not conserved",
    ),
    "a hand of 8": (
        lambda d, g: g["orders_hand"][0].__setitem__(slice(0, 8), [1] * 8),
        r"more than 7 cards",
    ),
    "cards at a seat beyond the players": (_set_item("hand", (4, 0), 1), r"beyond the 3"),
}


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_corrupt_state_raises_state_error_naming_the_problem(name: str) -> None:
    change, pattern = CORRUPTIONS[name]
    text = _corrupt(change)
    with pytest.raises(StateError, match=pattern):
        GameState.from_json(text)
    e = mm.raw_env(num_players=3)
    with pytest.raises(StateError, match=pattern):
        e.reset(options={"state": text})


@pytest.mark.parametrize("text", ["", "{", "not json", "[1, 2", "{'format': 1}"])
def test_non_json_text_raises_state_error(text: str) -> None:
    with pytest.raises(StateError, match="not valid JSON"):
        GameState.from_json(text)


@pytest.mark.parametrize("text", ["[]", "3", "null", '"mamma-mia-state/1"'])
def test_json_that_is_not_a_state_raises_state_error(text: str) -> None:
    with pytest.raises(StateError, match="format"):
        GameState.from_json(text)


def test_saved_state_of_another_config_does_not_load_as_this_one() -> None:
    doc = _saved_doc()
    doc["config"]["num_players"] = 4  # the cards of a 3-player game do not fit
    with pytest.raises(StateError, match="not conserved"):
        GameState.from_dict(doc)
    doc = _saved_doc()
    doc["config"]["double_ingredients"] = True
    with pytest.raises(StateError, match="not conserved"):
        GameState.from_dict(doc)


@pytest.mark.parametrize("bad", [{"num_players": 7}, {"bonus_rule": True}])
def test_bad_config_in_saved_state_raises_state_error(bad: dict) -> None:
    doc = _saved_doc()
    doc["config"].update(bad)
    with pytest.raises(StateError, match=r"field 'config': (num_players|unknown config field)"):
        GameState.from_dict(doc)


def test_negative_used_count_names_the_used_field() -> None:
    with pytest.raises(StateError, match="used"):
        GameState.from_json(_corrupt(_set_item("used", (0,), -1)))


def _reveal_doc() -> dict:
    """A 3-player state at a reveal decision whose previous oven entry is ingredients."""
    eng = Engine(Config(num_players=3))
    rng = np.random.default_rng(0)
    for seed in range(100):
        state = eng.reset(seeds=[seed])
        while state.data["phase"][0] != OVER:
            rec = state.data[0]
            p = int(rec["reveal_pos"])
            if rec["phase"] == REVEAL and p > 0 and rec["oven_what"][p - 1] < 5:
                return json.loads(state.to_json())
            eng.step(state, random_legal(eng.legal_masks(state), rng))
    raise AssertionError("no such position found")


def _reveal_at_ingredient_entry(doc, g):
    """Step reveal_pos back onto an ingredient entry, taking its cards off the piles again
    so that every card is still in one place."""
    p = g["reveal_pos"] - 1
    k = g["oven_what"][p]
    g["reveal_pos"] = p
    g["piles"][k] -= g["oven_s"][p]
    g["piles"][5 + k] -= g["oven_d"][p]


def _decider_not_owner(doc, g):
    owner = g["oven_who"][g["reveal_pos"]]
    g["seat"] = (owner + 1) % 3


def test_reveal_doc_is_valid_as_saved() -> None:
    doc = _reveal_doc()
    state = GameState.from_dict(doc)
    rec = state.data[0]
    assert rec["phase"] == REVEAL and rec["seat"] == rec["oven_who"][rec["reveal_pos"]]


@pytest.mark.parametrize(
    "change", [_reveal_at_ingredient_entry, _decider_not_owner], ids=["ingredient", "seat"]
)
def test_inconsistent_reveal_state_is_refused(change) -> None:
    doc = _reveal_doc()
    change(doc, doc["games"][0])
    with pytest.raises(StateError):
        GameState.from_dict(doc)


# -- build_position errors ---------------------------------------------------------------
BAD_POSITIONS = {
    "unknown key": ({"hand": {}}, r"unknown position keys \['hand'\]"),
    "unknown ingredient": ({"hands": {"0": {"anchovy": 1}}}, r"unknown ingredient 'anchovy'"),
    "unknown pile ingredient": ({"piles": {"double ham": 1}}, r"unknown ingredient 'ham'"),
    "too many of a kind": (
        {"hands": {"0": {"salami": 7}}, "piles": {"salami": 6}},
        r"piles: more salami cards than the game has",
    ),
    "too many doubles": (
        {"config": {"num_players": 4, "double_ingredients": True}, "piles": {"double olive": 3}},
        r"more double olive cards",
    ),
    "a hand of 8": ({"hands": {"1": {"salami": 4, "pepper": 4}}}, r"more than 7 cards"),
    "order placed twice": (
        {"orders_in_hand": {"1": [2]}, "delivered": {"1": [2]}},
        r"delivered\[1\]: seat 1's order 2 is placed twice",
    ),
    "order in oven and stack": (
        {"oven": [[2, "order 5"]], "stacks": {"2": [0, 1, 2, 3, 4, 5, 6, 7]}},
        r"stacks\[2\]: seat 2's order 5 is placed twice",
    ),
    "orders placed nowhere": (
        {"stacks": {"2": [0, 1, 2]}},
        r"seat 2's orders \[3, 4, 5, 6, 7\] are placed nowhere",
    ),
    "cards placed nowhere": ({"supply": ["salami", "mamma_mia"]}, r"placed nowhere"),
    "seat out of range": ({"hands": {"4": {"salami": 1}}}, r"'hands': seat 4 is not in 0-3"),
    "order type 8": ({"orders_in_hand": {"0": [8]}}, r"order type 8 is not in 0-7"),
    "negative count": ({"piles": {"olive": -1}}, r"negative count for olive"),
    "mamma mia in a hand": ({"hands": {"0": {"mamma_mia": 1}}}, r"Mamma Mia! card"),
    "unreadable oven entry": ({"oven": [[0, "three salami"]]}, r"oven\[0\].*'three'"),
    "empty oven entry": ({"oven": [[0, "0 salami"]]}, r"oven\[0\]: an ingredient entry"),
    "bad config": ({"config": {"num_players": 9}}, r"num_players"),
}


@pytest.mark.parametrize("name", list(BAD_POSITIONS))
def test_build_position_errors_name_the_problem(name: str) -> None:
    desc, pattern = BAD_POSITIONS[name]
    desc = {"config": {"num_players": 4}, **desc}
    error = ConfigError if name == "bad config" else StateError
    with pytest.raises(error, match=pattern):
        build_position(desc)


def test_build_position_places_unplaced_cards_and_validates() -> None:
    state = build_position(
        {"config": {"num_players": 4}, "hands": {"0": {"salami": 2}}, "stacks": {"1": [7, 6]},
         "orders_in_hand": {"1": [0, 1, 2, 3, 4, 5]}}
    )  # fmt: skip
    rec = state.data[0]
    assert rec["supply_len"] == 60 - 2 + 1  # every other ingredient card and the MM card
    assert rec["stack"][1, :2].tolist() == [7, 6] and rec["stack_len"][1] == 2
    assert rec["stack_len"][0] == 8 and rec["mm_holder"] == -1
    assert GameState.from_json(state.to_json()).equals(state)


# -- the action codec --------------------------------------------------------------------
@pytest.mark.parametrize("doubles", [False, True])
def test_codec_round_trips_every_action(doubles: bool) -> None:
    eng = Engine(Config(num_players=5, double_ingredients=doubles))
    codec = ActionCodec(eng)
    assert eng.n_actions == (1825 if doubles else 655)
    texts = set()
    for a in range(eng.n_actions):
        act = codec.decode(a)
        assert isinstance(act, RevealAction if a >= eng.n_turn_actions else TurnAction)
        assert codec.encode(act) == a
        text = codec.to_str(a)
        assert codec.from_str(text) == a, text
        assert codec.from_str(text.upper()) == a
        texts.add(text)
        for seat in range(5):
            assert codec.from_str(codec.to_str(a, seat)) == a
    assert len(texts) == eng.n_actions


def test_codec_matches_the_spec_numbering() -> None:
    eng = Engine(Config())
    codec = ActionCodec(eng)
    for k, kind in enumerate(INGREDIENTS):
        for s in range(1, 8):
            for order in range(9):
                for draw in range(2):
                    a = ((1 + 7 * k + (s - 1)) * 9 + order) * 2 + draw
                    expected = TurnAction(
                        kind, s, 0, None if order == 0 else order - 1, ("supply", "stack")[draw]
                    )
                    assert codec.decode(a) == expected
    n_turn = 36 * 18
    assert codec.decode(n_turn) == RevealAction("decline", None)
    assert codec.decode(n_turn + 1) == RevealAction("deliver", None)
    assert codec.decode(n_turn + 2 + 3) == RevealAction("deliver_as", "pepper")
    assert codec.to_str(0) == "pass, no order, draw supply"
    a = codec.encode_turn(kind="salami", singles=3, order=2, draw="stack")
    assert codec.to_str(a) == "play 3 salami, order type 2, draw stack"
    d = ActionCodec(Engine(Config(double_ingredients=True)))
    b = d.encode_turn("olive", 1, 2, None, "supply")
    assert d.to_str(b) == "play 1 olive + 2 double olive, no order, draw supply"
    c = d.encode_turn("olive", 0, 1)
    assert d.to_str(c) == "play 1 double olive, no order, draw supply"
    assert d.encode_reveal("deliver_as", 4) == d.encode_reveal("deliver_as", "olive")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "play",
        "pass",
        "play 3 anchovy, no order, draw supply",
        "play 8 salami, no order, draw supply",
        "play 0 salami, no order, draw supply",
        "play 3 salami, order type 8, draw supply",
        "play 3 salami, order type 2, draw hand",
        "play 3 salami, no order",
        "play 1 double salami, no order, draw supply",  # no doubles in the default space
        "play 1 salami + 1 double olive, no order, draw supply",
        "pass, order type 2 [x], draw supply, extra",
        "reveal: maybe",
        "reveal: deliver as anchovy",
        "reveal: deliver as",
        "reveal:",
    ],
)
def test_codec_rejects_bad_strings(text: str) -> None:
    codec = ActionCodec(Engine(Config()))
    with pytest.raises(ValueError):
        codec.from_str(text)


def test_codec_rejects_bad_values() -> None:
    codec = ActionCodec(Engine(Config()))
    for a in (-1, 655, 10**6):
        with pytest.raises(ValueError, match="outside"):
            codec.decode(a)
    with pytest.raises(ValueError, match=r"a pass \(kind=None\) plays no cards: singles and"):
        codec.encode_turn(None, 1)
    with pytest.raises(ValueError, match="order type"):
        codec.encode_turn("salami", 1, order=8)
    with pytest.raises(ValueError, match="draw"):
        codec.encode_turn("salami", 1, draw="oven")
    with pytest.raises(ValueError, match="kind: an ingredient index must be 0-4"):
        codec.encode_turn(5, 1)
    with pytest.raises(ValueError, match="kind: unknown ingredient 'ham'"):
        codec.encode_turn("ham", 1)
    with pytest.raises(TypeError, match="kind must be an ingredient name"):
        codec.encode_turn(2.0, 1)
    with pytest.raises(ValueError, match="needs kind"):
        codec.encode_reveal("deliver_as")
    with pytest.raises(ValueError, match="reveal choice"):
        codec.encode_reveal("accept")


def test_a_batch_larger_than_memory_allows_is_refused_by_name() -> None:
    """``batch_size`` past ``MAX_BATCH_SIZE`` is a ValueError naming it, before anything
    is allocated (a fuzz case once asked for about 10**9 games and filled the memory)."""
    from mamma_mia_env.game.state import MAX_BATCH_SIZE

    engine = Engine(Config(num_players=2))
    for call in (
        lambda: engine.reset(seeds=0, batch_size=MAX_BATCH_SIZE + 1),
        lambda: GameState.empty(Config(num_players=2), 10**12),
    ):
        with pytest.raises(ValueError, match="batch_size"):
            call()
