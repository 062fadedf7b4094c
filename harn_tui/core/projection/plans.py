"""Plan projection: a plan's status and reason from its files and events (SPEC section 5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harn_tui.core.records import PlanEvent, PlanRequest, Proposal, ReviewReceipt
from harn_tui.core.tree import PlanFiles

OUTCOME_EVENTS = {
    "plan.rejected": "rejected",
    "plan.retry_requested": "retry_requested",
    "plan.attention": "attention",
    "plan.failed": "failed",
}


@dataclass(frozen=True, slots=True)
class PlanView:
    id: str
    sequence: int
    trigger: str
    status: str
    reason: str | None
    root_work_id: str | None
    work_ids: tuple[str, ...]
    request: PlanRequest
    proposal: Proposal | None
    candidate: Proposal | None
    review: ReviewReceipt | None
    proposal_sha256: str | None
    events: tuple[PlanEvent, ...]

    @property
    def decision(self) -> str | None:
        shown = self.proposal or self.candidate
        return shown.decision if shown else None

    @property
    def rationale(self) -> str | None:
        shown = self.proposal or self.candidate
        return shown.rationale if shown else None

    def operator_reasons(self) -> list[tuple[str, str, str]]:
        """(event, actor, reason) of every event that carries a reason, oldest first."""
        found: list[tuple[str, str, str]] = []
        for event in self.events:
            reason = getattr(event, "reason", None)
            if reason:
                found.append((event.event, event.actor, reason))
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sequence": self.sequence,
            "trigger": self.trigger,
            "status": self.status,
            "reason": self.reason,
            "root_work_id": self.root_work_id,
            "work_ids": list(self.work_ids),
        }


def plan_status(plan: PlanFiles, loop_held: bool) -> tuple[str, str | None]:
    """(status, reason) by the first matching rule; reason is that of the event that set the status."""
    events = plan.events
    for event in events:
        if event.event == "plan.completed":
            return "completed", event.reason
    for event in events:
        if event.event == "plan.applied":
            return "applied", None
    for event in reversed(events):
        if event.event in OUTCOME_EVENTS:
            return OUTCOME_EVENTS[event.event], getattr(event, "reason", None)
    if plan.proposal is not None:
        return "proposed", None
    if loop_held:
        return "planning", None
    return "interrupted", None


def project_plan(plan: PlanFiles, loop_held: bool) -> PlanView:
    assert plan.request is not None, "only plans with a request are projected"
    status, reason = plan_status(plan, loop_held)
    applied = next((e for e in plan.events if e.event == "plan.applied"), None)
    return PlanView(
        id=plan.id,
        sequence=plan.request.sequence,
        trigger=plan.request.trigger,
        status=status,
        reason=reason,
        root_work_id=applied.root_work_id if applied is not None else None,
        work_ids=tuple(applied.work_ids) if applied is not None else (),
        request=plan.request,
        proposal=plan.proposal,
        candidate=plan.candidate,
        review=plan.review,
        proposal_sha256=plan.proposal_sha256,
        events=tuple(plan.events),
    )
