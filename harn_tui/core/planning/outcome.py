"""What one plan request came to, as the tick report lists it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from harn_tui.core.records.common import REASON_MAX


def bounded(text: str, limit: int = REASON_MAX) -> str:
    """`text` trimmed to `limit` characters (an ellipsis marks a cut), never blank."""
    text = text.strip() or "(no text)"
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class PlanOutcome:
    """`status` is the plan's status after the cycle: proposed, attention, failed, applied or completed."""

    plan_id: str
    sequence: int
    trigger: str
    status: str
    decision: str | None = None
    reason: str | None = None
    failure_class: str | None = None

    def with_status(self, status: str, reason: str | None = None) -> PlanOutcome:
        return replace(self, status=status, reason=reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "plan",
            "plan_id": self.plan_id,
            "sequence": self.sequence,
            "trigger": self.trigger,
            "status": self.status,
            "decision": self.decision,
            "reason": self.reason,
            "class": self.failure_class,
        }
