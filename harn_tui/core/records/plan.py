"""Plan records: request, planner input and reply, proposal/candidate, reviewer input and receipt."""

# no `from __future__ import annotations`: pydantic would compile every field's annotation from its string at import

from typing import Annotated, Any, Literal

from pydantic import Field

from harn_tui.core.records.common import (
    Acceptance,
    Id,
    Key,
    Objective,
    Rationale,
    Reason,
    Record,
    Sha256,
    Title,
    UtcTimestamp,
    VersionedRecord,
)
from harn_tui.core.records.goal import Mission

Trigger = Literal["initial", "milestone", "recovery"]
Decision = Literal["apply", "attention", "complete"]
Verdict = Literal["approve", "revise", "attention"]


class PlanRequest(VersionedRecord):
    id: Id
    goal_id: Id
    sequence: Annotated[int, Field(ge=1)]
    trigger: Trigger
    graph_fingerprint: str
    prior_root_work_id: Id | None
    created_at: UtcTimestamp


class ProposedWork(Record):
    key: Key
    title: Title
    objective: Objective
    acceptance: Acceptance = []
    dependencies: list[str] = []
    template: Id


class Milestone(Record):
    sequence: Annotated[int, Field(ge=1, le=20)]
    title: Title
    objective: Objective
    acceptance: Acceptance = []


class PlannerReply(Record):
    """What a planner prints: exactly one JSON object of this shape."""

    decision: Decision
    rationale: Rationale
    work: Annotated[list[ProposedWork], Field(max_length=1000)] = []
    root: Key | None = None
    milestone: Milestone | None = None


class Proposal(VersionedRecord):
    """`proposal.json` (and `candidate.json` under review): a validated planner reply."""

    plan_id: Id
    decision: Decision
    rationale: Rationale
    root: Key | None
    work: list[ProposedWork]
    milestone: Milestone | None
    proposed_at: UtcTimestamp


class PlannerGoal(Record):
    id: Id
    title: Title
    mission: Mission | None


class PlannerBudgets(Record):
    replans_remaining: int
    attempts_remaining: int
    max_work_items_per_plan: int
    work_items_remaining: int
    milestones_remaining: int | None


class LatestPlan(Record):
    id: Id
    status: str
    reason: str | None
    rationale: str | None


class CatalogEntry(Record):
    root: bool
    max_attempts: int


class PlannerWorkView(Record):
    id: Id
    title: str
    objective: str
    acceptance: list[str]
    state: str
    attempts_used: int
    proof_summary: str | None


class Problem(Record):
    path: str
    message: str


class ReviewFinding(Record):
    code: Annotated[str, Field(min_length=1, max_length=200)]
    severity: Literal["blocking", "advisory"]
    summary: Annotated[str, Field(min_length=1, max_length=2000)]
    recommendation: Annotated[str, Field(max_length=2000)] | None = None


class ReviewerReply(Record):
    verdict: Verdict
    rationale: Rationale
    findings: Annotated[list[ReviewFinding], Field(max_length=50)] = []


class Review(Record):
    reviewer: Id
    verdict: Verdict
    rationale: Reason
    findings: list[ReviewFinding] = []


class PlannerRevision(Record):
    """What a revision round hands the planner: the round it opens, the candidate sent back and every review."""

    round: Annotated[int, Field(ge=1, le=3)]
    candidate: Proposal
    reviews: list[Review]


class PlannerInput(VersionedRecord):
    role: Literal["planner"] = "planner"
    plan_id: Id
    sequence: int
    trigger: Trigger
    goal: PlannerGoal
    instructions: str
    active_root_work_id: Id | None
    generation: int
    budgets: PlannerBudgets
    latest_plan: LatestPlan | None
    templates: dict[str, CatalogEntry]
    work: list[PlannerWorkView]
    reply_schema: dict[str, Any]
    problems: list[Problem] | None = None
    previous_reply: Any = None
    revision: PlannerRevision | None = None


class ReviewerInput(VersionedRecord):
    role: Literal["reviewer"] = "reviewer"
    reviewer_id: Id
    plan_id: Id
    sequence: int
    instructions: str
    candidate_sha256: Sha256
    candidate: Proposal
    planner_input: PlannerInput
    reply_schema: dict[str, Any]
    problems: list[Problem] | None = None
    previous_reply: Any = None


class ReviewReceipt(VersionedRecord):
    plan_id: Id
    candidate_sha256: Sha256
    reviews: list[Review]
    outcome: Literal["approved", "attention", "revise"]
    created_at: UtcTimestamp
