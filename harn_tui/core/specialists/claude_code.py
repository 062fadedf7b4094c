"""The `claude-code` adapter: `claude -p --output-format json` headless; the reply is the result envelope's text.

Claude Code prints one JSON object `{"type": "result", "subtype": "success", "is_error": false,
"result": "<text>", ...}` (older versions with `--verbose` print an array of messages ending in that object).

The agent worker runs `claude -p --output-format stream-json --verbose`: one JSON event per line, `{"type":
"system", "subtype": "init", "model", "cwd", ...}`, then `{"type": "assistant", "message": {"content": [{"type":
"text", "text"} | {"type": "tool_use", "name", "input"} | {"type": "thinking", ...}]}}` and `{"type": "user",
"message": {"content": [{"type": "tool_result", "content", "is_error"?}]}}`, ending with the same result object.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harn_tui.core.records import SpecialistProfile
from harn_tui.core.specialists.agent_lines import EventStream, clip, prefixed, preview, tool_subject
from harn_tui.core.specialists.base import SpecialistCall, SpecialistFailure, render_prompt, unwrap_reply
from harn_tui.core.specialists.process import run_specialist_process

EXECUTABLE = "claude"


def claude_argv(call: SpecialistCall) -> list[str]:
    argv = [EXECUTABLE, "-p", "--output-format", "json"]
    if call.profile.model:
        argv += ["--model", call.profile.model]
    return argv


def call_claude_code(call: SpecialistCall) -> str:
    """The prompt (instructions, contract, request) goes on stdin; `claude -p` reads it from there."""
    output = run_specialist_process(call, claude_argv(call), render_prompt(call))
    return unwrap_reply(parse_claude_output(call, output))


def parse_claude_output(call: SpecialistCall, output: str) -> str:
    try:
        document: Any = json.loads(output)
    except (ValueError, RecursionError):
        raise SpecialistFailure("crash", f"{call.what}: claude printed no JSON result envelope") from None
    if isinstance(document, list):
        document = next((m for m in reversed(document) if isinstance(m, dict) and m.get("type") == "result"), None)
    if not isinstance(document, dict) or document.get("type") != "result":
        raise SpecialistFailure("crash", f"{call.what}: claude output is not a result envelope")
    result = document.get("result")
    if document.get("is_error") or document.get("subtype", "success") != "success":
        detail = result if isinstance(result, str) and result else document.get("subtype", "error")
        raise SpecialistFailure("crash", f"{call.what}: claude reported an error: {str(detail)[:600]}")
    if not isinstance(result, str):
        raise SpecialistFailure("crash", f"{call.what}: claude's result envelope has no result text")
    return result


# ----- the agent worker: `claude -p --output-format stream-json --verbose`, one event per line

WORKER_FLAGS = ("-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits")


def claude_worker_argv(profile: SpecialistProfile, agent_args: Sequence[str]) -> list[str]:
    """The worker's call: edits accepted in its working directory (the workspace); frozen agent args last."""
    argv = [EXECUTABLE, *WORKER_FLAGS]
    if profile.model:
        argv += ["--model", profile.model]
    return [*argv, *agent_args]


class ClaudeStream(EventStream):
    """Turns claude's stream-json events into readable lines: the agent's messages, each tool call with what it
    acts on, each tool result's first line, and the final result; `failure` is set by an error result."""

    cli = "claude"

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            return [clip(f"claude: session started (model {event.get('model', '?')}, in {event.get('cwd', '?')})")]
        if kind == "assistant":
            return self._assistant(event.get("message"))
        if kind == "user":
            return self._tool_results(event.get("message"))
        if kind == "result":
            return self._result(event)
        return []

    def _assistant(self, message: Any) -> list[str]:
        out: list[str] = []
        for block in _content(message):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                out += prefixed("agent", block["text"])
            elif block.get("type") == "tool_use":
                subject = tool_subject(block.get("input"))
                out.append(clip(f"tool: {block.get('name', '?')} {subject}".rstrip()))
            elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
                out += prefixed("thinking", block["thinking"])[:3]
        return out

    def _tool_results(self, message: Any) -> list[str]:
        out: list[str] = []
        for block in _content(message):
            if block.get("type") != "tool_result":
                continue
            content = block.get("content")
            if isinstance(content, list):
                content = "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
            label = "tool error" if block.get("is_error") else "tool result"
            out.append(f"{label}: {preview(str(content or ''))}")
        return out

    def _result(self, event: dict[str, Any]) -> list[str]:
        result = event.get("result")
        self.final = result if isinstance(result, str) else None
        turns, subtype = event.get("num_turns", "?"), event.get("subtype", "?")
        if event.get("is_error") or subtype != "success":
            self.failure = f"claude reported an error ({subtype}): {clip(str(result or ''), 600)}"
            return [clip(f"claude: error ({subtype}) after {turns} turns: {result or ''}")]
        return [f"claude: finished after {turns} turns"]


def _content(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
