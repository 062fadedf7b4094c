"""Plan transitions: approve (apply or complete), reject, retry an attention plan (seed 000), reopen a mission."""

from __future__ import annotations

from typing import Any

from harn_tui.core.errors import NotFound, Refused
from harn_tui.core.ids import check_id
from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView, PlanView
from harn_tui.core.records import (
    PlanApplied,
    PlanCompleted,
    PlanEvent,
    PlanRejected,
    PlanReopened,
    PlanRetryRequested,
)
from harn_tui.core.template_digest import check_template_digest
from harn_tui.core.transitions.arguments import clean_reason
from harn_tui.core.transitions.materialize import materialize, planned_work
from harn_tui.core.transitions.outcome import Outcome, already_done, applied
from harn_tui.core.transitions.scope import GoalScope, goal_scope, require_goal
from harn_tui.core.writer import append_event


def _check_address(layout: Layout, goal_id: str, plan_id: str, actor: str) -> None:
    check_id(goal_id, "goal id")
    check_id(plan_id, "plan id")
    check_id(actor, "actor")


def _require_plan(layout: Layout, goal_id: str, plan_id: str) -> None:
    require_goal(layout, goal_id)
    if not (layout.plan(goal_id, plan_id) / "request.json").is_file():
        raise NotFound(f"plan {plan_id} does not exist in goal {goal_id}")


def _plan(scope: GoalScope, plan_id: str) -> PlanView:
    plan = scope.goal.plan(plan_id)
    if plan is None:
        raise NotFound(f"plan {plan_id} does not exist in goal {scope.goal.id}")
    return plan


def _event(plan: PlanView, *names: str) -> PlanEvent | None:
    return next((e for e in plan.events if e.event in names), None)


def _require_latest(goal: GoalView, plan: PlanView) -> None:
    latest = goal.latest_plan
    if latest is not None and latest.id != plan.id:
        raise Refused(f"plan {plan.id} is not the latest plan of goal {goal.id} (the latest is {latest.id})")


def _require_status(plan: PlanView, status: str) -> None:
    if plan.status != status:
        raise Refused(f"plan {plan.id} is {plan.status}, not {status}")


def _require_root(goal: GoalView, plan: PlanView) -> None:
    requested = plan.request.prior_root_work_id
    if requested != goal.active_root:
        raise Refused(
            f"stale root: plan {plan.id} was requested for root {requested}, but the active root is {goal.active_root}"
        )


def _append(scope: GoalScope, plan_id: str, event_type: type[Any], actor: str, **payload: Any) -> Outcome:
    scope.repair_lost()
    return applied(append_event(scope.plan_files(plan_id).log, event_type, actor, **payload))


def approve_plan(layout: Layout, goal_id: str, plan_id: str, *, actor: str, reason: str | None = None) -> Outcome:
    """Apply (materialize, then `plan.applied`) or complete (`plan.completed`) the latest proposed plan."""
    _check_address(layout, goal_id, plan_id, actor)
    reason = clean_reason(reason, required=False)
    _require_plan(layout, goal_id, plan_id)
    with goal_scope(layout, goal_id) as scope:
        goal, plan = scope.goal, _plan(scope, plan_id)
        done = _event(plan, "plan.applied", "plan.completed")
        if done is not None:
            return already_done(done)
        _require_status(plan, "proposed")
        _require_latest(goal, plan)
        proposal = plan.proposal
        if proposal is None or proposal.decision not in ("apply", "complete"):
            decision = proposal.decision if proposal is not None else "nothing"
            raise Refused(f"plan {plan_id} decided {decision}; only apply or complete can be approved")
        _require_root(goal, plan)
        _require_review(goal, plan)
        _require_templates(goal, plan)
        if proposal.decision == "complete":
            return _append(scope, plan_id, PlanCompleted, actor, reason=reason)
        assert goal.intent is not None and goal.intent.replanning is not None
        planned = planned_work(goal_id, plan_id, proposal, goal.intent.replanning.templates, set(goal.active_ids))
        scope.repair_lost()
        materialize(layout, planned, actor)
        return _append(
            scope, plan_id, PlanApplied, actor, root_work_id=planned.root_work_id, work_ids=planned.work_ids,
            reason=reason,
        )


def _require_review(goal: GoalView, plan: PlanView) -> None:
    """With reviewers, the approved proposal must be exactly the reviewed candidate."""
    replanning = goal.intent.replanning if goal.intent is not None else None
    if replanning is None or not replanning.reviewers:
        return
    reviewed = _event(plan, "plan.reviewed")
    if reviewed is None or reviewed.event != "plan.reviewed":
        raise Refused(f"plan {plan.id} has no plan.reviewed event; this goal's reviewers must approve it first")
    if reviewed.candidate_sha256 != plan.proposal_sha256:
        raise Refused(
            f"proposal digest changed: proposal.json of plan {plan.id} has sha256 {plan.proposal_sha256}, "
            f"the reviewers approved {reviewed.candidate_sha256}"
        )
    _, round_sha256 = plan.round_candidate(reviewed.round)
    if round_sha256 != reviewed.candidate_sha256:
        where = "candidate.json" if reviewed.round == 0 else f"revision-{reviewed.round}/candidate.json"
        raise Refused(
            f"candidate digest changed: {where} of plan {plan.id} has sha256 {round_sha256}, "
            f"the reviewers approved {reviewed.candidate_sha256} in round {reviewed.round}"
        )


