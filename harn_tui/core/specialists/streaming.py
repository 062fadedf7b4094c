"""Running an agent CLI whose output is a stream of events: prompt on stdin, each output line handed on as it
comes, the whole process group killed on a timeout, past an output limit, or when the caller stops wanting it.

One thread does it all, as the template runner does: a selector waits on both pipes at most `POLL_S` at a time and
between waits the loop checks the clock and the caller's `keep_going`. The child gets SIGKILL when its parent
dies (Linux `PR_SET_PDEATHSIG`), so an agent never outlives the process supervising it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harn_tui.core.transcript import LineAssembler

POLL_S = 0.2
PUMP_GRACE_S = 2.0
READ_CHUNK = 65536
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class StreamedExit:
    """How the agent ended: its exit code (negative: a signal), or a timeout, a failed start, the output limit,
    or the caller giving up (`abandoned`)."""

    returncode: int | None
    timed_out: bool = False
    start_error: str | None = None
    over_limit: bool = False
    abandoned: bool = False
    printed: int = 0


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the parent dies (Linux only; elsewhere a no-op)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _feed(stream: object, body: bytes) -> None:
    """Write the prompt to the child's stdin and close it; a child that exits without reading is fine."""
    assert hasattr(stream, "write") and hasattr(stream, "close")
    with contextlib.suppress(OSError):
        stream.write(body)
    with contextlib.suppress(OSError):
        stream.close()


def run_streamed(
    argv: Sequence[str],
    *,
    stdin_text: str,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    on_line: Callable[[str, str], None],
    max_output_bytes: int,
    keep_going: Callable[[], bool] = lambda: True,
) -> StreamedExit:
    """Run `argv` in its own process group; `on_line(stream, text)` gets every line of stdout and stderr as it
    comes (each line bounded, see `LineAssembler`)."""
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            preexec_fn=_die_with_parent,
        )
    except OSError as error:
        return StreamedExit(None, start_error=f"{argv[0]} could not start: {error.strerror or error}")
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    feeder = threading.Thread(target=_feed, args=(process.stdin, stdin_text.encode()), daemon=True)
    feeder.start()
    pump = _Pump(process, on_line, max_output_bytes)
    deadline = time.monotonic() + timeout_s
    timed_out = abandoned = False
    try:
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if exited_at is None and process.poll() is not None:
                exited_at = now
                _kill_group(process.pid)  # children holding the pipes open
            if exited_at is not None and (pump.done or now >= exited_at + PUMP_GRACE_S):
                break
            stop = None if exited_at is not None else _stop_reason(pump.over, now >= deadline, keep_going)
            if stop is not None:
                timed_out, abandoned = stop == "timeout", stop == "abandoned"
                _kill_group(process.pid)
                process.wait()
                exited_at = time.monotonic()
                continue
            pump.step(min(POLL_S, max(0.0, deadline - now)))
    finally:
        _kill_group(process.pid)
        process.wait()
        pump.close()
    return StreamedExit(
        process.returncode, timed_out=timed_out, over_limit=pump.over, abandoned=abandoned, printed=pump.printed
    )


def _stop_reason(over: bool, expired: bool, keep_going: Callable[[], bool]) -> str | None:
    """Why a running agent must be stopped now, if it must: its output limit, its deadline, or its caller."""
    if over:
        return "over"
    if expired:
        return "timeout"
    return None if keep_going() else "abandoned"


class _Pump:
    """Copies both pipes line by line into `on_line` until each reaches its end or the output limit."""

    def __init__(self, process: subprocess.Popen[bytes], on_line: Callable[[str, str], None], limit: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.limit, self.printed, self.over = limit, 0, False
        self.assemblers: dict[int, LineAssembler] = {}
        for pipe, name in ((process.stdout, "stdout"), (process.stderr, "stderr")):
            assert pipe is not None
            self.selector.register(pipe, selectors.EVENT_READ, name)
            self.assemblers[pipe.fileno()] = LineAssembler(self._emitter(name, on_line))

    @staticmethod
    def _emitter(name: str, on_line: Callable[[str, str], None]) -> Callable[[bytes, int, str], None]:
        return lambda head, size, digest: on_line(name, head.decode("utf-8", errors="replace"))

    @property
    def done(self) -> bool:
        return not self.selector.get_map()

    def step(self, wait: float) -> None:
        if self.done:
            time.sleep(wait)
            return
        for key, _ in self.selector.select(wait):
            chunk = os.read(key.fd, READ_CHUNK)
            lines = self.assemblers[key.fd]
            if not chunk:
                lines.close()
                self.selector.unregister(key.fileobj)
                continue
            self.printed += len(chunk)
            if self.printed > self.limit:
                self.over = True
            if not self.over:
                lines.feed(chunk)

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()
