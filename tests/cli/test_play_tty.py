"""The terminal game as a person uses it, in an 80x24 terminal.

Two layers: in tmux (a real terminal emulator, ``tests/support/tty_screen.py``) the
screen is read row by row as a person sees it, for a whole game, the help, undo across
the bots' moves, a reveal decision, save and resume; with pexpect the byte stream of a
whole game is cut into the screens it draws, each checked to fit 80x24 (so nothing
wraps or scrolls in any terminal).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

import pytest
import tty_screen as terminal

from mamma_mia_agents.cli.session import Game, SaveError
from mamma_mia_env import Config
from mamma_mia_env.game.cards import INGREDIENTS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
ENV = {"PYTHONPATH": PATH, "TERM": "xterm-256color"}
#: The person's decision screens end with this prompt; the others wait for a key.
ASKS = r"(?m)\+ Enter · .*> *$"
KEY = r"press a key|any key"
EXIT = r"\[exit \d+\]"
#: 2 players against builder: with the test's answers, seat 0 faces a reveal decision
#: in round 1 (tests/cli/test_session.py checks what every reveal choice adds).
SEED = "4"
needs_tmux = pytest.mark.skipif(terminal.TMUX is None, reason="tmux is not installed")


def _play(args: list[str], cwd) -> terminal.Screen:
    argv = [sys.executable, "-m", "mamma_mia_agents", "play", *args]
    return terminal.Screen(argv, str(cwd), ENV, 80, 24)


def _next(screen: terminal.Screen, last: str) -> list[str]:
    """The next screen that asks something (a decision, a key, or the end)."""
    while True:
        rows = screen.wait(f"{ASKS}|{KEY}|{EXIT}", 180)
        if "\n".join(rows) != last:
            return rows
        rows = screen.wait(f"{ASKS}|{KEY}|{EXIT}", 180)


def _when_shown(screen: terminal.Screen, expected: list[str], timeout: float = 120.0) -> list[str]:
    """The screen once it shows ``expected``, or the last capture after ``timeout``. The
    screen before a key's redraw can already match a pattern (the same question, the key
    echoed), so a test that knows the screen it expects waits for that screen itself."""
    deadline = time.monotonic() + timeout
    while True:
        rows = screen.capture()
        if rows == expected or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def _check_rows(rows: list[str]) -> None:
    """The status line on top, and no card name cut or wrapped at the right edge."""
    assert re.match(r" Round [123]/3 · supply \d+ cards · Mamma Mia! card: ", rows[0]), rows[0]
    names = "|".join(INGREDIENTS)
    for i, row in enumerate(rows):
        assert len(row) <= 80
        for word in re.findall(r"\b\d+ (?:double )?([a-z]+)", row):
            assert word in INGREDIENTS or not any(n.startswith(word) for n in INGREDIENTS), row
        if i + 1 < len(rows) and re.search(r"(\b\d+|double)$", row.rstrip()):
            assert not re.match(rf"\s*({names})\b", rows[i + 1]), (row, rows[i + 1])


def _answer(rows: list[str]) -> str:
    """Option 1, except: play an order card when one is offered, and at a reveal take
    the last choice (a delivery)."""
    text = "\n".join(rows)
    n = int(re.search(r"(?m)^1(?:-(\d+))? \+ Enter", text).group(1) or 1)
    return str(n) if ("Play an order card too?" in text or "Reveal: your order" in text) else "1"


@needs_tmux
def test_a_whole_game_at_80x24(tmp_path):
    screen = _play(["--players", "2", "--agents", "builder", "--seed", SEED, "--delay", "0",
                    "--save", str(tmp_path / "s.json")], tmp_path)  # fmt: skip
    seen: dict[str, int] = {}
    announced: list[str] = []
    last = ""
    try:
        for _ in range(400):
            rows = _next(screen, last)
            last = text = "\n".join(rows)
            if re.search(EXIT, text):
                break
            _check_rows(rows)
            for key in ("which ingredient cards", "Play an order card too?", "refill your hand",
                        "Reveal: your order", "is over: every order", "Game over."):  # fmt: skip
                seen[key] = seen.get(key, 0) + (key in text)
            if re.search(ASKS, text):
                assert any(r.startswith("Your cards: ") for r in rows)
                assert any(re.match(r">? +you +salami · hand \d", r) for r in rows), text
                assert any("builder (seat 1)  mushroom · hand" in r for r in rows), text
                if "Reveal: your order" in text:
                    announced += re.findall(r"add (.+?) from your hand", text)
                screen.send(_answer(rows), "Enter")
            else:
                if "is over: every order" in text:
                    assert "Delivered this round: you" in text and "Delivered in all:" in text
                    for cards in announced:  # the delivery added what it announced
                        assert f"added {cards} from hand" in text.replace("\n    ", " ")
                    announced = []
                screen.send(" ")
        else:
            pytest.fail("the game did not end")
    finally:
        screen.close()
    assert "Game over. Delivered orders: you" in text and "[exit 0]" in text
    assert seen["which ingredient cards"] > 10 and seen["refill your hand"] > 10
    assert seen["Reveal: your order"] >= 1 and seen["is over: every order"] == 3
    assert seen["Play an order card too?"] >= 3 and seen["Game over."] == 1


@needs_tmux
def test_a_whole_5_player_game_at_80x24(tmp_path):
    """The largest table in the smallest terminal: every screen fits, the oven shows
    many plays once it holds them (the rows the moves leave are its), and the game-over
    lines name every seat with its score, wrapped, never cut."""
    others = "builder,counter,random,hoarder"
    screen = _play(["--players", "5", "--agents", others, "--seed", "3", "--delay", "0",
                    "--save", str(tmp_path / "s.json")], tmp_path)  # fmt: skip
    seats = ["you", *[f"{a} (seat {i})" for i, a in enumerate(others.split(","), 1)]]
    last, most_shown, turns = "", 0, 0
    try:
        for _ in range(600):
            rows = _next(screen, last)
            last = text = "\n".join(rows)
            if re.search(EXIT, text):
                break
            _check_rows(rows)
            if "which ingredient cards" in text:
                turns += 1
                oven = rows[rows.index(next(r for r in rows if r.startswith("Oven"))) :]
                oven = oven[: next(i for i, r in enumerate(oven) if "· hand" in r)]
                plays = int(re.search(r"Oven \((\d+) plays", oven[0]).group(1))
                shown = sum(len(re.findall(r"(?:you|seat \d): ", r)) for r in oven)
                assert shown == plays or shown >= 9, text  # 80x24 holds a dozen plays
                most_shown = max(most_shown, shown)
                assert "Moves (newest last):" in text
            if "Game over." in text:
                said = " ".join(" ".join(text[text.index("Game over.") :].split("\n")).split())
                for name in seats:
                    assert re.search(rf"{re.escape(name)} \d+[,.]", said), (name, said)
                assert re.search(r"Won by .+\.", said), said
            screen.send(*([_answer(rows), "Enter"] if re.search(ASKS, text) else [" "]))
        else:
            pytest.fail("the game did not end")
    finally:
        screen.close()
    assert "[exit 0]" in text and turns > 15 and most_shown >= 9


def _first_question(screen: terminal.Screen, last: str = "") -> list[str]:
    """Answer until the next turn's first question (summaries: a key)."""
    while True:
        rows = _next(screen, last)
        last = "\n".join(rows)
        if "which ingredient cards" in last:
            return rows
        screen.send(*(["1", "Enter"] if re.search(ASKS, last) else [" "]))


