"""Event logs for viewers, tournament logs, and the HTML replay in a real browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mamma_mia_env as mm
from mamma_mia_agents.tournament import run_tournament
from mamma_mia_env.render.html import LogError, load_log, replay_html, reveal_starts


def _random_game(num_players: int = 3, seed: int = 3) -> mm.raw_env:
    e = mm.raw_env(num_players=num_players)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while e.game.data["phase"][0] != 2:
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    return e


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_event_log_outcomes_account_for_every_delivery(seed):
    log = _random_game(seed=seed).event_log()
    outcomes = [o for ev in log["events"] for o in ev.get("reveal", [])]
    per_seat = [0, 0, 0]
    for o in outcomes:
        per_seat[o["seat"]] += o["delivered"]
    assert per_seat == log["result"]["delivered"]
    for ev in log["events"]:  # the old keys stay (backwards compatible)
        assert {"round", "seat", "decision", "action", "text", "delivered", "rewards"} <= set(ev)
        if "reveal" in ev:
            assert ev["failed"] == [o for o in ev["reveal"] if not o["delivered"]]
            if any(o["delivered"] for o in ev["reveal"]):
                assert sum(ev["cards_taken"].values()) > 0
        if ev["decision"] == "reveal":  # the decided order comes first
            assert ev["reveal"][0]["decided"] and ev["reveal"][0]["order"] == ev["order"]
        for o in ev.get("reveal", [])[1:]:
            assert not o["decided"]
    json.dumps(log)


def test_every_delivery_names_its_cards():
    log = _random_game(seed=3).event_log()
    done = [o for ev in log["events"] for o in ev.get("reveal", []) if o["delivered"]]
    assert done
    for o in done:
        if o["order"].startswith("4 "):  # a simple order takes 4 + 1 cards' worth
            assert sum(o["cards_taken"].values()) >= 2


def test_load_log_checks_what_comes_in(tmp_path):
    log = _random_game().event_log()
    good = tmp_path / "g.json"
    good.write_text(json.dumps(log))
    assert len(load_log(good)["_states"]) == len(log["actions"]) + 1
    bad = dict(log, actions=[*log["actions"][:5], 10**6])
    with pytest.raises(LogError, match="action 5"):
        load_log(bad)
    with pytest.raises(LogError, match="format"):
        load_log(dict(log, format="x"))
    with pytest.raises(LogError, match="seed"):
        load_log(dict(log, seed="abc"))
    with pytest.raises(LogError, match="config"):
        load_log(dict(log, config={"num_players": 9}))
    with pytest.raises(LogError, match="after the end"):
        load_log(dict(log, actions=[*log["actions"], 0]))
    (tmp_path / "t.json").write_text("{")
    with pytest.raises(LogError, match="not valid JSON"):
        load_log(tmp_path / "t.json")


def test_tournament_logs_are_the_games_played():
    res = run_tournament(
        ["builder", "counter", "random"], num_players=3, games=6, workers=1,
        progress=False, save_logs=2,
    )  # fmt: skip
    assert len(res.logs) == 2
    for k, log in enumerate(res.logs):
        assert log["result"]["delivered"] == [int(x) for x in res.delivered[k]]
        assert log["agents"] == [res.names[a] for a in res.assign[k]]
        load_log(log)


def test_cli_replay_html_is_self_contained(tmp_path):
    log = _random_game().event_log()
    (tmp_path / "g.json").write_text(json.dumps(log))
    out = tmp_path / "g.html"
    r = subprocess.run(
        [sys.executable, "-m", "agents", "replay", str(tmp_path / "g.json"), "--html", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert "<svg" in page and "<script>" in page
    assert not re.search(r"(src|href)=['\"]?https?:", page)
    assert page.count("id='data'") == 1


def test_cli_replay_refuses_a_bad_log(tmp_path):
    (tmp_path / "b.json").write_text('{"format": "nope"}')
    r = subprocess.run(
        [sys.executable, "-m", "agents", "replay", str(tmp_path / "b.json")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 2 and "format" in r.stderr


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="needs chromium and chromium-driver")
def test_html_viewer_in_headless_chromium(tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    log = load_log(_random_game().event_log())
    page = tmp_path / "replay.html"
    page.write_text(replay_html(log))
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1100,1000",
    ):  # fmt: skip
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        drv.get(page.as_uri())
        pos = drv.find_element(By.ID, "pos")
        assert pos.text == f"step 0 / {len(log['_states']) - 1}"
        cards = drv.find_elements(By.CSS_SELECTOR, "#table svg rect")
        assert len(cards) > 10 and all(c.is_displayed() for c in cards[:5])
        first = drv.find_element(By.ID, "table").get_attribute("innerHTML")
        drv.find_element(By.ID, "fwd").click()
        assert pos.text.startswith("step 1 ")
        assert drv.find_element(By.ID, "table").get_attribute("innerHTML") != first
        assert "Round 1: seat" in drv.find_element(By.ID, "caption").text
        drv.find_element(By.ID, "back").click()
        assert pos.text.startswith("step 0 ")
        drv.find_element(By.ID, "nextrev").click()
        assert pos.text == f"step {reveal_starts(log)[0]} / {len(log['_states']) - 1}"
        assert "reveal:" in drv.find_element(By.ID, "caption").text
        # a seat's view hides the other hands: fewer cards than all hands
        all_hands = len(drv.find_elements(By.CSS_SELECTOR, "#table svg rect"))
        drv.find_element(By.CSS_SELECTOR, "#view option[value='1']").click()
        assert len(drv.find_elements(By.CSS_SELECTOR, "#table svg rect")) < all_hands
        shot = tmp_path / "viewer.png"
        drv.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
    finally:
        drv.quit()


def test_terminal_replay_steps_jumps_and_changes_view(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    import os

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    e = _random_game(num_players=2, seed=4)
    path = tmp_path / "g.json"
    e.unwrapped.write_event_log(str(path))
    log = load_log(path)
    env = dict(os.environ, PYTHONPATH=root, COLUMNS="120", LINES="60", TERM="xterm-256color")
    child = pexpect.spawn(
        sys.executable, ["-m", "agents", "replay", str(path)], env=env, encoding="utf-8",
        timeout=240, dimensions=(60, 120),
    )  # fmt: skip
    last = len(log["_states"]) - 1
    child.expect("key: ")
    assert "view: all hands" in child.before and f"step 0/{last}" in child.before
    assert "hidden" not in child.before.split("\x1b[2J")[-1]
    child.sendline("n")
    child.expect("key: ")
    assert f"step 1/{last}" in child.before and "Round 1: seat" in child.before
    child.sendline("r")
    child.expect("key: ")
    assert f"step {reveal_starts(log)[0]}/{last}" in child.before and "reveal: seat" in child.before
    child.sendline("v")
    child.expect("key: ")
    assert "view: seat 0" in child.before and "hidden" in child.before.split("\x1b[2J")[-1]
    child.sendline("zz")
    child.expect("unknown key")
    child.sendline("e")
    child.expect("Game over")
    child.sendline("q")
    child.expect(pexpect.EOF)
