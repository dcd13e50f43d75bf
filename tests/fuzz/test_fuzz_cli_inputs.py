"""Fuzz the command-line and file inputs: every flag of every command, every field of
every file format.

The flags are read from the ``mamma-mia`` parser itself (``build_parser``), so a new
flag is fuzzed as soon as it exists; each gets the bad values of its kind (integers:
NaN, inf, 1e999, negative, empty, " 3", "3.5", other scripts' digits...; reals: NaN,
inf, out of range; output paths: a missing or read-only directory, a directory, a file
where a directory belongs; input files: missing, a directory, /dev/zero, a FIFO, a
nesting bomb, latin-1, huge, truncated). Every field of a save (mamma-mia-play/1), a
log (mamma-mia-log/2), a state (mamma-mia-state/1), a position and a policy file's
metadata and arrays gets every edit of ``cli_input_cases.VALUE_OPS`` (wrong type, a bool or
a float for an int, huge, negative, missing, extra, a nesting bomb, non-UTF-8 bytes)
and the files are also cut short. The answer is always a one-line message naming the
flag, field or file, an exit code (1 or 2), and no file changed (cli_input_cases).

Each case runs in the crash-catching worker (fuzz_harness). A summary line per entry point
is printed, and a minimum count per entry point keeps the suite from shrinking silently.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from fuzz_harness import STATS, run_case
from input_documents import (
    VALID_POSITION,
    VALUE_OPS,
    leaves,
    must_refuse,
    valid_log,
    valid_policy,
    valid_save,
    valid_state,
)

from mamma_mia_agents.cli.commands import build_parser

# -- the values of each kind of flag ----------------------------------------------------------
INT_BAD = ["nan", "inf", "-inf", "1e999", "1e3", "-1", "", " 3", "3.5", "0x10", "+3", "3_0",
           "\u0663", "9" * 60, "x"]  # fmt: skip
REAL_BAD = ["nan", "NaN", "inf", "-inf", "1e999", "-1", "", "x", "61", "9" * 400]
CHOICE_BAD = ["", "nan", "x" * 200, "RANDOM"]
OUT_FILE_BAD = ["missing/x.out", "ro/x.out", "adir", "adir/", "", "blocker/x.out", "x" * 300]
OUT_DIR_BAD = ["blocker", "blocker/sub", "ro", "ro/sub", "", "x" * 300 + "/y"]
IN_FILE_BAD = ["missing.json", "adir", "/dev/zero", "fifo", "bomb.json", "latin1.json",
               "huge.json", "trunc.json", "blocker", "log-missing/x.json"]  # fmt: skip
TEXT_ODD = ["", "nan", "-1", "x" * 300, "../up", "os:system", "/etc/passwd", "caf\xe9"]

#: A valid run of each command, and what an accepted run may write.
BASE = {
    "tournament": [
        "tournament",
        "--agents",
        "random,random",
        "--players",
        "2",
        "--games",
        "2",
        "--workers",
        "1",
        "--no-progress",
    ],  # fmt: skip
    "play": [
        "play",
        "--players",
        "2",
        "--agents",
        "random",
        "--delay",
        "0",
        "--save",
        "out.json",
    ],  # fmt: skip
    "replay": ["replay", "log.json"],
    "agents": ["agents"],
    "evaluate": [
        "evaluate",
        "random",
        "--ladder",
        "builder",
        "--players",
        "2",
        "--games",
        "2",
        "--workers",
        "1",
        "--no-progress",
    ],  # fmt: skip
    "serve": [
        "serve",
        "--port",
        "0",
        "--players",
        "2",
        "--agents",
        "random",
        "--delay",
        "0",
        "--save",
        "out.json",
    ],  # fmt: skip
}
ALLOWED = {"tournament": ["out"], "play": ["out.json", "save.json", "mamma-mia-save.json"],
           "replay": ["page.html"], "agents": [], "serve": ["out.json"],
           "evaluate": ["out.json"]}  # fmt: skip
#: Flags whose values are paths, by what they are (the others are read from the type).
PATH_FLAGS = {("tournament", "--out"): "out_dir", ("play", "--resume"): "in_file",
              ("replay", "log"): "in_file", ("serve", "--resume"): "in_file"}  # fmt: skip
#: Free-text flags of ``serve`` get only values it must refuse: an accepted value would
#: start a server (which the sandbox stops at once, but it is not what is tested here).
SERVE_TEXT = {"--host": ["nan", "x" * 300, "256.1.1.1"], "--agents": ["nosuch", "os:system", ","]}


def _kind(command: str, action: argparse.Action) -> str:
    flag = action.option_strings[-1] if action.option_strings else action.dest
    if (command, flag) in PATH_FLAGS:
        return PATH_FLAGS[(command, flag)]
    if action.nargs == 0:
        return "switch"
    if action.choices is not None:
        return "choice"
    return _type_kind(action)


def _type_kind(action: argparse.Action) -> str:
    """The kind of a flag by its checked type (the flag types of plumbing.arguments,
    which cli.options and experiments.common build on)."""
    if action.nargs == 0:
        return "switch"
    if action.choices is not None:
        return "choice"
    qual = getattr(action.type, "__qualname__", "")
    kinds = (("int_flag.", "int"), ("real_flag.", "real"), ("out_file_flag.", "out_file"),
             ("out_dir_flag.", "out_dir"))  # fmt: skip
    for prefix, kind in kinds:
        if qual.startswith(prefix):
            return kind
    return "text"


def commands() -> dict[str, list[argparse.Action]]:
    """Every subcommand's actions (no ``-h``), from the parser."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: [a for a in p._actions if not isinstance(a, argparse._HelpAction)]
        for name, p in sub.choices.items()
    }


