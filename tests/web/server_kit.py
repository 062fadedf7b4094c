"""`harn web` as a real subprocess: start it on a free port, read its first line, count its consoles, stop it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.conftest import harn_env

START_TIMEOUT_S = 60.0


class WebServer:
    """`harn --root ROOT web --port 0 --json ARGS...`; stderr goes to a file the test can read."""

    def __init__(self, root: Path, *args: str, log: Path, env: dict[str, str] | None = None) -> None:
        self.root = root
        self.log = log
        self._stderr = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "harn_tui", "--root", str(root), "web", "--port", "0", "--json", *args],
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=harn_env(env),
            text=True,
        )
        self.document = self._first_line()
        self.url: str = self.document["url"]
        self.token: str = self.document["token"]
        self.base = self.url.split("/?", 1)[0]

    def _first_line(self) -> dict[str, Any]:
        """The first stdout line, read in a thread so a server that never prints fails the test in time."""
        assert self.process.stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self.process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(START_TIMEOUT_S)
        if not lines or not lines[0]:
            self.process.kill()
            raise AssertionError(f"harn web printed no URL; stderr:\n{self.log.read_text()}")
        document: dict[str, Any] = json.loads(lines[0])
        return document

    def page_url(self, actor: str | None = None) -> str:
        return self.url + (f"&actor={actor}" if actor is not None else "")

    def consoles(self) -> list[int]:
        return console_pids(self.root)

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            return self.process.wait(timeout)
        finally:
            self._stderr.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._stderr.close()
        for pid in console_pids(self.root):
            os.killpg(pid, signal.SIGKILL)


def console_pids(root: Path) -> list[int]:
    """Every running `harn ... --root ROOT ... tui` process (a page's console), found by its command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"harn_tui" in argv and b"tui" in argv and str(root).encode() in argv:
            found.append(int(entry.name))
    return found


def wait_until(condition: Any, timeout: float, what: str, interval: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)
