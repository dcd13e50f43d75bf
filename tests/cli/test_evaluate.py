"""``mamma-mia evaluate SPEC``: the scorecard command and its inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import POLICY_FILE, champion_at

from mamma_mia_agents.cli.commands import main
from mamma_mia_agents.tournament.scorecard import EVAL_SEED, FORMAT
from mamma_mia_env import __version__

FAST = ["--ladder", "random,builder", "--games", "4", "--workers", "1", "--no-progress"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_bundled_agent_prints_the_table_and_writes_the_stamped_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "card.json"
    code, text, err = _run(capsys, "evaluate", "counter", *FAST, "--out", str(out))
    assert code == 0, err
    assert "scorecard of counter" in text and f"evaluation seed {EVAL_SEED}" in text
    assert "random" in text and "rating (Elo" in text and f"wrote {out}" in text
    card = json.loads(out.read_text())
    assert card["format"] == FORMAT and card["version"] == __version__
    assert card["seeds"]["tournament_seed"] == EVAL_SEED
    stamp = card["provenance"]
    assert stamp["command"].startswith("mamma-mia evaluate counter --ladder random,builder")
    assert stamp["packages"]["mamma-mia-env"] and stamp["utc"]
    assert [r["opponent"] for r in card["players"]["4"]["pairings"]] == ["random", "builder"]


def test_json_prints_the_document(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, err = _run(capsys, "evaluate", "random", *FAST, "--players", "3", "--json")
    assert code == 0, err
    card = json.loads(text)
    assert list(card["players"]) == ["3"] and card["games_per_pairing"] == 4


def test_a_policy_file_and_an_import_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, err = _run(capsys, "evaluate", str(POLICY_FILE[2]), *FAST)
    assert code == 0, err
    assert f"ppo:{POLICY_FILE[2].name}" in text
    assert "4 players: skipped: " in text and "plays 2 players, not 4" in text
    code, text, err = _run(capsys, "evaluate", "user_agents:UserAgent", *FAST, "--players", "2")
    assert code == 0, err
    assert "scorecard of user_agents:UserAgent" in text


@pytest.mark.parametrize(
    ("spec", "extra", "message"),
    [
        ("nosuch", [], "agent 'nosuch': unknown agent 'nosuch'"),
        ("os:abort", [], "not marked as an agent factory"),
        ("BAD", [], "policy file"),
        (str(POLICY_FILE[2]), ["--players", "4"], "plays 2 players, not 4"),
        (  # a network of the retired recall layout: what to do, in one line
            "experiments/results/cleanrl_ppo/cleanrl_ppo_2p_vs_search_1.npz",
            ["--players", "2"],
            "reads the retired 'recall' observation layout: train it again with the 'fixed'",
        ),
        ("random", ["--ladder", "random,nosuch"], "ladder rung 'nosuch': unknown agent"),
        ("random", ["--ladder", "random,,builder"], "--ladder needs a comma-separated list"),
        ("random", ["--players", "2,2"], "--players lists a player count twice"),
        ("random", ["--players", "2,6"], "--players must be 2-5, got 6"),
        (  # a champion with settings for 2 and 4 players only
            "builder",
            ["--ladder", "random,champion", "--players", "3"],
            "rung 'champion' cannot play 3 players: agent 'champion' cannot play this game: no "
            "shipped champion for 3 players",
        ),
        ("builder", ["--ladder", "random,champion", "--players", "3"], "(--ladder random)"),
        (" ", [], "agent ' ': an agent spec must be a name"),
    ],
)
def test_a_bad_spec_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spec: str,
    extra: list[str],
    message: str,
) -> None:
    champion_at((2, 4), monkeypatch, tmp_path)  # a rung that refuses 3 players
    if spec == "BAD":
        spec = str(tmp_path / "policy.npz")
        Path(spec).write_bytes(b"not a zip file")
    code, text, err = _run(capsys, "evaluate", spec, *FAST, *extra)
    assert code == 2 and text == ""
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("mamma-mia evaluate: error: ") and message in last


def test_out_is_checked_before_the_first_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "adir").mkdir()
    code, text, err = _run(capsys, "evaluate", "random", *FAST, "--out", str(tmp_path / "adir"))
    assert code == 2 and text == "" and "--out" in err.strip().splitlines()[-1]