def _argv(command: str, action: argparse.Action, value: str | None) -> list[str]:
    base = list(BASE[command])
    if not action.option_strings:  # the positional (replay's log)
        return [command, value or ""] + base[2:]
    flag = action.option_strings[-1]
    for f in action.option_strings:
        if f in base:
            i = base.index(f)
            del base[i : i + 2]
    if value is None:
        return [*base, flag]
    return [*base, f"{flag}={value}"] if value.startswith("-") else [*base, flag, value]


def cli_cases() -> list[tuple[str, dict[str, Any]]]:
    """(entry point label, payload) for every flag of every command and its kind's bad values."""
    cases = []
    values = {"int": INT_BAD, "real": REAL_BAD, "choice": CHOICE_BAD, "out_file": OUT_FILE_BAD,
              "out_dir": OUT_DIR_BAD, "in_file": IN_FILE_BAD, "text": TEXT_ODD}  # fmt: skip
    for command, actions in commands().items():
        for action in actions:
            flag = action.option_strings[-1] if action.option_strings else action.dest
            kind = _kind(command, action)
            anchors = [flag, *action.option_strings, "argument", "agent"]
            if kind == "switch":
                runs = [(f"{flag}=1", "refuse")]
                argvs = [[*BASE[command], f"{flag}=1"]]
            elif command == "serve" and kind == "text":
                runs = [(v, "refuse") for v in SERVE_TEXT[flag]]
                argvs = [_argv(command, action, v) for v, _ in runs]
            else:
                runs = [(v, "any" if kind == "text" else "refuse") for v in values[kind]]
                argvs = [_argv(command, action, v) for v, _ in runs]
            for argv, (value, expect) in zip(argvs, runs, strict=True):
                if kind == "in_file":
                    anchors = [*anchors, value.split("/")[-1] or "file"]
                payload = dict(argv=argv, expect=expect, anchors=anchors,
                               allowed=ALLOWED[command])  # fmt: skip
                cases.append((f"cli {command} {flag}", payload))
    for argv in (["agents", "--bogus"], ["agents", "x"], ["tourney"], [], ["--bogus"]):
        anchors = ["argument", "--bogus", "tourney", "unrecognized", "x"]
        cases.append(("cli none", dict(argv=argv, expect="refuse", anchors=anchors)))
    return cases


