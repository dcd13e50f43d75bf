"""``experiments/evaluate/search_strength.py --resume FILE``: a crafted file is refused with one
usage line naming the field (exit 2) before anything runs, never a traceback."""

from __future__ import annotations

import json

import pytest

from experiments.evaluate.search_strength import main

GOOD_ROW = {"worlds": 2, "candidates": 6, "games": 10, "deal_wins": [1.0], "deal_games": [2]}


def _doc(**change: object) -> dict:
    doc = {"experiment": "search_strength", "args": {"block": 200, "seed": 0},
           "curves": {"2p vs builder": [dict(GOOD_ROW)]}, "timing": {}}  # fmt: skip
    doc.update(change)
    return doc


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        (_doc(args=[]), "args"),
        (_doc(args={"block": 200.0, "seed": 0}), "args.block"),
        (_doc(args={"block": 200, "seed": "0"}), "args.seed"),
        (_doc(curves={"2p vs builder": [{**GOOD_ROW, "worlds": "2"}]}), "worlds"),
        (_doc(curves={"2p vs builder": [{**GOOD_ROW, "games": [1]}]}), "games"),
        (_doc(curves={"2p vs builder": [{**GOOD_ROW, "deal_games": [2.5]}]}), "deal_games"),
        (_doc(curves={"2p vs builder": [{**GOOD_ROW, "deal_wins": "x"}]}), "deal_wins"),
        (_doc(curves={"2p vs builder": 5}), "2p vs builder"),
        (_doc(timing={"2p_worlds2": {"median_ms": None}}), "median_ms"),
        (_doc(history={}), "history"),
        ({k: v for k, v in _doc().items() if k != "curves"}, "curves"),  # no curves at all
        (_doc(curves=None), "curves"),
        (_doc(timing=None), "timing"),
    ],
)
def test_a_crafted_resume_file_is_one_line(tmp_path, capsys, doc, field):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SystemExit) as exc:
        main(["--resume", str(path), "--out", str(tmp_path / "out"), "--games", "1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and field in err and "Traceback" not in err, err
