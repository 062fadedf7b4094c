"""`harn --help`, `harn -h`, `harn help` and `harn --version` are printed from the command tables without
argparse (whose import is most of their cost): the text must be argparse's own, byte for byte, at every terminal
width, and the installed `harn` script must not import what it avoids."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harn_tui import __version__
from harn_tui.cli.commands import LAYOUT_OF, help_text
from harn_tui.cli.parser import build_parser
from tests.conftest import harn_env

SCRIPT = Path(sys.executable).parent / "harn"
REPO = Path(__file__).resolve().parents[2]
AVOIDED = {"re", "argparse", "gettext", "locale", "shutil", "textwrap", "typing", "pydantic", "harn_tui.cli.parser"}


def test_the_top_level_help_is_argparse_s_at_every_width(monkeypatch: pytest.MonkeyPatch) -> None:
    parsers = (build_parser(), build_parser(frozenset(["--help"])))
    claimed = set()
    for columns in range(1, 301):
        monkeypatch.setenv("COLUMNS", str(columns))
        ours = help_text(columns)
        if ours is not None:
            for parser in parsers:
                assert ours == parser.format_help(), columns
            claimed.add(columns)
    if sys.version_info[:2] == LAYOUT_OF:
        assert set(range(62, 301)) <= claimed, sorted(set(range(62, 301)) - claimed)
    else:  # compared with no other argparse: that one prints
        assert not claimed


def imported_by(argv: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """What a fresh interpreter running `argv` (after `python -X importtime`) imports beyond its own start."""

    def run(args: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=env, timeout=60
        )
        lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
        names = {line.rsplit("|", 1)[1].strip() for line in lines[1:]}  # the first line is the header
        return done, names

    _, start = run(["-c", "pass"])
    done, names = run(argv)
    return done, names - start


def test_the_installed_script_prints_help_and_version_without_argparse_or_re(monkeypatch: pytest.MonkeyPatch) -> None:
    assert SCRIPT.exists(), f"{SCRIPT}: the project is installed into this interpreter's environment"
    installed, ours = (path.read_text().partition("\n")[2] for path in (SCRIPT, REPO / "scripts" / "harn"))
    assert installed == ours, f"{SCRIPT} is not scripts/harn (installed before it was?): pip install -e . again"
    monkeypatch.setenv("COLUMNS", "100")
    expected_help = build_parser().format_help()
    env = harn_env({"COLUMNS": "100"})
    for argv, expected in (
        (["--help"], expected_help),
        (["-h"], expected_help),
        (["help"], expected_help),
        (["--version"], f"harn {__version__}\n"),
    ):
        done, imported = imported_by([str(SCRIPT), *argv], env)
        assert (done.returncode, done.stdout) == (0, expected), (argv, done.stderr[-2000:])
        if sys.version_info[:2] == LAYOUT_OF or argv == ["--version"]:
            assert not imported & AVOIDED, (argv, sorted(imported & AVOIDED))
            assert not {name for name in imported if name.startswith("harn_tui.core")}, argv


def test_help_without_a_stdout_or_room_for_it_ends_as_argparse_s_does() -> None:
    """No stdout at all (`harn --help >&-`): the help goes to stderr, as argparse sends it (`--json --help` is
    printed by argparse); a stdout that cannot be written (a full disk): nothing more, exit 0."""
    env = harn_env({"COLUMNS": "100"})

    def shell(command: str) -> tuple[int, str, str]:
        done = subprocess.run(command, shell=True, capture_output=True, text=True, env=env, timeout=60)
        return done.returncode, done.stdout, done.stderr

    for fast, by_argparse in ((["--help"], ["--json", "--help"]), (["--version"], ["--json", "--version"])):
        closed = shell(f"'{SCRIPT}' {' '.join(fast)} >&-")
        assert closed == shell(f"'{SCRIPT}' {' '.join(by_argparse)} >&-"), fast
        assert closed[0] == 0 and closed[2].startswith(("usage: harn", "harn ")), closed
        assert shell(f"'{SCRIPT}' {' '.join(fast)} >/dev/full") == (0, "", ""), fast
