"""The warm CLI server, through real `harn` processes: a served command answers as the process itself would
(output, exit code, working directory, environment, umask), signals reach it, a caller's death ends it, and
whatever goes wrong on the way runs the command in the caller, once."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harn_tui.cli import served
from harn_tui.cli.dispatch import DECISIONS, ROUTES
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease
from tests.conftest import harn_env
from tests.tui import scenarios as s

SHOW = ["supervisor", "show", s.PLAN_GOAL, "--json"]
APPROVE = ["supervisor", "plan", "approve", s.PLAN_GOAL, s.PENDING_PLAN, "--json"]


class Served:
    """`harn` processes sharing one private runtime directory, so one server of their own."""

    def __init__(self, root: Path, runtime: Path) -> None:
        self.root, self.runtime = root, runtime

    def env(self, **extra: str) -> dict[str, str]:
        return harn_env({"XDG_RUNTIME_DIR": str(self.runtime), "HARN_SERVER_TRACE": "1", **extra})

    def start(self, *args: str, cwd: Path | None = None, **extra: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "harn_tui", *args],
            cwd=cwd or self.root,
            env=self.env(**extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(
        self, *args: str, cwd: Path | None = None, umask: int = -1, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "harn_tui", *args],
            cwd=cwd or self.root,
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=120,
            umask=umask,
        )

    def socket(self) -> Path:
        directory = self.runtime / f"harn-{os.getuid()}"
        found = sorted(directory.glob("cli-*.sock")) if directory.is_dir() else []
        assert len(found) <= 1, found
        return found[0] if found else directory / "none"

    def warm(self) -> None:
        """Start the server (the first command runs itself) and wait until it answers."""
        first = self.run("supervisor", "list", "--json")
        assert first.returncode == 0, first.stderr
        assert "served by" not in first.stderr
        deadline = time.monotonic() + 60
        while not self.socket().exists():
            assert time.monotonic() < deadline, "the server did not start within 60 s"
            time.sleep(0.05)

    def server_pid(self) -> int:
        return int(Path(f"{self.socket()}.lock").read_text())


def strip_trace(stderr: str) -> str:
    return "".join(line for line in stderr.splitlines(keepends=True) if not line.startswith("harn: served by"))


@pytest.fixture
def server(root: Path) -> Iterator[Served]:
    runtime = Path(tempfile.mkdtemp(prefix="h", dir="/tmp"))  # short: a socket's path has at most 107 bytes
    s.plan_goal(Layout(root))
    made = Served(root, runtime)
    try:
        yield made
    finally:
        lock = made.socket().with_name(made.socket().name + ".lock")
        if lock.exists() and lock.read_text().strip():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(lock.read_text()), signal.SIGTERM)
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_served_command_answers_as_the_process_itself_would(server: Served) -> None:
    server.warm()
    for args in (
        SHOW,
        ["supervisor", "show", s.PLAN_GOAL],
        ["work", "show", "no-such-item"],
        ["work", "show", "no-such-item", "--json"],
        ["supervisor", "show", "--help"],
        ["work", "accept"],
    ):
        here, there = server.run(*args, HARN_SERVER="0"), server.run(*args)
        assert "harn: served by process" in there.stderr, args
        assert (there.returncode, there.stdout, strip_trace(there.stderr)) == (
            here.returncode,
            here.stdout,
            here.stderr,
        ), args
    assert server.run("work", "show", "no-such-item").returncode == 4


def test_a_served_transition_is_applied_once_with_the_callers_actor_directory_and_umask(server: Served) -> None:
    server.warm()
    applied = server.run(*APPROVE[:-1], "--json", cwd=server.root / ".harnery", HARN_ACTOR="alice", umask=0o077)
    assert applied.returncode == 0, applied.stderr
    assert "served by" in applied.stderr
    document = json.loads(applied.stdout)
    assert document["outcome"] == "applied" and document["event"]["actor"] == "alice"
    created = [p for p in (server.root / ".harnery" / "work").rglob("*") if p.name.startswith(s.PENDING_PLAN)]
    assert created and all(p.stat().st_mode & 0o077 == 0 for p in created)
    again = server.run(*APPROVE, HARN_SERVER="0")
    assert json.loads(again.stdout)["outcome"] == "already_done"


def test_signals_reach_the_served_command_and_the_callers_death_ends_it(server: Served) -> None:
    server.warm()
    lease = HeldLease(Layout(server.root).goal(s.PLAN_GOAL) / "lease", "goal")
    try:
        waiting = server.start(*APPROVE, HARN_LEASE_TIMEOUT_S="60")
        time.sleep(1.0)  # handed over, and waiting for the lease
        waiting.send_signal(signal.SIGINT)
        _out, err = waiting.communicate(timeout=30)
        assert waiting.returncode == 130, err
        assert "served by" in err
        killed = server.start(*APPROVE, HARN_LEASE_TIMEOUT_S="60")
        time.sleep(1.0)
        killed.kill()
        killed.wait(timeout=30)
        time.sleep(0.5)  # the served process notices its caller is gone
    finally:
        lease.release()
    time.sleep(1.0)  # a served process still alive would take the lease now and apply the plan
    shown = json.loads(server.run(*SHOW, HARN_SERVER="0").stdout)
    assert next(p for p in shown["plans"] if p["id"] == s.PENDING_PLAN)["status"] == "proposed"


def test_a_server_that_does_not_answer_leaves_the_command_to_the_caller_once(server: Served) -> None:
    directory = server.runtime / f"harn-{os.getuid()}"
    directory.mkdir(mode=0o700)
    key = subprocess.run(
        [sys.executable, "-c", "from harn_tui.cli import served; print(served.server_key())"],
        env=server.env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(str(directory / f"cli-{key}.sock"))
    mute.listen(8)  # accepts into its backlog, never answers
    try:
        started = time.monotonic()
        result = server.run(*APPROVE)
        assert time.monotonic() - started >= served.ANSWER_S
    finally:
        mute.close()
    assert result.returncode == 0, result.stderr
    assert "served by" not in result.stderr
    assert json.loads(result.stdout)["outcome"] == "applied"


def test_no_server_is_used_when_turned_off_or_when_its_directory_is_not_private(server: Served) -> None:
    assert server.run(*SHOW, HARN_SERVER="0").returncode == 0
    assert not (server.runtime / f"harn-{os.getuid()}").exists()
    (server.runtime / f"harn-{os.getuid()}").mkdir(mode=0o755)
    os.chmod(server.runtime / f"harn-{os.getuid()}", 0o755)
    for _ in range(2):
        result = server.run(*SHOW)
        assert result.returncode == 0 and "served by" not in result.stderr
    assert list((server.runtime / f"harn-{os.getuid()}").iterdir()) == []


def test_a_server_ends_when_idle(server: Served) -> None:
    server.warm()
    pid = server.server_pid()
    os.kill(pid, signal.SIGTERM)  # the warm-up's server had the default idle time; start one that idles out
    deadline = time.monotonic() + 30
    while server.socket().exists() and _alive(pid):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    server.socket().unlink(missing_ok=True)
    assert server.run(*SHOW, HARN_SERVER_IDLE_S="1").returncode == 0
    deadline = time.monotonic() + 60
    while not server.socket().exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    idle = server.server_pid()
    while _alive(idle):
        assert time.monotonic() < deadline, "the server did not end when idle"
        time.sleep(0.1)
    assert not server.socket().exists()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == 0


def test_the_verb_is_read_past_the_global_options_and_only_short_verbs_are_served() -> None:
    assert served.route_words(["--root", "x", "supervisor", "plan", "approve", "g", "p"]) == (
        "supervisor",
        "plan",
        "approve",
    )
    assert served.route_words(["--actor", "supervisor", "pending", "--json"]) == ("pending",)
    assert served.route_words(["work", "accept", "w", "--dispose", "f=fixed"]) == ("work", "accept")
    assert set(ROUTES) >= served.SERVED >= DECISIONS
    reads = {"show", "list", "history", "status", "diff", "pending"}
    assert all(route[-1] in reads for route in served.SERVED - DECISIONS)
    long_running = {("tui",), ("demo",), ("web",), ("verify",), ("supervisor", "serve"), ("supervisor", "tick")}
    long_running |= {("supervisor", "run"), ("work", "run"), ("work", "create"), ("work", "retry")}
    assert long_running <= set(ROUTES) and not served.SERVED & long_running


def test_the_key_changes_with_the_installed_code(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "m.py").write_text("x = 1\n")
    before = served._code_identity(str(package))
    (package / "sub" / "m.py").write_text("x = 22\n")
    assert served._code_identity(str(package)) != before
