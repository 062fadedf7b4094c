"""Work intent (`work/<id>/intent.json`): what one item must achieve, frozen at creation."""

# no `from __future__ import annotations`: pydantic would compile every field's annotation from its string at import

from typing import Annotated, Literal

from pydantic import Field

from harn_tui.core.records.common import (
    Acceptance,
    Id,
    Objective,
    Record,
    Sha256,
    Title,
    UtcTimestamp,
    VersionedRecord,
)


class TemplateRef(Record):
    path: str
    sha256: Sha256


class WorkSource(Record):
    kind: Literal["human", "plan"]
    ref: str | None = None


class WorkIntent(VersionedRecord):
    id: Id
    title: Title
    objective: Objective
    acceptance: Acceptance = []
    dependencies: list[Id] = []
    template: TemplateRef
    max_attempts: Annotated[int, Field(ge=1, le=100)] = 3
    source: WorkSource = WorkSource(kind="human")
    created_at: UtcTimestamp
