"""Work transitions: accept with dispositions, reopen with findings (seed 003), cancel."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from harn_tui.core.errors import CorruptJournal, Refused
from harn_tui.core.ids import check_id
from harn_tui.core.layout import Layout
from harn_tui.core.records import Disposition, Finding, WorkAccepted, WorkCancelled, WorkEvent, WorkReopened
from harn_tui.core.rules import work_accept, work_cancel, work_reopen
from harn_tui.core.transitions.arguments import check_dispositions, clean_findings, clean_reason
from harn_tui.core.transitions.outcome import Outcome, already_done, applied
from harn_tui.core.transitions.scope import WorkScope, require_work, work_scope
from harn_tui.core.writer import append_event

LIFECYCLE_EVENTS = frozenset({"work.accepted", "work.cancelled", "work.reopened", "attempt.started"})


def latest_operator_event(events: Iterable[WorkEvent]) -> WorkEvent | None:
    """The work's latest accept, cancel or reopen, unless an attempt started after it.

    An attempt's start consumes a reopen: a reopen after the next attempt is a new request, not a repeat.
    """
    latest = None
    for event in events:
        if event.event in LIFECYCLE_EVENTS:
            latest = event
    return latest if latest is not None and latest.event != "attempt.started" else None


def _begin(layout: Layout, work_id: str, actor: str) -> None:
    check_id(work_id, "work id")
    check_id(actor, "actor")


def _append(scope: WorkScope, event_type: type[Any], actor: str, **payload: Any) -> Outcome:
    scope.repair_lost()
    return applied(append_event(scope.files.log, event_type, actor, **payload))


def _disposition_key(dispositions: Iterable[Disposition]) -> frozenset[tuple[str, str, str | None]]:
    return frozenset((d.id, d.outcome, d.reason) for d in dispositions)


def accept_work(
    layout: Layout,
    work_id: str,
    *,
    actor: str,
    dispositions: Sequence[Disposition] = (),
    reason: str | None = None,
) -> Outcome:
    """Accept work in review; every open finding needs a disposition. Records the accepted proof's sha256."""
    _begin(layout, work_id, actor)
    reason = clean_reason(reason, required=False)
    given = check_dispositions(list(dispositions))
    require_work(layout, work_id)
    with work_scope(layout, work_id) as scope:
        last = latest_operator_event(scope.files.events)
        if last is not None and last.event == "work.accepted":
            if _disposition_key(last.dispositions) == _disposition_key(given):
                return already_done(last)
            raise Refused(f"work {work_id} is already accepted with different dispositions")
        view = scope.view
        work_accept(view, given).require()
        attempt = view.latest_attempt
        assert attempt is not None
        run = scope.tree.runs.get(attempt.run_id)
        if run is None or run.proof_sha256 is None:
            raise CorruptJournal(f"{layout.run(attempt.run_id) / 'proof.json'}: missing; the passing proof is gone")
        return _append(
            scope,
            WorkAccepted,
            actor,
            run_id=attempt.run_id,
            proof_sha256=run.proof_sha256,
            dispositions=[d.model_dump(mode="json") for d in given],
            reason=reason,
        )


def reopen_work(
    layout: Layout,
    work_id: str,
    *,
    actor: str,
    findings: Sequence[str] = (),
    reason: str | None = None,
) -> Outcome:
    """Send work back for a fresh attempt. Findings get ids f1..fN and replace the open set; none keeps it."""
    _begin(layout, work_id, actor)
    statements = clean_findings(list(findings))
    reason = clean_reason(reason, required=False)
    require_work(layout, work_id)
    with work_scope(layout, work_id) as scope:
        last = latest_operator_event(scope.files.events)
        if last is not None and last.event == "work.reopened":
            if [f.statement for f in last.findings] == statements:
                return already_done(last)
            raise Refused(f"work {work_id} is already reopened with different findings")
        work_reopen(scope.view).require()
        raised = [Finding(id=f"f{n}", statement=s, actor=actor) for n, s in enumerate(statements, start=1)]
        return _append(scope, WorkReopened, actor, findings=[f.model_dump(mode="json") for f in raised], reason=reason)


def cancel_work(layout: Layout, work_id: str, *, actor: str, reason: str | None = None) -> Outcome:
    """Cancel work that is not running; a parked attempt's approval becomes moot."""
    _begin(layout, work_id, actor)
    reason = clean_reason(reason, required=False)
    require_work(layout, work_id)
    with work_scope(layout, work_id) as scope:
        last = latest_operator_event(scope.files.events)
        if last is not None and last.event == "work.cancelled":
            if last.reason == reason:
                return already_done(last)
            raise Refused(f"work {work_id} is already cancelled with a different reason")
        work_cancel(scope.view).require()
        return _append(scope, WorkCancelled, actor, reason=reason)