def _require_templates(goal: GoalView, plan: PlanView) -> None:
    """Every template the proposal names still matches its frozen digest (re-hashed now)."""
    replanning = goal.intent.replanning if goal.intent is not None else None
    assert plan.proposal is not None
    catalog = replanning.templates if replanning is not None else {}
    for template_id in dict.fromkeys(item.template for item in plan.proposal.work):
        frozen = catalog.get(template_id)
        if frozen is None:
            raise Refused(f"plan {plan.id} names template {template_id!r}, which is not in the frozen catalog")
        check_template_digest(frozen.path, frozen.sha256, f"template {template_id}")


def _repeat_with_reason(plan: PlanView, name: str, status: str, reason: str) -> Outcome | None:
    """already_done when the plan holds `name` with the same reason; a different reason is refused."""
    prior = _event(plan, name)
    if prior is None:
        return None
    if getattr(prior, "reason", None) == reason:
        return already_done(prior)
    raise Refused(f"plan {plan.id} is already {status} with a different reason; the first reason stands")


def reject_plan(layout: Layout, goal_id: str, plan_id: str, *, actor: str, reason: str | None) -> Outcome:
    """Reject a proposed plan; the reason reaches the next planner as `latest_plan.reason`."""
    _check_address(layout, goal_id, plan_id, actor)
    cleaned = clean_reason(reason, required=True)
    assert cleaned is not None
    _require_plan(layout, goal_id, plan_id)
    with goal_scope(layout, goal_id) as scope:
        plan = _plan(scope, plan_id)
        repeat = _repeat_with_reason(plan, "plan.rejected", "rejected", cleaned)
        if repeat is not None:
            return repeat
        _require_status(plan, "proposed")
        return _append(scope, plan_id, PlanRejected, actor, reason=cleaned)


def retry_plan(layout: Layout, goal_id: str, plan_id: str, *, actor: str, reason: str | None) -> Outcome:
    """Authorize one more planner request for the latest attention plan, carrying the operator's guidance."""
    _check_address(layout, goal_id, plan_id, actor)
    cleaned = clean_reason(reason, required=True)
    assert cleaned is not None
    _require_plan(layout, goal_id, plan_id)
    with goal_scope(layout, goal_id) as scope:
        goal, plan = scope.goal, _plan(scope, plan_id)
        repeat = _repeat_with_reason(plan, "plan.retry_requested", "retry_requested", cleaned)
        if repeat is not None:
            return repeat
        _require_latest(goal, plan)
        _require_status(plan, "attention")
        _require_root(goal, plan)
        if plan.request.graph_fingerprint != goal.graph_fingerprint:
            raise Refused(
                f"stale graph: plan {plan_id} was requested at fingerprint {plan.request.graph_fingerprint}, "
                f"the graph is now {goal.graph_fingerprint}"
            )
        if goal.mission_complete:
            raise Refused(f"goal {goal_id}'s mission is complete; there is nothing to plan")
        if goal.replans_remaining <= 0:
            raise Refused(f"no replan slot left: goal {goal_id} has used all {goal.replans_used} of its replans")
        return _append(scope, plan_id, PlanRetryRequested, actor, reason=cleaned)


def reopen_refusal(goal: GoalView, plan: PlanView) -> str | None:
    """Why `plan reopen` is not legal on `plan` now (None when it is): the latest plan, completed, a milestone
    left to plan."""
    latest = goal.latest_plan
    if latest is not None and latest.id != plan.id:
        return f"plan {plan.id} is not the latest plan of goal {goal.id} (the latest is {latest.id})"
    if plan.status != "completed":
        return f"plan {plan.id} is {plan.status}, not completed; only a completed mission can be reopened"
    mission = goal.intent.mission if goal.intent is not None else None
    if mission is None or goal.milestones_completed >= mission.max_milestones:
        done = goal.milestones_completed
        limit = mission.max_milestones if mission is not None else 0
        return f"no milestone left: goal {goal.id} has completed {done} of its {limit} milestones"
    return None


def reopen_plan(layout: Layout, goal_id: str, plan_id: str, *, actor: str, reason: str | None) -> Outcome:
    """Reopen a completed mission (its latest plan): the next tick plans one more milestone with the reason."""
    _check_address(layout, goal_id, plan_id, actor)
    cleaned = clean_reason(reason, required=True)
    assert cleaned is not None
    _require_plan(layout, goal_id, plan_id)
    with goal_scope(layout, goal_id) as scope:
        goal, plan = scope.goal, _plan(scope, plan_id)
        repeat = _repeat_with_reason(plan, "plan.reopened", "reopened", cleaned)
        if repeat is not None:
            return repeat
        refusal = reopen_refusal(goal, plan)
        if refusal is not None:
            raise Refused(refusal)
        return _append(scope, plan_id, PlanReopened, actor, reason=cleaned)
