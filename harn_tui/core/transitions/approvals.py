"""Approval decisions: the first decision wins and is written once as `approvals/<id>/decision.json`."""

from __future__ import annotations

from harn_tui.core.clock import now_iso
from harn_tui.core.errors import CorruptJournal, NotFound, Refused, UsageError
from harn_tui.core.fsio import write_record
from harn_tui.core.ids import check_id
from harn_tui.core.journal import read_optional, read_record
from harn_tui.core.layout import Layout
from harn_tui.core.records import ApprovalDecision, ApprovalRequest
from harn_tui.core.rules import approval_decide
from harn_tui.core.transitions.arguments import clean_reason
from harn_tui.core.transitions.outcome import Outcome, already_done, applied
from harn_tui.core.transitions.scope import work_scope

VERDICT_WORDS = {"approve": "approved", "deny": "denied"}


def decide_approval(
    layout: Layout, approval_id: str, *, verdict: str, actor: str, reason: str | None = None
) -> Outcome:
    """Approve or deny the approval a parked attempt waits on. The same verdict again is a repeat (for deny, with
    the same reason); a different decision is refused; an approval whose attempt is no longer parked is moot."""
    check_id(approval_id, "approval id")
    check_id(actor, "actor")
    if verdict not in VERDICT_WORDS:
        raise UsageError(f"verdict {verdict!r} must be approve or deny")
    reason = clean_reason(reason, required=False)
    directory = layout.approval(approval_id)
    if not (directory / "request.json").is_file():
        raise NotFound(f"approval {approval_id} does not exist")
    request = read_record(directory / "request.json", ApprovalRequest)
    if not layout.work(request.work_id).is_dir():
        raise CorruptJournal(f"approval {approval_id} names work {request.work_id}, which does not exist")
    with work_scope(layout, request.work_id) as scope:
        decided = read_optional(directory / "decision.json", ApprovalDecision)
        if decided is not None:
            if decided.verdict == verdict and (verdict == "approve" or decided.reason == reason):
                return already_done(decided)
            if decided.verdict == verdict:
                raise Refused(f"approval {approval_id} is already {VERDICT_WORDS[verdict]} with a different reason")
            raise Refused(
                f"approval {approval_id} is already decided: {VERDICT_WORDS[decided.verdict]} by {decided.actor}"
            )
        approval_decide(scope.view, approval_id).require()
        scope.repair_lost()
        decision = ApprovalDecision(
            approval_id=approval_id,
            verdict=verdict,
            actor=actor,
            reason=reason,
            decided_at=now_iso(),
        )
        write_record(directory / "decision.json", decision)
        return applied(decision)
