"""Goal projection: generations, budgets, the graph fingerprint and the first matching state rule."""

from __future__ import annotations

from harn_tui.core.projection.cache import GoalMemo, GoalShape, ProjectionCache, cache_for
from harn_tui.core.projection.fingerprint import cached_fingerprint
from harn_tui.core.projection.fingerprint import graph_fingerprint as graph_fingerprint
from harn_tui.core.projection.goal_view import GoalView as GoalView
from harn_tui.core.projection.plans import PlanView
from harn_tui.core.projection.resolver import WorkResolver
from harn_tui.core.projection.shape import goal_shape
from harn_tui.core.projection.work import WorkView
from harn_tui.core.records import GoalIntent
from harn_tui.core.rules import (
    GoalDecision,
    GoalSituation,
    decide_goal,
    goal_rule_1_corrupt,
)
from harn_tui.core.tree import Tree
from harn_tui.core.tree_files import GoalFiles


def project_goal(tree: Tree, goal_id: str, resolver: WorkResolver | None = None) -> GoalView:
    """The goal's derived state; never raises for damage (a damaged goal projects as `corrupt`).

    Re-projecting a goal of a loaded tree re-folds only the items whose records changed since its last
    projection (and the items depending on them); see `projection.cache`.
    """
    goal = tree.goals[goal_id]
    resolver = resolver or WorkResolver(tree)
    intent = goal.intent
    problem = goal.problem
    if intent is None or problem is not None:
        return _corrupt_goal(goal, problem or "goal.json unreadable")
    cache = cache_for(tree)
    plans = tuple(
        cache.plan_view(p, goal.loop_held if p.loop_held is None else p.loop_held) for p in goal.ordered_plans()
    )
    applied = [p for p in plans if p.status in ("applied", "completed") and p.root_work_id]
    generation = len(applied)
    active_root = applied[-1].root_work_id if applied else intent.root_work_id
    shape = goal_shape(tree, cache, resolver, goal.id, intent.root_work_id, active_root, applied)
    cycle_hits = resolver.cycle_hits
    memo = cache.goals.get(goal.id)
    stale: set[str] | None = None
    folded: tuple[WorkView, ...] | GoalView | None = None
    if memo is not None and memo.shape is shape and memo.intent is intent:
        changed = memo.changed(tree)
        if not changed and memo.plans == plans:
            return memo.view
        stale = set(changed)
        resolver.seed(memo.views, stale)
        folded = _refold(goal, resolver, shape, memo, stale)
    if folded is None:
        stale = None
        folded = _fold(goal, resolver, shape)
    if isinstance(folded, GoalView):
        return folded
    work = folded
    active = [w for w in work if w.active]
    fingerprint = cached_fingerprint(cache, goal.id, active_root, generation, active)
    result = _decide(
        goal, intent, plans, applied, active_root, shape.active_ids, shape.governed, work, active, fingerprint
    )
    if resolver.cycle_hits == cycle_hits:
        _remember(cache, intent, plans, shape, resolver, result, memo, stale)
    return result


def _fold(goal: GoalFiles, resolver: WorkResolver, shape: GoalShape) -> tuple[WorkView, ...] | GoalView:
    """Every governed item's view in `work[]` order, or the corrupt goal the first damaged item makes."""
    views: dict[str, WorkView] = {}
    for work_id in shape.governed:
        found = resolver.view(work_id)
        if found is None:
            return _corrupt_goal(goal, f"work {work_id} is missing from the tree")
        if found.problem:
            return _corrupt_goal(goal, found.problem)
        views[work_id] = found
    active_set = shape.active_set
    return tuple(resolver.flagged(views[w], w in active_set) for w in shape.ordered if w in views)


def _refold(
    goal: GoalFiles, resolver: WorkResolver, shape: GoalShape, memo: GoalMemo, stale: set[str]
) -> tuple[WorkView, ...] | GoalView | None:
    """The last projection's `work[]` with the changed items re-folded; None if it cannot be patched.

    An item whose state changed makes its dependents stale too (a view sees its dependencies only through
    their states); `stale` grows to every item re-folded.
    """
    pending = list(stale)
    while pending:
        work_id = pending.pop()
        found = resolver.view(work_id)
        before = memo.views.get(work_id)
        if found is None or before is None or found.state != before.state:
            for dependent in shape.dependents.get(work_id, ()):
                resolver.forget(dependent)
                stale.add(dependent)
                pending.append(dependent)
    positions = memo.positions
    work = list(memo.view.work)
    governed_index = shape.governed_index
    for work_id in sorted((w for w in stale if w in governed_index), key=governed_index.__getitem__):
        found = resolver.view(work_id)
        if found is None:
            return _corrupt_goal(goal, f"work {work_id} is missing from the tree")
        if found.problem:
            return _corrupt_goal(goal, found.problem)
        position = positions.get(work_id)
        if position is None:
            return None
        work[position] = resolver.flagged(found, work_id in shape.active_set)
    return tuple(work)


