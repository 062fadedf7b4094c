"""Running a specialist's process: JSON on stdin, reply on stdout, a timeout that kills the process group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Sequence

from harn_tui.core.specialists.base import SpecialistCall, SpecialistFailure, child_environment

MAX_REPLY_BYTES = 4 * 1024 * 1024
STDERR_TAIL = 600


def run_specialist_process(call: SpecialistCall, argv: Sequence[str], stdin_text: str) -> str:
    """Run `argv` in its own process group (cwd: the team file's directory) and return its stdout.

    A timeout kills the whole group (`timeout`); a start failure or a non-zero exit is a `crash`; an
    oversized or undecodable reply is `invalid`. Stragglers left in the group after a normal exit are killed.
    """
    timeout = call.profile.timeout_s
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=call.profile.cwd or None,
            env=child_environment(call),
            start_new_session=True,
        )
    except OSError as error:
        raise SpecialistFailure("crash", f"{call.what} could not start {argv[0]!r}: {error}") from None
    try:
        stdout, stderr = process.communicate(stdin_text.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise SpecialistFailure(
            "timeout", f"{call.what} did not answer within {timeout} s (its process group was killed)"
        ) from None
    finally:
        _kill_group(process)
    if process.returncode != 0:
        tail = stderr.decode(errors="replace").strip()[-STDERR_TAIL:]
        how = f"was killed by signal {-process.returncode}" if process.returncode < 0 else (
            f"exited {process.returncode}"
        )
        raise SpecialistFailure("crash", f"{call.what} {how}" + (f": {tail}" if tail else ""))
    if len(stdout) > MAX_REPLY_BYTES:
        raise SpecialistFailure("invalid", f"{call.what} printed {len(stdout)} bytes (limit {MAX_REPLY_BYTES})")
    try:
        return stdout.decode()
    except UnicodeDecodeError:
        raise SpecialistFailure("invalid", f"{call.what} printed bytes that are not UTF-8") from None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL every process still in the child's group, then reap the child."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.communicate(timeout=5)