@needs_tmux
def test_help_undo_across_the_bots_save_and_resume(tmp_path):
    save = tmp_path / "s.json"
    args = ["--players", "3", "--agents", "builder,counter", "--seed", "7", "--delay", "0"]
    screen = _play([*args, "--save", str(save)], tmp_path)
    try:
        first = _first_question(screen)
        screen.send("h", "Enter")
        rows = screen.wait("KEYS")
        _check_rows(rows)
        text = "\n".join(rows)
        assert "Pizza Minimale (1 P + 3 ?)" in text and "'>' marks the seat to act" in text
        screen.send(" ")  # the help's second page at 80x24
        rows = screen.wait("THE REVEAL")
        assert "each choice" in "\n".join(rows) and "(page 2/2)" in "\n".join(rows)
        screen.send(" ")
        rows = _when_shown(screen, first)
        assert rows == first  # the help returns to the same question
        screens = [first]
        for _ in range(2):  # two turns, the bots move after each
            screen.send("1", "Enter")
            screen.wait("Play an order card too")
            screen.send("1", "Enter")
            screen.wait("refill your hand")
            screen.send("1", "Enter")
            screens.append(_first_question(screen, "\n".join(screens[-1])))
        assert "builder (seat 1): played" in "\n".join(screens[-1])
        screen.send("u", "Enter")  # at a turn's first question: back across the bots
        rows = _when_shown(screen, screens[1])
        assert rows == screens[1], "\n".join(rows)
        screen.send("q", "Enter")
        rows = screen.wait(EXIT)
        assert "Saved to" in "\n".join(rows)
    finally:
        screen.close()
    saved = json.loads(save.read_text())
    game = Game.load(str(save))
    assert int(game.rec["seat"]) == 0 and len(game.steps) == len(saved["actions"])
    assert sum(s.seat == 0 for s in game.steps) == 1  # one turn of the person's left
    screen = _play(["--resume", str(save), "--delay", "0"], tmp_path)
    try:
        assert _when_shown(screen, screens[1]) == screens[1]
    finally:
        screen.close()


