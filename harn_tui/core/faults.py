"""Fault injection for crash tests: `HARN_FAULT=<point>:<n>` exits the process the n-th time it reaches a point.

`HARN_FAULT_TRACE=<file>` appends the name of every point reached, one per line, so a test can learn which
points (and how many times each) a command reaches and then kill it at every one in turn.

The points, in the order a step reaches them (each names the moment *before* the step it is named after,
unless its name is a past participle, which is the moment right after):

- immutable records (`fsio.write_immutable`): `write.temp` (temporary file created, body not written),
  `write.fsync` (body written, not fsynced), `write.link` (fsynced, not linked), `write.linked` (linked into
  place; the temporary name not yet removed, the directory not yet fsynced).
- JSONL appends (`fsio.append_line`): `append.truncate` (a torn tail found, not truncated; reached only when
  there is one), `append.write` (the line not written), `append.fsync` (written, not fsynced), `append.fsynced`
  (fsynced; a new log's directory not yet fsynced).
- leases (`leases.hold_lease`, `leases.HeldLease`: goal, work and run leases, `supervisor.lock`):
  `lease.acquire`, `lease.acquired`, `lease.release`, `lease.released`.
- materializing a plan: `materialize.item` after each item's `work.created`, `materialize.before_applied` when
  every item is durable and `plan.applied` is not yet appended.
- an attempt of `work run|retry` (`run.*`) or of a tick (`tick.*`): `attempt_started` (recorded, template not
  started), `attempt_process_started` (template running), `attempt_finished` (`attempt.finished` recorded).
- each phase of a tick: `tick.start`, `tick.plan_request` (request and planner input written),
  `tick.planner_called`, `tick.reviewers_called` (after each review round), `tick.revision_requested` (the
  reviewers' revision recorded, the next round's planner input written, the planner not called),
  `tick.revision_planner_called` (the revised reply in hand, not reviewed), `tick.plan_recorded`,
  `tick.plan_applied` (an `auto_apply` proposal applied), `tick.accept` (passing work accepted), `tick.end`.
"""

from __future__ import annotations

import os

FAULT_POINTS: tuple[str, ...] = (
    "write.temp",
    "write.fsync",
    "write.link",
    "write.linked",
    "append.truncate",
    "append.write",
    "append.fsync",
    "append.fsynced",
    "lease.acquire",
    "lease.acquired",
    "lease.release",
    "lease.released",
    "materialize.item",
    "materialize.before_applied",
    "run.attempt_started",
    "run.attempt_process_started",
    "run.attempt_finished",
    "tick.start",
    "tick.plan_request",
    "tick.planner_called",
    "tick.reviewers_called",
    "tick.revision_requested",
    "tick.revision_planner_called",
    "tick.plan_recorded",
    "tick.plan_applied",
    "tick.attempt_started",
    "tick.attempt_process_started",
    "tick.attempt_finished",
    "tick.accept",
    "tick.end",
)

FAULT_ENV = "HARN_FAULT"
TRACE_ENV = "HARN_FAULT_TRACE"

_hits: dict[str, int] = {}


def fault_point(name: str) -> None:
    """Exit at once with 137 (as if SIGKILLed) when `HARN_FAULT` names this point and count; with
    `HARN_FAULT_TRACE`, first append `name` to that file."""
    trace = os.environ.get(TRACE_ENV)
    if trace:
        _trace(trace, name)
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    point, _, count = spec.rpartition(":")
    if point != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if str(_hits[name]) == count:
        os._exit(137)


def _trace(path: str, name: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, f"{name}\n".encode())
    finally:
        os.close(fd)
