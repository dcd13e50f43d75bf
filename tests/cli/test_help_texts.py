"""Every command's ``--help`` describes the command and every option, with defaults."""

from __future__ import annotations

import argparse

import pytest

from mamma_mia_agents.cli.commands import build_parser


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_the_top_level_help_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in _commands():
        assert f"    {name}" in out, f"mamma-mia --help does not list {name}"
    assert "bot tournaments." not in out  # the old one-line description


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_option_has_help_and_shows_its_default(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = _commands()[name]
    assert command.description, f"mamma-mia {name} has no description"
    for action in command._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        label = "/".join(action.option_strings) or action.dest
        assert action.help, f"mamma-mia {name}: {label} has no help text"
    with pytest.raises(SystemExit):
        command.parse_args(["--help"])
    out = "".join(capsys.readouterr().out.split())  # argparse wraps lines at hyphens too
    for action in command._actions:
        default = action.default
        if not action.option_strings or default is None or isinstance(default, bool):
            continue
        if default == argparse.SUPPRESS:
            continue
        label = "/".join(action.option_strings)
        assert "default" in (action.help or "") or f"(default:{default})" in out, (
            f"mamma-mia {name}: {label} does not show its default {default!r}"
        )
