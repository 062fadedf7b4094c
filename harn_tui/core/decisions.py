"""The decisions waiting for a human, oldest first: `harn pending` and the console's decision queue (n / N)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from harn_tui.core.history.entries import instant
from harn_tui.core.projection import GoalView, PlanView, WorkView
from harn_tui.core.rules import pending_approval, work_accept

DecisionKind = Literal["review_plan", "retry_plan", "review_work", "approval"]


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision; `since` is when it began to wait (the proposal, the attention, the passing or parked
    attempt's finish), which orders the queue."""

    kind: DecisionKind
    goal_id: str | None
    plan_id: str | None
    work_id: str | None
    approval_id: str | None
    reason: str
    since: str

    @property
    def key(self) -> tuple[str, str | None, str | None, str | None, str | None]:
        return self.kind, self.goal_id, self.plan_id, self.work_id, self.approval_id

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "goal_id": self.goal_id,
            "plan_id": self.plan_id,
            "work_id": self.work_id,
            "approval_id": self.approval_id,
            "reason": self.reason,
        }


def decisions_of(goals: Iterable[GoalView], standalone: Iterable[WorkView]) -> list[Decision]:
    """Every decision of `goals` (a work item counts for the first goal governing it, when active there) and of
    the `standalone` work (belonging to no goal), oldest first; equal times keep goal order, then work order."""
    found: list[Decision] = []
    claimed: set[str] = set()
    for goal in goals:
        plan = goal.plan(goal.pending_plan_id) if goal.pending_plan_id else None
        if plan is not None:
            found.append(
                Decision("review_plan", goal.id, plan.id, None, None, goal.reason, _plan_since(plan, "plan.proposed"))
            )
        attention = goal.plan(goal.attention_plan_id) if goal.attention_plan_id else None
        if attention is not None and goal.next_action == "retry_plan":
            found.append(
                Decision(
                    "retry_plan",
                    goal.id,
                    attention.id,
                    None,
                    None,
                    goal.reason,
                    _plan_since(attention, "plan.attention"),
                )
            )
        items = {item.id: item for item in goal.work}
        for work_id in goal.governed_work_ids:
            if work_id in claimed:
                continue
            claimed.add(work_id)
            item = items.get(work_id)
            if item is not None and item.active:
                found.extend(_work_decisions(item, goal.id))
    for item in standalone:
        if item.id not in claimed:
            found.extend(_work_decisions(item, None))
    order = sorted(range(len(found)), key=lambda index: (_moment(found[index].since), index))
    return [found[index] for index in order]


def _work_decisions(item: WorkView, goal_id: str | None) -> list[Decision]:
    latest = item.latest_attempt
    since = (latest.finished_at or latest.started_at) if latest is not None else ""
    decisions: list[Decision] = []
    if work_accept(item).holds:
        decisions.append(Decision("review_work", goal_id, None, item.id, None, item.reason, since))
    approval_id = pending_approval(item)
    if approval_id:
        decisions.append(Decision("approval", goal_id, None, item.id, approval_id, item.reason, since))
    return decisions


def _plan_since(plan: PlanView, event: str) -> str:
    found = next((e.ts for e in reversed(plan.events) if e.event == event), None)
    return found or plan.request.created_at


def _moment(ts: str) -> datetime:
    try:
        return instant(ts)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