def _valid_runs() -> list[tuple[str, dict[str, Any]]]:
    """Runs that must be accepted: the suite's refusals are not refusals of everything."""
    runs = [
        [*BASE["tournament"], "--out", "out", "--save-logs", "1", "--no-plot"],
        BASE["play"],
        ["play", "--resume", "save.json", "--delay", "0"],
        ["replay", "log.json", "--html", "page.html", "--seat", "1"],
        ["agents"],
        [*BASE["evaluate"], "--out", "out.json", "--json"],
    ]
    return [(f"cli valid {r[0]}", dict(argv=r, expect="any", anchors=[], allowed=ALLOWED[r[0]]))
            for r in runs]  # fmt: skip


# -- file fields -----------------------------------------------------------------------------
#: Fields a loader does not read (a log's events and result are re-derived from its
#: config, seed and actions): any edit there may be accepted.
IGNORED = {"log": ("events", "result"), "save": (), "state": (), "position": (),
           "policy": ("trained_with", "selected", "selected_timesteps")}  # fmt: skip
#: A position's per-seat keys may be a list indexed by seat as well as an object.
PER_SEAT = ("hands", "orders_in_hand", "stacks", "delivered")


def _value_at(doc: Any, path: list) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def file_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    docs = {"save": valid_save(), "log": valid_log(), "state": valid_state(),
            "position": VALID_POSITION}  # fmt: skip
    for fmt, doc in docs.items():
        # a save holds a whole state: its fields are fuzzed as the state's; here only
        # the save's own fields and the top of its state
        depth = 2 if fmt == "save" else 4
        for path in leaves(doc, depth=depth):
            if fmt == "log" and path[0] in IGNORED["log"] and len(path) > 2:
                continue  # the events' inside is never read: one level is enough
            original = _value_at(doc, path)
            for op in VALUE_OPS:
                ignored = path[0] in IGNORED[fmt]
                if fmt == "position" and path[0] in PER_SEAT and len(path) == 1 and op == "list":
                    ignored = True
                expect = "refuse" if must_refuse(original, op) and not ignored else "any"
                if op in ("bomb", "latin1"):
                    expect = "refuse"
                cases.append((f"file {fmt}", dict(fmt=fmt, path=path, op=op, expect=expect)))
        for frac in (0.0, 0.5, 0.99):
            cases.append((f"file {fmt}", dict(fmt=fmt, truncate=frac, expect="refuse")))
    arrays, meta = valid_policy()
    for path in leaves(meta, depth=3):
        for op in VALUE_OPS:
            if op == "latin1":
                continue  # the metadata is a numpy unicode string: no bytes to break
            ignored = path[0] in IGNORED["policy"]  # information only: never read
            expect = "refuse" if must_refuse(_value_at(meta, path), op) and not ignored else "any"
            cases.append(("file policy", dict(meta=path, op=op, expect=expect)))
    for key in sorted(arrays):
        for op in ("drop", "float64", "int32", "bool", "scalar", "nan"):
            cases.append(("file policy", dict(array=key, op=op, expect="any")))
    return cases


RUNNERS = {"cli": "cli_input_cases:run_cli_case", "file": "cli_input_cases:run_file_case"}
#: The least number of cases each entry point must try (what it tried when the suite was
#: written): fewer means a flag, a field or a value list went missing.
MINIMUM = {"cli tournament": 153, "cli evaluate": 78, "cli play": 90, "cli serve": 118,
           "cli replay": 32, "cli none": 5, "cli valid": 6, "file save": 339, "file log": 381,
           "file state": 1011, "file position": 311, "file policy": 289,
           "entry points": 1104}  # fmt: skip


