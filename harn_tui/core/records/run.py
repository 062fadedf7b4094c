"""Attempt records: the manifest handed to a template and the host-validated proof."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from harn_tui.core.records.common import (
    Acceptance,
    Id,
    Objective,
    OffsetTimestamp,
    Record,
    Summary,
    Title,
    UtcTimestamp,
    VersionedRecord,
)
from harn_tui.core.records.events import Finding
from harn_tui.core.records.goal import SpecialistProfile
from harn_tui.core.records.work import TemplateRef

FailureClass = Literal["environment", "upstream", "decision"]


class WorkContext(VersionedRecord):
    """The closed work context: exactly these fields, so a work definition cannot drift between attempts."""

    id: Id
    title: Title
    objective: Objective
    acceptance: Acceptance


class PriorAttempt(Record):
    run_id: Id
    summary: Summary
    unsatisfied: Annotated[list[str], Field(max_length=50)]
    class_: FailureClass | None = Field(alias="class")

    model_config = Record.model_config | {"populate_by_name": True}


class AttemptContext(Record):
    number: Annotated[int, Field(ge=1)]
    trigger: Literal["initial", "retry", "reopen"]
    prior: PriorAttempt | None
    findings: list[Finding]


class AttemptManifest(VersionedRecord):
    run_id: Id
    goal_id: Id | None
    work: WorkContext
    attempt: AttemptContext
    template: TemplateRef
    team: dict[Id, SpecialistProfile]
    created_at: UtcTimestamp


class CriterionResult(Record):
    criterion: str
    status: Literal["satisfied", "unsatisfied", "unknown"]
    evidence: Annotated[str, Field(max_length=4000)]


class Proof(VersionedRecord):
    run_id: Id
    status: Literal["succeeded", "failed"]
    summary: Summary
    acceptance: list[CriterionResult]
    class_: FailureClass | None = Field(alias="class")
    finished_at: OffsetTimestamp

    model_config = VersionedRecord.model_config | {"populate_by_name": True}

    @property
    def passes(self) -> bool:
        """Succeeded and every criterion satisfied (with no criteria, the status decides)."""
        return self.status == "succeeded" and all(c.status == "satisfied" for c in self.acceptance)


class ApprovalAsk(Record):
    """What a parked template writes to `$HARN_RUN_DIR/approval-request.json`."""

    question: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    details: Annotated[str, Field(max_length=4000)] | None = None


class ApprovalRequest(VersionedRecord):
    id: Id
    run_id: Id
    work_id: Id
    goal_id: Id | None
    question: str
    details: str | None
    requested_at: UtcTimestamp


class ApprovalDecision(VersionedRecord):
    approval_id: Id
    verdict: Literal["approve", "deny"]
    actor: Id
    reason: Annotated[str, Field(max_length=2000)] | None
    decided_at: UtcTimestamp
