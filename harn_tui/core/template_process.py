"""Running one template process: no shell, its own session, stdout/stderr streamed, the whole group killed on
timeout (SIGTERM, then SIGKILL after a grace), past the output cap (SIGKILL), or when the template exits leaving
children behind (SIGKILL).

One thread does it all, as `subprocess.run` does: a selector waits on both pipes, at most `POLL_S` at a time,
and between waits the loop checks the clock (timeout, grace) and whether the template has exited. A template's
normal exit closes its pipes, which wakes the selector at once; the poll interval only bounds how late an exit
is noticed while children it left behind hold the pipes open, or a timeout while the template is silent.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from harn_tui.core.sharing import child_umask
from harn_tui.core.transcript import TranscriptSink, TranscriptStream

PUMP_GRACE_S = 5.0
DEFAULT_KILL_GRACE_S = 5.0
POLL_S = 0.1
# poll(2) where there is one, as `subprocess` does: two descriptors need no epoll instance
_Selector = selectors.PollSelector if hasattr(selectors, "PollSelector") else selectors.SelectSelector


def kill_grace_s() -> float:
    """`$HARN_KILL_GRACE_S`, else 5 s: how long a timed-out template's group has between SIGTERM and SIGKILL."""
    return float(os.environ.get("HARN_KILL_GRACE_S", DEFAULT_KILL_GRACE_S))


@dataclass(frozen=True)
class ProcessExit:
    """How the template ended: its exit code (negative: killed by that signal), a timeout, a failed start, or
    the output cap (`output_capped_at`: the cap in bytes, when the template's output reached it)."""

    returncode: int | None
    timed_out: bool = False
    start_error: str | None = None
    output_capped_at: int | None = None


def _kill_group(pid: int, sig: signal.Signals = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def run_template(
    path: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    transcript: TranscriptSink,
    on_start: Callable[[], None] = lambda: None,
    preexec_fn: Callable[[], None] | None = None,
) -> ProcessExit:
    """Run `[path]` with an empty stdin in `cwd`, stream its output into `transcript`, wait at most `timeout_s`.
    `preexec_fn` runs in the child before the template (a cluster worker asks to be outlived by none)."""
    try:
        process = subprocess.Popen(
            [path],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            umask=child_umask(cwd),
            preexec_fn=preexec_fn,
        )
    except OSError as error:
        return ProcessExit(None, start_error=f"the template could not start: {error.strerror or error}")
    assert process.stdout is not None and process.stderr is not None
    transcript.on_cap = lambda: _kill_group(process.pid)
    watch = _Watch(process, time.monotonic() + timeout_s)
    with _Selector() as selector:
        for pipe, name in ((process.stdout, "stdout"), (process.stderr, "stderr")):
            selector.register(pipe, selectors.EVENT_READ, TranscriptStream(name, transcript))
        try:
            on_start()
            _copy_until_done(selector, watch)
        finally:
            _kill_group(process.pid)  # whatever the template left behind
            process.wait()
    process.stdout.close()
    process.stderr.close()
    capped_at = transcript.cap_bytes if transcript.capped else None
    return ProcessExit(process.returncode, timed_out=watch.timed_out, output_capped_at=capped_at)


class _Watch:
    """The clock of one template: its deadline, then SIGTERM and a grace before SIGKILL; once it has exited, a
    last grace for output still in (or held open in) its pipes."""

    def __init__(self, process: subprocess.Popen[bytes], deadline: float) -> None:
        self.process, self.deadline = process, deadline
        self.timed_out = False
        self.exited_at: float | None = None

    def step(self, now: float) -> float:
        """Act on the clock at `now` (signal the group, note the exit); the seconds until it must look again."""
        process = self.process
        if self.exited_at is None and process.poll() is not None:
            self.exited_at = now
            _kill_group(process.pid)  # children holding the pipes open
            self.deadline = now + PUMP_GRACE_S
        elif self.exited_at is None and now >= self.deadline:
            if self.timed_out:
                _kill_group(process.pid)
                self.deadline = now + PUMP_GRACE_S  # SIGKILL cannot be ignored; the poll sees the exit
            else:
                self.timed_out = True
                _kill_group(process.pid, signal.SIGTERM)
                self.deadline = now + kill_grace_s()
        return max(0.0, min(POLL_S, self.deadline - now))

    def over(self, now: float) -> bool:
        """The template has exited and its pipes' last grace has passed."""
        return self.exited_at is not None and now >= self.deadline


def _copy_until_done(selector: selectors.BaseSelector, watch: _Watch) -> None:
    """Copy both pipes into the transcript until both reach end of file and the template has exited, or the
    grace after its exit passes; meanwhile keep its clock."""
    while True:
        now = time.monotonic()
        wait = watch.step(now)
        if watch.over(now):
            return
        if not selector.get_map():
            if watch.exited_at is not None:
                return
            with contextlib.suppress(subprocess.TimeoutExpired):  # pipes closed, the template runs on
                watch.process.wait(wait)
            continue
        for key, _ in selector.select(wait):
            stream: TranscriptStream = key.data
            if not stream.copy(key.fd):
                selector.unregister(key.fileobj)
