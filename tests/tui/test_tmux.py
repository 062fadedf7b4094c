"""The real console in a real terminal (tmux): approve from the keyboard, see another process's transition,
quit with ctrl+q, the terminal closing or SIGTERM, and leave no presence file behind."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harn_tui.core.layout import Layout
from tests.conftest import Harn
from tests.tui import scenarios as s

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    def __init__(self, socket: str, session: str) -> None:
        self.base = ["tmux", "-L", socket]
        self.session = session

    def run(self, *args: str) -> str:
        return subprocess.run([*self.base, *args], capture_output=True, text=True, check=False).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def alive(self) -> bool:
        return subprocess.run([*self.base, "has-session", "-t", self.session], capture_output=True).returncode == 0

    def wait_for(self, condition: Callable[[], bool], timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; the screen was:\n{self.screen()}")
            time.sleep(0.1)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(f"harn-test-{tmp_path.name}", "console")
    yield term
    term.run("kill-server")


def test_keyboard_approval_and_another_process_in_a_real_terminal(
    layout: Layout, harn: Harn, terminal: Terminal
) -> None:
    s.plan_goal(layout)
    s.review_goal(layout)
    command = " ".join(
        shlex.quote(part)
        for part in (
            "env",
            "HARN_ACTOR=alice",
            "TEXTUAL_THEME=textual-dark",
            sys.executable,
            "-m",
            "harn_tui",
            "--root",
            str(layout.root),
            "tui",
            "--no-supervisor",
        )
    )
    terminal.run("new-session", "-d", "-s", "console", "-x", "120", "-y", "40", command)
    terminal.wait_for(lambda: "APPROVAL NEEDED" in terminal.screen())
    assert "a Approve plan" in terminal.screen()
    presence = list((layout.presence).glob("alice@*.json"))
    assert len(presence) == 1
    terminal.keys("a")
    events = layout.plan(s.PLAN_GOAL, s.PENDING_PLAN) / "events.jsonl"
    terminal.wait_for(lambda: '"plan.applied"' in events.read_text())
    applied = [json.loads(line) for line in events.read_text().splitlines()][-1]
    assert applied["event"] == "plan.applied" and applied["actor"] == "alice"
    terminal.wait_for(lambda: "✔ applied" in terminal.screen() and "APPROVAL NEEDED" not in terminal.screen())
    result = harn("work", "reopen", "docs", "--finding", "the intro is too long")
    assert result.returncode == 0, result.stderr
    terminal.wait_for(lambda: "tester reopened work docs" in terminal.screen(), timeout=5)
    terminal.keys("C-q")
    terminal.wait_for(lambda: not terminal.alive(), timeout=10)
    assert not presence[0].exists()


def _console_in(terminal: Terminal, layout: Layout) -> Path:
    """Start the console in tmux and return its presence file once it is written."""
    command = " ".join(
        shlex.quote(part)
        for part in (
            "env",
            "HARN_ACTOR=alice",
            sys.executable,
            "-m",
            "harn_tui",
            "--root",
            str(layout.root),
            "tui",
            "--no-supervisor",
        )
    )
    terminal.run("new-session", "-d", "-s", "console", "-x", "100", "-y", "30", command)
    terminal.wait_for(lambda: len(list(layout.presence.glob("alice@*.json"))) == 1)
    return next(layout.presence.glob("alice@*.json"))


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    waited = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout
    return waited.strip().startswith("Z")


@pytest.mark.parametrize("how", ["terminal closed (SIGHUP)", "SIGTERM"])
def test_a_console_ended_by_a_signal_removes_its_presence(layout: Layout, terminal: Terminal, how: str) -> None:
    s.review_goal(layout)
    presence = _console_in(terminal, layout)
    pid = int(presence.stem.rsplit("-", 1)[1])
    if how == "SIGTERM":
        os.kill(pid, signal.SIGTERM)
    else:
        terminal.run("kill-session", "-t", "console")
    deadline = time.monotonic() + 10
    while not (_gone(pid) and not presence.exists()):
        assert time.monotonic() < deadline, f"pid {pid} alive: {not _gone(pid)}; presence: {presence.exists()}"
        time.sleep(0.1)


def test_the_demo_built_at_root_says_where_its_tree_stays_after_the_console_closes(
    tmp_path: Path, terminal: Terminal
) -> None:
    tree = tmp_path / "demo"
    done = tmp_path / "exit-code"
    command = " ".join(
        shlex.quote(part)
        for part in (
            "sh",
            "-c",
            f'"$@"; echo $? > {shlex.quote(str(done))}; sleep 60',
            "sh",
            "env",
            "HARN_ACTOR=alice",
            "TEXTUAL_THEME=textual-dark",
            sys.executable,
            "-m",
            "harn_tui",
            "demo",
            "--root",
            str(tree),
        )
    )
    terminal.run("new-session", "-d", "-s", "console", "-x", "120", "-y", "40", command)
    terminal.wait_for(lambda: "5 goals" in terminal.screen(), timeout=90)
    terminal.keys("C-q")
    terminal.wait_for(lambda: done.exists() and done.read_text().strip() != "", timeout=60)
    assert done.read_text().strip() == "0"
    said = f"the demo tree stays in {tree}; open it again with: harn --root {tree} tui"
    assert "".join(said.split()) in "".join(terminal.screen().split()), terminal.screen()  # however it wraps
    assert (tree / ".harnery" / "supervisors" / "demo-1-job-queue" / "goal.json").is_file()
