"""Input validators that enforce the core's text bounds (trimmed length) before anything is dispatched."""

from __future__ import annotations

from textual.validation import ValidationResult, Validator

from harn_tui.core.records.common import FINDING_MAX, REASON_MAX

HINT = "enter in the last field or ctrl+s submits · esc goes back without writing anything"


class Bounded(Validator):
    """Trimmed text of at most `limit` characters; blank fails only when `required`."""

    def __init__(self, what: str, limit: int, *, required: bool) -> None:
        super().__init__()
        self.what = what
        self.limit = limit
        self.required = required

    def validate(self, value: str) -> ValidationResult:
        text = value.strip()
        if not text and self.required:
            return self.failure(f"a {self.what} is required (1..{self.limit:,} characters)")
        if len(text) > self.limit:
            return self.failure(f"the {self.what} is {len(text):,} characters; at most {self.limit:,} are allowed")
        return self.success()


def reason_bound(required: bool) -> Bounded:
    return Bounded("reason", REASON_MAX, required=required)


def finding_bound() -> Bounded:
    return Bounded("finding", FINDING_MAX, required=False)


def counter_text(value: str, limit: int) -> str:
    """`123/2,000` over the trimmed text, the same length the core checks."""
    return f"{len(value.strip()):,}/{limit:,}"
