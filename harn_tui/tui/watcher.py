"""The console's one file watcher: a child process (`watch_process`) whose batches a reader thread collects.

Changed paths collect in `pending`; each batch calls `notify()` (the console posts a coalescing
`TreeChanged`), and the handler drains the whole pending set, so a burst of writes costs one refresh however
fast the writers are. The watching itself runs in another process because arming a native watcher (or
polling) on a large tree holds the interpreter lock for seconds. `HARN_POLL=1` forces polling (network
filesystems, containers); an error from the native watcher falls back to polling by itself.

The console starts the process after its first paint (arming competes for the CPU with loading the tree);
`since` is when the tree began to load, and the process's first batch lists what changed after that, so
nothing written during the load or the arming is missed.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

STOP_WAIT_S = 1.0


def polling_forced() -> bool:
    return os.environ.get("HARN_POLL", "") not in ("", "0")


class TreeWatcher:
    """Watches one `.harnery/` from a child process; `follow(notify)` starts delivering its batches."""

    def __init__(self, base: Path, since: float | None = None) -> None:
        self.base = base.resolve()
        self.since = time.time() if since is None else since
        self.pending: set[Path] = set()
        self.ignored: set[Path] = set()
        # called from the reader thread with every batch (the embedded supervisor's change feed)
        self.subscribers: list[Callable[[set[Path]], None]] = []
        self.mode = "polling" if polling_forced() else "native"
        self.ready = threading.Event()
        self.failure: str | None = None
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> TreeWatcher:
        """Spawn the watching process (idempotent)."""
        if self._process is None:
            argv = [sys.executable, "-m", "harn_tui.tui.watch_process", str(self.base), "--since", repr(self.since)]
            if self.mode == "polling":
                argv.append("--poll")
            self._process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True
            )
        return self

    def follow(self, notify: Callable[[], object]) -> None:
        """Read the process's batches in a daemon thread; `notify` must be safe to call from that thread."""
        self.start()
        if self._reader is None:
            assert self._process is not None and self._process.stdout is not None
            self._reader = threading.Thread(
                target=self._read, args=(self._process.stdout, notify), name="harn-watch-reader", daemon=True
            )
            self._reader.start()

    def _read(self, stream: IO[bytes], notify: Callable[[], None]) -> None:
        for line in stream:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if "ready" in message:
                self.mode = str(message["ready"])
                self.ready.set()
            if "failed" in message:
                self.failure = str(message["failed"])
            paths = {self.base / str(path) for path in message.get("paths", ())} - self.ignored
            for subscriber in list(self.subscribers):
                subscriber(paths)
            if paths:
                with self._lock:
                    self.pending.update(paths)
                notify()

    def drain(self) -> set[Path]:
        with self._lock:
            paths, self.pending = self.pending, set()
        return paths

    def close(self) -> None:
        """Stop the watching process (it holds no state: terminated at once, killed if it lingers)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            process.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if self._reader is not None:
            self._reader.join(timeout=STOP_WAIT_S)  # the process is gone: its stdout is at end of file
        if process.stdout is not None and (self._reader is None or not self._reader.is_alive()):
            with contextlib.suppress(OSError):
                process.stdout.close()