def _remember(
    cache: ProjectionCache,
    intent: GoalIntent,
    plans: tuple[PlanView, ...],
    shape: GoalShape,
    resolver: WorkResolver,
    result: GoalView,
    previous: GoalMemo | None,
    stale: set[str] | None,
) -> None:
    """Keep the projection with the entry of each folded item; a patched projection renews only the stale."""
    if previous is not None and stale is not None:
        entries = dict(previous.entries)
        entries.update(resolver.entries(stale))
    else:
        entries = resolver.entries(shape.reach)
    cache.goals[result.id] = GoalMemo(intent, plans, shape, entries, result)


def _decide(
    goal: GoalFiles,
    intent: GoalIntent,
    plans: tuple[PlanView, ...],
    applied: list[PlanView],
    active_root: str | None,
    active_ids: list[str],
    governed: list[str],
    work: tuple[WorkView, ...],
    active: list[WorkView],
    fingerprint: str,
) -> GoalView:
    charged = sum(w.charged_attempts for w in work)
    attempts_remaining = max(0, intent.limits.max_total_attempts - charged)
    replanning = intent.replanning
    replans_used = len(plans)
    replans_remaining = max(0, replanning.max_replans - replans_used) if replanning else 0
    mission_complete = any(p.status == "completed" for p in plans)
    milestones = _milestones_completed(intent, applied, work)
    latest = plans[-1] if plans else None
    by_id = {w.id: w for w in work}
    root_view = by_id.get(active_root or "")
    situation = GoalSituation(
        id=goal.id,
        intent=intent,
        plans=plans,
        active_root=active_root,
        root_state=root_view.state if root_view is not None else None,
        active=tuple(active),
        attempts_remaining=attempts_remaining,
        replans_used=replans_used,
        replans_remaining=replans_remaining,
        milestones_completed=milestones,
        mission_complete=mission_complete,
        graph_fingerprint=fingerprint,
    )
    decision = decide_goal(situation)
    return GoalView(
        id=goal.id,
        title=intent.title,
        state=decision.state,
        next_action=decision.next_action,
        reason=decision.reason,
        intent=intent,
        active_root=active_root,
        generation=len(applied),
        attempts_used=sum(w.attempts_used for w in work),
        attempts_remaining=attempts_remaining,
        replans_used=replans_used,
        replans_remaining=replans_remaining,
        milestones_completed=milestones,
        pending_plan_id=decision.pending_plan_id,
        attention_plan_id=decision.attention_plan_id,
        latest_plan_status=latest.status if latest else None,
        governed_work_ids=tuple(governed),
        active_ids=tuple(active_ids),
        work=work,
        plans=plans,
        problems=(),
        graph_fingerprint=fingerprint,
        mission_complete=mission_complete,
        rule=decision.rule,
    )


def _milestones_completed(intent: GoalIntent, applied: list[PlanView], work: tuple[WorkView, ...]) -> int:
    if intent.mission is None:
        return 0
    states = {w.id: w.state for w in work}
    done = {
        p.proposal.milestone.sequence
        for p in applied
        if p.proposal is not None
        and p.proposal.milestone is not None
        and states.get(p.root_work_id or "") == "succeeded"
    }
    supplied = 1 if intent.root_work_id and states.get(intent.root_work_id) == "succeeded" else 0
    return len(done) + supplied


def _corrupt_goal(goal: GoalFiles, reason: str) -> GoalView:
    intent = goal.intent
    decision: GoalDecision | None = goal_rule_1_corrupt(reason)
    assert decision is not None
    return GoalView.without_graph(
        goal.id,
        intent.title if intent else goal.id,
        decision.state,
        decision.next_action,
        decision.reason,
        intent=intent,
        problems=({"path": str(goal.directory), "problem": reason},),
        rule=decision.rule,
    )
