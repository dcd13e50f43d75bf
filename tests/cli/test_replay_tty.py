"""The terminal replay as a person sees it, in an 80x24 tmux terminal: one screen
redrawn in place for every key (the status line always on the top row, nothing
scrolled away), the step counter and the caption of each step, the views, the reveal
jumps, an unknown key said on the next screen, and quitting with the shell's screen
given back. Also ``replay_lines`` at small and large sizes: every screen fits."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import tty_screen as terminal
from replay_logs import cut_log, tournament_log

from mamma_mia_agents.cli.replay import replay_lines
from mamma_mia_env.game.config import Config
from mamma_mia_env.game.engine import Engine
from mamma_mia_env.game.log import load_log, replay_events
from mamma_mia_env.render.html import reveal_starts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
ENV = {"PYTHONPATH": PATH, "TERM": "xterm-256color"}
needs_tmux = pytest.mark.skipif(terminal.TMUX is None, reason="tmux is not installed")


@pytest.fixture(scope="module")
def log_file(tmp_path_factory) -> str:
    """A 3-player tournament's first game, as ``--save-logs`` writes it."""
    path = tmp_path_factory.mktemp("replay") / "game.json"
    path.write_text(json.dumps(tournament_log(3)))
    return str(path)


@pytest.fixture(scope="module")
def log(log_file) -> dict:
    return load_log(log_file)  # as the replay reads it: with every position's state


def _step(rows: list[str]) -> tuple[int, int]:
    m = re.search(r"step (\d+)/(\d+)", "\n".join(rows))
    assert m, "\n".join(rows)
    return int(m.group(1)), int(m.group(2))


def _after(screen: terminal.Screen, key: str, want: str) -> list[str]:
    screen.send(key)
    return screen.wait(want, 60)


@needs_tmux
def test_stepping_through_a_game_at_80x24(tmp_path, log_file, log) -> None:
    argv = [sys.executable, "-m", "mamma_mia_agents", "replay", log_file]
    screen = terminal.Screen(argv, str(tmp_path), ENV, 80, 24)
    try:
        rows = screen.wait(r"step 0/\d+", 120)
        last = _step(rows)[1]
        assert rows[0].lstrip().startswith("Round 1")  # the status line on top
        assert any("Deal. Personal ingredients" in r for r in rows)
        assert any("showing every hand" in r for r in rows)
        for i in range(1, 4):  # one key, no Enter: the same screen redrawn
            rows = _after(screen, "n", rf"step {i}/{last}")
            assert rows[0].lstrip().startswith("Round ")
            assert sum(bool(re.search(r"step \d+/\d+", r)) for r in rows) == 1
            assert any(re.match(r"Round \d: .+", r) for r in rows[1:]), rows  # the caption
        rows = _after(screen, "b", rf"step 2/{last}")
        first_reveal = reveal_starts(log)[0]
        rows = _after(screen, "r", rf"step {first_reveal}/{last}")
        assert rows[0].lstrip().startswith("Round ")
        assert sum("holds:" in r for r in rows) == 3  # every seat's hand, by name
        rows = _after(screen, "v", "showing what seat 0 knows")
        assert any("Your cards:" in r for r in rows)  # its own hand, and no other
        assert not any("holds:" in r for r in rows)
        rows = _after(screen, "x", "unknown key 'x'")  # said, on a whole screen
        assert rows[0].lstrip().startswith("Round ")
        rows = _after(screen, "e", rf"step {last}/{last}")
        assert any("Game over. Delivered orders:" in r for r in rows)
        rows = _after(screen, "n", rf"step {last}/{last}")  # stays at the end
        rows = _after(screen, "s", rf"step 0/{last}")
        rows = _after(screen, "q", r"\[exit 0\]")
        # the alternate screen is left: the game's screen is gone from the shell's
        assert not any("step 0/" in r for r in rows), rows
    finally:
        screen.close()


@needs_tmux
def test_keys_typed_ahead_are_each_taken_and_never_echoed(tmp_path, log_file) -> None:
    """Keys sent faster than the screens are drawn (a person holding a key down) are
    each taken in turn, none echoed onto the screen nor lost; an arrow key's escape
    sequence is one unknown key, not three."""
    argv = [sys.executable, "-m", "mamma_mia_agents", "replay", log_file]
    screen = terminal.Screen(argv, str(tmp_path), ENV, 80, 24)
    try:
        screen.wait(r"step 0/\d+", 120)
        rows = _after(screen, "nnnnn", r"step 5/\d+")
        rows = _after(screen, "bb", r"step 3/\d+")
        assert rows[0].lstrip().startswith("Round "), rows  # no echoed key on top
        screen.send("\x1b[A")  # the up arrow's bytes
        rows = _after(screen, "n", r"step 4/\d+")
        assert rows[0].lstrip().startswith("Round "), rows
        assert not any("unknown key '['" in r or "unknown key 'A'" in r for r in rows), rows
    finally:
        screen.close()


