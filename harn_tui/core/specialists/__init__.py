"""Specialist adapters behind one interface: `call_specialist(call) -> reply text` or a typed failure."""

from __future__ import annotations

from collections.abc import Callable

from harn_tui.core.specialists.base import (
    FailureKind,
    Role,
    SpecialistCall,
    SpecialistFailure,
    child_environment,
    render_prompt,
)
from harn_tui.core.specialists.claude_code import call_claude_code
from harn_tui.core.specialists.codex import call_codex
from harn_tui.core.specialists.command import call_command
from harn_tui.core.specialists.scripted import call_scripted

ADAPTERS: dict[str, Callable[[SpecialistCall], str]] = {
    "command": call_command,
    "scripted": call_scripted,
    "claude-code": call_claude_code,
    "codex": call_codex,
}


def call_specialist(call: SpecialistCall) -> str:
    """The reply text of one call, or SpecialistFailure (timeout / crash / invalid)."""
    return ADAPTERS[call.profile.adapter](call)


__all__ = [
    "ADAPTERS",
    "FailureKind",
    "Role",
    "SpecialistCall",
    "SpecialistFailure",
    "call_specialist",
    "child_environment",
    "render_prompt",
]
