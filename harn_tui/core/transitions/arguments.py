"""Operator arguments checked before anything is read (exit 2): reasons, findings, dispositions."""

from __future__ import annotations

from harn_tui.core.errors import UsageError
from harn_tui.core.ids import is_valid_id
from harn_tui.core.records import Disposition
from harn_tui.core.records.common import FINDING_MAX, FINDINGS_MAX, REASON_MAX


def clean_reason(reason: str | None, *, required: bool, what: str = "--reason") -> str | None:
    """The trimmed reason, 1..2,000 characters; None only when it is optional and not given."""
    if reason is None:
        if required:
            raise UsageError(f"{what} is required")
        return None
    text = reason.strip()
    if not text:
        raise UsageError(f"{what} is blank; a reason must be 1..{REASON_MAX} characters after trimming")
    if len(text) > REASON_MAX:
        raise UsageError(f"{what} is {len(text)} characters; at most {REASON_MAX} are allowed")
    return text


def clean_findings(findings: list[str]) -> list[str]:
    """Trimmed finding statements: at most 20, each 1..1,000 characters (none keeps the open set)."""
    if len(findings) > FINDINGS_MAX:
        raise UsageError(f"{len(findings)} findings given; a reopen takes at most {FINDINGS_MAX}")
    cleaned: list[str] = []
    for number, statement in enumerate(findings, start=1):
        text = statement.strip()
        if not text:
            raise UsageError(f"finding {number} is blank; a finding must be 1..{FINDING_MAX} characters")
        if len(text) > FINDING_MAX:
            raise UsageError(f"finding {number} is {len(text)} characters; at most {FINDING_MAX} are allowed")
        cleaned.append(text)
    return cleaned


def parse_disposition(text: str) -> Disposition:
    """`ID=fixed` or `ID=deferred:REASON` (REASON is everything after the first `:`); bad syntax is exit 2.

    ID only needs ID syntax here: a well-formed ID that names no open finding is refused later (exit 3,
    "unknown finding id"), as SPEC 6 and 8 class it.
    """
    finding_id, equals, rest = text.partition("=")
    finding_id = finding_id.strip()
    if not equals or not is_valid_id(finding_id):
        raise UsageError(f"disposition {text!r} must be ID=fixed or ID=deferred:REASON with ID like f1")
    outcome, colon, reason = rest.partition(":")
    outcome = outcome.strip()
    if outcome == "fixed" and not colon:
        return Disposition(id=finding_id, outcome="fixed")
    if outcome == "deferred":
        if not colon or not reason.strip():
            raise UsageError(f"disposition {text!r}: deferred needs a reason (ID=deferred:REASON)")
        cleaned = clean_reason(reason, required=True, what=f"the reason deferring {finding_id}")
        return Disposition(id=finding_id, outcome="deferred", reason=cleaned)
    raise UsageError(f"disposition {text!r}: unknown outcome {rest!r}; use fixed or deferred:REASON")


def check_dispositions(dispositions: list[Disposition]) -> list[Disposition]:
    """Each finding disposed at most once; a deferral carries its reason."""
    seen: set[str] = set()
    for disposition in dispositions:
        if disposition.id in seen:
            raise UsageError(f"finding {disposition.id} is disposed twice")
        seen.add(disposition.id)
        if disposition.outcome == "deferred" and not (disposition.reason or "").strip():
            raise UsageError(f"deferring {disposition.id} needs a reason")
    return dispositions
