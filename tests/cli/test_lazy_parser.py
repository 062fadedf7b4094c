"""Each command line builds only the command groups and verbs it names (the rest are a line of help and a choice):
that parser must parse the line, print its help and word its errors exactly as the whole parser does."""

from __future__ import annotations

import contextlib
import io

import pytest

from harn_tui.cli.commands import GROUPS
from harn_tui.cli.parser import VERBS, Parser, ParserUsageError, build_parser


def outcome(parser: Parser, argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    result: object
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result = ("parsed", sorted(vars(parser.parse_args(argv)).items()))
        except SystemExit as done:  # help and --version
            result = ("exit", done.code)
        except ParserUsageError as error:
            result = ("usage", str(error))
    return result, out.getvalue(), err.getvalue()


def command_lines() -> list[list[str]]:
    lines: list[list[str]] = [[], ["--help"], ["nosuch"], ["wrok"], ["--json", "--version"]]
    for group, _ in GROUPS:
        lines += [[group], [group, "--help"], [group, "x"], [group, "x", "y"], [group, "--json", "--help"]]
    for group, verbs in VERBS.items():
        lines += [[group, "nosuch"], [group, "lst"]]
        for verb, _, define in verbs:
            for rest in ([], ["--help"], ["a"], ["a", "b"], ["a", "b", "c"], ["a", "--reason", "r"], ["--json", "a"]):
                lines.append([group, verb, *rest])
            if isinstance(define, tuple):
                for inner, _, _ in define:
                    for rest in ([], ["--help"], ["a"], ["a", "b"], ["a", "b", "--reason", "r"], ["a", "b", "c"]):
                        lines.append([group, verb, inner, *rest])
    return [
        *lines,
        ["--root", "r", "work", "accept", "w", "--dispose", "f1=fixed", "--dispose", "f2=deferred:later"],
        ["supervisor", "--json", "plan", "--json", "list", "g"],
        ["supervisor", "show", "g", "--at", "event:3"],
        ["template", "new", "agent", "f", "--worker", "w", "--check", "pytest -q"],
        ["work", "create", "t", "tp", "--objective", "o", "--accept", "a", "--max-attempts", "2"],
        ["supervisor", "serve", "--wake-interval", "0"],
        ["supervisor", "create", "--team", "t", "--max-cycles", "x"],
        ["web", "--port", "99999"],
        ["supervisor", "plan", "approve", "list", "show"],  # verbs' names as arguments build them, nothing else
    ]


def test_a_parser_of_the_named_commands_parses_as_the_whole_one_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    whole = build_parser()
    lines = command_lines()
    assert len(lines) > 250
    for argv in lines:
        assert outcome(build_parser(frozenset(argv)), argv) == outcome(whole, argv), argv
