"""Bounded text types and the frozen, closed base every record on disk shares."""

# no `from __future__ import annotations`: pydantic would compile every field's annotation from its string at import

from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationInfo, model_validator

from harn_tui.core.ids import ID_PATTERN, KEY_PATTERN

TITLE_MAX = 200
OBJECTIVE_MAX = 4000
CRITERION_MAX = 500
CRITERIA_MAX = 50
REASON_MAX = 2000
FINDING_MAX = 1000
FINDINGS_MAX = 20
RATIONALE_MAX = 2000
INSTRUCTIONS_MAX = 4000


def _bounded(max_length: int) -> object:
    return StringConstraints(strip_whitespace=True, min_length=1, max_length=max_length)


Title = Annotated[str, _bounded(TITLE_MAX)]
Objective = Annotated[str, _bounded(OBJECTIVE_MAX)]
Criterion = Annotated[str, _bounded(CRITERION_MAX)]
Reason = Annotated[str, _bounded(REASON_MAX)]
FindingText = Annotated[str, _bounded(FINDING_MAX)]
Rationale = Annotated[str, _bounded(RATIONALE_MAX)]
Instructions = Annotated[str, _bounded(INSTRUCTIONS_MAX)]
Summary = Annotated[str, StringConstraints(max_length=REASON_MAX)]
Acceptance = Annotated[list[Criterion], Field(max_length=CRITERIA_MAX)]

Id = Annotated[str, StringConstraints(pattern=f"^{ID_PATTERN.pattern}$")]
Key = Annotated[str, StringConstraints(pattern=f"^{KEY_PATTERN.pattern}$")]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


def _check_utc_z(value: str) -> str:
    if not value.endswith("Z"):
        raise ValueError("timestamp must be UTC ISO 8601 ending in Z")
    datetime.fromisoformat(value[:-1] + "+00:00")
    return value


def _check_offset(value: str) -> str:
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError("timestamp must carry an offset (Z or +00:00)")
    return value


UtcTimestamp = Annotated[str, AfterValidator(_check_utc_z)]
OffsetTimestamp = Annotated[str, AfterValidator(_check_offset)]


class Record(BaseModel):
    """A closed, immutable record: unknown keys and mutation are errors.

    Its validator is built at its first use, not at import: a CLI transition validates a quarter of the models.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class VersionedRecord(Record):
    """A record with `schema_version: 1`. Code constructing one may omit it; JSON read from a file must carry it
    (SPEC 3: every record has `schema_version: 1`; a record without it is schema drift, refused, not defaulted).

    The check runs after the fields are validated, on the set of fields the JSON named: a check before them
    would make pydantic build the whole document as Python objects first, which costs a third of a record's
    validation and the shared strings of its parser's cache (a large tree reads a hundred thousand records).
    """

    schema_version: Literal[1] = 1

    @model_validator(mode="after")
    def _version_is_on_disk(self, info: ValidationInfo) -> Self:
        if info.mode == "json" and "schema_version" not in self.__pydantic_fields_set__:
            raise ValueError("schema_version is missing (every record carries schema_version: 1)")
        return self
