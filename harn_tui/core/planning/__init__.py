"""The planner cycle: plan requests, planner and reviewer inputs, host validation and recorded outcomes."""

from __future__ import annotations

from harn_tui.core.planning.cycle import PLAN_ACTIONS, complete_attention, run_plan_cycle
from harn_tui.core.planning.outcome import PlanOutcome
from harn_tui.core.planning.validation import PlanRules, check_planner_reply
from harn_tui.core.planning.view import loop_tree, loop_view

__all__ = [
    "PLAN_ACTIONS",
    "PlanOutcome",
    "PlanRules",
    "check_planner_reply",
    "complete_attention",
    "loop_tree",
    "loop_view",
    "run_plan_cycle",
]
