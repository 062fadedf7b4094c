"""The goal's derived state as readers see it (`project_goal` in `goal.py` builds it). A module of its own so that
the projection's cache can name it without importing the projection that fills the cache."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harn_tui.core.projection.plans import PlanView
from harn_tui.core.projection.work import WorkView
from harn_tui.core.records import GoalIntent
from harn_tui.core.rules import GoalAction, GoalState, PlanStatus


@dataclass(frozen=True, slots=True)
class GoalView:
    id: str
    title: str
    state: GoalState
    next_action: GoalAction
    reason: str
    intent: GoalIntent | None
    active_root: str | None
    generation: int
    attempts_used: int
    attempts_remaining: int
    replans_used: int
    replans_remaining: int
    milestones_completed: int
    pending_plan_id: str | None
    attention_plan_id: str | None
    latest_plan_status: PlanStatus | None
    governed_work_ids: tuple[str, ...]
    active_ids: tuple[str, ...]
    work: tuple[WorkView, ...]
    plans: tuple[PlanView, ...]
    problems: tuple[dict[str, str], ...]
    graph_fingerprint: str
    mission_complete: bool
    rule: int = 0  # the number of the goal rule that decided `state` (0 for a view no rule decided)

    @classmethod
    def without_graph(
        cls, id: str, title: str, state: GoalState, next_action: GoalAction, reason: str, **fields: Any
    ) -> GoalView:
        """A view with no graph, plans or budgets (`fields` sets any of them): a goal whose records do not
        read, or a goal-shaped row that is not a goal's projection."""
        empty: dict[str, Any] = {
            "intent": None,
            "active_root": None,
            "generation": 0,
            "attempts_used": 0,
            "attempts_remaining": 0,
            "replans_used": 0,
            "replans_remaining": 0,
            "milestones_completed": 0,
            "pending_plan_id": None,
            "attention_plan_id": None,
            "latest_plan_status": None,
            "governed_work_ids": (),
            "active_ids": (),
            "work": (),
            "plans": (),
            "problems": (),
            "graph_fingerprint": "",
            "mission_complete": False,
        }
        return cls(id, title, state, next_action, reason, **{**empty, **fields})

    @property
    def needs_human(self) -> bool:
        return self.state == "awaiting_attention"

    @property
    def latest_plan(self) -> PlanView | None:
        return self.plans[-1] if self.plans else None

    def work_item(self, work_id: str) -> WorkView | None:
        return next((w for w in self.work if w.id == work_id), None)

    def plan(self, plan_id: str) -> PlanView | None:
        return next((p for p in self.plans if p.id == plan_id), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "state": self.state,
            "next_action": self.next_action,
            "reason": self.reason,
            "root_work_id": self.active_root,
            "generation": self.generation,
            "attempts_used": self.attempts_used,
            "attempts_remaining": self.attempts_remaining,
            "replans_used": self.replans_used,
            "replans_remaining": self.replans_remaining,
            "milestones_completed": self.milestones_completed,
            "pending_plan_id": self.pending_plan_id,
            "attention_plan_id": self.attention_plan_id,
            "latest_plan_status": self.latest_plan_status,
            "graph_fingerprint": self.graph_fingerprint,
            "governed_work_ids": list(self.governed_work_ids),
            "work": [w.to_json() for w in self.work],
            "plans": [p.to_json() for p in self.plans],
            "problems": list(self.problems),
        }
