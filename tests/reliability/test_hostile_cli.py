"""Hostile command lines: every argument and option of `harn` fuzzed against the SPEC bounds (IDs with path
tricks, NUL and control characters, confusable and fullwidth letters; over-long and blank titles, objectives,
criteria, reasons and findings; out-of-range and non-ASCII integers; broken dispositions; odd files). Each is
bad input (exit 2) with a message naming the rule, or, when the oracle says the value is legal, the documented
next check (4: the addressed thing does not exist) — never a traceback, and the tree is byte-for-byte unchanged.

The bulk runs `harn_tui.cli.main(argv)` in-process; a few real `harn` subprocesses check the same end to end.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from textual.screen import Screen
from textual.widgets import Input, Select, Static

from harn_tui import cli
from harn_tui.cli import main
from harn_tui.core.creation import create_work, init_tree
from harn_tui.core.layout import Layout
from harn_tui.tui.app import HarnConsole
from harn_tui.tui.forms.accept import AcceptForm
from harn_tui.tui.forms.reason import ReasonForm
from harn_tui.tui.forms.reopen import ReopenForm
from tests.conftest import EXAMPLES, Harn, tree_bytes
from tests.goal_kit import GoalKit
from tests.reliability.conftest import Figures
from tests.tui import scenarios
from tests.tui.conftest import open_form

ID_RULE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # SPEC 2, written out again as the oracle
NOT_VALID_ID = "is not a valid ID: it must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
WHITE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)  # Unicode White_Space: what record fields trim
GOAL = "goal-hostile"
WORK = "w1"
MISSING = "nothing-here"

PATH_TRICKS = [
    "..",
    ".",
    "../x",
    "a/../b",
    "/etc/passwd",
    "a/b",
    "a\\b",
    "~",
    "~root",
    "./w1",
    "w1/",
    "w1/..",
    "",
    " ",
    "w1 ",
    " w1",
    "a b",
    "a\x00b",
    "w1\x00",
    "a\nb",
    "w1\n",
    "a\tb",
    "\x1b[2J",
    "a\x7f",
    "a\x85",
    "a\u2028b",
    "x" * 101,
    "-w1",
    "_w1",
    ".w1",
    "ｗ１",
    "wоrk",
    "w\u200b1",
    "\u202ew1",
    "w\u03011",
    "٣",
    "\u212a1",
    "İ",
    "w1;rm -rf /",
    "$(id)",
    "`id`",
    "%2e%2e",
    "..%2f",
    "\udc80",
    "\U0001f4a9",
]
HOSTILE_CHARS = st.sampled_from(
    [
        "\x00",
        "\x1b",
        "\x07",
        "\x9b",
        "\u202e",
        "\u200b",
        "\ufeff",
        "/",
        "\\",
        ".",
        "ｗ",
        "\u0430",
        "\u212a",
        "[",
        "]",
        "\n",
        "\x1c",
        "-",
        "_",
        "\udcff",
    ]
)
ID_CHARS = st.sampled_from("abcXYZ019.-_")
HOSTILE_ID = st.one_of(
    st.sampled_from(PATH_TRICKS),
    st.text(st.one_of(ID_CHARS, HOSTILE_CHARS, st.characters(codec="utf-8")), max_size=110),
    st.integers(95, 105).map(lambda n: "a" * n),
)


def trimmed_length(text: str, python_strip: bool) -> int:
    """Operator arguments are trimmed with str.strip(); record fields with Unicode White_Space."""
    return len(text.strip() if python_strip else text.strip(WHITE_SPACE))


def bounded_text(limit: int) -> st.SearchStrategy[str]:
    """Around the bound, blank, padded, and arbitrary text with controls, markup and confusables."""
    return st.one_of(
        st.integers(limit - 3, limit + 3).map(lambda n: "r" * n),
        st.tuples(st.sampled_from(["", " ", "\t", "\n", "\u3000", "\x1c"]), st.integers(limit - 2, limit + 2)).map(
            lambda pair: pair[0] + "r" * pair[1] + pair[0]
        ),
        st.sampled_from(
            [
                "",
                " ",
                "\n\t ",
                "\x00",
                "\x1b[2J",
                "[bold]x[/bold]",
                "[@click=app.quit]q[/]",
                "\x1b]52;c;ZXZpbA==\x07",
                "-x",
                "--json",
                "\u202e",
                "\x1c\x1d",
            ]
        ),
        st.text(st.one_of(HOSTILE_CHARS, st.characters(codec="utf-8")), max_size=40),
    )


# ----- the tree every case runs against, and the in-process CLI


class Tree:
    """The fixture tree and what it held before any case ran."""

    def __init__(self, root: Path, template: Path, before: dict[str, bytes], dirs: set[str]) -> None:
        self.root, self.template, self.before, self.dirs = root, template, before, dirs

    def __repr__(self) -> str:
        return f"Tree({self.root})"

    def unchanged(self) -> None:
        after = tree_bytes(self.root)
        assert after == self.before, sorted(set(after) ^ set(self.before)) or "a file changed"
        assert directories(self.root) == self.dirs


def directories(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in (root / ".harnery").rglob("*")
        if p.is_dir() and "cache" not in p.relative_to(root).parts
    }


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tree]:
    base = tmp_path_factory.mktemp("hostile-cli")
    layout = init_tree(base / "root")
    files = base / "files"
    shutil.copytree(EXAMPLES, files)
    template = files / "templates" / "implement.py"
    create_work(
        layout, title="Root", template=template, objective="Ship.", acceptance=["done"], work_id=WORK, actor="tester"
    )
    GoalKit(layout, files).create(root_work=WORK, goal_id=GOAL)
    saved = {key: os.environ.get(key) for key in ("HARN_ACTOR", "HARN_ROOT", "HARN_LEASE_TIMEOUT_S")}
    os.environ.update(HARN_ACTOR="tester", HARN_LEASE_TIMEOUT_S="5")
    os.environ.pop("HARN_ROOT", None)
    # The whole parser is built once: constructing it costs ~15 ms a call, parse_args does not change it, and it
    # parses every command line as the parser of the line's own groups does.
    build_parser = cli.build_parser
    whole = build_parser()
    cli.build_parser = lambda named=None: whole
    yield Tree(layout.root, template, tree_bytes(layout.root), directories(layout.root))
    cli.build_parser = build_parser
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def harn_in_process(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(["--root", str(root), *argv])
        except SystemExit as done:  # argparse's help action: it prints and exits 0, as `harn ... -h` does
            code = int(done.code or 0)
    return code, out.getvalue(), err.getvalue()


def asks_for_help(argv: list[str]) -> bool:
    """Whether argparse reads a value as its help option (`-h`, `-hx`, `--he` ...) and prints help."""
    return any((a.startswith("-h") or (len(a) > 2 and "--help".startswith(a))) for a in argv)


def check(
    tree: Tree,
    figures: Figures,
    argv: list[str],
    *,
    legal: bool,
    rule: str | Callable[[str], bool],
    legal_code: int = 4,
) -> None:
    """Run `argv`; a legal value meets the next documented check (`legal_code`), anything else is exit 2 with a
    message naming `rule`. Never a traceback (it would propagate here), never a change to the tree."""
    figures.add("hostile input: CLI arguments tried")
    code, out, err = harn_in_process(tree.root, *argv)
    tree.unchanged()
    if code == 0 and asks_for_help(argv):  # a hostile value that is the help option: help, nothing else
        assert out.startswith("usage: harn"), (argv, out)
        return
    if not all(utf8(a) for a in argv):  # bytes that are not UTF-8 reach Python as lone surrogates
        legal, rule = False, "is not UTF-8 text"
    if legal:
        assert code == legal_code, (argv, code, out, err)
        return
    assert code == 2, (argv, code, out, err)
    assert "Traceback" not in err
    if "--json" in argv and out.strip():  # a value `--json` may turn the error into SPEC 8's JSON document
        error = json.loads(out)["error"]
        assert error["code"] == "usage"
        message = "harn: " + error["message"]
    else:
        message = err.strip()
        assert message.startswith("harn: ") and "\n" not in message
    named = rule(message) if callable(rule) else rule in message
    assert named, (argv, message)


def utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def argparse_or(rule: str) -> Callable[[str], bool]:
    """A value starting with `-` is an option to argparse: its own usage error (exit 2) is right too."""
    return lambda message: rule in message or "(try 'harn" in message


def is_id(value: str) -> bool:
    return ID_RULE.fullmatch(value) is not None


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# ----- IDs in every position that takes one

ID_POSITIONS: dict[str, Callable[[str], list[str]]] = {
    "supervisor show GOAL": lambda v: ["supervisor", "show", v],
    "supervisor tick GOAL": lambda v: ["supervisor", "tick", v],
    "supervisor run GOAL": lambda v: ["supervisor", "run", v],
    "supervisor serve GOAL": lambda v: ["supervisor", "serve", v],
    "supervisor plan list GOAL": lambda v: ["supervisor", "plan", "list", v],
    "supervisor plan show GOAL PLAN(goal)": lambda v: ["supervisor", "plan", "show", v, "plan-0001-aaaaaaaa"],
    "supervisor plan show GOAL PLAN(plan)": lambda v: ["supervisor", "plan", "show", GOAL, v],
    "supervisor plan approve GOAL PLAN": lambda v: ["supervisor", "plan", "approve", GOAL, v],
    "supervisor plan reject GOAL PLAN": lambda v: ["supervisor", "plan", "reject", v, "p1", "--reason", "no"],
    "supervisor plan retry GOAL PLAN": lambda v: ["supervisor", "plan", "retry", GOAL, v, "--reason", "again"],
    "supervisor create --root-work": lambda v: [
        "supervisor",
        "create",
        "--team",
        "/nonexistent/team.json",
        "--root-work",
        v,
    ],
    "work show": lambda v: ["work", "show", v],
    "work run": lambda v: ["work", "run", v],
    "work retry": lambda v: ["work", "retry", v],
    "work accept": lambda v: ["work", "accept", v],
    "work reopen": lambda v: ["work", "reopen", v, "--finding", "broken"],
    "work cancel": lambda v: ["work", "cancel", v],
    "approval show": lambda v: ["approval", "show", v],
    "approval approve": lambda v: ["approval", "approve", v],
    "approval deny": lambda v: ["approval", "deny", v, "--reason", "no"],
    "--actor on work cancel": lambda v: ["--actor", v, "work", "cancel", MISSING],
    "--actor after the verb": lambda v: ["approval", "deny", MISSING, "--actor", v],
}


@pytest.mark.parametrize("position", list(ID_POSITIONS))
@FUZZ
@given(value=HOSTILE_ID)
def test_an_id_argument_is_checked_before_any_path_is_built(
    tree: Tree, figures: Figures, position: str, value: str
) -> None:
    assume(value not in (GOAL, WORK, "p1"))
    argv = ID_POSITIONS[position](value)
    legal = is_id(value)
    legal_code = 2 if position == "supervisor create --root-work" else 4  # then: the team file is missing
    check(
        tree,
        figures,
        argv,
        legal=legal and not value.startswith("-"),
        rule=argparse_or(NOT_VALID_ID),
        legal_code=legal_code,
    )


@FUZZ
@given(value=HOSTILE_ID, where=st.sampled_from(["--id", "--depends-on"]))
def test_work_create_ids(tree: Tree, figures: Figures, value: str, where: str) -> None:
    assume(value not in (GOAL, WORK))
    argv = [
        "work",
        "create",
        "--objective",
        "O",
        f"{where}={value}",
        "--depends-on",
        MISSING,
        "--",
        "Title",
        str(tree.template),
    ]
    if where == "--depends-on":  # commas separate several ids; blank parts are skipped
        parts = [p.strip() for p in value.split(",") if p.strip()] + [MISSING]
        legal = all(is_id(p) for p in parts) and len(set(parts)) == len(parts)
        check(tree, figures, argv, legal=legal, rule=lambda m: "ID" in m or "twice" in m)
        return
    check(tree, figures, argv, legal=is_id(value), rule=NOT_VALID_ID)


@FUZZ
@given(value=HOSTILE_ID)
def test_supervisor_create_id(tree: Tree, figures: Figures, value: str) -> None:
    argv = ["supervisor", "create", "--team", "/nonexistent/team.json", "--root-work", WORK, f"--id={value}"]
    # a legal id meets the next check: the team file does not exist, bad input too but naming the file
    check(tree, figures, argv, legal=False, rule="team file" if is_id(value) else NOT_VALID_ID)


# ----- bounded text: titles, objectives, criteria, reasons, findings


@FUZZ
@given(title=bounded_text(200), objective=bounded_text(4000), accept=st.lists(bounded_text(500), max_size=3))
def test_work_create_text_bounds(tree: Tree, figures: Figures, title: str, objective: str, accept: list[str]) -> None:
    argv = [
        "work",
        "create",
        f"--objective={objective}",
        *[f"--accept={a}" for a in accept],
        "--depends-on",
        MISSING,
        "--",
        title,
        str(tree.template),
    ]
    legal = (
        1 <= trimmed_length(title, False) <= 200
        and 1 <= trimmed_length(objective, False) <= 4000
        and all(1 <= trimmed_length(a, False) <= 500 for a in accept)
    )
    check(tree, figures, argv, legal=legal, rule=lambda m: "work: " in m)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(48, 53))
def test_work_create_criteria_count(tree: Tree, figures: Figures, count: int) -> None:
    argv = [
        "work",
        "create",
        "--objective",
        "O",
        *["--accept=c"] * count,
        "--depends-on",
        MISSING,
        "--",
        "T",
        str(tree.template),
    ]
    check(tree, figures, argv, legal=count <= 50, rule="acceptance")


@FUZZ
@given(title=bounded_text(200))
def test_supervisor_create_title_bound(tree: Tree, figures: Figures, title: str) -> None:
    argv = [
        "supervisor",
        "create",
        "--team",
        str(tree.template.parent.parent / "team.json"),
        "--root-work",
        MISSING,
        f"--title={title}",
    ]
    check(tree, figures, argv, legal=1 <= trimmed_length(title, False) <= 200, rule="title")


REASON_VERBS: dict[str, Callable[[str], list[str]]] = {
    "plan reject": lambda r: ["supervisor", "plan", "reject", GOAL, "plan-0009-00000000", f"--reason={r}"],
    "plan retry": lambda r: ["supervisor", "plan", "retry", GOAL, "plan-0009-00000000", f"--reason={r}"],
    "plan approve": lambda r: ["supervisor", "plan", "approve", GOAL, "plan-0009-00000000", f"--reason={r}"],
    "work accept": lambda r: ["work", "accept", MISSING, f"--reason={r}"],
    "work reopen": lambda r: ["work", "reopen", MISSING, f"--reason={r}"],
    "work cancel": lambda r: ["work", "cancel", MISSING, f"--reason={r}"],
    "approval approve": lambda r: ["approval", "approve", MISSING, f"--reason={r}"],
    "approval deny": lambda r: ["approval", "deny", MISSING, f"--reason={r}"],
}


@pytest.mark.parametrize("verb", list(REASON_VERBS))
@FUZZ
@given(reason=bounded_text(2000))
def test_reason_bounds(tree: Tree, figures: Figures, verb: str, reason: str) -> None:
    check(tree, figures, REASON_VERBS[verb](reason), legal=1 <= trimmed_length(reason, True) <= 2000, rule="--reason")


@FUZZ
@given(findings=st.one_of(st.lists(bounded_text(1000), max_size=4), st.integers(19, 22).map(lambda n: ["f"] * n)))
def test_reopen_findings_bounds(tree: Tree, figures: Figures, findings: list[str]) -> None:
    argv = ["work", "reopen", MISSING, *[f"--finding={f}" for f in findings]]
    legal = len(findings) <= 20 and all(1 <= trimmed_length(f, True) <= 1000 for f in findings)
    check(tree, figures, argv, legal=legal, rule="finding")


DISPOSITION = st.one_of(
    st.sampled_from(
        [
            "f1=fixed",
            "f1=deferred:later",
            "f1",
            "=fixed",
            "f1=",
            "f1=fixed:why",
            "f1=deferred",
            "f1=deferred:",
            "f1=deferred: \t",
            "f1=FIXED",
            "f1=ｆｉｘｅｄ",
            "../f1=fixed",
            "f1=fixed\x00",
            "f 1=fixed",
            "f1==fixed",
            "f1=deferred:" + "r" * 2001,
            "f1=deferred:" + "r" * 2000,
            "f1=deferred:\x1b[2J[bold]x",
            "\u202ef1=fixed",
            "f1=defer",
            "f1=fixed,f2=fixed",
        ]
    ),
    st.tuples(
        HOSTILE_ID,
        st.sampled_from(["=", "", "==", ":"]),
        st.sampled_from(["fixed", "deferred", "x", ""]),
        st.sampled_from(["", ":"]),
        bounded_text(2000),
    ).map(lambda t: "".join(t)),
)


def disposition_is_legal(text: str) -> bool:
    finding, equals, rest = text.partition("=")
    outcome, colon, reason = rest.partition(":")
    if not equals or not is_id(finding.strip()):
        return False
    if outcome.strip() == "fixed":
        return not colon
    return outcome.strip() == "deferred" and bool(colon) and 1 <= len(reason.strip()) <= 2000


@FUZZ
@given(dispositions=st.lists(DISPOSITION, min_size=1, max_size=3))
def test_disposition_syntax(tree: Tree, figures: Figures, dispositions: list[str]) -> None:
    argv = ["work", "accept", MISSING, *[f"--dispose={d}" for d in dispositions]]
    ids = [d.partition("=")[0].strip() for d in dispositions]
    legal = all(disposition_is_legal(d) for d in dispositions) and len(set(ids)) == len(ids)
    check(tree, figures, argv, legal=legal, rule=lambda m: "disposition" in m or "reason" in m or "twice" in m)


# ----- integers and files


INTEGER_TEXT = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.integers(-2, 102).map(str),
    st.sampled_from(
        [
            "",
            " ",
            "1.5",
            "1e3",
            "nan",
            "inf",
            "0x10",
            "1_0",
            " 3 ",
            "３",
            "١٢",
            "+3",
            "-0",
            "00003",
            "3\x00",
            "9" * 5000,
            "--3",
            "three",
        ]
    ),
)
INTEGER_OPTIONS: dict[str, tuple[Callable[[str], list[str]], int, int]] = {
    "work create --max-attempts": (
        lambda n: [
            "work",
            "create",
            "--objective",
            "O",
            f"--max-attempts={n}",
            "--depends-on",
            MISSING,
            "--",
            "T",
            "TEMPLATE",
        ],
        1,
        100,
    ),
    "supervisor create --max-total-attempts": (
        lambda n: ["supervisor", "create", "--team", "TEAM", "--root-work", MISSING, f"--max-total-attempts={n}"],
        1,
        100_000,
    ),
    "supervisor create --max-parallel-work": (
        lambda n: ["supervisor", "create", "--team", "TEAM", "--root-work", MISSING, f"--max-parallel-work={n}"],
        1,
        64,
    ),
    "supervisor create --max-cycles": (
        lambda n: ["supervisor", "create", "--team", "TEAM", "--root-work", MISSING, f"--max-cycles={n}"],
        1,
        100_000,
    ),
}


def ascii_int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) and len(text) < 4000 else None


@pytest.mark.parametrize("option", list(INTEGER_OPTIONS))
@FUZZ
@given(text=INTEGER_TEXT)
def test_integer_bounds(tree: Tree, figures: Figures, option: str, text: str) -> None:
    build, low, high = INTEGER_OPTIONS[option]
    team = str(tree.template.parent.parent / "team.json")
    argv = [team if a == "TEAM" else str(tree.template) if a == "TEMPLATE" else a for a in build(text)]
    value = ascii_int(text)
    check(
        tree,
        figures,
        argv,
        legal=value is not None and low <= value <= high,
        rule=lambda m: "whole number" in m or "invalid count value" in m or "greater than" in m or "less than" in m,
    )


WAKE_TEXT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(-1, 90_000).map(str),
    st.sampled_from(
        [
            "",
            "0",
            "-0",
            "0.0",
            "1e-9",
            "86400",
            "86400.0001",
            "1e308",
            "inf",
            "-inf",
            "nan",
            "５",
            " 5",
            "5 ",
            "1_0",
            "0x10",
            "five",
            "\x1b[2J",
            "5\x00",
        ]
    ),
)


def wake_is_legal(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return text.isascii() and 0 < value <= 86_400


@FUZZ
@given(text=WAKE_TEXT)
def test_wake_interval_bounds(tree: Tree, figures: Figures, text: str) -> None:
    """`serve --wake-interval`: a finite number of seconds in (0, 86400]; a legal one meets the missing goal."""
    check(
        tree,
        figures,
        ["supervisor", "serve", f"--wake-interval={text}", MISSING],
        legal=wake_is_legal(text),
        rule="is not a wake interval",
    )


@pytest.mark.parametrize("bad", ["/dev/zero", "DIR", "DEEP", "HUGE", "BINARY", "/nonexistent", "FIFO", "NOT_OBJECT"])
@pytest.mark.parametrize("which", ["--team", "--replanning", "--mission"])
def test_odd_team_replanning_and_mission_files(
    tree: Tree, figures: Figures, tmp_path: Path, bad: str, which: str
) -> None:
    files = {
        "DIR": tmp_path,
        "DEEP": tmp_path / "deep.json",
        "HUGE": tmp_path / "huge.json",
        "BINARY": tmp_path / "binary.json",
        "FIFO": tmp_path / "fifo",
        "NOT_OBJECT": tmp_path / "list.json",
    }
    files["DEEP"].write_text("[" * 100_000)
    files["HUGE"].write_text(json.dumps({"x": "y" * (2 * 1024 * 1024)}))
    files["BINARY"].write_bytes(b"\xff\xfe\x00{\x1b[2J")
    files["NOT_OBJECT"].write_text("[1, 2]")
    os.mkfifo(files["FIFO"])
    path = str(files.get(bad, bad))
    examples = tree.template.parent.parent
    chosen = {
        "--team": str(examples / "team.json"),
        "--replanning": str(examples / "replanning.json"),
        "--mission": str(examples / "mission.json"),
    }
    chosen[which] = path
    argv = ["supervisor", "create", "--id", "goal-odd-file", *[x for k, v in chosen.items() for x in (k, v)]]
    check(tree, figures, argv, legal=False, rule=lambda m: path in m or "file" in m)


@pytest.mark.parametrize("path", ["a" * 300, "a/" * 3000], ids=["name too long", "path too long"])
def test_paths_too_long_to_look_up(tree: Tree, figures: Figures, path: str) -> None:
    """ENAMETOOLONG is not 'does not exist' to pathlib: each place a path is looked up says what is wrong."""
    for argv, code, rule in (
        (["--root", path, "pending"], 4, "no .harnery/ under"),
        (["--root", str(tree.root), "work", "create", "T", path, "--objective", "O"], 2, "template file"),
        (["--root", str(tree.root), "supervisor", "create", "--team", path, "--root-work", WORK], 2, "team file"),
    ):
        figures.add("hostile input: CLI arguments tried")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            assert main(argv) == code
        assert err.getvalue().startswith("harn: ") and rule in err.getvalue()
        tree.unchanged()


@pytest.mark.parametrize("verb", [["init"], ["demo", "--no-tui"]])
@pytest.mark.parametrize("place", ["/dev/null", "FILE", "FILE/below", "/proc/no-such-dir"])
def test_init_and_demo_into_a_place_that_cannot_hold_a_tree(
    tree: Tree, figures: Figures, tmp_path: Path, verb: list[str], place: str
) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    path = place.replace("FILE", str(tmp_path / "a-file"))
    figures.add("hostile input: CLI arguments tried")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([f"--root={path}", *verb] if verb == ["init"] else [*verb, path])
    assert code == 2 and err.getvalue().startswith("harn: ") and path in err.getvalue()
    assert (tmp_path / "a-file").read_text() == "not a directory"


@FUZZ
@given(record=HOSTILE_ID)
def test_schema_record_name(tree: Tree, figures: Figures, record: str) -> None:
    figures.add("hostile input: CLI arguments tried")
    code, _, err = harn_in_process(tree.root, "schema", "--", record)
    tree.unchanged()
    if not utf8(record):
        assert code == 2 and "is not UTF-8 text" in err
        return
    assert code in (0, 2) and (code == 0 or "no record named" in err)


@FUZZ
@given(
    root=st.one_of(
        st.sampled_from(["", ".", "..", "/", "/dev/null", "/proc/self", "~", "-", "--", "\x1b[2J"]),
        st.text(
            st.one_of(
                HOSTILE_CHARS.filter(lambda c: "\x00" not in c), st.characters(codec="utf-8", exclude_characters="\x00")
            ),
            max_size=30,
        ),
    )
)
@example(root="--")  # `--root=--`: argparse once turned it into an empty list
def test_root_option(tree: Tree, figures: Figures, root: str) -> None:
    """`--root` that holds no `.harnery/` is exit 4 naming it (NUL cannot reach argv, so it is not tried)."""
    figures.add("hostile input: CLI arguments tried")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([f"--root={root}", "pending"])
    tree.unchanged()
    assert (code, "no .harnery/" in err.getvalue()) == (4, True) or (code == 2 and "harn: " in err.getvalue())


# ----- a few real processes, end to end


REAL = [
    (["work", "show", "../../etc/passwd"], 2, NOT_VALID_ID),
    (["work", "cancel", "ｗ１", "--json"], 2, NOT_VALID_ID),
    (["--actor", "\x1b[2J", "work", "cancel", MISSING], 2, "actor"),
    (["supervisor", "plan", "reject", GOAL, "p1", "--reason", "r" * 2001], 2, "at most 2000"),
    (["work", "reopen", WORK, "--finding", " \t "], 2, "finding 1 is blank"),
    (["work", "create", "T" * 201, "TEMPLATE", "--objective", "O"], 2, "at most 200 characters"),
    (["work", "create", "T", "TEMPLATE", "--objective", "O", "--max-attempts", "１"], 2, "whole number"),
    (["supervisor", "create", "--team", "/dev/zero", "--root-work", WORK], 2, "not a regular file"),
]


@pytest.mark.parametrize("argv,code,rule", REAL, ids=[" ".join(a[:3]) for a, _, _ in REAL])
def test_real_harn_processes(tree: Tree, figures: Figures, argv: list[str], code: int, rule: str) -> None:
    figures.add("hostile input: CLI arguments tried")
    result = Harn(tree.root)(*[str(tree.template) if a == "TEMPLATE" else a for a in argv])
    tree.unchanged()
    assert result.returncode == code and "Traceback" not in result.stderr
    if "--json" in argv:
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "usage" and rule in error["message"]
    else:
        [line] = result.stderr.splitlines()
        assert line.startswith("harn: ") and rule in line


# ----- console forms: the same bounds, checked before anything is dispatched


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def console_on(layout: Layout) -> HarnConsole:
    app = HarnConsole(layout, actor="alice", watch=False, presence=False, root_label="ROOT")
    app.animation_level = "none"
    return app


@pytest.fixture
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARN_FIXED_NOW", "2026-07-16T10:00:00Z")


F = TypeVar("F", bound=Screen[Any])


@contextlib.asynccontextmanager
async def form_on(
    layout: Layout, build: Callable[[Layout], object], key: str, form_type: type[F]
) -> AsyncIterator[tuple[Any, F, dict[str, bytes]]]:
    """`build` a scenario, open the console on it and press `key`: (the pilot, the form it opened, which must be
    a `form_type`, and the tree's bytes before anything was typed)."""
    build(layout)
    before = tree_bytes(layout.root)
    app = console_on(layout)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        yield pilot, await open_form(pilot, app, key, form_type), before


OVER_REASON = ["\u3000 " + "[bold red]x[/] \x1b[2J\x1b]52;c;ZXZpbA==\x07 " * 100 + "r" * 1001 + " \u3000", "r" * 2001]
BLANK = ["", "   ", "\u3000\x1c\x1d\t"]


async def refused(
    pilot: Any,
    form: Any,
    field: Input,
    value: str,
    rule: str,
    layout: Layout,
    before: dict[str, bytes],
    figures: Figures,
) -> None:
    """Type `value` into `field`, submit: the form stays, shows `rule`, and nothing is written."""
    figures.add("hostile input: console form values tried")
    field.value = value
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert pilot.app.screen is form
    error = str(form.query_one("#error", Static).content)
    assert rule in error and "\x1b" not in error, (value[:40], error)
    assert tree_bytes(layout.root) == before


@pytest.mark.anyio
@pytest.mark.usefixtures("fixed_now")
async def test_reason_form_refuses_out_of_bounds_reasons(layout: Layout, figures: Figures) -> None:
    # x: reject the pending plan, a reason required
    async with form_on(layout, scenarios.plan_goal, "x", ReasonForm) as (pilot, form, before):
        field = form.query_one("#reason", Input)
        for value in OVER_REASON:
            await refused(pilot, form, field, value, "at most 2,000 are allowed", layout, before, figures)
        for value in BLANK:
            await refused(pilot, form, field, value, "a reason is required", layout, before, figures)
        field.value = "  " + "r" * 2000 + "\u3000"  # the bound is on the trimmed text, as in the core
        await pilot.press("ctrl+s")
        for _ in range(50):
            await pilot.pause(0.02)
            if tree_bytes(layout.root) != before:
                break
        rejected = [
            json.loads(line)
            for line in (layout.plan(scenarios.PLAN_GOAL, scenarios.PENDING_PLAN) / "events.jsonl")
            .read_text()
            .splitlines()
        ][-1]
        assert (rejected["event"], rejected["reason"]) == ("plan.rejected", "r" * 2000)


@pytest.mark.anyio
@pytest.mark.usefixtures("fixed_now")
async def test_reopen_form_refuses_out_of_bounds_findings(layout: Layout, figures: Figures) -> None:
    async with form_on(layout, scenarios.review_goal, "o", ReopenForm) as (pilot, form, before):
        finding = form.query_one("#finding-1", Input)
        for value in ["f" * 1001, "\x1b[2J" * 251, " [link=http://evil]x[/link] " * 40]:
            await refused(pilot, form, finding, value, "finding 1: the finding is", layout, before, figures)
        finding.value = "fine"
        for value in OVER_REASON:
            await refused(
                pilot, form, form.query_one("#reason", Input), value, "at most 2,000", layout, before, figures
            )
        form.query_one("#reason", Input).value = ""
        for _ in range(25):  # a reopen takes at most 20 findings
            await form.action_add_finding()
        await pilot.pause()
        assert len(form.query(".finding")) == 20
        assert "at most 20 findings" in str(form.query_one("#error", Static).content)
        assert tree_bytes(layout.root) == before


@pytest.mark.anyio
@pytest.mark.usefixtures("fixed_now")
async def test_accept_form_refuses_out_of_bounds_deferrals(layout: Layout, figures: Figures) -> None:
    async with form_on(layout, scenarios.review_goal, "a", AcceptForm) as (pilot, form, before):
        form.query_one("#choice-f1", Select).value = "fixed"
        form.query_one("#choice-f2", Select).value = "deferred"
        why = form.query_one("#why-f2", Input)
        for value in OVER_REASON:
            await refused(pilot, form, why, value, "f2: the reason is", layout, before, figures)
        for value in BLANK:
            await refused(pilot, form, why, value, "f2: deferring needs a reason", layout, before, figures)
        why.value = "later"
        for value in OVER_REASON:
            await refused(
                pilot, form, form.query_one("#reason", Input), value, "at most 2,000", layout, before, figures
            )
