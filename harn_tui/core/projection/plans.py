"""Plan projection: a plan's status and reason from its files and events (SPEC section 5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harn_tui.core.records import PlanEvent, PlanRequest, PlanRevisionRequested, Proposal, ReviewReceipt
from harn_tui.core.rules import PlanStatus
from harn_tui.core.tree_files import PlanFiles, RevisionFiles

OUTCOME_EVENTS: dict[str, PlanStatus] = {
    "plan.rejected": "rejected",
    "plan.retry_requested": "retry_requested",
    "plan.attention": "attention",
    "plan.failed": "failed",
}


@dataclass(frozen=True, slots=True)
class RevisionView:
    """Revision round r (from 1): the planner's revised candidate and the reviewers' receipt on it."""

    round: int
    reason: str
    candidate: Proposal | None
    candidate_sha256: str | None
    review: ReviewReceipt | None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "candidate": self.candidate.model_dump(mode="json") if self.candidate else None,
            "review": self.review.model_dump(mode="json") if self.review else None,
        }


@dataclass(frozen=True, slots=True)
class PlanView:
    id: str
    sequence: int
    trigger: str
    status: PlanStatus
    reason: str | None
    root_work_id: str | None
    work_ids: tuple[str, ...]
    request: PlanRequest
    proposal: Proposal | None
    candidate: Proposal | None
    review: ReviewReceipt | None
    proposal_sha256: str | None
    events: tuple[PlanEvent, ...]
    candidate_sha256: str | None = None
    revisions: tuple[RevisionView, ...] = ()

    @property
    def latest_candidate(self) -> Proposal | None:
        """The candidate of the last round that has one (round 0's `candidate` without revisions)."""
        return next((r.candidate for r in reversed(self.revisions) if r.candidate), None) or self.candidate

    @property
    def latest_review(self) -> ReviewReceipt | None:
        """The receipt of the last round that has one."""
        return next((r.review for r in reversed(self.revisions) if r.review), None) or self.review

    @property
    def decision(self) -> str | None:
        shown = self.proposal or self.latest_candidate
        return shown.decision if shown else None

    @property
    def rationale(self) -> str | None:
        shown = self.proposal or self.latest_candidate
        return shown.rationale if shown else None

    def round_candidate(self, round_number: int) -> tuple[Proposal | None, str | None]:
        """(candidate, its sha256) of one round: 0 is the plan's own candidate.json."""
        if round_number == 0:
            return self.candidate, self.candidate_sha256
        found = next((r for r in self.revisions if r.round == round_number), None)
        return (found.candidate, found.candidate_sha256) if found is not None else (None, None)

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


def plan_status(plan: PlanFiles, loop_held: bool) -> tuple[PlanStatus, str | None]:
    """(status, reason) by the first matching rule; reason is that of the event that set the status."""
    events = plan.events
    for event in events:
        if event.event == "plan.reopened":
            return "reopened", event.reason
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
        candidate_sha256=plan.candidate_sha256,
        revisions=tuple(_revision_view(plan, r) for r in sorted(plan.revisions.values(), key=lambda r: r.round)),
    )


def _revision_view(plan: PlanFiles, revision: RevisionFiles) -> RevisionView:
    reason = next(
        (e.reason for e in plan.events if isinstance(e, PlanRevisionRequested) and e.round == revision.round), ""
    )
    return RevisionView(revision.round, reason, revision.candidate, revision.candidate_sha256, revision.review)
