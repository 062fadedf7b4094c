"""Shared pieces of turning an agent CLI's JSON events into readable transcript lines."""

from __future__ import annotations

import json
from typing import Any

MAX_RENDERED_CHARS = 2000
RESULT_PREVIEW_CHARS = 300
# the input fields that say best what a tool call does, in the order they are looked for
TOOL_SUBJECTS = ("file_path", "path", "notebook_path", "command", "pattern", "url", "query", "description", "prompt")


def clip(text: str, limit: int = MAX_RENDERED_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def prefixed(prefix: str, text: str) -> list[str]:
    """`prefix: line` for each non-blank line of `text` (an agent's message of several lines stays readable)."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return [clip(f"{prefix}: {line}") for line in lines]


def tool_subject(arguments: Any) -> str:
    """What a tool call acts on, in a few words: its path, command or pattern; else its arguments as JSON."""
    if isinstance(arguments, dict):
        for key in TOOL_SUBJECTS:
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                return clip(" ".join(value.split()), 300)
        if not arguments:
            return ""
    return clip(json.dumps(arguments, ensure_ascii=False), 300)


def preview(text: str) -> str:
    """The first non-blank line of a tool's output, and how many more there are."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "(no output)"
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return clip(lines[0].strip(), RESULT_PREVIEW_CHARS) + more


def parse_event(line: str) -> dict[str, Any] | None:
    """One JSON object, or None for anything else on the line."""
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return event if isinstance(event, dict) else None


class EventStream:
    """Reads one agent CLI's output a line at a time: `lines(raw)` gives the readable lines of one output line
    (a line that is not a JSON event is shown as printed); a subclass renders its CLI's events in `event`.
    `failure` is set when the CLI reports an error, `final` to its last message."""

    cli = "agent"

    def __init__(self) -> None:
        self.failure: str | None = None
        self.final: str | None = None

    def lines(self, raw: str) -> list[str]:
        event = parse_event(raw)
        if event is None:
            return [clip(f"{self.cli} printed: {raw}")] if raw.strip() else []
        return self.event(event)

    def event(self, event: dict[str, Any]) -> list[str]:
        raise NotImplementedError
