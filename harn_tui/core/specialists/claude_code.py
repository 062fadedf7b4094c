"""The `claude-code` adapter: `claude -p --output-format json` headless; the reply is the result envelope's text.

Claude Code prints one JSON object `{"type": "result", "subtype": "success", "is_error": false,
"result": "<text>", ...}` (older versions with `--verbose` print an array of messages ending in that object).
"""

from __future__ import annotations

import json
from typing import Any

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
