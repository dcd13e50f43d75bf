"""Fuzz the other entry points' flags: ``python -m experiments reproduce|docs``,
``python -m mamma_mia_env`` and the experiment scripts.

Their flags are read from the parser each ``main`` builds (caught when it is asked to
parse), so a new flag is fuzzed as soon as it exists; each checked flag gets the bad
values of its kind (tests/fuzz/test_fuzz_cli_inputs.py). Only values that must be refused
are sent: an accepted one would start an experiment. The answer must be exit code 2
with a one-line message naming the flag, and no file changed.
"""

from __future__ import annotations

import argparse
from typing import Any

from fuzz_harness import run_case
from test_fuzz_cli_inputs import (
    CHOICE_BAD,
    INT_BAD,
    MINIMUM,
    OUT_DIR_BAD,
    OUT_FILE_BAD,
    REAL_BAD,
    _type_kind,
)

# -- the other entry points: python -m experiments ..., python -m mamma_mia_env, scripts ----------
#: Entry points and the module whose ``main(argv)`` runs them. Their flags are read from
#: the parser each builds (caught at ``parse_args``); only values that must be refused
#: are sent (an accepted value would start an experiment).
ENTRY_POINTS = {
    "python -m experiments reproduce": ("experiments.reproduce.cli", ["--quick"]),
    "python -m experiments docs": ("experiments.docs.generate", ["--check"]),
    "python -m mamma_mia_env": ("mamma_mia_env.__main__", ["--quiet"]),
}
SCRIPTS = ["benchmark.benchmark", "evaluate.leaderboard", "benchmark.speed", "benchmark.ab",
           "benchmark.learner_env_speed", "benchmark.bot_speed", "benchmark.decision_speed",
           "evaluate.search_strength", "evaluate.openspiel_ismcts",
           "train.cleanrl_ppo", "train.tune_champion", "train.cleanrl_defaults",
           "train.expert_iteration"]  # fmt: skip
ENTRY_POINTS.update({f"python -m experiments.{n}": (f"experiments.{n}", []) for n in SCRIPTS})
#: Text flags an entry point checks itself, with values it must refuse.
TEXT_REFUSED = {("python -m experiments reproduce", "--only"): ["nosuch", ",,x"]}


def entry_parser(module: str) -> argparse.ArgumentParser:
    """The parser ``module.main`` builds, caught when it is asked to parse."""
    import importlib

    class Caught(Exception):
        pass

    seen: list[argparse.ArgumentParser] = []
    real_parse = argparse.ArgumentParser.parse_args

    def catch(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
        seen.append(self)
        raise Caught

    argparse.ArgumentParser.parse_args = catch  # type: ignore[method-assign]
    try:
        importlib.import_module(module).main([])
    except Caught:
        pass
    finally:
        argparse.ArgumentParser.parse_args = real_parse  # type: ignore[method-assign]
    return seen[0]


def entry_cases() -> list[tuple[str, dict[str, Any]]]:
    real_bad = [v for v in REAL_BAD if v != "61"]  # their reals have no upper bound
    values = {"int": INT_BAD, "real": real_bad, "choice": CHOICE_BAD, "out_file": OUT_FILE_BAD,
              "out_dir": OUT_DIR_BAD}  # fmt: skip
    cases = []
    for name, (module, base) in ENTRY_POINTS.items():
        for action in entry_parser(module)._actions:
            if isinstance(action, argparse._HelpAction) or not action.option_strings:
                continue
            flag = action.option_strings[-1]
            kind = _type_kind(action)
            if kind == "switch":
                bad = [None]
            elif (name, flag) in TEXT_REFUSED:
                bad = TEXT_REFUSED[(name, flag)]
            else:
                bad = values.get(kind, [])
                if not bad:
                    continue  # a free text flag: any value may start a run
            for v in bad:
                argv = [*base, f"{flag}=1"] if v is None else [*base, f"{flag}={v}"]
                payload = dict(module=module, argv=argv, anchors=[flag, *action.option_strings])
                cases.append((f"entry {name} {flag}", payload))
    return cases


def run_entry_case(p: dict[str, Any]) -> tuple[list[str], str]:
    """One entry point run with a value it must refuse (cli_input_cases.refusal_problems)."""
    import contextlib
    import importlib
    import io

    from cli_input_cases import changed, refusal_problems, sandbox, snapshot

    main = importlib.import_module(p["module"]).main
    with sandbox() as root:
        before = snapshot(root)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code: Any = main(p["argv"])
            except SystemExit as exc:
                code = exc.code
            except BaseException as exc:
                code = exc
        diff = changed(before, snapshot(root))
    fails = refusal_problems(code, err.getvalue(), p["anchors"])
    if diff:
        fails.append(f"changed {diff[:5]}")
    return fails, "refused"


def test_every_checked_flag_of_the_other_entry_points() -> None:
    cases = entry_cases()
    names = {label.split(" --")[0] for label, _ in cases}
    assert names == {f"entry {n}" for n in ENTRY_POINTS}, names
    errors = []
    for label, payload in cases:
        try:
            run_case(label, "test_fuzz_entry_points:run_entry_case", payload)
        except AssertionError as exc:
            errors.append(str(exc)[:1500])
    print(f"input fuzz: entry points: {len(cases)} cases over {len(ENTRY_POINTS)} programs")
    assert not errors, f"{len(errors)} case(s) failed:\n" + "\n\n".join(errors[:8])
    assert len(cases) >= MINIMUM["entry points"]
