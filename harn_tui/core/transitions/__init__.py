"""Addressed operator transitions: one function per verb, shared by the CLI, the console and the supervisor.

Each checks, in order: usage and bounds (UsageError, 2), the address exists (NotFound, 4), the addressed goal or
work is readable (CorruptJournal, 5), an idempotent repeat (`already_done`, nothing written), then every rule
(Refused, 3, naming the rule and the state). It runs under the goal lease (or the work lease for standalone work)
on state re-read under it, records lost attempts, and appends exactly one event.
"""

from harn_tui.core.transitions.approvals import decide_approval
from harn_tui.core.transitions.arguments import clean_findings, clean_reason, parse_disposition
from harn_tui.core.transitions.lost import repair_lost_attempts
from harn_tui.core.transitions.outcome import Outcome
from harn_tui.core.transitions.plans import approve_plan, reject_plan, reopen_plan, retry_plan
from harn_tui.core.transitions.scope import GoalScope, WorkScope, goal_scope, owning_goal, work_scope
from harn_tui.core.transitions.work import accept_work, cancel_work, latest_operator_event, reopen_work

__all__ = [
    "GoalScope",
    "Outcome",
    "WorkScope",
    "accept_work",
    "approve_plan",
    "cancel_work",
    "clean_findings",
    "clean_reason",
    "decide_approval",
    "goal_scope",
    "latest_operator_event",
    "owning_goal",
    "parse_disposition",
    "reject_plan",
    "reopen_plan",
    "reopen_work",
    "repair_lost_attempts",
    "retry_plan",
    "work_scope",
]
