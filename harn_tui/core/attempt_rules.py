"""What an attempt's start needs beyond its legality (which is `core.rules`' `work_run`, `work_retry` and
`work_resume`): the parked run a resume continues and the trigger of a new attempt (SPEC 7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harn_tui.core.rules import work_resume, work_retry, work_run
from harn_tui.core.transitions.scope import WorkScope
from harn_tui.core.writer import SUPERVISOR_ACTOR

Trigger = Literal["initial", "retry", "reopen"]


def check_can_start(scope: WorkScope, *, retry: bool, actor: str) -> None:
    """Refused, naming the first failing check, unless `work run` (or `work retry`) may start an attempt."""
    if retry:
        work_retry(scope.goal, scope.view, operator=actor != SUPERVISOR_ACTOR).require()
    else:
        work_run(scope.goal, scope.view).require()


@dataclass(frozen=True)
class ParkedRun:
    run_id: str
    approval_id: str
    number: int
    trigger: Trigger


def check_can_resume(scope: WorkScope) -> ParkedRun:
    """The parked run a resume continues; refused unless `work_resume` holds."""
    work_resume(scope.goal, scope.view).require()
    latest = scope.view.latest_attempt
    assert latest is not None and latest.approval_id is not None
    return ParkedRun(latest.run_id, latest.approval_id, latest.number, latest.trigger)  # type: ignore[arg-type]


def next_trigger(scope: WorkScope, *, retry: bool) -> Trigger:
    """`retry` for a retry, `reopen` for the first attempt after a reopen, else `initial`."""
    if retry:
        return "retry"
    reopened = any(event.event == "work.reopened" for event in scope.files.events)
    return "reopen" if reopened and scope.view.attempts_since_reopen == 0 else "initial"