def test_piped_keys_print_the_screens_one_after_another(log_file) -> None:
    """Where the input is not a terminal, keys are lines and each screen follows the last;
    the input ending quits quietly (exit 0, nothing on stderr)."""
    import subprocess

    argv = [sys.executable, "-m", "mamma_mia_agents", "replay", log_file]
    env = dict(os.environ, **ENV)
    out = subprocess.run(argv, input="n\nzz\n", capture_output=True, text=True, env=env,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0 and out.stderr == ""
    steps = re.findall(r"step (\d+)/\d+", out.stdout)
    assert steps == ["0", "1", "1"]  # the unknown key leaves the step where it was
    assert "unknown key 'zz'" in out.stdout


def test_every_replay_screen_fits(log) -> None:
    """Every step in every view, at 80x24 and at a small and a large size: at most
    height - 1 lines (the last row is the prompt's), none wider than the terminal, the
    step counter and the keys always on the screen."""
    last = len(log["_states"]) - 1
    for width, height in ((80, 24), (60, 16), (120, 40)):
        for viewer in (None, 0, 2):
            for pos in range(0, last + 1, 3 if width == 80 else 11):
                lines = replay_lines(log, pos, viewer, width, height, "unknown key 'x'")
                assert len(lines) <= height - 1, (width, height, pos)
                assert all(line.cell_len <= width for line in lines)
                text = "\n".join(line.plain for line in lines)
                assert f"step {pos}/{last}" in text and "q quit" in text
                assert lines[0].plain.lstrip().startswith("Round ")


def _last_screen(log: dict) -> str:
    """The last step's screen, its lines joined as read (wrapped lines unwrapped)."""
    lines = replay_lines(log, len(log["_states"]) - 1, None, 100, 60)
    return " ".join(" ".join(line.plain for line in lines).split())


def test_the_last_step_of_a_finished_game_names_its_winners(log) -> None:
    text = _last_screen(log)
    won = ", ".join(f"{log['agents'][s]} (seat {s})" for s in log["result"]["winners"])
    assert "Game over. Delivered orders: " in text and f"Won by {won}." in text


def test_a_cut_log_is_shown_unfinished_never_as_won(log) -> None:
    """A saved log of a game that did not end: its last step says where it stops."""
    cut = load_log(cut_log(log, 40))
    text = _last_screen(cut)
    assert "Game not finished: the log ends after move 40. Delivered orders so far:" in text
    assert "Game over" not in text and "Won by" not in text


def test_a_game_stopped_at_the_turn_limit_is_shown_unfinished() -> None:
    config = Config(num_players=2, max_turns=4)
    engine = Engine(config)
    state, mask, actions = engine.reset(seeds=[3]), np.zeros((1, engine.n_actions), np.int8), []
    while not (state.data["terminated"][0] or state.data["truncated"][0]):
        engine.legal_masks(state, out=mask)
        actions.append(int(np.flatnonzero(mask[0])[0]))  # the first legal move
        engine.step(state, np.array(actions[-1:]))
    stopped = load_log(replay_events(config, 3, actions))
    assert stopped["result"]["truncated"] and not stopped["result"]["terminated"]
    text = _last_screen(stopped)
    assert f"Game not finished: stopped at the turn limit after move {len(actions)}." in text
    assert "Won by" not in text


def test_a_format_1_log_is_refused_in_one_line(tmp_path, log_file, capsys) -> None:
    """``mamma-mia replay`` of a format-1 log: exit 2 and one line saying to record the
    game again, no traceback."""
    from mamma_mia_agents.cli.commands import main

    path = tmp_path / "old.json"
    old = {**json.loads(Path(log_file).read_text()), "format": "mamma-mia-log/1"}
    path.write_text(json.dumps(old))
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(path)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err
    assert f"error: {path} is a format-1 game log; this version reads format 2" in err
    assert err.rstrip().endswith("record the game again")


def write_screenshot(out: str) -> None:
    """The picture in docs/PLAY.md: the first reveal of a 3-player tournament game in
    the all-hands view, in an 80x24 tmux terminal
    (``python tests/cli/test_replay_tty.py --write``)."""
    import tempfile

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        path = os.path.join(tmp, "game.json")
        with open(path, "w") as fh:
            json.dump(tournament_log(3), fh)
        argv = [sys.executable, "-m", "mamma_mia_agents", "replay", path]
        screen = terminal.Screen(argv, tmp, ENV)
        try:
            screen.wait(r"step 0/\d+", 120)
            screen.send("r")
            screen.wait(r"step [1-9]\d*/\d+", 60)
            terminal.to_png(screen.capture(colours=True), f"{out}/terminal-replay.png")
        finally:
            screen.close()


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write_screenshot(os.path.join(ROOT, "docs", "img"))
