"""Work projection: fold a work item's events into attempts, findings, a state and a next action."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from harn_tui.core.records import Finding, WorkEvent
from harn_tui.core.rules import AttemptStatus, WorkAction, WorkState
from harn_tui.core.tree_files import ApprovalFiles, RunFiles, WorkFiles

UNCHARGED_CLASSES = frozenset({"upstream", "environment"})
UNCHARGED_STREAK_LIMIT = 3


@dataclass(frozen=True, slots=True, eq=False)
class AttemptView:
    """One attempt as its item's events and its run's proof tell it.

    `summary` and `proof_sha256` are the proof's: read from the run when first asked where the run's proof was
    left unread (`RunFiles.defer_proof`, an attempt that is history at a whole-tree load), so equal views compare
    equal whichever way their proofs were read.
    """

    run_id: str
    number: int
    trigger: str
    status: AttemptStatus
    class_: str | None
    reason: str | None
    _summary: str | None
    started_at: str
    finished_at: str | None
    started_by: str
    approval_id: str | None
    _proof_sha256: str | None
    _deferred_run: RunFiles | None = None

    @property
    def summary(self) -> str | None:
        run = self._deferred_run
        return run.proof_summary if run is not None else self._summary

    @property
    def proof_sha256(self) -> str | None:
        run = self._deferred_run
        return run.proof_sha256 if run is not None else self._proof_sha256

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _ATTEMPT_KEY)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AttemptView) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def charged(self) -> bool:
        return not (self.status in ("failed", "lost") and self.class_ in UNCHARGED_CLASSES)

    @property
    def finished(self) -> bool:
        return self.status in ("passed", "failed", "lost")

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "number": self.number,
            "trigger": self.trigger,
            "status": self.status,
            "class": self.class_,
            "summary": self.summary,
            "reason": self.reason,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "approval_id": self.approval_id,
        }


# what two views compare by: every field, the proof's through their properties (`_deferred_run` is how, not what)
_ATTEMPT_KEY = tuple(f.name.removeprefix("_") for f in fields(AttemptView) if f.name != "_deferred_run")


@dataclass(frozen=True, slots=True)
class WorkView:
    """The derived state of one work item. `active` is relative to the goal that projected it."""

    id: str
    title: str
    state: WorkState
    next_action: WorkAction
    reason: str
    active: bool
    attempts: tuple[AttemptView, ...]
    charged_attempts: int
    max_attempts: int
    dependencies: tuple[str, ...]
    open_findings: tuple[Finding, ...]
    last_seq: int
    approval_id: str | None
    approval_decided: bool
    problem: str | None
    source_kind: str = "human"
    source_ref: str | None = None
    attempts_since_reopen: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def attempts_used(self) -> int:
        return len(self.attempts)

    @property
    def latest_attempt(self) -> AttemptView | None:
        return self.attempts[-1] if self.attempts else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "state": self.state,
            "next_action": self.next_action,
            "reason": self.reason,
            "active": self.active,
            "attempts_used": self.attempts_used,
            "max_attempts": self.max_attempts,
            "dependencies": list(self.dependencies),
            "open_findings": [f.model_dump(mode="json") for f in self.open_findings],
        }


@dataclass(frozen=True, slots=True)
class WorkFold:
    """Everything about a work item that does not depend on its dependencies' states."""

    attempts: tuple[AttemptView, ...]
    terminal: str | None  # accepted | cancelled | None (none yet, or reopened since)
    open_findings: tuple[Finding, ...]
    attempts_since_reopen: int
    uncharged_streak: int
    last_seq: int


def fold_work(
    events: list[WorkEvent], runs: Mapping[str, RunFiles], approvals: Mapping[str, ApprovalFiles]
) -> WorkFold:
    # each attempt as a list, in `_attempt_view`'s order: run, number, trigger, status, class, reason, started at,
    # finished at, started by, approval (a fold of every item of a large tree makes a hundred thousand of them)
    attempts: list[list[Any]] = []
    by_run: dict[str, list[Any]] = {}
    terminal: str | None = None
    findings: tuple[Finding, ...] = ()
    reopen_at = 0
    for event in events:
        if event.event == "attempt.started":
            attempt = [
                event.run_id,
                event.attempt,
                event.trigger,
                "running",
                None,
                None,
                event.ts,
                None,
                event.actor,
                None,
            ]
            attempts.append(attempt)
            by_run[event.run_id] = attempt
        elif event.event == "attempt.finished":
            target = by_run.get(event.run_id)
            if target is not None:
                target[3], target[4], target[5], target[7] = event.status, event.class_, event.reason, event.ts
                if event.approval_id:
                    target[9] = event.approval_id
        elif event.event == "attempt.resumed":
            target = by_run.get(event.run_id)
            if target is not None:
                target[3], target[7] = "running", None
        elif event.event == "work.accepted":
            terminal, findings = "accepted", ()
        elif event.event == "work.cancelled":
            terminal = "cancelled"
        elif event.event == "work.reopened":
            terminal = None
            reopen_at = len(attempts)
            if event.findings:
                findings = tuple(event.findings)
    get = runs.get
    views = tuple([_attempt_view(attempt, get(attempt[0])) for attempt in attempts])
    return WorkFold(
        attempts=views,
        terminal=terminal,
        open_findings=findings,
        attempts_since_reopen=len(attempts) - reopen_at,
        uncharged_streak=_uncharged_streak(views),
        last_seq=events[-1].seq if events else 0,
    )


