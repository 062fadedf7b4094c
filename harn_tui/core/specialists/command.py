"""The `command` adapter: run the frozen argv with the request JSON on stdin; stdout is the reply."""

from __future__ import annotations

from harn_tui.core.specialists.base import SpecialistCall, SpecialistFailure
from harn_tui.core.specialists.process import run_specialist_process


def call_command(call: SpecialistCall) -> str:
    """A bare `argv[0]` is looked up on the child's PATH at run time; paths were frozen absolute at creation."""
    argv = call.profile.argv
    if not argv:
        raise SpecialistFailure("crash", f"{call.what} has no argv")
    return run_specialist_process(call, argv, call.request_json())
