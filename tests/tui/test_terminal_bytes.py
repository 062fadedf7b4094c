"""What one live change costs over the wire: the real console on a 120x40 pseudo-terminal writes only the
rows that changed when another process makes a transition (SSH links are slow; issue 6: <= 8 KB)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time

import pytest

from harn_tui.core.layout import Layout
from tests.tui import scenarios as s

LIMIT = 8 * 1024
FOCUS_LIMIT = 16 * 1024


class Terminal:
    """`harn tui` on a pty of 120x40; `read_until_quiet` returns what it wrote."""

    def __init__(self, layout: Layout) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HARN_", "TEXTUAL_"))}
        env.update(TERM="xterm-256color", HARN_ACTOR="alice", COLUMNS="120", LINES="40")
        argv = [sys.executable, "-m", "harn_tui", "--root", str(layout.root), "tui", "--no-supervisor"]
        pid, fd = pty.fork()
        if pid == 0:  # pragma: no cover - the child becomes the console
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd = pid, fd

    def read_until_quiet(self, quiet: float, timeout: float = 20.0) -> bytes:
        data = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], quiet)
            if not ready:
                if data:
                    return data
                continue
            try:
                data += os.read(self.fd, 65536)
            except OSError:
                return data
        return data

    def drain(self, seconds: float) -> bytes:
        """Everything written during the next `seconds`."""
        data = b""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data += os.read(self.fd, 65536)
                except OSError:
                    break
        return data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fd, b"\x11")  # ctrl+q
        for _ in range(50):
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                break
            time.sleep(0.1)
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.mark.parametrize("actor", ["bob"])  # another actor: the change and its notification
def test_one_live_change_writes_a_few_rows_not_the_screen(layout: Layout, actor: str) -> None:
    s.everything(layout)
    terminal = Terminal(layout)
    try:
        first = terminal.read_until_quiet(1.5, timeout=30)
        assert b"Goal graph" in first and len(first) > 20_000  # the first paint is the whole screen
        terminal.drain(1.5)  # the watcher arms after the first paint
        for key in (b"1", b"\x1b[B", b"\x1b[B", b"5"):  # the review goal's Findings, as an operator would
            os.write(terminal.fd, key)
            focused = terminal.read_until_quiet(0.4)
        # `5` shows the Findings tab and moves the focus: the right-hand panel and the marks of the two panels
        # (about 11 KB), not the whole screen again on top of them (27 KB)
        assert len(focused) <= FOCUS_LIMIT, f"{len(focused)} bytes to focus a panel"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "harn_tui",
                "--root",
                str(layout.root),
                "--actor",
                actor,
                "work",
                "reopen",
                "docs",
                "--finding",
                "the intro is too long",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        written = terminal.read_until_quiet(0.5)
        assert b"ready" in written  # the change did reach the screen
        assert len(written) <= LIMIT, f"{len(written)} bytes for one live change"
    finally:
        terminal.close()