def _attempt_view(attempt: list[Any], run: RunFiles | None) -> AttemptView:
    run_id, number, trigger, status, class_, reason, started_at, finished_at, started_by, approval_id = attempt
    if run is None:
        if status == "running":
            status, reason = "lost", "lost"
        return AttemptView(
            run_id,
            number,
            trigger,
            status,
            class_,
            reason,
            None,
            started_at,
            finished_at,
            started_by,
            approval_id,
            None,
        )
    if status == "running" and not run.live:
        if run.unrecorded is not None:  # what the next writer records (finish_note)
            status, class_, reason = "failed", "environment", run.unrecorded
        else:
            status, reason = "lost", "lost"
    deferred = run.proof_deferred
    return AttemptView(
        run_id,
        number,
        trigger,
        status,
        class_,
        reason,
        None if deferred else run.proof_summary,
        started_at,
        finished_at,
        started_by,
        approval_id,
        None if deferred else run.proof_sha256,
        run if deferred else None,
    )


def _uncharged_streak(attempts: tuple[AttemptView, ...]) -> int:
    """Trailing uncharged failures; an attempt an operator started opens a new streak."""
    streak = 0
    for attempt in reversed(attempts):
        if attempt.status not in ("failed", "lost") or attempt.charged:
            break
        streak += 1
        if attempt.started_by != "supervisor":
            break
    return streak


def decide_work_state(
    work: WorkFiles,
    fold: WorkFold,
    dependency_states: Mapping[str, str],
    approvals: Mapping[str, ApprovalFiles],
) -> tuple[WorkState, WorkAction, str]:
    """(state, next_action, reason) by the first matching rule of SPEC section 5."""
    intent = work.intent
    max_attempts = intent.max_attempts if intent else 0
    if fold.terminal == "accepted":
        return "succeeded", "none", "accepted"
    if fold.terminal == "cancelled":
        return "cancelled", "none", "cancelled by an operator"
    unmet = [dep for dep, state in dependency_states.items() if state != "succeeded"]
    if unmet:
        return "waiting", "wait", f"waiting for {', '.join(unmet)}"
    latest = fold.attempts[-1] if fold.attempts else None
    if latest is not None and latest.status == "running":
        return "running", "wait", f"attempt {latest.number} ({latest.run_id}) is running"
    if latest is None or fold.attempts_since_reopen == 0:
        return "ready", "run", "no attempt yet" if latest is None else "reopened; a fresh attempt is due"
    if latest.status == "parked":
        approval = approvals.get(latest.approval_id or "")
        if approval is not None and approval.decision is not None:
            return "awaiting_approval", "resume", f"approval {latest.approval_id} decided; resume is due"
        return "awaiting_approval", "resolve_approval", f"attempt parked on approval {latest.approval_id}"
    if latest.status == "passed":
        return "in_review", "review", f"attempt {latest.number} passed; an operator must review it"
    charged = sum(1 for a in fold.attempts if a.charged)
    why = latest.reason or latest.summary or "failed"
    if latest.class_ == "decision":
        return "blocked", "none", f"attempt {latest.number} failed on a decision: {why}"
    if charged >= max_attempts:
        return "blocked", "none", f"attempt {latest.number} failed ({why}); {charged}/{max_attempts} attempts used"
    if fold.uncharged_streak >= UNCHARGED_STREAK_LIMIT:
        return "blocked", "none", f"{fold.uncharged_streak} consecutive uncharged failures ({why})"
    return "blocked", "retry", f"attempt {latest.number} failed ({why}); {charged}/{max_attempts} attempts used"


def project_work_item(
    work: WorkFiles,
    dependency_states: Mapping[str, str],
    runs: Mapping[str, RunFiles],
    approvals: Mapping[str, ApprovalFiles],
    active: bool = False,
) -> WorkView:
    intent = work.intent
    problem = work.problem
    if problem is not None or intent is None:
        return WorkView(
            id=work.id,
            title=intent.title if intent else work.id,
            state="corrupt",
            next_action="none",
            reason=problem or "unreadable",
            active=active,
            attempts=(),
            charged_attempts=0,
            max_attempts=intent.max_attempts if intent else 0,
            dependencies=tuple(intent.dependencies) if intent else (),
            open_findings=(),
            last_seq=len(work.events),
            approval_id=None,
            approval_decided=False,
            problem=problem or "unreadable",
        )
    fold = fold_work(work.events, runs, approvals)
    state, next_action, reason = decide_work_state(work, fold, dependency_states, approvals)
    latest = fold.attempts[-1] if fold.attempts else None
    approval_id = latest.approval_id if latest is not None and latest.status == "parked" else None
    approval = approvals.get(approval_id or "")
    return WorkView(
        id=work.id,
        title=intent.title,
        state=state,
        next_action=next_action,
        reason=reason,
        active=active,
        attempts=fold.attempts,
        charged_attempts=sum(1 for a in fold.attempts if a.charged),
        max_attempts=intent.max_attempts,
        dependencies=tuple(intent.dependencies),
        open_findings=fold.open_findings,
        last_seq=fold.last_seq,
        approval_id=approval_id,
        approval_decided=approval is not None and approval.decision is not None,
        problem=None,
        source_kind=intent.source.kind,
        source_ref=intent.source.ref,
        attempts_since_reopen=fold.attempts_since_reopen,
    )
