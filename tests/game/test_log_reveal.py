"""The event log's reveal record (format 2): every card a reveal moved, from the log.

Random games of every player count, with and without doubles and ``auto_reveal``, are
logged; each reveal step is then checked from the log and the states the log re-derives
(``load_log``): walking the oven in order, every order's entry takes from the face-up
piles and from its owner's hand exactly what left them, each delivery's cards meet its
order, and the step's total is the sum of its entries.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from mamma_mia_env.game.actions import ActionCodec, TurnAction
from mamma_mia_env.game.cards import (
    BOMBASTICA,
    BOMBASTICA_MIN,
    HAND_LIMIT,
    INGREDIENTS,
    MAMMA_MIA,
    MINIMALE,
    MONOTONI,
    N_CARD_TYPES,
    N_KINDS,
    order_name,
    order_need_table,
)
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.log import LOG_FORMAT, LogError, load_log, replay_events
from mamma_mia_env.game.positions import build_position
from mamma_mia_env.game.record import REVEAL

CONFIGS = [
    dict(num_players=n, double_ingredients=d, auto_reveal=a)
    for n in (2, 3, 4, 5)
    for d in (False, True)
    for a in (False, True)
]
GAMES = 4
NEED = order_need_table()
NAMES = {**{k: i for i, k in enumerate(INGREDIENTS)}}
NAMES.update({"double " + k: N_KINDS + i for i, k in enumerate(INGREDIENTS)})


def _vec(cards: dict[str, int]) -> np.ndarray:
    out = np.zeros(N_CARD_TYPES, dtype=np.int64)
    for name, c in cards.items():
        assert c > 0, cards
        out[NAMES[name]] += c
    return out


def _value(v: np.ndarray) -> np.ndarray:
    return v[:N_KINDS] + 2 * v[N_KINDS:]


def _random_game(config: Config, seed: int) -> list[int]:
    engine = Engine(config)
    state = engine.reset(seeds=[seed])
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    while state.data["phase"][0] != 2:
        a = int(rng.choice(np.flatnonzero(engine.legal_masks(state)[0])))
        actions.append(a)
        engine.step(state, np.array([a]))
    return actions


def _after_turn(before: np.void, turn: TurnAction, seat: int) -> tuple[np.ndarray, list]:
    """The hands and the oven when the reveal of a play step begins (SPEC, The turn)."""
    hands = before["hand"].astype(np.int64)
    oven = [
        (int(before["oven_who"][i]), int(before["oven_what"][i]), int(before["oven_s"][i]),
         int(before["oven_d"][i]))
        for i in range(int(before["oven_len"]))
    ]  # fmt: skip
    orders = int(before["orders_hand"][seat].sum())
    if turn.kind is not None:
        k = INGREDIENTS.index(turn.kind)
        hands[seat, k] -= turn.singles
        hands[seat, N_KINDS + k] -= turn.doubles
        oven.append((seat, k, turn.singles, turn.doubles))
    if turn.order is not None:
        oven.append((seat, N_KINDS + turn.order, 0, 0))
        orders -= 1
    if turn.draw == "supply":
        short = HAND_LIMIT - int(hands[seat].sum()) - orders
        pos = int(before["supply_pos"])
        while short > 0 and pos < int(before["supply_len"]):
            c = int(before["supply"][pos])
            pos += 1
            if c != MAMMA_MIA:
                hands[seat, c] += 1
                short -= 1
    return hands, oven


def _check_delivery(o: dict, owner: int, t: int, piles: np.ndarray, hand: np.ndarray) -> None:
    """The cards of one delivered entry meet its order (``piles``/``hand``: before it)."""
    took_p, took_h = _vec(o["from_piles"]), _vec(o["from_hand"])
    assert (took_p + took_h == _vec(o["cards_taken"])).all()
    v = _value(took_p + took_h)
    if t == BOMBASTICA:
        assert (took_p == piles).all()  # every face-up card
        short = BOMBASTICA_MIN - int(_value(piles).sum())
        given = int(_value(took_h).sum())
        if short <= 0:
            assert given == 0
            return
        assert v.sum() >= BOMBASTICA_MIN
        if took_h[:N_KINDS].any():  # a single only once every double is given
            assert (took_h[N_KINDS:] == hand[N_KINDS:]).all()
        smallest = 1 if took_h[:N_KINDS].any() else 2
        assert given - smallest < short  # no card more than needed
        return
    need = np.zeros(N_KINDS, dtype=np.int64)
    if t < 5:
        need[:] = NEED[owner, t]
    else:
        x = INGREDIENTS.index(o["kind"])
        assert x != owner
        need[owner] = 1
        need[x] = 6 if t == MONOTONI else 3
        if t == MINIMALE:  # the fewest face-up value among the others' non-empty piles
            pv = _value(piles)
            cands = [k for k in range(N_KINDS) if k != owner and pv[k] >= 1]
            assert pv[x] == min(pv[k] for k in cands)
    for k in range(N_KINDS):
        if need[k] == 0:
            assert v[k] == 0
            continue
        # a double may overpay by one
        assert need[k] <= v[k] <= need[k] + 1
        if v[k] > need[k]:
            assert took_p[N_KINDS + k] + took_h[N_KINDS + k] > 0
        if took_h[k] or took_h[N_KINDS + k]:  # the hand only once the piles are empty
            assert took_p[k] == piles[k] and took_p[N_KINDS + k] == piles[N_KINDS + k]


def _check_step(ev: dict, before: np.void, after: np.void, codec, config: Config) -> None:
    seat = int(before["seat"])
    decoded = codec.decode(ev["action"])
    if before["phase"] == REVEAL:
        hands, start = before["hand"].astype(np.int64), int(before["reveal_pos"])
        oven = [
            (int(before["oven_who"][i]), int(before["oven_what"][i]), int(before["oven_s"][i]),
             int(before["oven_d"][i]))
            for i in range(int(before["oven_len"]))
        ]  # fmt: skip
    else:
        hands, oven = _after_turn(before, decoded, seat)
        start = 0
    stop = int(after["reveal_pos"]) if after["phase"] == REVEAL else len(oven)
    piles = before["piles"].astype(np.int64)
    entries = iter(ev["reveal"])
    for i in range(start, stop):
        who, what, s, d = oven[i]
        if what < N_KINDS:
            piles[what] += s
            piles[N_KINDS + what] += d
            continue
        o = next(entries)
        t = what - N_KINDS
        assert (o["seat"], o["order"]) == (who, order_name(t, who))
        assert "decided" not in o  # ``by`` says who chose
        if before["phase"] == REVEAL and i == start:
            assert o["by"] == "owner"
        else:
            assert o["by"] in (("auto", "forced") if config.auto_reveal else ("forced",))
        if not o["delivered"]:  # nothing moves
            assert o["from_piles"] == o["from_hand"] == o["cards_taken"] == {}
            continue
        _check_delivery(o, who, t, piles, hands[who])
        piles -= _vec(o["from_piles"])
        hands[who] -= _vec(o["from_hand"])
        assert (piles >= 0).all() and (hands[who] >= 0).all()
    assert next(entries, None) is None
    # what left the piles and every hand is what the log says
    assert (piles == after["piles"]).all()
    assert (hands == after["hand"]).all()
    total = sum((_vec(o["cards_taken"]) for o in ev["reveal"]), np.zeros(N_CARD_TYPES, int))
    assert (total == _vec(ev["cards_taken"])).all()


@pytest.mark.parametrize(
    "cfg",
    CONFIGS,
    ids=lambda c: f"{c['num_players']}p-d{int(c['double_ingredients'])}-a{int(c['auto_reveal'])}",
)
def test_log_accounts_for_every_card_of_every_reveal(cfg: dict) -> None:
    config = Config(**cfg)
    codec = ActionCodec(Engine(config))
    seen = {"reveal": 0, "hand": 0, "auto": 0}
    for g in range(GAMES):
        seed = 1000 * cfg["num_players"] + 17 * g + 3
        actions = _random_game(config, seed)
        log = replay_events(config, seed, actions)
        assert log["format"] == LOG_FORMAT
        states = load_log(log)["_states"]
        delivered = [0] * config.num_players
        for i, ev in enumerate(log["events"]):
            if "reveal" not in ev:
                continue
            seen["reveal"] += 1
            _check_step(ev, states[i], states[i + 1], codec, config)
            for o in ev["reveal"]:
                delivered[o["seat"]] += o["delivered"]
                seen["hand"] += bool(o["from_hand"])
                seen["auto"] += o["by"] == "auto"
        assert delivered == log["result"]["delivered"]
    assert seen["reveal"] and seen["hand"]  # the games did add cards from hands
    assert bool(seen["auto"]) == config.auto_reveal


def test_two_deliveries_in_one_step_both_adding_from_hand() -> None:
    """Seat 3's "4 pineapple + 1 pepper" and seat 2's "4 mushroom + 1
    pineapple" are delivered in the step that ends play, each owner adding 1 pineapple:
    the log names both hand cards (5 pineapple in all, not the 3 face up)."""
    config = Config(num_players=4, auto_reveal=True)
    start = build_position(
        {
            "seat": 0,
            "hands": {"0": {"salami": 2}, "2": {"pineapple": 1}, "3": {"pineapple": 1}},
            "oven": [
                [0, "3 pineapple"],
                [1, "4 mushroom"],
                [1, "1 pepper"],
                [3, "order 2"],  # green's 4 pineapple + 1 pepper
                [2, "order 1"],  # yellow's 4 mushroom + 1 pineapple
            ],
            "supply": ["olive"],  # seat 0 draws it: play ends, the reveal begins
            "used": {"salami": 10, "mushroom": 8, "pineapple": 7, "pepper": 11, "olive": 11},
            "mm_holder": 1,
        },
        config,
    )
    codec = ActionCodec(Engine(config))
    a = codec.from_str("play 1 salami, no order, draw supply")
    log = replay_events(config, 0, [a], start)
    ev = log["events"][0]
    assert [(o["seat"], o["order"]) for o in ev["reveal"]] == [
        (3, "4 pineapple + 1 pepper"),
        (2, "4 mushroom + 1 pineapple"),
    ]
    green, yellow = ev["reveal"]
    assert green["delivered"] and yellow["delivered"]
    assert green["by"] == yellow["by"] == "auto"
    assert green["from_piles"] == {"pineapple": 3, "pepper": 1}
    assert green["from_hand"] == {"pineapple": 1}
    assert yellow["from_piles"] == {"mushroom": 4}
    assert yellow["from_hand"] == {"pineapple": 1}
    assert ev["cards_taken"] == {"mushroom": 4, "pineapple": 5, "pepper": 1}
    assert ev["failed"] == []
    json.dumps(log)


def test_format_1_logs_are_refused_by_name() -> None:
    """A format-1 log (a step's total only, no per-order record) is refused in one line
    saying to record the game again, not read as format 2; so is a log whose seed is a
    JSON integer (format 1 wrote it so; format 2 writes a string of digits)."""
    config = Config(num_players=3, double_ingredients=True, auto_reveal=True)
    log = replay_events(config, 5, _random_game(config, 5))
    old = {**json.loads(json.dumps(log)), "format": "mamma-mia-log/1"}
    with pytest.raises(LogError, match=r"^log is a format-1 game log; .* record the game again$"):
        load_log(old)
    with pytest.raises(LogError, match="field 'seed' must be a string of digits, got 5"):
        load_log({**log, "seed": 5})
    assert load_log(log)["format"] == LOG_FORMAT


def test_failed_and_decided_orders_in_a_decision_step() -> None:
    """Without ``auto_reveal`` the owner's decision is ``by: owner``; a decline moves
    nothing."""
    config = Config(num_players=4)
    start = build_position(
        {
            "round": 2,
            "hands": {"0": {"salami": 1, "mushroom": 3}},
            "piles": {"salami": 3, "mushroom": 3, "pineapple": 3, "pepper": 3, "olive": 2},
            "oven": [[0, "order 5"]],
            "reveal": True,
        },
        config,
    )
    assert start.data["phase"][0] == REVEAL
    codec = ActionCodec(Engine(config))
    for choice, delivered in (("reveal: decline", False), ("reveal: deliver", True)):
        log = replay_events(config, 0, [codec.from_str(choice)], start)
        (o,) = log["events"][0]["reveal"]
        assert o["by"] == "owner" and o["delivered"] == delivered
        if delivered:
            assert o["from_hand"] == {"mushroom": 1}
        else:
            assert o["from_piles"] == o["from_hand"] == {}
