"""The worker's run: its CLI (or `command`) in the workspace, its events streamed into the transcript as readable
lines while it works, bounded by its timeout and an output limit; its exit decides."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from harn_tui.agent.requests import render_worker_prompt
from harn_tui.core.records import SpecialistProfile
from harn_tui.core.specialists.agent_lines import EventStream, clip
from harn_tui.core.specialists.claude_code import ClaudeStream, claude_worker_argv
from harn_tui.core.specialists.codex import CodexStream, codex_worker_argv
from harn_tui.core.specialists.streaming import run_streamed

DEFAULT_OUTPUT_LIMIT_BYTES = 32 * 1024 * 1024


def output_limit_bytes() -> int:
    """`$HARN_AGENT_OUTPUT_LIMIT_BYTES`, else 32 MiB: the most a worker may print before its group is killed."""
    return int(os.environ.get("HARN_AGENT_OUTPUT_LIMIT_BYTES", DEFAULT_OUTPUT_LIMIT_BYTES))


class PlainStream(EventStream):
    """A `command` worker's output is already lines a person reads."""

    def lines(self, raw: str) -> list[str]:
        return [clip(raw)] if raw.strip() else []


@dataclass(frozen=True)
class WorkerOutcome:
    """`ok` when the worker exited 0 (and its CLI reported no error); else `reason`, with `class_` environment
    when its CLI could not be found or started (uncharged)."""

    ok: bool
    reason: str | None = None
    class_: Literal["environment"] | None = None
    abandoned: bool = False


def worker_command(
    profile: SpecialistProfile, agent_args: Sequence[str], request: dict[str, Any]
) -> tuple[list[str], str, EventStream]:
    """(argv, stdin, the stream that reads its output) for each adapter; one place per CLI knows its flags."""
    if profile.adapter == "claude-code":
        return claude_worker_argv(profile, agent_args), render_worker_prompt(request), ClaudeStream()
    if profile.adapter == "codex":
        return codex_worker_argv(profile, agent_args), render_worker_prompt(request), CodexStream()
    if profile.adapter == "command" and profile.argv:
        return [*profile.argv, *agent_args], json.dumps(request, ensure_ascii=False), PlainStream()
    raise ValueError(f"a {profile.adapter} profile cannot be a worker")


def _missing(argv0: str, env: Mapping[str, str]) -> str | None:
    """Why `argv0` cannot run (not on PATH, not executable), or None."""
    if "/" in argv0:
        found = os.path.isfile(argv0) and os.access(argv0, os.X_OK)
        return None if found else f"{argv0} does not exist or is not executable"
    if shutil.which(argv0, path=env.get("PATH")) is None:
        return f"{argv0} is not on PATH"
    return None


def run_worker(
    member_id: str,
    profile: SpecialistProfile,
    request: dict[str, Any],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    agent_args: Sequence[str],
    emit: Callable[[str], None],
    keep_going: Callable[[], bool],
) -> WorkerOutcome:
    argv, stdin_text, stream = worker_command(profile, agent_args, request)
    missing = _missing(argv[0], env)
    if missing is not None:
        return WorkerOutcome(False, f"the worker's CLI cannot run: {missing}", "environment")
    if timeout_s <= 0:
        return WorkerOutcome(False, "no time was left for the worker before the attempt's deadline")
    limit = output_limit_bytes()

    def on_line(name: str, raw: str) -> None:
        if name == "stderr":
            if raw.strip():
                emit(clip(f"worker stderr: {raw}"))
            return
        for line in stream.lines(raw):
            emit(line)

    ended = run_streamed(
        argv,
        stdin_text=stdin_text,
        cwd=cwd,
        env=env,
        timeout_s=timeout_s,
        on_line=on_line,
        max_output_bytes=limit,
        keep_going=keep_going,
    )
    if ended.start_error is not None:
        return WorkerOutcome(False, f"the worker's CLI cannot run: {ended.start_error}", "environment")
    if ended.abandoned:
        return WorkerOutcome(False, "the attempt's runner is gone", abandoned=True)
    if ended.timed_out:
        return WorkerOutcome(
            False, f"the worker {member_id} timed out after {timeout_s:.0f} s; its process group was killed"
        )
    if ended.over_limit:
        return WorkerOutcome(
            False, f"the worker {member_id} printed more than {limit} bytes; its process group was killed"
        )
    code = ended.returncode
    if code != 0:
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited {code}"
        detail = f": {stream.failure}" if stream.failure else ""
        return WorkerOutcome(False, f"the worker {member_id} {how}{detail}")
    if stream.failure is not None:
        return WorkerOutcome(False, f"the worker {member_id} exited 0 but {stream.failure}")
    return WorkerOutcome(True)
