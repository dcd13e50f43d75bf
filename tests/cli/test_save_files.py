"""A save file is data: resuming never imports or calls what the file names.

``mamma-mia play --resume FILE`` loads the agents a save file lists only when each is a
bundled agent; any other spec is refused before anything is imported, with a message
that says how to name agents on the command line instead. Fields of the wrong type (a
boolean seat, a seed that is not a string of digits) are refused naming the field.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mamma_mia_agents.cli.session import Game, SaveError
from mamma_mia_env import Config


def _save(tmp_path: Path, **edits: object) -> Path:
    game = Game(Config(num_players=2), 0, ["builder"], 7, [])
    doc = {**game.to_dict(), **edits}
    path = tmp_path / "save.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_bundled_save_resumes(tmp_path: Path) -> None:
    game = Game.load(str(_save(tmp_path)))
    assert game.specs == ["builder"] and game.seed == 7


@pytest.mark.parametrize("spec", ["os:abort", "code:interact", "evil_mod:Bot", "random#1"])
def test_a_save_naming_code_is_refused_without_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    # a module that leaves a mark when it is imported, on the import path
    (tmp_path / "evil_mod.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_suffix('.ran').write_text('imported')\n"
        "class Bot:\n    def act_batch(self, o, m, rng, seats=None):\n        return m.argmax(1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("evil_mod", None)
    with pytest.raises(SaveError, match="not a bundled agent") as err:
        Game.load(str(_save(tmp_path, agents=["builder", spec])))
    assert "--agents" in str(err.value) and str(tmp_path) in str(err.value)
    assert "evil_mod" not in sys.modules
    assert not (tmp_path / "evil_mod.ran").exists()


def test_the_command_line_names_the_agents_instead(tmp_path: Path) -> None:
    path = _save(tmp_path, agents=["os:abort"])
    game = Game.load(str(path), ["counter"])
    assert game.specs == ["counter"]
    assert type(game.agents[1]).__name__ == "CounterAgent"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seat", True, ": seat must be an int"),
        ("seat", 0.0, ": seat must be an int"),
        ("seed", 7, "field 'seed' must be a string of digits"),
        ("seed", "7.0", "field 'seed' must be a string of digits"),
        ("seed", "-7", "field 'seed' must be a string of digits"),
        ("seed", True, "field 'seed' must be a string of digits"),
        ("agents", "builder", "field 'agents' must be a list"),
        ("agents", [1], "field 'agents' must be a list"),
    ],
)
def test_fields_of_the_wrong_type_are_refused(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    with pytest.raises(SaveError, match=message):
        Game.load(str(_save(tmp_path, **{field: value})))


def test_a_nesting_bomb_is_a_message(tmp_path: Path) -> None:
    path = tmp_path / "bomb.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SaveError, match="saved game is JSON nested too deeply"):
        Game.load(str(path))
