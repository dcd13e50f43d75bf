"""The HTML replay in headless Chromium: it opens and steps at once, draws each viewer's
picture as ``render.svg`` lays out ``render.view``'s view, keeps labels inside their
cards, and shows a log's agent names as text, never as markup.

Set ``MAMMA_MIA_SCREENSHOTS=1`` to write the page's picture in the docs
(docs/img/replay-page.png) from the four-player game drawn here.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from headless import chromium, needs_chromium
from replay_logs import HOSTILE, cut_log, tournament_log

from mamma_mia_env.game.log import load_log
from mamma_mia_env.render.html import replay_html, reveal_starts, step_caption
from mamma_mia_env.render.svg import table_shapes
from mamma_mia_env.render.view import table_view

DOCS_PICTURE = Path(__file__).resolve().parents[2] / "docs" / "img" / "replay-page.png"

pytestmark = needs_chromium


@pytest.fixture
def browser(tmp_path):
    with chromium(tmp_path / "profile", size="1500,1050", console_log=True) as drv:
        yield drv


def _open(drv, tmp_path, log, seat=None) -> None:
    page = tmp_path / "replay.html"
    page.write_text(replay_html(log, source="game-0.json", seat=seat), encoding="utf-8")
    drv.get(page.as_uri())


def _errors(drv) -> list:
    return [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


# every label drawn on a card (the smallest rectangle holding its anchor point) must
# lie inside it, as the page's fonts draw it
OUTSIDE = """
const rects = [...document.querySelectorAll('#table rect')].map(r => r.getBBox());
const out = [];
for (const t of document.querySelectorAll('#table text')) {
  const x = +t.getAttribute('x'), y = +t.getAttribute('y');
  const holders = rects.filter(
    b => b.x <= x && x <= b.x + b.width && b.y <= y && y <= b.y + b.height);
  if (!holders.length) continue;  // a heading on the table, not on a card
  const b = holders.reduce((a, r) => (r.width * r.height < a.width * a.height ? r : a));
  const c = t.getBBox();
  if (c.x < b.x || c.y < b.y || c.x + c.width > b.x + b.width || c.y + c.height > b.y + b.height)
    out.push(t.textContent);
}
return out;
"""

# what the script draws for each position and viewer: tag, place, and text or fill
DRAWN = """
return JSON.stringify(D.steps.map((s, i) => s.map((_, v) => [...picture(i, v).children].map(
  e => [e.tagName, +e.getAttribute('x'), +e.getAttribute('y'),
        e.tagName === 'text' ? e.textContent : e.getAttribute('fill')]))));
