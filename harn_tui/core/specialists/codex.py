"""The `codex` adapter: `codex exec --json` headless; the reply is the last agent message of its JSONL events.

Codex prints one event per line: `thread.started`, `turn.started`, `item.completed` with an item of type
`agent_message` (`assistant_message` in early versions) carrying `text`, then `turn.completed`, or
`turn.failed` / `error` on failure. The legacy shape `{"msg": {"type": "agent_message", "message": ...}}`
is read too.

The agent worker runs `codex exec --json --sandbox workspace-write`: the same events, with `item.started` /
`item.completed` items of type `command_execution` (`command`, `aggregated_output`, `exit_code`), `file_change`
(`changes: [{path, kind}]`), `mcp_tool_call` (`server`, `tool`), `web_search` (`query`), `todo_list`
(`items: [{text, completed}]`), `reasoning` and `error`, and `turn.completed` with its `usage`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harn_tui.core.records import SpecialistProfile
from harn_tui.core.specialists.agent_lines import EventStream, clip, prefixed, preview
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


# ----- the agent worker: `codex exec --json --sandbox workspace-write ... -`


def codex_worker_argv(profile: SpecialistProfile, agent_args: Sequence[str]) -> list[str]:
    """The worker's call: it may write in its working directory (the workspace); the prompt comes on stdin."""
    argv = [EXECUTABLE, "exec", "--json", "--sandbox", "workspace-write"]
    if profile.model:
        argv += ["--model", profile.model]
    return [*argv, *agent_args, "-"]


class CodexStream(EventStream):
    """Turns codex's JSONL events into readable lines: messages, commands and their exit codes, file changes,
    tool calls, to-do lists; `failure` is set by `turn.failed` or `error`."""

    cli = "codex"

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        item = event.get("item")
        if kind == "thread.started":
            return [f"codex: session {event.get('thread_id', '?')} started"]
        if kind in ("item.started", "item.completed") and isinstance(item, dict):
            return self._item(item, done=kind == "item.completed")
        if kind == "turn.completed":
            usage = _mapping(event.get("usage"))
            return [
                f"codex: turn completed ({usage.get('input_tokens', '?')} tokens in, "
                f"{usage.get('output_tokens', '?')} out)"
            ]
        if kind in ("turn.failed", "error"):
            self.failure = f"codex reported an error: {clip(_error_text(event), 600)}"
            return [clip(f"codex: error: {_error_text(event)}")]
        legacy = _agent_message(event)
        return prefixed("agent", legacy) if legacy is not None else []

    def _item(self, item: dict[str, Any], *, done: bool) -> list[str]:
        kind = item.get("type", item.get("item_type"))
        if kind == "command_execution":
            if not done:
                return [clip(f"tool: run {item.get('command', '?')}")]
            output = str(item.get("aggregated_output") or "")
            return [f"tool result: exit {item.get('exit_code', '?')}: {preview(output)}"]
        if not done:
            return []
        if kind in AGENT_MESSAGE_TYPES and isinstance(item.get("text"), str):
            self.final = str(item["text"])
            return prefixed("agent", self.final)
        if kind == "reasoning" and isinstance(item.get("text"), str):
            return prefixed("thinking", str(item["text"]))[:3]
        if kind == "file_change":
            changes = _sequence(item.get("changes"))
            return [
                clip(f"tool: {c.get('kind', 'change')} {c.get('path', '?')}") for c in changes if isinstance(c, dict)
            ]
        if kind == "mcp_tool_call":
            return [clip(f"tool: {item.get('server', '?')}.{item.get('tool', '?')}")]
        if kind == "web_search":
            return [clip(f"tool: web search {item.get('query', '')}")]
        if kind == "todo_list":
            entries = _sequence(item.get("items"))
            return [
                clip(f"plan: [{'x' if e.get('completed') else ' '}] {e.get('text', '')}")
                for e in entries
                if isinstance(e, dict)
            ]
        if kind == "error":
            return [clip(f"codex: error: {item.get('message', '')}")]
        return []


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _sequence(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
