"""A goal over time: its history, its state at any past entry, and what each plan changes (`harn supervisor
history`, `show --at`, `plan diff`, the console's History tab)."""

from harn_tui.core.history.diff import Generation, PlanDiff, plan_diff
from harn_tui.core.history.entries import GoalHistory, HistoryEntry, goal_history, history_work_ids
from harn_tui.core.history.past import tree_at
from harn_tui.core.history.reading import (
    GoalOverTime,
    load_goal_over_time,
    parse_when,
    plan_diff_document,
    select_position,
    show_at_document,
)

__all__ = [
    "Generation",
    "GoalHistory",
    "GoalOverTime",
    "HistoryEntry",
    "PlanDiff",
    "goal_history",
    "history_work_ids",
    "load_goal_over_time",
    "parse_when",
    "plan_diff",
    "plan_diff_document",
    "select_position",
    "show_at_document",
    "tree_at",
]
