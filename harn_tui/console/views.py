"""Read helpers the console renders: retry eligibility, work history, review queue, failing proofs.

Pure functions of projected views and loaded records; the console shows these and computes no state of
its own. Retry eligibility is `plan retry`'s own checks (`core.rules`), so an operator sees which holds and
which does not before typing a reason (the transition checks them again under the lease).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harn_tui.core.decisions import Decision, decisions_of
from harn_tui.core.projection import AttemptView, GoalView, PlanView, WorkView
from harn_tui.core.records import Disposition, Proof, WorkEvent
from harn_tui.core.rules import Checks, latest_attention_plan, pending_approval, plan_reject, plan_retry

if TYPE_CHECKING:
    from harn_tui.console.model import ConsoleModel

STANDALONE = "(standalone)"  # the console's row for work that belongs to no goal; never a valid goal id


def pending_proposal(goal: GoalView) -> PlanView | None:
    """The latest plan while `plan reject` (and the first check of approve) holds for it: what both address."""
    latest = goal.latest_plan
    return latest if latest is not None and plan_reject(latest).holds else None


@dataclass(frozen=True)
class RetryEligibility:
    """`plan retry`'s checks for the goal's most recent attention plan (none when no plan is in attention)."""

    plan_id: str | None
    checks: Checks

    @property
    def eligible(self) -> bool:
        return self.plan_id is not None and self.checks.holds


def retry_eligibility(goal: GoalView) -> RetryEligibility:
    """Each check of `plan retry` for the goal's most recent attention plan, in the order the core applies them."""
    target = latest_attention_plan(goal.plans)
    if target is None:
        return RetryEligibility(None, Checks(()))
    return RetryEligibility(target.id, plan_retry(goal, target))


@dataclass(frozen=True)
class HistoryRow:
    seq: int
    ts: str
    event: str
    actor: str
    reason: str | None
    detail: str


def work_history(events: Sequence[WorkEvent]) -> list[HistoryRow]:
    """Every event of a work item, oldest first, with the facts an operator reads (run, status, findings)."""
    return [HistoryRow(e.seq, e.ts, e.event, e.actor, getattr(e, "reason", None), _detail(e)) for e in events]


def _detail(event: WorkEvent) -> str:
    if event.event == "attempt.started":
        return f"attempt {event.attempt} ({event.trigger}) {event.run_id}"
    if event.event == "attempt.finished":
        shown = f"{event.run_id} {event.status}"
        if event.class_:
            shown += f" class {event.class_}"
        if event.approval_id:
            shown += f" approval {event.approval_id}"
        return shown
    if event.event == "attempt.resumed":
        return f"{event.run_id} resumed after {event.approval_id}"
    if event.event == "work.accepted":
        return f"{event.run_id} accepted, {len(event.dispositions)} disposition(s)"
    if event.event == "work.reopened":
        return f"{len(event.findings)} finding(s)"
    return ""


def review_queue(goal: GoalView) -> list[WorkView]:
    """Active work an operator should look at for findings: in review, or carrying open findings."""
    return [w for w in goal.work if w.active and (w.state == "in_review" or w.open_findings)]


@dataclass(frozen=True)
class PastDisposition:
    ts: str
    actor: str
    disposition: Disposition


def dispositions_so_far(events: Sequence[WorkEvent]) -> list[PastDisposition]:
    """Dispositions recorded on every earlier `work.accepted` of this item, oldest first."""
    return [PastDisposition(e.ts, e.actor, d) for e in events if e.event == "work.accepted" for d in e.dispositions]


def all_findings(events: Sequence[WorkEvent]) -> list[tuple[str, str, str, str]]:
    """(ts, finding id, actor, statement) of every finding ever raised on the item, oldest first."""
    return [(e.ts, f.id, f.actor, f.statement) for e in events if e.event == "work.reopened" for f in e.findings]


@dataclass(frozen=True)
class FailingProof:
    work: WorkView
    attempt: AttemptView
    proof: Proof | None


def failing_proofs(goal: GoalView, proof_of: Callable[[str], Proof | None]) -> list[FailingProof]:
    """The latest failed attempt of every blocked active item, with its proof (looked up by run id) if any."""
    found: list[FailingProof] = []
    for work in goal.work:
        latest = work.latest_attempt
        if not work.active or work.state != "blocked" or latest is None:
            continue
        found.append(FailingProof(work, latest, proof_of(latest.run_id)))
    return found


def first_needing_human(goals: Sequence[GoalView]) -> GoalView | None:
    """The goal selected on start: the first awaiting a human decision, else the first goal."""
    return next((g for g in goals if g.needs_human), goals[0] if goals else None)


def is_standalone(goal: GoalView | None) -> bool:
    return goal is not None and goal.id == STANDALONE


def standalone_goal(items: Sequence[WorkView]) -> GoalView | None:
    """Standalone work that needs a human, as a goal-shaped view the console's panels can show: its work is the
    items (in id order), it has no plans, no root and no budgets. None when no such work exists."""
    if not items:
        return None
    ordered = tuple(sorted(items, key=lambda w: w.id))
    reviews = [w.id for w in ordered if w.state == "in_review"]
    approvals = [w.id for w in ordered if pending_approval(w) is not None]
    parts = ([f"in review: {', '.join(reviews)}"] if reviews else []) + (
        [f"waiting on an approval: {', '.join(approvals)}"] if approvals else []
    )
    return GoalView.without_graph(
        STANDALONE,
        "Standalone work (no goal)",
        "awaiting_attention",
        "review" if reviews else "resolve_approval",
        f"{len(ordered)} work item(s) belonging to no goal need a human; " + "; ".join(parts),
        attempts_used=sum(w.charged_attempts for w in ordered),
        governed_work_ids=tuple(w.id for w in ordered),
        active_ids=tuple(w.id for w in ordered),
        work=ordered,
    )


def console_decisions(model: ConsoleModel) -> list[Decision]:
    """The decisions waiting for a human anywhere in the console's tree, in the order of `harn pending`."""
    standalone = model.standalone.work if model.standalone is not None else ()
    return decisions_of(model.goal_list(), standalone)
