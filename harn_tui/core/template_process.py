"""Running one template process: no shell, its own session, stdout/stderr streamed, the whole group killed on
timeout (SIGTERM, then SIGKILL after a grace), past the output cap (SIGKILL), or when the template exits leaving
children behind (SIGKILL)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from harn_tui.core.transcript import TranscriptWriter, pump

PUMP_GRACE_S = 5.0
DEFAULT_KILL_GRACE_S = 5.0


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
    transcript: TranscriptWriter,
    on_start: Callable[[], None] = lambda: None,
) -> ProcessExit:
    """Run `[path]` with an empty stdin in `cwd`, stream its output into `transcript`, wait at most `timeout_s`."""
    try:
        process = subprocess.Popen(
            [path], cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
        )
    except OSError as error:
        return ProcessExit(None, start_error=f"the template could not start: {error.strerror or error}")
    assert process.stdout is not None and process.stderr is not None
    transcript.on_cap = lambda: _kill_group(process.pid)
    pumps = [
        threading.Thread(target=pump, args=(process.stdout, "stdout", transcript), daemon=True),
        threading.Thread(target=pump, args=(process.stderr, "stderr", transcript), daemon=True),
    ]
    for thread in pumps:
        thread.start()
    expired = threading.Event()
    grace = threading.Timer(kill_grace_s(), _kill_group, args=(process.pid,))
    grace.daemon = True

    def expire() -> None:
        expired.set()
        _kill_group(process.pid, signal.SIGTERM)
        grace.start()

    # A timer ends the group on timeout, so the wait below blocks in waitpid instead of polling with sleeps.
    timer = threading.Timer(timeout_s, expire)
    timer.daemon = True
    timer.start()
    try:
        on_start()
        process.wait()
    finally:
        timer.cancel()
        grace.cancel()  # a Timer cancelled before it starts never runs
        _kill_group(process.pid)
        process.wait()
    timed_out = expired.is_set()
    deadline = time.monotonic() + PUMP_GRACE_S  # one grace for both pipes, held open by an escaped process
    for thread in pumps:
        thread.join(max(0.0, deadline - time.monotonic()))
    if not any(thread.is_alive() for thread in pumps):
        process.stdout.close()
        process.stderr.close()
    capped_at = transcript.cap_bytes if transcript.capped else None
    return ProcessExit(process.returncode, timed_out=timed_out, output_capped_at=capped_at)
