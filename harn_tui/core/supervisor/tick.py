"""One supervisor cycle for one goal, under its `supervisor.lock` (SPEC section 7, Tick)."""

from __future__ import annotations

import os
from collections.abc import Callable

from harn_tui.core.errors import CorruptJournal, NotFound, Refused, SystemRefused
from harn_tui.core.executors import LOCAL, Executor, ExecutorUnavailable
from harn_tui.core.faults import fault_point
from harn_tui.core.held import scoped_tree
from harn_tui.core.ids import check_id
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease, LeaseBusy, hold_lease, try_hold
from harn_tui.core.planning import (
    PLAN_ACTIONS,
    PlanOutcome,
    complete_attention,
    loop_tree,
    loop_view,
    run_plan_cycle,
)
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.queries import with_torn_logs
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.runner import PreparedAttempt
from harn_tui.core.supervisor.dispatch import (
    TreeStarter,
    dispatch_cycle,
    has_dispatch,
    needs_acceptance,
    prepare_jobs,
    run_jobs,
)
from harn_tui.core.supervisor.report import TickReport, stop_reason_for
from harn_tui.core.transitions import approve_plan
from harn_tui.core.writer import SUPERVISOR_ACTOR


def require_goal(layout: Layout, goal_id: str) -> None:
    """The goal exists (4 if not); a goal directory that is a link is damage (5) before any lock is taken in it.
    A goal.json that is anything but missing is read (and reported) by the tick itself."""
    check_id(goal_id, "goal id")
    linked = directory_problem(layout.goal(goal_id)) or directory_problem(layout.supervisors)
    if linked is not None:
        raise CorruptJournal(linked)
    if not os.path.lexists(layout.goal(goal_id) / "goal.json"):
        raise NotFound(f"goal {goal_id} does not exist")


def hold_loop(layout: Layout, goal_id: str) -> HeldLease | None:
    """The goal's `supervisor.lock` if no other supervisor holds it (a second supervisor skips)."""
    return try_hold(layout.goal(goal_id) / "supervisor.lock", f"supervisor loop of goal {goal_id}")


def tick_goal(layout: Layout, goal_id: str, executor: Executor = LOCAL) -> TickReport:
    """One tick, its attempts on `executor`; the report carries the goal document read after the lock is
    released. That one read also gives the stop reason of a tick that acted."""
    require_goal(layout, goal_id)
    report = locked_tick(layout, goal_id, lambda: tick_locked(layout, goal_id, settle=False, executor=executor))
    with scoped_tree(layout, goal_id, check="logs") as tree:
        report.goal = with_torn_logs(tree, project_goal(tree, goal_id))
        if report.acted and report.error is None and report.unavailable is None:
            tree.goals[goal_id].loop_held = False
            report.stop_reason = stop_reason_for(project_goal(tree, goal_id))
    return report


def locked_tick(layout: Layout, goal_id: str, body: Callable[[], TickReport]) -> TickReport:
    """`body` under the goal's `supervisor.lock`: `busy` when another supervisor holds it, `io_error` when the
    system refuses the lock file itself (a read-only tree)."""
    try:
        lock = hold_loop(layout, goal_id)
    except SystemRefused as error:
        report = TickReport("io_error")
        report.refused_by_system(error)
        return report
    if lock is None:
        return TickReport("busy")
    try:
        return body()
    finally:
        lock.release()


def tick_locked(layout: Layout, goal_id: str, settle: bool = True, executor: Executor = LOCAL) -> TickReport:
    """The cycle itself; the caller holds `supervisor.lock`. A goal with nothing to do is not written to; an
    unreadable goal is CorruptJournal (exit 5), never acted on. A write the system refuses stops the tick with
    `io_error` (what it wrote before stays, as after a crash there; attempts already begun still run).

    The goal is read once, under the goal lease, for the decision; when the decision is to start attempts they
    are recorded on that same read before the lease is released. With `settle`, a tick that acted re-reads the
    goal for its stop reason (a caller that reads the goal afterwards anyway passes False and sets it).

    An executor not yet connected is connected to (outside the goal lease) when the goal has an attempt to
    dispatch; unreachable, the tick records nothing and stops with `executor_unavailable`."""
    report = TickReport("no_change")
    try:
        if not executor.connected and _would_dispatch(layout, goal_id):
            executor.connect()
        _tick(layout, goal_id, report, settle, executor)
    except ExecutorUnavailable as error:
        report.executor_unavailable(error.message)
    except SystemRefused as error:
        report.refused_by_system(error)
    if report.error is not None:
        report.stop_reason = "io_error"
    return report


