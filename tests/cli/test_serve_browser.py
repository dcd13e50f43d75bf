"""``mamma-mia serve`` end to end in headless Chromium: a whole game played by clicking
the page's buttons (ingredients, order, draw), a reveal decision, the turn's Back and
Undo, bad requests sent from the page that leave the game as it was, and the end with
scores. ``MAMMA_MIA_SCREENSHOT=path`` also saves the reveal decision's screenshot
there (docs/img/serve-game.png is made so)."""

from __future__ import annotations

import os

import pytest
from headless import chromium, needs_chromium
from serve_client import REVEAL_SEED, call, person_move, running_server

pytestmark = needs_chromium

BAD_FETCHES = """
const [gid, illegal, done] = arguments;
const post = (path, body, type) => fetch(path, {method: "POST",
    headers: {"Content-Type": type || "application/json"}, body})
  .then(async (r) => [r.status, (await r.json()).error]);
Promise.all([
  post(`/api/games/${gid}/act`, JSON.stringify({action: illegal})),
  post(`/api/games/${gid}/act`, "{not json"),
  post(`/api/games/${gid}/act`, "x".repeat(5000)),
  post(`/api/games/${gid}/act`, JSON.stringify({action: 0}), "text/plain"),
  post(`/api/games/${gid}/step`, "{}"),
  post(`/api/games/no-such-game-id/act`, JSON.stringify({action: 0})),
  fetch(`/api/games/${gid}/act`, {method: "PUT"}).then((r) => [r.status, "put"]),
]).then(done, (e) => done(String(e)));
"""


@pytest.fixture()
def driver(tmp_path):
    with chromium(tmp_path / "profile") as drv:
        drv.set_script_timeout(60)
        yield drv


def _state(drv, *states: str) -> str:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(drv, 120).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-state") in states
    )
    return drv.find_element("tag name", "body").get_attribute("data-state")


def _click(drv, text: str, state: str) -> None:
    """Click the choice whose text starts with ``text`` (while in ``state``)."""
    _state(drv, state)
    buttons = drv.find_elements("css selector", "#choices button")
    match = [b for b in buttons if b.text.startswith(text)]
    assert match, (text, [b.text for b in buttons])
    match[0].click()


def test_a_whole_game_in_chromium(driver, tmp_path):
    flags = ("--players", "2", "--agents", "builder", "--seed", str(REVEAL_SEED),
             "--delay", "0", "--save", str(tmp_path / "save.json"))  # fmt: skip
    with running_server(*flags) as srv:
        driver.get(f"http://127.0.0.1:{srv.server_address[1]}/")
        _state(driver, "setup")
        driver.find_element("id", "start").click()
        moves, reveals, undone, backed, probed = 0, 0, False, False, False
        while _state(driver, "ingredients", "reveal", "over") != "over":
            (gid,) = srv.games
            web = srv.games[gid]
            page = call(srv, "GET", f"/api/games/{gid}")
            status = driver.find_element("id", "status").text
            assert status.startswith("You are seat 0 (salami)") and "your move" in status
            q = page["question"]
            opt = person_move(q)
            if moves == 6 and not undone:  # back to the previous decision
                before = list(web.game.actions)
                driver.find_element("id", "undo").click()
                _state(driver, "ingredients", "reveal")
                undone = True
                assert len(web.game.actions) < len(before)
                assert web.game.actions == before[: len(web.game.actions)]
                assert "Undone" in driver.find_element("id", "message").text
                continue
            if moves == 8 and not probed:
                probed = True
                _bad_requests_leave_the_game(driver, srv, gid)
            if q["kind"] == "reveal":
                reveals += 1
                buttons = driver.find_elements("css selector", "#choices button")
                assert any("from your hand" in b.text for b in buttons)  # what delivery adds
                assert "Reveal: your order" in driver.find_element("id", "prompt").text
                shot = os.environ.get("MAMMA_MIA_SCREENSHOT") or str(tmp_path / "reveal.png")
                driver.save_screenshot(shot)
                _click(driver, opt["label"], "reveal")
            else:
                _click(driver, opt["play"], "ingredients")
                if not backed:  # the turn's Back returns to the ingredients
                    _state(driver, "order")
                    driver.find_element("id", "back").click()
                    _click(driver, opt["play"], "ingredients")
                    backed = True
                _click(driver, opt["order"], "order")
                _click(driver, opt["draw"], "draw")
            moves += 1
            _state(driver, "ingredients", "reveal", "over", "agent", "busy")
        assert undone and backed and probed and reveals >= 1
        (gid,) = srv.games
        res = srv.games[gid].game
        assert res.over()
        rows = driver.find_elements("css selector", "#scores tbody tr")
        assert len(rows) == 2 and driver.find_element("id", "result").is_displayed()
        assert driver.find_element("id", "winners").text.startswith("Won by ")
        table = driver.find_element("id", "table").get_attribute("innerHTML")
        assert table.startswith("<svg") and "seat 1 · personal ingredient mushroom" in table
        driver.find_element("id", "again").click()
        _state(driver, "setup")


def _bad_requests_leave_the_game(driver, srv, gid: str) -> None:
    """Bad requests sent from the page's own origin: each a 4xx with a message; the
    game, the table on the page and its buttons stay as they were."""
    web = srv.games[gid]
    actions = list(web.game.actions)
    table = driver.find_element("id", "table").get_attribute("innerHTML")
    illegal = next(a for a, ok in enumerate(web.game.legal()) if not ok)
    answers = driver.execute_async_script(BAD_FETCHES, gid, illegal)
    assert isinstance(answers, list), answers
    assert [a[0] for a in answers] == [409, 400, 413, 415, 409, 404, 405], answers
    assert all(isinstance(a[1], str) and a[1] for a in answers)
    assert web.game.actions == actions
    assert driver.find_element("id", "table").get_attribute("innerHTML") == table
    page = call(srv, "GET", f"/api/games/{gid}")
    assert page["status"] == "you" and page["view"]["to_act"] == 0