def test_every_screen_of_a_game_fits_80x24(tmp_path):
    """The bytes a whole game writes to an 80x24 pseudo-terminal, cut at each clear:
    every screen has at most 23 lines (the prompt takes the 24th) of at most 80 cells,
    and starts with the status line."""
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "mamma_mia_agents", "play", "--players", "3",
                          "--agents", "counter,random", "--seat", "2", "--seed", "3",
                          "--delay", "0", "--observation-mode", "top_card"],
                          cwd=str(tmp_path), env=dict(os.environ, **ENV), encoding="utf-8",
                          timeout=240, dimensions=(24, 80))  # fmt: skip
    stream = ""
    for _ in range(400):
        i = child.expect([r"\+ Enter · [^>]*> ", "press a key[^\n]*", "any key[^\n]*"])
        stream += child.before + child.after
        if i == 2:
            child.send(" ")
            break
        child.send("1\r" if i == 0 else " ")
    child.expect(pexpect.EOF)
    assert "Game over. Delivered orders:" in child.before
    frames = stream.split("\x1b[2J")[1:]
    assert len(frames) > 30
    for frame in frames:
        lines = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", frame).rstrip("\r\n ").split("\r\n")
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines), lines
        assert re.match(r" Round [123]/3 · supply \d+ cards", lines[0]), lines[0]


def test_bad_flags_and_saves_are_refused(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, **ENV)
    for args, message in ((["--players", "2", "--seat", "3"], "seat must be in 0-1"),
                          (["--resume", str(tmp_path / "bad.json")], "format")):  # fmt: skip
        (tmp_path / "bad.json").write_text('{"format": "x"}')
        child = pexpect.spawn(sys.executable, ["-m", "mamma_mia_agents", "play", *args],
                              env=env, encoding="utf-8", timeout=120)  # fmt: skip
        child.expect(message)
        child.expect(pexpect.EOF)


def test_resume_checks_the_saved_state(tmp_path):
    game = Game(Config(num_players=2), 0, ["builder"], 5, [])
    while int(game.rec["seat"]) != 0:
        game.apply(game.bot_action())
    game.apply(int(game.legal().nonzero()[0][0]))
    path = tmp_path / "s.json"
    obj = game.to_dict()
    path.write_text(json.dumps(obj))
    assert Game.load(str(path)).state.equals(game.state)
    tampered = dict(obj, actions=obj["actions"][:-1])
    path.write_text(json.dumps(tampered))
    with pytest.raises(SaveError, match="'state' does not match"):
        Game.load(str(path))
    path.write_text(json.dumps(dict(obj, actions=[10**6])))
    with pytest.raises(SaveError, match=r"actions\[0\] must be in 0-"):
        Game.load(str(path))
    path.write_text(json.dumps({k: v for k, v in obj.items() if k != "seat"}))
    with pytest.raises(SaveError, match="seat"):
        Game.load(str(path))


def write_screenshots(out: str) -> None:
    """The pictures in README.md and docs/PLAY.md, taken from the game in an 80x24 tmux
    terminal: a turn of a 5-player game late in a round (the oven on every row the
    moves leave) and seat 0's reveal decision of the whole-game test
    (``python tests/cli/test_play_tty.py --write``)."""
    import tempfile

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        others = "builder,counter,random,hoarder"
        args = ["--players", "5", "--agents", others, "--seed", "3", "--delay", "0"]
        screen = _play([*args, "--save", f"{tmp}/s.json"], tmp)
        try:
            rows = _first_question(screen)
            for _ in range(5):
                for question in ("Play an order card too", "refill your hand"):
                    screen.send(_answer(rows), "Enter")
                    rows = screen.wait(question)
                screen.send("1", "Enter")
                rows = _first_question(screen, "\n".join(rows))
            terminal.to_png(screen.capture(colours=True), f"{out}/terminal-game.png")
        finally:
            screen.close()
        args = ["--players", "2", "--agents", "builder", "--seed", SEED, "--delay", "0"]
        screen = _play([*args, "--save", f"{tmp}/s.json"], tmp)
        try:
            last = ""
            while "Reveal: your order" not in last:
                rows = _next(screen, last)
                last = "\n".join(rows)
                if "Reveal: your order" not in last:
                    screen.send(*([_answer(rows), "Enter"] if re.search(ASKS, last) else [" "]))
            terminal.to_png(screen.capture(colours=True), f"{out}/terminal-reveal.png")
        finally:
            screen.close()


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write_screenshots(os.path.join(ROOT, "docs", "img"))
