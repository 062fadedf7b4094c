"""The attempt rules (`work run`, `work retry`, resumes) as named checks: which check refuses, in which order, and
with the text the CLI prints. The runner's refusals through the CLI are in test_runner*.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from harn_tui.core.errors import Refused
from harn_tui.core.records import GoalIntent
from harn_tui.core.rules import work_resume, work_retry, work_run


@dataclass(frozen=True)
class Attempt:
    class_: str | None = None


@dataclass(frozen=True)
class Work:
    id: str = "work-a"
    state: Any = "ready"
    next_action: Any = "run"
    reason: str = "its dependencies succeeded"
    open_findings: tuple[Any, ...] = ()
    approval_id: str | None = None
    approval_decided: bool = False
    active: bool = True
    charged_attempts: int = 0
    max_attempts: int = 3
    latest_attempt: Attempt | None = None


@dataclass(frozen=True)
class Goal:
    id: str = "goal-g"
    state: Any = "ready"
    attempts_remaining: int = 5
    intent: GoalIntent | None = field(default=None)


def failing(checks: Any) -> list[str]:
    return [check.name for check in checks.failing]


def test_run_needs_a_ready_item_and_standalone_work_has_no_goal_checks() -> None:
    assert work_run(None, Work()).holds
    assert [c.name for c in work_run(None, Work()).checks] == ["ready"]
    checks = work_run(None, Work(state="waiting", next_action="wait", reason="work-b is not done"))
    with pytest.raises(Refused, match=r"^work work-a is waiting/wait, not ready: work-b is not done$"):
        checks.require()


def test_goal_checks_come_first_in_the_order_the_runner_applies_them() -> None:
    superseded = Work(active=False, state="waiting")
    checks = work_run(Goal(state="succeeded", attempts_remaining=0), superseded)
    assert [c.name for c in checks.checks] == ["in the active graph", "goal unfinished", "attempt left", "ready"]
    assert failing(checks) == ["in the active graph", "goal unfinished", "attempt left", "ready"]
    with pytest.raises(Refused, match="not in the active graph of goal goal-g; superseded work is never dispatchable"):
        checks.require()
    with pytest.raises(Refused, match=r"^budget exhausted: goal goal-g has used all 0 of its attempts$"):
        work_run(Goal(attempts_remaining=0), Work()).require()


def test_retry_of_a_streak_blocked_item_is_the_operators_not_the_supervisors() -> None:
    streak = Work(
        state="blocked",
        next_action="none",
        reason="3 uncharged failures in a row",
        charged_attempts=1,
        latest_attempt=Attempt("environment"),
    )
    assert work_retry(None, streak, operator=True).holds
    assert failing(work_retry(None, streak, operator=False)) == ["retryable"]
    decided = Work(state="blocked", next_action="none", reason="denied", latest_attempt=Attempt("decision"))
    assert failing(work_retry(None, decided, operator=True)) == ["retryable"]
    ready = work_retry(None, Work(), operator=True)
    with pytest.raises(Refused, match=r"^work work-a is ready, not blocked; only blocked work is retried$"):
        ready.require()


def test_a_resume_needs_the_decided_park_and_is_not_refused_for_the_budget() -> None:
    parked = Work(state="awaiting_approval", next_action="resume", latest_attempt=Attempt())
    assert work_resume(Goal(attempts_remaining=0), parked).holds
    waiting = Work(state="awaiting_approval", next_action="resolve_approval", latest_attempt=Attempt())
    with pytest.raises(Refused, match="awaiting_approval/resolve_approval; a resume needs awaiting_approval/resume"):
        work_resume(None, waiting).require()