def _run_all(cases: list[tuple[str, dict[str, Any]]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    errors = []
    for label, payload in cases:
        runner = ("cli_input_cases:run_policy_case" if label == "file policy"
                  else RUNNERS[label.split()[0]])  # fmt: skip
        try:
            run_case(label, runner, payload)
        except AssertionError as exc:
            errors.append(str(exc)[:1500])
        entry = " ".join(label.split()[:2])
        counts[entry] = counts.get(entry, 0) + 1
    for entry, n in sorted(counts.items()):
        statuses: dict[str, int] = {}
        for label, st in STATS.items():
            if label == entry or label.startswith(entry + " "):
                for k, v in st["statuses"].items():
                    statuses[k] = statuses.get(k, 0) + v
        print(f"input fuzz: {entry}: {n} cases this run ({statuses} so far in this session)")
    assert not errors, f"{len(errors)} input case(s) failed:\n" + "\n\n".join(errors[:8])
    return counts


def _check_minimum(counts: dict[str, int], prefix: str) -> None:
    for entry, least in MINIMUM.items():
        if entry.startswith(prefix):
            assert counts.get(entry, 0) >= least, (
                f"{entry}: {counts.get(entry, 0)} cases, fewer than the {least} it must try"
            )


def test_every_flag_of_every_command() -> None:
    cases = cli_cases() + _valid_runs()
    flags = {label for label, _ in cases if label.startswith("cli ")}
    every = {f"cli {c} {a.option_strings[-1] if a.option_strings else a.dest}"
             for c, acts in commands().items() for a in acts}  # fmt: skip
    assert every <= flags, f"flags not fuzzed: {sorted(every - flags)}"
    counts = _run_all(cases)
    by_command: dict[str, int] = {}
    for label, _ in cases:
        key = " ".join(label.split()[:2])
        by_command[key] = by_command.get(key, 0) + 1
    _check_minimum(by_command, "cli")
    assert sum(counts.values()) == len(cases)


def test_every_field_of_every_file_format() -> None:
    cases = file_cases()
    counts = _run_all(cases)
    _check_minimum(counts, "file")


# -- a real terminal ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["tournament", "--agents", "random,random", "--seed", "nan"], "--seed"),
        (["play", "--delay", "inf"], "--delay"),
        (["replay", "BOMB"], "BOMB"),
        (["play", "--resume", "BOMB"], "BOMB"),
        (["tournament", "--agents", "random,random", "--out", "BLOCKER"], "BLOCKER"),
    ],
)
def test_no_traceback_reaches_a_real_terminal(tmp_path, args: list[str], flag: str) -> None:
    bomb = tmp_path / "bomb.json"
    bomb.write_text("[" * 100_000 + "]" * 100_000)
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    names = {"BOMB": str(bomb), "BLOCKER": str(blocker / "sub")}
    argv = [names.get(a, a) for a in args]
    res = subprocess.run(
        [sys.executable, "-m", "mamma_mia_agents", *argv],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    assert res.returncode == 2, res.stderr[-2000:]
    assert "Traceback" not in res.stderr
    last = res.stderr.strip().splitlines()[-1]
    assert "error:" in last and names.get(flag, flag).split("/")[-1] in last, res.stderr
    assert sorted(os.listdir(tmp_path)) == ["blocker", "bomb.json"]
    assert json.dumps(blocker.read_text()) == '""'


def test_tournament_out_never_follows_a_planted_link(tmp_path, capsys) -> None:
    """With DIR/tournament.csv linked to a file elsewhere, the run replaced
    that file. Now the link itself is replaced, and the run says so."""
    from mamma_mia_agents.cli.commands import main

    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / "tournament.csv").symlink_to(victim)
    code = main(["tournament", "--agents", "random,random", "--players", "2", "--games", "2",
                 "--workers", "1", "--no-progress", "--no-plot", "--out", str(out)])  # fmt: skip
    assert code == 0
    assert victim.read_text() == "keep me"
    assert not (out / "tournament.csv").is_symlink()
    assert (out / "tournament.csv").read_text().startswith("rank,agent")
    assert f"replacing {out / 'tournament.csv'}" in capsys.readouterr().err
