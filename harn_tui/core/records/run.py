"""Attempt records: the manifest handed to a template and the host-validated proof."""

# no `from __future__ import annotations`: pydantic would compile every field's annotation from its string at import

from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

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


CommitSha = Annotated[str, StringConstraints(pattern=r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")]


class GitWorkspace(Record):
    """Where an attempt's work lives: a branch of the user's repository and the commit the host made on it.
    `base` is the commit the attempt started from (after merging its dependencies), so `git diff base commit`
    is exactly the attempt's change."""

    kind: Literal["git"]
    repository: Annotated[str, StringConstraints(min_length=1, max_length=4096)]
    branch: Annotated[str, StringConstraints(min_length=1, max_length=255)]
    base: CommitSha
    commit: CommitSha
    files_changed: Annotated[int, Field(ge=0)]
    insertions: Annotated[int, Field(ge=0)]
    deletions: Annotated[int, Field(ge=0)]

    @model_validator(mode="after")
    def _repository_is_absolute(self) -> Self:
        if not self.repository.startswith("/"):
            raise ValueError("workspace.repository must be an absolute path")
        return self


class AttemptWorkspaces(Record):
    """What an attempt's template needs to build its workspace: the work's latest passing workspace and its
    dependencies' accepted ones, in dependency order."""

    prior: GitWorkspace | None = None
    dependencies: list[GitWorkspace] = Field(default_factory=list)


class AttemptContext(Record):
    number: Annotated[int, Field(ge=1)]
    trigger: Literal["initial", "retry", "reopen"]
    prior: PriorAttempt | None
    findings: list[Finding]
    workspaces: AttemptWorkspaces = Field(default_factory=AttemptWorkspaces)


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
    workspace: GitWorkspace | None = None

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
