"""Creating a plan request: the next sequence per goal (an aborted creation's sequence is reused)."""

from __future__ import annotations

import os
from pathlib import Path

from harn_tui.core.clock import now_iso
from harn_tui.core.fsio import write_record
from harn_tui.core.ids import is_valid_id, new_plan_id
from harn_tui.core.projection import GoalView
from harn_tui.core.records import PlanRequest
from harn_tui.core.records.plan import Trigger

ACTION_TRIGGERS: dict[str, Trigger] = {
    "plan_initial": "initial",
    "plan_milestone": "milestone",
    "replan": "recovery",
}


def allocate_plan_id(plans_dir: Path, sequence: int) -> str:
    """A directory `plan-<sequence>-*` without request.json is an aborted creation: reuse it, else a new id."""
    prefix = f"plan-{sequence:04d}-"
    try:
        names = sorted(os.listdir(plans_dir))
    except FileNotFoundError:
        names = []
    for name in names:
        if name.startswith(prefix) and is_valid_id(name) and not (plans_dir / name / "request.json").exists():
            return name
    return new_plan_id(sequence)


def create_plan_request(goal_dir: Path, view: GoalView, trigger: Trigger) -> PlanRequest:
    """Write `request.json` for the next plan of `view`'s goal; the caller holds the goal lease."""
    sequence = max((plan.sequence for plan in view.plans), default=0) + 1
    plans_dir = goal_dir / "plans"
    plan_id = allocate_plan_id(plans_dir, sequence)
    request = PlanRequest(
        id=plan_id,
        goal_id=view.id,
        sequence=sequence,
        trigger=trigger,
        graph_fingerprint=view.graph_fingerprint,
        prior_root_work_id=view.active_root,
        created_at=now_iso(),
    )
    write_record(plans_dir / plan_id / "request.json", request)
    return request
