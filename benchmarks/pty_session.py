"""A program run in a real pseudo-terminal of a given size: what it writes, when, and how many bytes."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import signal
import struct
import termios
import threading
import time
from collections.abc import Callable

ANSI = re.compile(
    rb"\x1b\[[0-9;?<=>]*[ -/]*[@-~]"  # CSI
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC
    rb"|\x1b[@-Z\\-_]"  # two-byte escapes
)


class PtySession:
    """Spawn `argv` on a pty of `columns` x `rows`; a reader thread records every chunk with its time."""

    def __init__(self, argv: list[str], columns: int, rows: int, env: dict[str, str], cwd: str | None = None) -> None:
        self.started = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:  # the child: size the terminal, then become the program
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            if cwd is not None:
                os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd = pid, fd
        self.chunks: list[tuple[float, bytes]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.chunks.append((time.monotonic(), data))

    def mark(self) -> int:
        with self._lock:
            return len(self.chunks)

    def since(self, mark: int) -> list[tuple[float, bytes]]:
        with self._lock:
            return self.chunks[mark:]

    def text(self, mark: int = 0) -> str:
        return ANSI.sub(b"", b"".join(data for _, data in self.since(mark))).decode("utf-8", "replace")

    def send(self, keys: bytes) -> float:
        sent = time.monotonic()
        os.write(self.fd, keys)
        return sent

    def wait_for(self, condition: Callable[[], bool], timeout: float, step: float = 0.01) -> float | None:
        """The time `condition()` first held, or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return time.monotonic()
            time.sleep(step)
        return None

    def arrived(self, condition: Callable[[str], bool]) -> float | None:
        """When the chunk arrived after which the screen text (escapes removed) first met `condition`: the
        time the terminal had it, not the time a poll noticed."""
        with self._lock:
            chunks = list(self.chunks)
        for index, (at, _) in enumerate(chunks):
            if condition(ANSI.sub(b"", b"".join(data for _, data in chunks[: index + 1])).decode("utf-8", "replace")):
                return at
        return None

    def wait_quiet(self, quiet: float, timeout: float) -> float:
        """Wait until nothing was written for `quiet` seconds; returns the time of the last chunk."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                last = self.chunks[-1][0] if self.chunks else self.started
            if time.monotonic() - last >= quiet:
                return last
            time.sleep(min(quiet / 4, 0.02))
        raise TimeoutError(f"the program kept writing for {timeout} s")

    def peak_rss_kb(self) -> int:
        """The program's peak resident set (VmHWM), while it runs."""
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self, quit_keys: bytes = b"\x11", timeout: float = 5.0) -> None:
        with contextlib.suppress(OSError):
            self.send(quit_keys)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)
