"""Running a specialist's process: JSON on stdin, reply on stdout, a timeout that kills the process group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import IO

from harn_tui.core.specialists.base import SpecialistCall, SpecialistFailure, child_environment

MAX_REPLY_BYTES = 4 * 1024 * 1024
STDERR_TAIL = 600
READ_CHUNK = 65536
DRAIN_GRACE_S = 5.0


class _Drain(threading.Thread):
    """Reads one pipe to its end keeping at most `keep` bytes (the head, or with `tail` the last ones);
    `on_over` runs once when more than `keep` bytes arrived. Memory stays bounded whatever the child prints."""

    def __init__(
        self, stream: IO[bytes], keep: int, *, tail: bool = False, on_over: Callable[[], None] | None = None
    ) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.keep = keep
        self.tail = tail
        self.on_over = on_over
        self.data = bytearray()
        self.size = 0

    def run(self) -> None:
        fd = self.stream.fileno()
        while chunk := os.read(fd, READ_CHUNK):
            self.size += len(chunk)
            if self.tail:
                self.data += chunk
                del self.data[: -self.keep]
            elif len(self.data) < self.keep:
                self.data += chunk[: self.keep - len(self.data)]
            if self.size > self.keep and self.on_over is not None:
                self.on_over()
                self.on_over = None


def _feed(stream: IO[bytes], body: bytes) -> None:
    """Write the request to the child's stdin and close it; a child that exits without reading is fine."""
    with contextlib.suppress(OSError):
        stream.write(body)
    with contextlib.suppress(OSError):
        stream.close()


def run_specialist_process(call: SpecialistCall, argv: Sequence[str], stdin_text: str) -> str:
    """Run `argv` in its own process group (cwd: the call's, else the team file's directory) and return its stdout.

    A timeout kills the whole group (`timeout`); a start failure or a non-zero exit is a `crash`; a reply over
    `MAX_REPLY_BYTES` kills the group as soon as the limit is passed and is `invalid`, as is an undecodable
    reply. Stragglers left in the group after a normal exit are killed.
    """
    timeout = call.timeout
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=call.working_directory,
            env=child_environment(call),
            start_new_session=True,
        )
    except OSError as error:
        raise SpecialistFailure("crash", f"{call.what} could not start {argv[0]!r}: {error}") from None
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        _kill_group(process.pid)

    stdout = _Drain(process.stdout, MAX_REPLY_BYTES, on_over=lambda: _kill_group(process.pid))
    stderr = _Drain(process.stderr, STDERR_TAIL * 4, tail=True)
    feeder = threading.Thread(target=_feed, args=(process.stdin, stdin_text.encode()), daemon=True)
    for thread in (stdout, stderr, feeder):
        thread.start()
    # A timer kills the group on timeout, so the wait below blocks in waitpid instead of polling with sleeps.
    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    timer.start()
    try:
        process.wait()
    finally:
        timer.cancel()
        _kill_group(process.pid)
        process.wait()
    for thread in (stdout, stderr):
        thread.join(DRAIN_GRACE_S)
    if expired.is_set():
        raise SpecialistFailure(
            "timeout", f"{call.what} did not answer within {timeout:g} s (its process group was killed)"
        )
    if stdout.size > MAX_REPLY_BYTES:
        raise SpecialistFailure(
            "invalid",
            f"{call.what} printed more than {MAX_REPLY_BYTES} bytes (the reply limit); its process group was killed",
        )
    if process.returncode != 0:
        tail = bytes(stderr.data).decode(errors="replace").strip()[-STDERR_TAIL:]
        how = (
            f"was killed by signal {-process.returncode}"
            if process.returncode < 0
            else (f"exited {process.returncode}")
        )
        raise SpecialistFailure("crash", f"{call.what} {how}" + (f": {tail}" if tail else ""))
    try:
        return bytes(stdout.data).decode()
    except UnicodeDecodeError:
        raise SpecialistFailure("invalid", f"{call.what} printed bytes that are not UTF-8") from None


def _kill_group(pid: int) -> None:
    """SIGKILL every process still in the child's group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
