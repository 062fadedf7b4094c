"""What a plan replaces, keeps and adds: the active closure as of its request against the one its root makes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harn_tui.core.errors import Refused
from harn_tui.core.history.entries import GoalHistory
from harn_tui.core.history.past import tree_at
from harn_tui.core.ids import plan_work_id
from harn_tui.core.projection import GoalView, PlanView, WorkResolver, project_goal
from harn_tui.core.projection.resolver import closure_of
from harn_tui.core.records import Proposal
from harn_tui.core.tree import Tree


@dataclass(frozen=True, slots=True)
class Generation:
    generation: int
    root_work_id: str | None
    work_ids: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"generation": self.generation, "root_work_id": self.root_work_id, "work_ids": list(self.work_ids)}


@dataclass(frozen=True, slots=True)
class PlanDiff:
    plan_id: str
    status: str
    before: Generation
    after: Generation | None
    replaced: tuple[str, ...]
    kept: tuple[str, ...]
    added: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "plan_id": self.plan_id,
            "status": self.status,
            "before": self.before.to_json(),
            "after": self.after.to_json() if self.after is not None else None,
            "replaced": list(self.replaced),
            "kept": list(self.kept),
            "added": list(self.added),
        }


def plan_diff(tree: Tree, live: GoalView, history: Callable[[], GoalHistory], plan: PlanView) -> PlanDiff:
    """The diff of `plan` (a plan of the live goal `live`); Refused when it has no proposal to compare.

    `history` is asked for the goal's history only when the graph may have changed since the plan's request:
    the latest, unapplied plan (the one an approval card shows) compares with the live graph, and reading a
    thousand-entry history for it would cost the console tens of milliseconds per plan shown."""
    proposal = plan.proposal
    if proposal is None:
        raise Refused(f"plan {plan.id} is {plan.status} and has no proposal.json: nothing to compare")
    then = live if _graph_unchanged_since_request(live, plan) else _at_request(tree, live, history(), plan)
    before = Generation(then.generation, then.active_root, tuple(sorted(then.active_ids)))
    if proposal.decision != "apply" or proposal.root is None:
        return PlanDiff(plan.id, plan.status, before, None, (), (), ())
    root = plan_work_id(plan.id, proposal.root)
    after_ids = set(closure_after(tree, plan.id, proposal, root))
    after = Generation(before.generation + 1, root, tuple(sorted(after_ids)))
    was = set(before.work_ids)
    return PlanDiff(
        plan.id,
        plan.status,
        before,
        after,
        tuple(sorted(was - after_ids)),
        tuple(sorted(was & after_ids)),
        tuple(sorted(after_ids - was)),
    )


def _graph_unchanged_since_request(live: GoalView, plan: PlanView) -> bool:
    """The latest plan, not applied: no plan was applied since its request, so the active root and closure are
    the ones its request found (intents never change), whatever the order of equal timestamps in the history."""
    return live.latest_plan is plan and plan.status not in ("applied", "completed")


def _at_request(tree: Tree, live: GoalView, history: GoalHistory, plan: PlanView) -> GoalView:
    requested = next(
        position
        for position, entry in enumerate(history.entries, start=1)
        if entry.event == "plan.requested" and entry.id == plan.id
    )
    return project_goal(tree_at(tree, live.id, history, requested), live.id)


def closure_after(tree: Tree, plan_id: str, proposal: Proposal, root: str) -> list[str]:
    """The closure of the plan's root: its items' dependencies as materializing maps them (an earlier key is
    `<plan-id>-<key>`, anything else names existing work), existing work's from its intent."""
    keys = {item.key for item in proposal.work}
    planned = {
        plan_work_id(plan_id, item.key): [plan_work_id(plan_id, d) if d in keys else d for d in item.dependencies]
        for item in proposal.work
    }
    existing = WorkResolver(tree).dependencies
    return closure_of(root, lambda work_id: planned[work_id] if work_id in planned else existing(work_id))