"""


def test_replay_page_steps_and_draws_what_each_view_allows(browser, tmp_path):
    from selenium.webdriver.common.by import By

    log = load_log(tournament_log(4))
    names, last = log["agents"], len(log["_states"]) - 1
    _open(browser, tmp_path, log)
    drv = browser
    timing = drv.execute_script(
        "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd;"
    )
    assert timing < 3000  # ms from navigation to the page drawn
    pos = drv.find_element(By.ID, "pos")
    assert pos.text == f"step 0 / {last}"
    assert drv.find_element(By.ID, "title").text.endswith("builder vs counter vs hoarder vs random")
    winners = [names[s] for s in log["result"]["winners"]]
    assert not drv.find_element(By.ID, "result").is_displayed()  # no spoiler at step 0
    drv.find_element(By.ID, "showresult").click()
    assert all(w in drv.find_element(By.ID, "result").text for w in winners)
    assert (
        "salami (sal) — personal ingredient of builder (seat 0)"
        in drv.find_element(By.ID, "legend").text
    )
    table = drv.find_element(By.ID, "table")
    assert "builder (seat 0) · personal ingredient salami" in table.text
    drv.find_element(By.ID, "fwd").click()
    assert pos.text == f"step 1 / {last}"
    assert drv.find_element(By.ID, "caption").text == step_caption(log, 1)
    drv.find_element(By.ID, "back").click()
    assert pos.text == f"step 0 / {last}"
    drv.find_element(By.ID, "nextrev").click()
    first = reveal_starts(log)[0]
    assert pos.text == f"step {first} / {last}"
    assert "reveal: " in drv.find_element(By.ID, "caption").text
    # stepping is instant: 40 steps forward, drawn each time
    ms = drv.execute_script(
        "const t0 = performance.now(); for (let k = 0; k < 40; k++) "
        "document.getElementById('fwd').click(); return performance.now() - t0;"
    )
    assert ms / 40 < 50
    # the page draws render.svg's layout of render.view's views, for every position and viewer
    drawn = json.loads(drv.execute_script(DRAWN))
    for i, rec in enumerate(log["_states"]):
        for v, viewer in enumerate((None, 0, 1, 2, 3)):
            shapes, _ = table_shapes(table_view(rec, 4, viewer), names)
            want = [[it[0], it[1], it[2], it[3 if it[0] == "text" else 5]] for it in shapes.flat()]
            assert drawn[i][v] == want
    # a seat's view: its own hand drawn, every other hand not
    drv.find_element(By.CSS_SELECTOR, "#view option[value='2']").click()
    text = table.text
    assert text.count("hand not shown in this view") == 3
    rows = drv.find_elements(By.CSS_SELECTOR, "#score tr")
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows[1:]] == names
    drv.find_element(By.ID, "last").click()
    assert "★ winner" in drv.find_element(By.ID, "score").text
    for v in range(5):
        drv.find_element(By.CSS_SELECTOR, f"#view option[value='{v}']").click()
        for p in (0, first, last // 2, last):
            drv.execute_script(f"go({p});")
            assert drv.execute_script(OUTSIDE) == []
    busiest = max(range(1, last + 1), key=lambda i: len(log["events"][i - 1].get("reveal", [])))
    drv.find_element(By.CSS_SELECTOR, "#view option[value='0']").click()
    drv.execute_script(f"go({busiest});")  # the picture: the step that revealed most
    assert drv.find_element(By.ID, "caption").text == step_caption(log, busiest)
    assert _errors(drv) == []
    shot = tmp_path / "replay.png"
    drv.save_screenshot(str(shot))
    assert shot.stat().st_size > 20_000
    if os.environ.get("MAMMA_MIA_SCREENSHOTS"):
        shutil.copy(shot, DOCS_PICTURE)


def test_hostile_names_show_as_text(browser, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    log = load_log(dict(tournament_log(4), agents=HOSTILE))
    _open(browser, tmp_path, log)
    drv = browser
    with pytest.raises(NoAlertPresentException):
        drv.switch_to.alert.text  # noqa: B018 - reading it is the check
    assert drv.execute_script("return document.scripts.length") == 2
    assert drv.find_element(By.ID, "title").text.endswith(" vs ".join(HOSTILE[:3]) + " vs a b")
    options = [o.text for o in drv.find_elements(By.CSS_SELECTOR, "#view option")]
    assert options[1] == f"{HOSTILE[0]} (seat 0)'s view"
    assert options[2] == f"{HOSTILE[1]} (seat 1)'s view"
    assert HOSTILE[2] in drv.find_element(By.ID, "table").text
    assert _errors(drv) == []


def test_the_page_opens_in_the_asked_seat_and_shows_the_result_at_the_end(browser, tmp_path):
    """``mamma-mia replay LOG --html OUT --seat 2``: the page opens in seat 2's view;
    the result appears at the last step without a click."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    log = load_log(tournament_log(4))
    _open(browser, tmp_path, log, seat=2)
    assert (
        Select(browser.find_element(By.ID, "view")).first_selected_option.get_attribute("value")
        == "3"
    )
    assert browser.find_element(By.ID, "table").text.count("hand not shown") == 3
    assert not browser.find_element(By.ID, "result").is_displayed()
    browser.find_element(By.ID, "last").click()
    assert browser.find_element(By.ID, "result").is_displayed()
    assert not browser.find_element(By.ID, "showresult").is_displayed()
    assert _errors(browser) == []


def test_a_cut_log_shows_an_unfinished_game_with_no_winner(browser, tmp_path):
    """A saved log of a game that did not end: at its last step the page says where it
    stops, names no winner and ranks nobody."""
    from selenium.webdriver.common.by import By

    log = load_log(cut_log(tournament_log(4), 40))
    _open(browser, tmp_path, log)
    browser.find_element(By.ID, "last").click()
    result = browser.find_element(By.ID, "result")
    assert result.is_displayed()
    assert result.text.startswith("Game not finished: the log ends after move 40. ")
    assert "Delivered orders so far: " in result.text and "Winner" not in result.text
    score = browser.find_element(By.ID, "score").text
    assert "winner" not in score and score.count("unfinished") == 4
    assert _errors(browser) == []
