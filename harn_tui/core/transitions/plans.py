"""Plan transitions: approve (apply or complete), reject, retry an attention plan (seed 000), reopen a mission."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harn_tui.core.errors import NotFound, Refused
from harn_tui.core.ids import check_id
from harn_tui.core.layout import Layout
from harn_tui.core.projection import PlanView
from harn_tui.core.records import (
    PlanApplied,
    PlanCompleted,
    PlanEvent,
    PlanRejected,
    PlanReopened,
    PlanRetryRequested,
)
from harn_tui.core.rules import (
    Checks,
    GoalFacts,
    PlanFacts,
    plan_approve,
    plan_reject,
    plan_reopen,
    plan_retry,
    plan_templates_frozen,
)
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
        plan_approve(goal, plan).require()
        plan_templates_frozen(goal, plan).require()
        proposal = plan.proposal
        assert proposal is not None
        if proposal.decision == "complete":
            return _append(scope, plan_id, PlanCompleted, actor, reason=reason)
        assert goal.intent is not None and goal.intent.replanning is not None
        planned = planned_work(goal_id, plan_id, proposal, goal.intent.replanning.templates, set(goal.active_ids))
        scope.repair_lost()
        materialize(layout, planned, actor)
        return _append(
            scope,
            plan_id,
            PlanApplied,
            actor,
            root_work_id=planned.root_work_id,
            work_ids=planned.work_ids,
            reason=reason,
        )


def _repeat_with_reason(plan: PlanView, name: str, status: str, reason: str) -> Outcome | None:
    """already_done when the plan holds `name` with the same reason; a different reason is refused."""
    prior = _event(plan, name)
    if prior is None:
        return None
    if getattr(prior, "reason", None) == reason:
        return already_done(prior)
    raise Refused(f"plan {plan.id} is already {status} with a different reason; the first reason stands")


def _reasoned_transition(
    layout: Layout,
    goal_id: str,
    plan_id: str,
    actor: str,
    reason: str | None,
    *,
    event: type[PlanEvent],
    status: str,
    rule: Callable[[GoalFacts, PlanFacts], Checks],
) -> Outcome:
    """The shape every plan verb with a required reason shares (reject, retry, reopen): bounds, the address, a
    repeat of the same reason, the verb's rule, then the one event."""
    _check_address(layout, goal_id, plan_id, actor)
    cleaned = clean_reason(reason, required=True)
    assert cleaned is not None
    _require_plan(layout, goal_id, plan_id)
    with goal_scope(layout, goal_id) as scope:
        goal, plan = scope.goal, _plan(scope, plan_id)
        repeat = _repeat_with_reason(plan, f"plan.{status}", status, cleaned)
        if repeat is not None:
            return repeat
        rule(goal, plan).require()
        return _append(scope, plan_id, event, actor, reason=cleaned)


def reject_plan(layout: Layout, goal_id: str, plan_id: str, *, actor: str, reason: str | None) -> Outcome:
    """Reject a proposed plan; the reason reaches the next planner as `latest_plan.reason`."""
    return _reasoned_transition(
        layout,
        goal_id,
        plan_id,
        actor,
        reason,
        event=PlanRejected,
        status="rejected",
        rule=lambda _goal, plan: plan_reject(plan),
    )


def retry_plan(layout: Layout, goal_id: str, plan_id: str, *, actor: str, reason: str | None) -> Outcome:
    """Authorize one more planner request for the latest attention plan, carrying the operator's guidance."""
    return _reasoned_transition(
        layout, goal_id, plan_id, actor, reason, event=PlanRetryRequested, status="retry_requested", rule=plan_retry
    )


def reopen_plan(layout: Layout, goal_id: str, plan_id: str, *, actor: str, reason: str | None) -> Outcome:
    """Reopen a completed mission (its latest plan): the next tick plans one more milestone with the reason."""
    return _reasoned_transition(
        layout, goal_id, plan_id, actor, reason, event=PlanReopened, status="reopened", rule=plan_reopen
    )