def _would_dispatch(layout: Layout, goal_id: str) -> bool:
    """A read of the goal (no lease): it has an attempt to start or resume now."""
    view = loop_view(layout, goal_id)
    return view.intent is not None and view.next_action == "run" and has_dispatch(view)


def _tick(layout: Layout, goal_id: str, report: TickReport, settle: bool, executor: Executor) -> None:
    fault_point("tick.start")
    jobs: list[PreparedAttempt] | None = None
    with hold_lease(layout.goal(goal_id) / "lease", f"goal {goal_id}"), loop_tree(layout, goal_id) as (tree, view):
        if view.state == "corrupt":
            raise CorruptJournal(f"goal {goal_id} is corrupt: {view.reason}")
        report.stop_reason = stop_reason_for(view)
        if view.next_action == "run" and not needs_acceptance(view):
            jobs = prepare_jobs(view, report, TreeStarter(layout, tree, goal_id))
    if jobs is not None:
        report.dispatches += len(jobs)
        run_jobs(jobs, report, executor)
    elif view.next_action in PLAN_ACTIONS:
        plan_step(layout, goal_id, report)
    elif view.next_action == "review_plan" and _pending_decision(view) == "attention":
        completed = complete_attention(layout, goal_id)
        if completed is not None:
            report.outcomes.append(completed.to_json())
    elif view.next_action == "review_plan" and auto_applies(view):
        finish_auto_apply(layout, view, report)
    elif view.next_action == "run":
        dispatch_cycle(layout, goal_id, view, report, executor)
    if report.acted:
        report.cycles = 1
        if settle and report.error is None:
            report.stop_reason = stop_reason_for(loop_view(layout, goal_id))
    fault_point("tick.end")


def plan_step(layout: Layout, goal_id: str, report: TickReport) -> None:
    """One plan request; under `auto_apply` a proposal is applied through the operator's transition."""
    outcome = run_plan_cycle(layout, goal_id)
    if outcome is None:
        return
    report.replans += 1
    if outcome.status == "proposed" and outcome.decision in ("apply", "complete"):
        outcome = auto_apply(layout, goal_id, outcome)
    report.outcomes.append(outcome.to_json())


def _pending_decision(view: GoalView) -> str | None:
    plan = view.plan(view.pending_plan_id or "")
    return plan.decision if plan is not None else None


def auto_applies(view: GoalView) -> bool:
    replanning = view.intent.replanning if view.intent is not None else None
    return replanning is not None and replanning.auto_apply


def finish_auto_apply(layout: Layout, view: GoalView, report: TickReport) -> None:
    """A proposal still pending under `auto_apply` (its tick was interrupted before applying, or the apply was
    refused): try the apply again. A refusal writes nothing, so the goal stays quiescent."""
    plan = view.plan(view.pending_plan_id or "")
    if plan is None or plan.decision not in ("apply", "complete"):
        return
    pending = PlanOutcome(plan.id, plan.sequence, plan.trigger, "proposed", decision=plan.decision)
    outcome = auto_apply(layout, view.id, pending)
    if outcome.status != "proposed":
        report.applied += 1
        report.outcomes.append(outcome.to_json())


def auto_apply(layout: Layout, goal_id: str, outcome: PlanOutcome) -> PlanOutcome:
    view = loop_view(layout, goal_id)
    if not auto_applies(view):
        return outcome
    try:
        approve_plan(layout, goal_id, outcome.plan_id, actor=SUPERVISOR_ACTOR)
    except LeaseBusy:
        raise
    except Refused as refusal:
        return outcome.with_status("proposed", f"auto_apply refused: {refusal.message}")
    fault_point("tick.plan_applied")
    return outcome.with_status("completed" if outcome.decision == "complete" else "applied")
