"""Transition requests: what the operator asked for, as one call into the core, run off the UI thread.

Each request names its exact address (goal, plan, work or approval id). `run_request` calls the core and
turns the outcome or the typed refusal into a `DispatchResult`; the refusal text is the core's, verbatim.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harn_tui.core.errors import HarnError, harn_error_of
from harn_tui.core.executors import LOCAL, Executor
from harn_tui.core.layout import Layout
from harn_tui.tui.text import counted


@dataclass(frozen=True)
class DispatchResult:
    """What one transition dispatch ended with: `ok` and the core's words (verbatim on refusal)."""

    title: str
    ok: bool
    message: str
    outcome: str | None = None


@dataclass(frozen=True)
class Request:
    """One transition: `title` says what and to which address; `call` performs it through the core."""

    title: str
    call: Callable[[Layout, str], Any]


def run_request(layout: Layout, actor: str, request: Request) -> DispatchResult:
    try:
        outcome = request.call(layout, actor)
    except (HarnError, OSError) as error:
        typed = harn_error_of(error)
        if typed is None:
            raise
        return DispatchResult(request.title, False, typed.message)
    kind = _outcome_kind(outcome)
    if kind == "already_done":
        return DispatchResult(request.title, True, f"{request.title}: already done, nothing written", kind)
    return DispatchResult(request.title, True, f"{request.title}: {kind or 'done'}", kind)


def _outcome_kind(outcome: Any) -> str | None:
    kind = getattr(outcome, "outcome", None)
    if isinstance(kind, str):
        return kind
    return tick_summary(outcome) if hasattr(outcome, "stop_reason") else None


def tick_summary(report: Any) -> str:
    """`needs_human after 1 cycle: 1 dispatch, 0 acceptances, 0 replans` for a tick or run report."""
    counts = ", ".join(
        counted(getattr(report, name, 0), noun, name)
        for name, noun in (("dispatches", "dispatch"), ("acceptances", "acceptance"), ("replans", "replan"))
    )
    return f"{getattr(report, 'stop_reason', '?')} after {counted(getattr(report, 'cycles', 0), 'cycle')}: {counts}"


def approve_plan(goal_id: str, plan_id: str, reason: str | None = None) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.transitions import approve_plan as core_approve

        return core_approve(layout, goal_id, plan_id, actor=actor, reason=reason)

    return Request(f"approve plan {plan_id}", call)


def reject_plan(goal_id: str, plan_id: str, reason: str) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.transitions import reject_plan as core_reject

        return core_reject(layout, goal_id, plan_id, actor=actor, reason=reason)

    return Request(f"reject plan {plan_id}", call)


def retry_plan(goal_id: str, plan_id: str, reason: str) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.transitions import retry_plan as core_retry

        return core_retry(layout, goal_id, plan_id, actor=actor, reason=reason)

    return Request(f"retry plan {plan_id}", call)


def reopen_plan(goal_id: str, plan_id: str, reason: str) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.transitions import reopen_plan as core_reopen

        return core_reopen(layout, goal_id, plan_id, actor=actor, reason=reason)

    return Request(f"reopen plan {plan_id}", call)


def accept_work(work_id: str, dispositions: list[tuple[str, str, str | None]], reason: str | None) -> Request:
    """`dispositions` are (finding id, fixed|deferred, reason) triples, already checked by the form."""

    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.records import Disposition
        from harn_tui.core.transitions import accept_work as core_accept

        records = [Disposition.model_validate({"id": i, "outcome": o, "reason": r}) for i, o, r in dispositions]
        return core_accept(layout, work_id, actor=actor, dispositions=records, reason=reason)

    return Request(f"accept work {work_id}", call)


def reopen_work(work_id: str, findings: list[str], reason: str | None) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.transitions import reopen_work as core_reopen

        return core_reopen(layout, work_id, actor=actor, findings=findings, reason=reason)

    return Request(f"reopen work {work_id}", call)


def cancel_work(work_id: str, reason: str | None) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.transitions import cancel_work as core_cancel

        return core_cancel(layout, work_id, actor=actor, reason=reason)

    return Request(f"cancel work {work_id}", call)


def decide_request(approval_id: str, verdict: str, reason: str | None) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.transitions import decide_approval

        return decide_approval(layout, approval_id, verdict=verdict, actor=actor, reason=reason)

    word = "approve" if verdict == "approve" else "deny"
    return Request(f"{word} request {approval_id}", call)


def tick_goal(goal_id: str, executor: Executor = LOCAL) -> Request:
    def call(layout: Layout, actor: str) -> Any:
        from harn_tui.core.supervisor import tick_goal as core_tick

        return core_tick(layout, goal_id, executor)

    return Request(f"tick goal {goal_id}", call)
