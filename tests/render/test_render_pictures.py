"""Pictures of the table: SVG, rgb_array frames of both envs, and a recorded video."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import gymnasium as gym
import numpy as np
import pytest

import mamma_mia_env as mm
from mamma_mia_env.envs.gym_env import MammaMiaGymEnv
from mamma_mia_env.render.fonts import fit, text_width
from mamma_mia_env.render.image import HEIGHT, table_image
from mamma_mia_env.render.svg import WIDTH, order_lines, table_shapes, table_svg
from mamma_mia_env.render.view import table_view


def _play(e, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))


def test_svg_is_wellformed_and_shows_only_the_viewers_hand():
    e = mm.raw_env(num_players=3)
    e.reset(seed=5)
    _play(e, 10)
    rec = e.game.data[0]
    for viewer in (0, 1, 2, None):
        view = table_view(rec, 3, viewer)
        root = ET.fromstring(table_svg(view))
        assert root.tag.endswith("svg")
        for s in range(3):
            seen = viewer is None or viewer == s
            assert (view["seats"][s]["hand"] is not None) == seen
            assert (view["seats"][s]["orders"] is not None) == seen
    # what seat 1 sees does not depend on seat 0's hidden cards (same hand size)
    other = rec.copy()
    other["hand"][0] = np.roll(rec["hand"][0], 1)
    other["orders_hand"][0] = np.roll(rec["orders_hand"][0], 3)
    assert not np.array_equal(other["hand"][0], rec["hand"][0])
    assert table_svg(table_view(rec, 3, 1)) == table_svg(table_view(other, 3, 1))
    assert table_svg(table_view(rec, 3, 0)) != table_svg(table_view(other, 3, 0))


def test_top_card_mode_shows_one_oven_card():
    e = mm.raw_env(num_players=2, observation_mode="top_card")
    e.reset(seed=1)
    _play(e, 6)
    view = table_view(e.game.data[0], 2, 0, history=False)
    assert view["oven_mode"] == "top_card"
    assert len(view["oven"]) == (1 if view["oven_len"] else 0)
    full = table_view(e.game.data[0], 2, 0, history=True)
    assert len(full["oven"]) == full["oven_len"] and full["oven_mode"] == "history"


def test_bad_viewer_is_refused():
    e = mm.raw_env(num_players=2)
    e.reset(seed=1)
    with pytest.raises(ValueError, match="viewer"):
        table_view(e.game.data[0], 2, 2)


def test_aec_rgb_array_frames_change_as_the_game_moves():
    e = mm.env(render_mode="rgb_array", num_players=3)
    e.reset(seed=2)
    frames = [e.render()]
    rng = np.random.default_rng(0)
    for _ in range(8):
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
        frames.append(e.render())
    for f in frames:
        assert f.shape == (HEIGHT, WIDTH, 3) and f.dtype == np.uint8
    assert all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:], strict=False))
    assert "rgb_array" in e.unwrapped.metadata["render_modes"]


def test_aec_rgb_array_matches_the_ansi_view():
    a = mm.raw_env(render_mode="ansi", num_players=2)
    a.reset(seed=4)
    text = a.render()
    view = table_view(a.game.data[0], 2, a._seat[a.agent_selection])
    for s in view["seats"]:
        assert (s["hand"] is not None) == (f"your hand (seat {s['seat']})" in text)


def test_tall_tables_are_scaled_to_one_frame_shape():
    e = mm.raw_env(num_players=5)
    e.reset(seed=9)
    _play(e, 30)
    f = table_image(table_view(e.game.data[0], 5, None))
    assert f.shape == (HEIGHT, WIDTH, 3)


def test_gym_rgb_array_and_record_video(tmp_path):
    env = MammaMiaGymEnv(num_players=2, render_mode="rgb_array", learner_seat=0)
    env = gym.wrappers.RecordVideo(env, str(tmp_path), episode_trigger=lambda i: True)
    obs, info = env.reset(seed=0)
    first = env.render()
    assert first.shape == (HEIGHT, WIDTH, 3) and first.dtype == np.uint8
    rng = np.random.default_rng(0)
    done, steps = False, 0
    while not done:
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        done = term or trunc
        steps += 1
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    assert steps > 5


def _inside(shapes) -> list[tuple[str, tuple, tuple]]:
    """Every label drawn on a card (the smallest box holding its anchor point), as
    ``(text, its box as Pillow draws it in the frame, the card)``."""
    from mamma_mia_env.render.fonts import font

    items = list(shapes.flat())
    rects = [it[1:5] for it in items if it[0] == "rect"]
    out = []
    for _, x, y, text, size, bold, _fill, anchor in (i for i in items if i[0] == "text"):
        holders = [r for r in rects if r[0] <= x <= r[0] + r[2] and r[1] <= y <= r[1] + r[3]]
        if not holders:
            continue  # a heading on the table, not on a card
        box = min(holders, key=lambda r: r[2] * r[3])
        drawn = font(size, bold).getbbox(text, anchor="ms" if anchor == "middle" else "ls")
        out.append((text, (x + drawn[0], y + drawn[1], x + drawn[2], y + drawn[3]), box))
    return out


@pytest.mark.parametrize("num_players", [2, 4, 5])
def test_card_labels_fit_inside_their_cards(num_players):
    """The frames (and the SVG, same layout and font) show every order card's and
    ingredient card's words inside the card, over a whole game and every view."""
    e = mm.raw_env(num_players=num_players)
    e.reset(seed=num_players)
    rng = np.random.default_rng(num_players)
    orders = 0
    while e.game.data["phase"][0] != 2:
        for viewer in (None, 0):
            shapes, _ = table_shapes(table_view(e.game.data[0], num_players, viewer))
            for text, (x0, y0, x1, y1), (bx, by, bw, bh) in _inside(shapes):
                assert bx <= x0 and x1 <= bx + bw and by <= y0 and y1 <= by + bh, text
                orders += "+" in text or "of each" in text
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert orders > 100  # order cards were checked, not just ingredient cards


def test_order_cards_name_the_order_in_two_lines():
    assert order_lines("Pizza Monotoni (1 salami + 6 J)") == ("Pizza Monotoni", "1 salami + 6 J")
    assert order_lines("Pizza Bombastica (15+)") == ("Pizza Bombastica", "15+ cards")
    assert order_lines("4 olive + 1 salami") == ("order", "4 olive + 1 salami")
    assert fit("x" * 300, 12, False, 100)[0].endswith("…")
    assert text_width(*fit("x" * 300, 12, False, 100), False) <= 100


@pytest.mark.parametrize("orders", [0, 2, 3, 8])
def test_a_seats_cards_never_overlap(orders):
    """A seat's order cards that wrap to a new row start below its ingredient cards
    (they were drawn over them), and the seat's height holds every card."""
    from mamma_mia_env.render.svg import Shapes, _seat_cards

    names = ["Pizza Bombastica (15+)", "4 olive + 1 salami", "1 of each"] * 3
    seat = {
        "seat": 1,
        "delivered": names[:4],
        "hand": [(k, 2, 1) for k in range(5)],
        "orders": names[:orders],
    }
    sh = Shapes()
    height = _seat_cards(sh, seat)
    cards = [it[1:5] for it in sh.flat() if it[0] == "rect"]
    assert len(cards) == 4 + 5 + orders
    for i, (x, y, w, h) in enumerate(cards):
        assert y + h <= height
        for x2, y2, w2, h2 in cards[:i]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y, (i, cards)
