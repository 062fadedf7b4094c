"""Every record on disk as a closed, frozen pydantic model, and the registry `harn schema` prints."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter

from harn_tui.core.records.events import (
    PLAN_EVENT_ADAPTER,
    WORK_EVENT_ADAPTER,
    AttemptFinished,
    AttemptResumed,
    AttemptStarted,
    Disposition,
    Finding,
    PlanApplied,
    PlanAttention,
    PlanCompleted,
    PlanEvent,
    PlanFailed,
    PlanProposed,
    PlanRejected,
    PlanReopened,
    PlanRetryRequested,
    PlanReviewed,
    PlanRevisionRequested,
    WorkAccepted,
    WorkCancelled,
    WorkCreated,
    WorkEvent,
    WorkReopened,
)
from harn_tui.core.records.goal import (
    Automation,
    FrozenTemplate,
    GoalIntent,
    Limits,
    Mission,
    Replanning,
    SpecialistProfile,
)
from harn_tui.core.records.plan import (
    PlannerInput,
    PlannerReply,
    PlanRequest,
    Proposal,
    ProposedWork,
    ReviewerInput,
    ReviewerReply,
    ReviewReceipt,
)
from harn_tui.core.records.run import (
    ApprovalAsk,
    ApprovalDecision,
    ApprovalRequest,
    AttemptManifest,
    AttemptWorkspaces,
    GitWorkspace,
    Proof,
)
from harn_tui.core.records.work import TemplateRef, WorkIntent, WorkSource

RECORD_SCHEMAS: dict[str, type[BaseModel] | TypeAdapter[Any]] = {
    "goal": GoalIntent,
    "work": WorkIntent,
    "plan-request": PlanRequest,
    "planner-input": PlannerInput,
    "planner-reply": PlannerReply,
    "proposal": Proposal,
    "reviewer-input": ReviewerInput,
    "reviewer-reply": ReviewerReply,
    "review": ReviewReceipt,
    "manifest": AttemptManifest,
    "proof": Proof,
    "approval-request": ApprovalRequest,
    "approval-decision": ApprovalDecision,
    "work-event": WORK_EVENT_ADAPTER,
    "plan-event": PLAN_EVENT_ADAPTER,
}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of one record kind (KeyError for an unknown name)."""
    target = RECORD_SCHEMAS[name]
    if isinstance(target, TypeAdapter):
        return target.json_schema(by_alias=True)
    return target.model_json_schema(by_alias=True)


__all__ = [
    "PLAN_EVENT_ADAPTER",
    "RECORD_SCHEMAS",
    "WORK_EVENT_ADAPTER",
    "ApprovalAsk",
    "ApprovalDecision",
    "ApprovalRequest",
    "AttemptFinished",
    "AttemptManifest",
    "AttemptResumed",
    "AttemptStarted",
    "AttemptWorkspaces",
    "Automation",
    "Disposition",
    "Finding",
    "FrozenTemplate",
    "GitWorkspace",
    "GoalIntent",
    "Limits",
    "Mission",
    "PlanApplied",
    "PlanAttention",
    "PlanCompleted",
    "PlanEvent",
    "PlanFailed",
    "PlanProposed",
    "PlanRejected",
    "PlanReopened",
    "PlanRequest",
    "PlanRetryRequested",
    "PlanReviewed",
    "PlanRevisionRequested",
    "PlannerInput",
    "PlannerReply",
    "Proof",
    "Proposal",
    "ProposedWork",
    "Replanning",
    "ReviewReceipt",
    "ReviewerInput",
    "ReviewerReply",
    "SpecialistProfile",
    "TemplateRef",
    "WorkAccepted",
    "WorkCancelled",
    "WorkCreated",
    "WorkEvent",
    "WorkIntent",
    "WorkReopened",
    "WorkSource",
    "json_schema",
]
