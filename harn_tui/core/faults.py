"""Fault injection for crash tests: `HARN_FAULT=<point>:<n>` exits the process the n-th time it reaches a point."""

from __future__ import annotations

import os

FAULT_POINTS: tuple[str, ...] = (
    "write.temp",
    "write.fsync",
    "write.link",
    "append.truncate",
    "append.write",
    "append.fsync",
    "materialize.item",
    "materialize.before_applied",
    "run.attempt_started",
    "run.attempt_process_started",
    "run.attempt_finished",
    "tick.start",
    "tick.plan_request",
    "tick.planner_called",
    "tick.reviewers_called",
    "tick.plan_recorded",
    "tick.attempt_started",
    "tick.attempt_process_started",
    "tick.attempt_finished",
    "tick.accept",
    "tick.end",
)

_hits: dict[str, int] = {}


def fault_point(name: str) -> None:
    """Exit at once with 137 (as if SIGKILLed) when `HARN_FAULT` names this point and count."""
    spec = os.environ.get("HARN_FAULT")
    if not spec:
        return
    point, _, count = spec.rpartition(":")
    if point != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if str(_hits[name]) == count:
        os._exit(137)
