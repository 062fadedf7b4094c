"""Projection: pure functions from loaded records to frozen views (state is derived, never stored)."""

from harn_tui.core.projection.goal import GoalView, graph_fingerprint, project_goal
from harn_tui.core.projection.plans import PlanView, plan_status, project_plan
from harn_tui.core.projection.resolver import WorkResolver
from harn_tui.core.projection.work import AttemptView, WorkView, project_work_item

__all__ = [
    "AttemptView",
    "GoalView",
    "PlanView",
    "WorkResolver",
    "WorkView",
    "graph_fingerprint",
    "plan_status",
    "project_goal",
    "project_plan",
    "project_work_item",
]
