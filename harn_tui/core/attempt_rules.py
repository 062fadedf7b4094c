"""Which attempts may start: `work run`/`retry` and resumes under the goal's rules or standalone (SPEC 7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harn_tui.core.errors import Refused
from harn_tui.core.projection import WorkView
from harn_tui.core.transitions.scope import WorkScope
from harn_tui.core.writer import SUPERVISOR_ACTOR

Trigger = Literal["initial", "retry", "reopen"]


def _check_goal(scope: WorkScope) -> None:
    goal, view = scope.goal, scope.view
    if goal is None:
        return
    if not view.active:
        raise Refused(
            f"work {view.id} is not in the active graph of goal {goal.id}; superseded work is never dispatchable"
        )
    if goal.state == "succeeded":
        raise Refused(f"goal {goal.id} has succeeded; its work is not dispatched any more")


def _check_budget(scope: WorkScope) -> None:
    goal = scope.goal
    if goal is not None and goal.attempts_remaining <= 0:
        limit = goal.intent.limits.max_total_attempts if goal.intent is not None else 0
        raise Refused(f"budget exhausted: goal {goal.id} has used all {limit} of its attempts")


def blocked_by_streak_only(view: WorkView) -> bool:
    """Blocked/none only because of 3 consecutive uncharged failures: charged attempts are left and the last
    failure was not a decision. The operator's retry is the authority the spec names for this case."""
    latest = view.latest_attempt
    return (
        view.state == "blocked"
        and view.next_action == "none"
        and latest is not None
        and latest.class_ != "decision"
        and view.charged_attempts < view.max_attempts
    )


def check_can_start(scope: WorkScope, *, retry: bool, actor: str) -> None:
    """`run` needs `ready`; `retry` needs `blocked/retry` (or, for an operator, blocked only by the uncharged
    streak); goal work must be active, its goal unfinished and its attempt budget not exhausted."""
    view = scope.view
    _check_goal(scope)
    _check_budget(scope)
    if not retry:
        if view.state != "ready":
            raise Refused(f"work {view.id} is {view.state}/{view.next_action}, not ready: {view.reason}")
        return
    if view.state != "blocked":
        raise Refused(f"work {view.id} is {view.state}, not blocked; only blocked work is retried")
    if view.next_action == "retry":
        return
    if actor != SUPERVISOR_ACTOR and blocked_by_streak_only(view):
        return
    raise Refused(f"work {view.id} is blocked/none and cannot be retried: {view.reason}")


@dataclass(frozen=True)
class ParkedRun:
    run_id: str
    approval_id: str
    number: int
    trigger: Trigger


def check_can_resume(scope: WorkScope) -> ParkedRun:
    """A resume needs `awaiting_approval/resume`: the latest attempt parked and its approval decided."""
    view = scope.view
    _check_goal(scope)
    latest = view.latest_attempt
    if view.state != "awaiting_approval" or view.next_action != "resume" or latest is None:
        raise Refused(
            f"work {view.id} is {view.state}/{view.next_action}; a resume needs awaiting_approval/resume"
        )
    assert latest.approval_id is not None
    return ParkedRun(latest.run_id, latest.approval_id, latest.number, latest.trigger)  # type: ignore[arg-type]


def next_trigger(scope: WorkScope, *, retry: bool) -> Trigger:
    """`retry` for a retry, `reopen` for the first attempt after a reopen, else `initial`."""
    if retry:
        return "retry"
    reopened = any(event.event == "work.reopened" for event in scope.files.events)
    return "reopen" if reopened and scope.view.attempts_since_reopen == 0 else "initial"
