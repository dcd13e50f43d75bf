"""The one JSON reader (``plumbing.files.read_json`` / ``parse_json``): numbers Python
would read as infinity or spend its time on (``1e999``, 20,000 digits), strings no
UTF-8 text holds (lone surrogates, which printing or saving later would crash on), and
a saved state's top level (unknown fields refused, as inside a game record). Each is
refused naming the file and the field."""

from __future__ import annotations

import json

import pytest

from mamma_mia_env import Config, GameState
from mamma_mia_env.game.state import StateError
from mamma_mia_env.plumbing.files import FileError, read_json

BAD_NUMBERS = ["1e999", "-1e999", "1" * 20000, "1" * 20000 + ".5", "0." + "0" * 20000 + "1",
               "9" * 65, "NaN", "-Infinity"]  # fmt: skip
BAD_STRINGS = ['"\\ud800"', '"a\\udfffb"', '"\\udc80\\ud800"']


@pytest.mark.parametrize("number", BAD_NUMBERS)
def test_numbers_json_cannot_mean_are_refused_naming_the_field(tmp_path, number):
    path = tmp_path / "doc.json"
    path.write_text('{"games": [{"turns": ' + number + "}]}")
    with pytest.raises(FileError, match=r"doc\.json.*games\[0\]\.turns.*bad number"):
        read_json(path, "saved state")


@pytest.mark.parametrize("text", BAD_STRINGS)
def test_lone_surrogates_are_refused_naming_the_field(tmp_path, text):
    path = tmp_path / "log.json"
    path.write_text('{"agents": ["builder", ' + text + "]}")
    with pytest.raises(FileError, match=r"log\.json.*agents\[1\].*not valid Unicode"):
        read_json(path, "event log")
    path.write_text("{" + text + ": 1}")
    with pytest.raises(FileError, match=r"log\.json.*key.*not valid Unicode"):
        read_json(path, "event log")


def test_ordinary_numbers_and_text_are_read_as_written(tmp_path):
    doc = {"a": [0, -5, 2**63, 1.5, -2.5e-300, 1.7976931348623157e308], "b": "é😀\u2028"}
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(doc))
    assert read_json(path) == doc


def _state_doc() -> dict:
    return GameState.empty(Config(num_players=2), 1).to_dict()


def test_a_state_with_an_unknown_top_level_field_is_refused(tmp_path):
    doc = _state_doc()
    doc["comment"] = "x"
    with pytest.raises(StateError, match="comment"):
        GameState.from_dict(doc)
    with pytest.raises(StateError, match="comment"):
        GameState.from_json(json.dumps(doc))
    path = tmp_path / "state.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(StateError, match=r"state\.json.*comment"):
        GameState.load(path)


@pytest.mark.parametrize("bad", ["1e999", '"\\ud800"'])
def test_state_text_goes_through_the_same_reader(bad):
    text = json.dumps(_state_doc()).replace('"turns": 0', '"turns": ' + bad, 1)
    with pytest.raises(StateError, match=r"games\[0\]\.turns"):
        GameState.from_json(text)


def test_replay_of_a_log_with_a_lone_surrogate_is_one_line(tmp_path, capsys):
    """The reader refuses it; before, ``replay --html`` crashed writing the page
    (``UnicodeEncodeError: surrogates not allowed``)."""
    import mamma_mia_env as mm
    from mamma_mia_agents.cli.commands import main

    env = mm.env(num_players=2)
    env.reset(seed=3)
    log = env.unwrapped.event_log()
    log["agents"] = ["\ud800x", "builder"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log))  # ensure_ascii: the surrogate as its \ud800 escape
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(path), "--html", str(tmp_path / "game.html")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "agents[0]" in err and "Traceback" not in err, err
    assert not (tmp_path / "game.html").exists()
