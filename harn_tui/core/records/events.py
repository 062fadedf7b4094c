"""Work and plan events: one closed model per event, discriminated by `event`."""

# no `from __future__ import annotations`: pydantic would compile every field's annotation from its string at import

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from harn_tui.core.records.common import (
    FindingText,
    Id,
    Reason,
    Record,
    Sha256,
    UtcTimestamp,
)


class Finding(Record):
    """An operator correction raised on a reopen, open until disposed on accept."""

    id: Annotated[str, Field(pattern=r"^f[1-9][0-9]?$")]
    statement: FindingText
    actor: Id


class Disposition(Record):
    id: Id  # ID syntax: an operator may name an id that is no open finding, which accept refuses (exit 3)
    outcome: Literal["fixed", "deferred"]
    reason: Reason | None = None


class Event(Record):
    schema_version: Literal[1] = 1
    seq: Annotated[int, Field(ge=1)]
    ts: UtcTimestamp
    actor: Id


class WorkCreated(Event):
    event: Literal["work.created"] = "work.created"
    reason: Reason | None = None


class AttemptStarted(Event):
    event: Literal["attempt.started"] = "attempt.started"
    run_id: Id
    attempt: Annotated[int, Field(ge=1)]
    trigger: Literal["initial", "retry", "reopen"]


class AttemptFinished(Event):
    event: Literal["attempt.finished"] = "attempt.finished"
    run_id: Id
    status: Literal["passed", "failed", "parked"]
    class_: Literal["environment", "upstream", "decision"] | None = Field(default=None, alias="class")
    reason: Reason | None = None
    approval_id: Id | None = None

    model_config = Event.model_config | {"populate_by_name": True}


class AttemptResumed(Event):
    event: Literal["attempt.resumed"] = "attempt.resumed"
    run_id: Id
    approval_id: Id


class WorkAccepted(Event):
    event: Literal["work.accepted"] = "work.accepted"
    run_id: Id
    proof_sha256: Sha256
    dispositions: list[Disposition] = []
    reason: Reason | None = None


class WorkCancelled(Event):
    event: Literal["work.cancelled"] = "work.cancelled"
    reason: Reason | None = None


class WorkReopened(Event):
    event: Literal["work.reopened"] = "work.reopened"
    findings: Annotated[list[Finding], Field(max_length=20)] = []
    reason: Reason | None = None


WorkEvent = Annotated[
    WorkCreated | AttemptStarted | AttemptFinished | AttemptResumed | WorkAccepted | WorkCancelled | WorkReopened,
    Field(discriminator="event"),
]


class PlanReviewed(Event):
    """`round` names the revision round whose candidate the reviewers approved (absent reads 0)."""

    event: Literal["plan.reviewed"] = "plan.reviewed"
    candidate_sha256: Sha256
    round: Annotated[int, Field(ge=0, le=3)] = 0


class PlanRevisionRequested(Event):
    """The reviewers sent the candidate back: `round` is the revision round this opens (1..3)."""

    event: Literal["plan.revision_requested"] = "plan.revision_requested"
    round: Annotated[int, Field(ge=1, le=3)]
    reason: Reason


class PlanProposed(Event):
    event: Literal["plan.proposed"] = "plan.proposed"


class PlanAttention(Event):
    event: Literal["plan.attention"] = "plan.attention"
    reason: Reason


class PlanApplied(Event):
    event: Literal["plan.applied"] = "plan.applied"
    root_work_id: Id
    work_ids: list[Id]
    reason: Reason | None = None


class PlanRejected(Event):
    event: Literal["plan.rejected"] = "plan.rejected"
    reason: Reason


class PlanRetryRequested(Event):
    event: Literal["plan.retry_requested"] = "plan.retry_requested"
    reason: Reason


class PlanFailed(Event):
    event: Literal["plan.failed"] = "plan.failed"
    reason: Reason
    class_: Literal["environment", "upstream", "decision", "invalid", "timeout", "crash"] | None = Field(
        default=None, alias="class"
    )

    model_config = Event.model_config | {"populate_by_name": True}


class PlanCompleted(Event):
    event: Literal["plan.completed"] = "plan.completed"
    reason: Reason | None = None


class PlanReopened(Event):
    """An operator reopened a completed mission: the next milestone is planned with this reason."""

    event: Literal["plan.reopened"] = "plan.reopened"
    reason: Reason


PlanEvent = Annotated[
    PlanReviewed
    | PlanProposed
    | PlanAttention
    | PlanApplied
    | PlanRejected
    | PlanRetryRequested
    | PlanFailed
    | PlanCompleted
    | PlanRevisionRequested
    | PlanReopened,
    Field(discriminator="event"),
]

# built at first use, as the records are: a transition reads one or two of the four
_DEFERRED = ConfigDict(defer_build=True)
WORK_EVENT_ADAPTER: TypeAdapter[WorkEvent] = TypeAdapter(WorkEvent, config=_DEFERRED)
PLAN_EVENT_ADAPTER: TypeAdapter[PlanEvent] = TypeAdapter(PlanEvent, config=_DEFERRED)
WORK_EVENTS_ADAPTER: TypeAdapter[list[WorkEvent]] = TypeAdapter(list[WorkEvent], config=_DEFERRED)
PLAN_EVENTS_ADAPTER: TypeAdapter[list[PlanEvent]] = TypeAdapter(list[PlanEvent], config=_DEFERRED)
