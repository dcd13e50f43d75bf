"""The file readers and writers (mamma_mia_env/plumbing/files.py): writers never damage
what was there, loaders name the file and the problem."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from mamma_mia_env.plumbing import files
from mamma_mia_env.plumbing.arguments import check_out
from mamma_mia_env.plumbing.files import (
    MAX_JSON_DEPTH,
    FileError,
    check_output,
    read_json,
    read_text,
    write_atomic,
    write_file,
    write_json,
    write_npz,
)

ROOT = os.geteuid() == 0  # root writes into read-only directories


def _entries(d: Path) -> list[str]:
    return sorted(os.listdir(d))


# -- writers ----------------------------------------------------------------------------
def test_a_new_file_is_written_and_not_reported_as_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    assert write_atomic(target, "{}") is False
    assert target.read_text() == "{}"
    assert _entries(tmp_path) == ["out.json"]


def test_a_planted_link_is_replaced_and_the_linked_file_untouched(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "precious.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / "tournament.csv").symlink_to(victim)
    assert write_atomic(out / "tournament.csv", "new") is True
    assert victim.read_text() == "keep me"
    assert not (out / "tournament.csv").is_symlink()
    assert (out / "tournament.csv").read_text() == "new"


def test_a_dangling_link_is_replaced_not_followed(tmp_path: Path) -> None:
    link = tmp_path / "x.json"
    link.symlink_to(tmp_path / "nowhere" / "made.json")
    assert write_atomic(link, "1") is True
    assert not link.is_symlink() and link.read_text() == "1"
    assert not (tmp_path / "nowhere").exists()


def test_a_failure_mid_write_leaves_the_earlier_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "results.json"
    target.write_text("earlier run")

    def broken(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", broken)
    with pytest.raises(FileError, match="results.json.*No space left"):
        write_atomic(target, "x" * 10_000)
    assert target.read_text() == "earlier run"
    assert _entries(tmp_path) == ["results.json"]  # no temporary file left behind


def test_an_interrupt_mid_write_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "r.csv"
    target.write_text("earlier")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new")
    assert target.read_text() == "earlier"
    assert _entries(tmp_path) == ["r.csv"]


@pytest.mark.skipif(ROOT, reason="root may write into a read-only directory")
def test_a_read_only_directory_is_refused_before_any_work(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(FileError, match="ro.*not writable"):
            check_output(ro / "x.csv", "results")
        with pytest.raises(FileError, match="not writable"):
            write_atomic(ro / "x.csv", "data")
        assert _entries(ro) == []
    finally:
        ro.chmod(0o755)


@pytest.mark.skipif(ROOT, reason="root may write a read-only file")
def test_a_read_only_file_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "keep.csv"
    target.write_text("earlier")
    target.chmod(0o444)
    with pytest.raises(FileError, match="keep.csv.*read-only"):
        write_atomic(target, "new")
    assert target.read_text() == "earlier"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("missing/x.csv", "does not exist"),
        ("adir", "is a directory"),
        ("adir/", "needs a file name"),
        ("", "needs a file name"),
        ("a\0b", "NUL"),
        ("x" * 300, "longer than"),
        ("afile/x.csv", "does not exist"),
    ],
)
def test_unusable_targets_are_refused_naming_the_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, problem: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("")
    with pytest.raises(FileError, match=problem):
        write_atomic(name, "data", "results")
    assert _entries(tmp_path) == ["adir", "afile"]
    assert _entries(tmp_path / "adir") == []


def test_a_non_path_is_refused_naming_what() -> None:
    with pytest.raises(FileError, match="the results must be a path"):
        check_output(3.5, "results")  # type: ignore[arg-type]


def test_write_file_says_when_it_replaces(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    target = tmp_path / "t.csv"
    write_file(target, "a", "results table")
    assert capsys.readouterr().err == ""
    write_file(target, "b", "results table")
    assert f"replacing {target}" in capsys.readouterr().err


def test_write_json_refuses_nan_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="cannot be JSON"):
        write_json(tmp_path / "r.json", {"x": float("nan")}, "results")
    assert _entries(tmp_path) == []
    write_json(tmp_path / "r.json", {"x": 1})
    assert json.loads((tmp_path / "r.json").read_text()) == {"x": 1}


def test_write_npz_round_trips(tmp_path: Path) -> None:
    write_npz(tmp_path / "p.npz", {"w": np.arange(6.0).reshape(2, 3)})
    with np.load(tmp_path / "p.npz", allow_pickle=False) as f:
        assert f["w"].tolist() == [[0, 1, 2], [3, 4, 5]]


# -- loaders ----------------------------------------------------------------------------
def test_read_json_reads_a_good_file(tmp_path: Path) -> None:
    (tmp_path / "g.json").write_text('{"a": [1, 2.5, "x"]}')
    assert read_json(tmp_path / "g.json") == {"a": [1, 2.5, "x"]}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xe9t\xe9", "not UTF-8"),  # latin-1
        (b'{"a": ', "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested"),  # a nesting bomb
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "nested more than"),
        (b'{"seed": NaN}', "bad number"),
        (b"[Infinity]", "bad number"),
        (b"[" + b"9" * 5000 + b"]", "bad number"),
    ],
)
def test_malformed_files_are_one_line_naming_the_file(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(FileError, match=problem) as info:
        read_json(path, "event log")
    text = str(info.value)
    assert text.startswith(str(path)) and "\n" not in text


def test_a_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:  # sparse: the size is all that is checked
        fh.truncate(files.MAX_FILE_BYTES + 1)
    with pytest.raises(FileError, match="huge.json.*more than"):
        read_text(path)
    with pytest.raises(FileError, match="more than the 10 allowed"):
        read_text(_small(tmp_path), max_bytes=10)


def _small(tmp_path: Path) -> Path:
    p = tmp_path / "small.txt"
    p.write_text("x" * 11)
    return p


def test_missing_file_and_directory_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="nope.json: cannot read the saved game"):
        read_json(tmp_path / "nope.json", "saved game")
    with pytest.raises(FileError, match="(Is a directory|not a regular file)"):
        read_text(tmp_path)


def test_devices_and_fifos_are_refused_without_blocking(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="/dev/zero: the log is not a regular file"):
        read_text("/dev/zero", "log")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # no writer: a blocking open would hang the test
    with pytest.raises(FileError, match="fifo.json: the log is not a regular file"):
        read_json(fifo, "log")


# -- out= buffers -----------------------------------------------------------------------
def test_an_out_buffer_sharing_memory_with_an_input_is_refused() -> None:
    data = np.zeros((4, 8), np.int8)
    with pytest.raises(ValueError, match="out shares memory with masks"):
        check_out(data[1:3], (2, 8), np.int8, inputs={"masks": data})
    with pytest.raises(ValueError, match="out shares memory with masks"):
        check_out(data.view(np.int8), (4, 8), np.int8, inputs={"masks": data})
    fresh = np.zeros((4, 8), np.int8)
    assert check_out(fresh, (4, 8), np.int8, inputs={"masks": data}) is fresh


def test_an_engine_refuses_an_out_buffer_over_its_own_state() -> None:
    from mamma_mia_env import Engine

    eng = Engine(num_players=2)
    state = eng.reset(seeds=list(range(4)))
    raw = state.data.view(np.uint8).reshape(-1)  # the records' own bytes
    n = 4 * eng.n_actions
    if raw.size < n:
        pytest.skip("the records are smaller than a mask batch")
    alias = raw[:n].view(np.int8).reshape(4, eng.n_actions)
    before = state.data.copy()
    with pytest.raises(ValueError, match="out shares memory with state.data"):
        eng.legal_masks(state, out=alias)
    assert state.data.tobytes() == before.tobytes()


def test_check_output_dir_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    assert files.check_output_dir(target) == target
    assert _entries(tmp_path) == []
    (tmp_path / "f").write_text("")
    with pytest.raises(FileError, match="not a directory"):
        files.check_output_dir(tmp_path / "f" / "sub", "--out directory")


def test_write_figure_writes_the_suffix_format(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    files.write_figure(fig, tmp_path / "p.png")
    plt.close(fig)
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _entries(tmp_path) == ["p.png"]


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e999", "", "x", "-1", "11"])
def test_real_flags_are_finite_and_in_range(text: str) -> None:
    import argparse

    from mamma_mia_env.plumbing.arguments import real_flag

    with pytest.raises(argparse.ArgumentTypeError, match="--delay"):
        real_flag("--delay", 0, 10)(text)
    assert real_flag("--delay", 0, 10)("2.5") == 2.5


@pytest.mark.parametrize("text", [" 3", "+3", "3_0", "3.0", "1e3", "0x10", "\u0663", "-1", ""])
def test_int_flags_are_plain_digits(text: str) -> None:
    import argparse

    from mamma_mia_env.plumbing.arguments import int_flag

    with pytest.raises(argparse.ArgumentTypeError, match="--games"):
        int_flag("--games", 0)(text)
    assert int_flag("--games", 0)("30") == 30


def test_a_read_only_directory_as_the_checks_see_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same refusal for every user: what os.access says is what is checked (root
    would otherwise write anywhere)."""
    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(
        files.os, "access", lambda p, m, *a, **k: False if str(p) == str(ro) else real(p, m)
    )
    with pytest.raises(FileError, match="ro is not writable"):
        write_atomic(ro / "x.csv", "data", "results")
    assert _entries(ro) == []
