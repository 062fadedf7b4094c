"""The planner and reviewer inputs exactly as SPEC section 7 lists them, and their on-disk bodies."""

from __future__ import annotations

from functools import cache
from typing import Any

from harn_tui.core.projection import GoalView
from harn_tui.core.records import GoalIntent, PlannerInput, PlannerReply, PlanRequest, Proposal, ReviewerReply
from harn_tui.core.records.plan import (
    CatalogEntry,
    LatestPlan,
    PlannerBudgets,
    PlannerGoal,
    PlannerWorkView,
    ReviewerInput,
)
from harn_tui.core.tree import Tree


@cache
def planner_reply_schema() -> dict[str, Any]:
    return PlannerReply.model_json_schema(by_alias=True)


@cache
def reviewer_reply_schema() -> dict[str, Any]:
    return ReviewerReply.model_json_schema(by_alias=True)


def applied_work_count(view: GoalView) -> int:
    """Work created by every applied plan: what `max_total_work_items` bounds."""
    return sum(len(plan.work_ids) for plan in view.plans if plan.status in ("applied", "completed"))


def build_planner_input(tree: Tree, view: GoalView, intent: GoalIntent, request: PlanRequest) -> PlannerInput:
    """`view` is the goal as it was when the request was decided (before the request consumed its slot)."""
    replanning = intent.replanning
    assert replanning is not None, "only a goal with replanning has plan requests"
    latest = view.latest_plan
    mission = intent.mission
    return PlannerInput(
        plan_id=request.id,
        sequence=request.sequence,
        trigger=request.trigger,
        goal=PlannerGoal(id=view.id, title=intent.title, mission=mission),
        instructions=intent.team[replanning.planner].instructions,
        active_root_work_id=view.active_root,
        generation=view.generation,
        budgets=PlannerBudgets(
            replans_remaining=max(0, view.replans_remaining - 1),
            attempts_remaining=view.attempts_remaining,
            max_work_items_per_plan=replanning.max_work_items_per_plan,
            work_items_remaining=max(0, replanning.max_total_work_items - applied_work_count(view)),
            milestones_remaining=(
                max(0, mission.max_milestones - view.milestones_completed) if mission is not None else None
            ),
        ),
        latest_plan=(
            LatestPlan(id=latest.id, status=latest.status, reason=latest.reason, rationale=latest.rationale)
            if latest is not None
            else None
        ),
        templates={
            template_id: CatalogEntry(root=spec.root, max_attempts=spec.max_attempts)
            for template_id, spec in replanning.templates.items()
        },
        work=[_work_view(tree, view, work_id) for work_id in view.active_ids],
        reply_schema=planner_reply_schema(),
    )


def _work_view(tree: Tree, view: GoalView, work_id: str) -> PlannerWorkView:
    item = view.work_item(work_id)
    files = tree.work[work_id]
    assert item is not None and files.intent is not None, "the active closure of a readable goal is readable"
    latest = item.latest_attempt
    return PlannerWorkView(
        id=work_id,
        title=files.intent.title,
        objective=files.intent.objective,
        acceptance=list(files.intent.acceptance),
        state=item.state,
        attempts_used=item.attempts_used,
        proof_summary=latest.summary if latest is not None else None,
    )


def build_reviewer_input(
    reviewer_id: str,
    intent: GoalIntent,
    planner_input: PlannerInput,
    candidate: Proposal,
    candidate_sha256: str,
) -> ReviewerInput:
    return ReviewerInput(
        reviewer_id=reviewer_id,
        plan_id=candidate.plan_id,
        sequence=planner_input.sequence,
        instructions=intent.team[reviewer_id].instructions,
        candidate_sha256=candidate_sha256,
        candidate=candidate,
        planner_input=planner_input,
        reply_schema=reviewer_reply_schema(),
    )


def input_document(model: PlannerInput | ReviewerInput) -> dict[str, Any]:
    """The JSON body: `problems` and `previous_reply` appear only on the retry input."""
    document = model.model_dump(mode="json", by_alias=True)
    if model.problems is None:
        document.pop("problems")
        document.pop("previous_reply")
    if isinstance(model, PlannerInput) and model.revision is None:
        document.pop("revision")
    if isinstance(model, ReviewerInput):
        document["planner_input"] = input_document(model.planner_input)
    return document
