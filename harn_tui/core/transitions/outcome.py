"""The result of an operator transition: `applied` (one event written now) or `already_done` (a repeat)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

OutcomeKind = Literal["applied", "already_done"]


@dataclass(frozen=True)
class Outcome:
    """`event` is the event this transition appended (or found, on a repeat); for an approval decision it is
    the `decision.json` record, the one thing that verb writes."""

    outcome: OutcomeKind
    event: BaseModel

    @property
    def applied(self) -> bool:
        return self.outcome == "applied"

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "event": self.event.model_dump(mode="json", by_alias=True)}


def applied(event: BaseModel) -> Outcome:
    return Outcome("applied", event)


def already_done(event: BaseModel) -> Outcome:
    return Outcome("already_done", event)
