"""experiments/evaluate/leaderboard.py: a bad ``--players`` is one usage line naming the
flag (exit 2) before any game, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.evaluate.leaderboard import main


@pytest.mark.parametrize("players", ["2,x", "6", "1,4", "2,2", ""])
def test_a_bad_players_list_is_refused_by_its_flag(
    players: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--players", players, "--out", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--players" in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())  # nothing played, nothing written
