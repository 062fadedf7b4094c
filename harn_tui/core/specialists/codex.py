"""The `codex` adapter: `codex exec --json` headless; the reply is the last agent message of its JSONL events.

Codex prints one event per line: `thread.started`, `turn.started`, `item.completed` with an item of type
`agent_message` (`assistant_message` in early versions) carrying `text`, then `turn.completed`, or
`turn.failed` / `error` on failure. The legacy shape `{"msg": {"type": "agent_message", "message": ...}}`
is read too.
"""

from __future__ import annotations

import json
from typing import Any

from harn_tui.core.specialists.base import SpecialistCall, SpecialistFailure, render_prompt, unwrap_reply
from harn_tui.core.specialists.process import run_specialist_process

EXECUTABLE = "codex"
AGENT_MESSAGE_TYPES = ("agent_message", "assistant_message")


def codex_argv(call: SpecialistCall) -> list[str]:
    """Read-only sandbox (a planner or reviewer only answers), prompt from stdin (`-`)."""
    argv = [EXECUTABLE, "exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only"]
    if call.profile.model:
        argv += ["--model", call.profile.model]
    return [*argv, "-"]


def call_codex(call: SpecialistCall) -> str:
    output = run_specialist_process(call, codex_argv(call), render_prompt(call))
    return unwrap_reply(parse_codex_events(call, output))


def parse_codex_events(call: SpecialistCall, output: str) -> str:
    message: str | None = None
    failure: str | None = None
    for line in output.splitlines():
        try:
            event: Any = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(event, dict):
            continue
        text = _agent_message(event)
        if text is not None:
            message = text
        elif event.get("type") in ("turn.failed", "error"):
            failure = _error_text(event)
    if failure is not None:
        raise SpecialistFailure("crash", f"{call.what}: codex reported an error: {failure[:600]}")
    if message is None:
        raise SpecialistFailure("crash", f"{call.what}: codex printed no agent message")
    return message


def _agent_message(event: dict[str, Any]) -> str | None:
    item = event.get("item")
    if event.get("type") == "item.completed" and isinstance(item, dict):
        kind = item.get("type", item.get("item_type"))
        if kind in AGENT_MESSAGE_TYPES and isinstance(item.get("text"), str):
            return str(item["text"])
    msg = event.get("msg")
    if isinstance(msg, dict) and msg.get("type") == "agent_message" and isinstance(msg.get("message"), str):
        return str(msg["message"])
    return None


def _error_text(event: dict[str, Any]) -> str:
    error = event.get("error")
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return str(event.get("message") or error or "unknown error")
