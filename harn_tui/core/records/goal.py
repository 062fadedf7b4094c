"""The frozen goal intent (`goal.json`): team, limits, automation, replanning, mission."""

# no `from __future__ import annotations`: pydantic would compile every field's annotation from its string at import

from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from harn_tui.core.records.common import (
    Acceptance,
    Id,
    Instructions,
    Objective,
    Record,
    Sha256,
    Title,
    UtcTimestamp,
    VersionedRecord,
)


class SpecialistProfile(Record):
    """One team member. `cwd` is frozen at creation (the team file's directory), never read from the file."""

    adapter: Literal["command", "scripted", "claude-code", "codex"]
    instructions: Instructions
    timeout_s: Annotated[int, Field(ge=1, le=86_400)] = 300
    argv: list[str] | None = None
    replies: str | None = None
    model: str | None = None
    cwd: str | None = None

    @model_validator(mode="after")
    def _adapter_fields(self) -> Self:
        if self.adapter == "command" and not self.argv:
            raise ValueError("a command specialist needs a non-empty argv")
        if self.adapter != "command" and self.argv is not None:
            raise ValueError(f"argv is only for the command adapter, not {self.adapter}")
        if self.adapter == "scripted" and not self.replies:
            raise ValueError("a scripted specialist needs replies (a JSONL path)")
        if self.adapter != "scripted" and self.replies is not None:
            raise ValueError(f"replies is only for the scripted adapter, not {self.adapter}")
        if self.model is not None and self.adapter not in ("claude-code", "codex"):
            raise ValueError("model is only for the claude-code and codex adapters")
        return self


class Mission(Record):
    objective: Objective
    acceptance: Annotated[Acceptance, Field(min_length=1)]
    max_milestones: Annotated[int, Field(ge=1, le=20)] = 4


class Limits(Record):
    max_cycles: Annotated[int, Field(ge=1, le=100_000)] = 50
    max_runtime_s: Annotated[int, Field(ge=1, le=10_000_000)] = 14_400
    max_parallel_work: Annotated[int, Field(ge=1, le=64)] = 1
    max_total_attempts: Annotated[int, Field(ge=1, le=100_000)] = 100


class Automation(Record):
    accept_passing_proof: bool = False
    retry_blocked: bool = False
    resume_approved: bool = True


class FrozenTemplate(Record):
    path: str
    sha256: Sha256
    max_attempts: Annotated[int, Field(ge=1, le=100)] = 3
    root: bool = False


class Replanning(Record):
    planner: Id
    reviewers: Annotated[list[Id], Field(max_length=5)] = []
    auto_apply: bool = False
    max_replans: Annotated[int, Field(ge=1, le=1000)] = 5
    max_work_items_per_plan: Annotated[int, Field(ge=1, le=1000)] = 8
    max_total_work_items: Annotated[int, Field(ge=1, le=100_000)] = 25
    max_revision_rounds: Annotated[int, Field(ge=0, le=3)] = 0
    templates: dict[Id, FrozenTemplate]

    @model_validator(mode="after")
    def _catalog(self) -> Self:
        if not any(t.root for t in self.templates.values()):
            raise ValueError("the template catalog needs at least one root-capable template")
        if self.planner in self.reviewers:
            raise ValueError("reviewers must be team members other than the planner")
        if len(set(self.reviewers)) != len(self.reviewers):
            raise ValueError("reviewers must be distinct")
        return self


class GoalIntent(VersionedRecord):
    id: Id
    title: Title
    created_at: UtcTimestamp
    root_work_id: Id | None
    mission: Mission | None
    team: dict[Id, SpecialistProfile]
    limits: Limits = Limits()
    automation: Automation = Automation()
    replanning: Replanning | None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.root_work_id is None and self.mission is None:
            raise ValueError("a goal needs a mission or a root work item")
        if self.mission is not None and self.replanning is None:
            raise ValueError("a mission requires replanning")
        if self.replanning is not None:
            for member in [self.replanning.planner, *self.replanning.reviewers]:
                if member not in self.team:
                    raise ValueError(f"specialist {member!r} is not a member of the team")
        return self
