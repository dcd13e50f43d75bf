"""The 5-player table in the browser at 1280x900, as a person sees it (headless
Chromium): the form offers each agent only at the player counts it plays, the question
sits beside the table without scrolling, the moves read as the terminal game words them,
a reload mid-game comes back to the game with its move list (and still this seat's view
only), and the game ends with every seat's score. ``MAMMA_MIA_SCREENSHOTS=1`` writes the
picture after the reload to docs/img/serve-5-players.png."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from headless import chromium, needs_chromium
from serve_client import call, person_move, running_server

from mamma_mia_agents.cli.session import bundled_counts

pytestmark = needs_chromium

OTHERS = ["builder", "counter", "random", "hoarder"]
PLAYING = ("ingredients", "order", "draw", "reveal", "over")
DOCS_PICTURE = Path(__file__).resolve().parents[2] / "docs" / "img" / "serve-5-players.png"


@pytest.fixture()
def driver(tmp_path):
    with chromium(tmp_path / "profile") as drv:
        # the page's own size, whatever the window's frame takes
        drv.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )
        yield drv


def _state(drv, *states: str) -> str:
    from selenium.webdriver.support.ui import WebDriverWait

    body = ("tag name", "body")
    WebDriverWait(drv, 120).until(
        lambda d: d.find_element(*body).get_attribute("data-state") in states
    )
    return drv.find_element(*body).get_attribute("data-state")


def _in_view(drv, element_id: str) -> bool:
    """Whether the element is wholly inside the window without scrolling."""
    return drv.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return window.scrollY === 0 && r.top >= 0 && r.bottom <= window.innerHeight"
        " && r.right <= window.innerWidth && r.height > 0;",
        element_id,
    )


def _offered(drv) -> list[list[str]]:
    selects = drv.find_elements("css selector", "select.agent")
    return [
        [o.get_attribute("value") for o in s.find_elements("tag name", "option")] for s in selects
    ]


def _click(drv, text: str, state: str) -> None:
    _state(drv, state)
    match = [
        b for b in drv.find_elements("css selector", "#choices button") if b.text.startswith(text)
    ]
    assert match, text
    match[0].click()


def test_the_form_offers_each_agent_at_its_counts(driver) -> None:
    plays = {a: [n for n, why in c.items() if why is None] for a, c in bundled_counts().items()}
    with running_server("--players", "2", "--agents", "builder", "--delay", "0") as srv:
        driver.get(f"http://127.0.0.1:{srv.server_address[1]}/")
        _state(driver, "setup")
        from selenium.webdriver.support.ui import Select

        for n in (2, 3, 4, 5):
            Select(driver.find_element("id", "players")).select_by_value(str(n))
            offered = _offered(driver)
            assert len(offered) == n - 1
            assert all(o == [a for a in plays if n in plays[a]] for o in offered), (n, offered)
            left = [a for a in plays if n not in plays[a]]
            note = driver.find_element("id", "not-offered").text
            assert all(f"{a} (plays " in note for a in left) and (note == "") == (not left)
        # an address naming a game the server does not have: the form, and why
        driver.get(f"http://127.0.0.1:{srv.server_address[1]}/#game=no-such-game-1")
        driver.refresh()  # a new hash alone does not load the page again
        _state(driver, "setup")
        assert "no such game" in driver.find_element("id", "message").text
        assert driver.current_url.endswith("/")  # the stale id is dropped from the address


def test_a_5_player_game_at_1280x900_with_a_reload(driver, tmp_path) -> None:
    flags = ("--players", "5", "--agents", ",".join(OTHERS), "--seed", "3", "--delay", "0",
             "--save", str(tmp_path / "save.json"))  # fmt: skip
    with running_server(*flags) as srv:
        driver.get(f"http://127.0.0.1:{srv.server_address[1]}/")
        _state(driver, "setup")
        plays = bundled_counts()
        assert _offered(driver) == [[a for a, c in plays.items() if c[5] is None]] * 4
        driver.find_element("id", "start").click()
        turns, reloaded = 0, False
        while _state(driver, *PLAYING) != "over":
            (gid,) = srv.games
            page = call(srv, "GET", f"/api/games/{gid}")
            assert _in_view(driver, "prompt") and _in_view(driver, "choices"), turns
            shown = [li.text for li in driver.find_elements("css selector", "#moves li")]
            said = [m["text"] for m in reversed(page["moves"])]  # the newest first
            assert [s.split("\n")[0] for s in shown] == said
            assert not any("order type" in s or "draw supply" in s for s in said)
            if turns == 12 and not reloaded:  # a reload: the same game, its moves, its view
                assert driver.current_url.endswith(f"#game={gid}")
                driver.refresh()
                _state(driver, *PLAYING)
                again = [li.text for li in driver.find_elements("css selector", "#moves li")]
                assert again == shown and len(again) > 40
                assert call(srv, "GET", f"/api/games/{gid}")["moves"] == page["moves"]
                assert _in_view(driver, "prompt")
                shot = tmp_path / "reload.png"
                driver.save_screenshot(str(shot))
                assert shot.stat().st_size > 20_000
                if os.environ.get("MAMMA_MIA_SCREENSHOTS"):
                    DOCS_PICTURE.write_bytes(shot.read_bytes())
                reloaded = True
                continue
            q = page["question"]
            opt = person_move(q)
            if q["kind"] == "reveal":
                _click(driver, opt["label"], "reveal")
            else:
                _click(driver, opt["play"], "ingredients")
                _click(driver, opt["order"], "order")
                _click(driver, opt["draw"], "draw")
            turns += 1
            _state(driver, *PLAYING, "agent", "busy")
        assert reloaded and turns > 15
        rows = driver.find_elements("css selector", "#scores tbody tr")
        assert len(rows) == 5 and _in_view(driver, "result")
        names = [r.find_elements("tag name", "td")[1].text for r in rows]
        assert names == ["you", *OTHERS]
        assert re.match(r"Won by ", driver.find_element("id", "winners").text)
        text = driver.find_element("id", "moves").text
        assert "builder (seat 1): played" in text and ", an order card, " in text
