"""The terminal game as a person uses it: a pseudo-terminal, keys typed, screen read."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

from mamma_mia_agents.cli.play import Game, SaveError  # noqa: E402
from mamma_mia_env import Config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROMPT = re.compile(r"\((1-\d+)[^)]*\): ")
OVER = "Delivered orders by seat"


def _spawn(args: list[str], cwd) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=ROOT, COLUMNS="120", LINES="60", TERM="xterm-256color")
    return pexpect.spawn(
        sys.executable, ["-m", "agents", "play", *args], cwd=str(cwd), env=env,
        encoding="utf-8", timeout=240, dimensions=(60, 120),
    )  # fmt: skip


def _play_on(child: pexpect.spawn, max_moves: int = 400) -> tuple[int, set[str]]:
    """Answer every question with its first option until the game ends."""
    seen: set[str] = set()
    for moves in range(max_moves):
        i = child.expect([PROMPT, OVER])
        if i == 1:
            return moves, seen
        before = child.before
        for q in ("which ingredients?", "Play an order card?", "Then draw from?", "Reveal:"):
            if q in before:
                seen.add(q)
        child.sendline("1")
    raise AssertionError("the game did not end")


def test_whole_game_with_bad_keys_undo_quit_and_resume(tmp_path):
    save = tmp_path / "save.json"
    args = ["--players", "2", "--agents", "builder", "--seed", "11", "--delay", "0"]
    child = _spawn([*args, "--save", str(save)], tmp_path)
    child.expect("you are seat 0")
    child.expect(PROMPT)
    screen = child.before
    assert "which ingredients?" in screen and "view: seat 0" in screen
    assert "hidden" in screen and "(you)" in screen  # the other hand is not shown
    child.sendline("x")  # a bad key: a hint, not a crash
    child.expect("'x' is not a choice here")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect("Play an order card\\?")
    child.expect(PROMPT)
    child.sendline("u")  # undo: back to the ingredients
    child.expect("which ingredients\\?")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect("Then draw from\\?")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect("you: play")  # the move is shown
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("Saved to")
    child.expect(pexpect.EOF)
    saved = json.loads(save.read_text())
    assert saved["format"] == "mamma-mia-play/1" and len(saved["actions"]) >= 2

    child = _spawn(["--resume", str(save), "--delay", "0"], tmp_path)
    child.expect("you are seat 0")
    moves, seen = _play_on(child)
    child.expect(pexpect.EOF)
    assert moves > 10
    assert {"which ingredients?", "Play an order card?", "Then draw from?"} <= seen


def test_seat_view_and_three_players(tmp_path):
    child = _spawn(
        ["--players", "3", "--agents", "counter,random", "--seat", "2", "--seed", "3",
         "--delay", "0", "--observation-mode", "top_card"],
        tmp_path,
    )  # fmt: skip
    child.expect("you are seat 2")
    child.expect(PROMPT)
    screen = child.before.split("\x1b[2J")[-1]  # the last screen (bots moved first)
    assert "view: seat 2" in screen and "top card only" in screen
    assert screen.count("hidden") == 2
    child.sendline("1")
    moves, _ = _play_on(child)
    child.expect(pexpect.EOF)
    assert moves > 5


def test_bad_flags_and_saves_are_refused(tmp_path):
    child = _spawn(["--players", "2", "--seat", "3"], tmp_path)
    child.expect("seat must be 0..1")
    child.expect(pexpect.EOF)
    (tmp_path / "bad.json").write_text('{"format": "x"}')
    child = _spawn(["--resume", str(tmp_path / "bad.json")], tmp_path)
    child.expect("format")
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
    with pytest.raises(SaveError, match="not legal"):
        Game.load(str(path))
    path.write_text(json.dumps({k: v for k, v in obj.items() if k != "seat"}))
    with pytest.raises(SaveError, match="seat"):
        Game.load(str(path))


def test_reveal_decision_offers_only_legal_choices(monkeypatch):
    from rich.console import Console

    from mamma_mia_agents import load_agent
    from mamma_mia_agents.cli.play import choose_reveal

    answers = iter(["9", "1"])  # a bad key first: a hint, then the first choice
    monkeypatch.setattr("mamma_mia_agents.cli.play.Prompt.ask", lambda *a, **k: next(answers))
    stand_in = load_agent("builder")  # plays seat 0 until it must decide in a reveal
    for seed in range(40):
        game = Game(Config(num_players=2), 0, ["builder"], seed, [])
        while not game.over():
            legal = [int(a) for a in game.legal().nonzero()[0]]
            if int(game.rec["seat"]) != 0:
                game.apply(game.bot_action())
            elif game.rec["phase"] == 1 and len(legal) > 1:
                console = Console(record=True, width=120)
                a = choose_reveal(console, game, legal)
                text = console.export_text()
                assert a == legal[0] and "Reveal: your order" in text
                assert "'9' is not a choice here" in text and "Face-up piles" in text
                return
            else:
                game.agents[0] = stand_in
                game.names[0] = "builder"
                game.apply(game.bot_action())
                del game.agents[0]
    pytest.fail("no reveal decision for seat 0 in 40 games")
