"""The scheduling half of a tick: accept passing work, resume approved parks, start ready items concurrently.

Every `attempt.started` / `attempt.resumed` is recorded (one goal-lease hold each) before any template runs;
the templates then run in worker threads, at most `max_parallel_work` at once, and the tick waits for all.
A rule refusal of one item is reported as its outcome; a busy lease is an error the caller retries later.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harn_tui.core.errors import HarnError, Refused, SystemRefused
from harn_tui.core.executors import LOCAL, Executor
from harn_tui.core.faults import fault_point
from harn_tui.core.layout import Layout
from harn_tui.core.leases import LeaseBusy
from harn_tui.core.planning import loop_view
from harn_tui.core.projection import GoalView, WorkView
from harn_tui.core.runner import (
    AttemptResult,
    PreparedAttempt,
    begin_attempt,
    begin_attempt_in,
    begin_resume,
    begin_resume_in,
)
from harn_tui.core.supervisor.report import TickReport
from harn_tui.core.transitions import accept_work
from harn_tui.core.transitions.scope import WorkScope, readable_goal
from harn_tui.core.tree import Tree
from harn_tui.core.writer import SUPERVISOR_ACTOR


def dispatch_cycle(
    layout: Layout, goal_id: str, view: GoalView, report: TickReport, executor: Executor = LOCAL
) -> None:
    """Accept passing work (each acceptance takes the goal lease), then start attempts, each on its own read,
    on `executor` (connected to first: unreachable, nothing more is recorded and the tick stops)."""
    intent = view.intent
    assert intent is not None
    if intent.automation.accept_passing_proof and accept_passing(layout, view, report):
        fault_point("tick.accept")
        view = loop_view(layout, goal_id)
    if not executor.connected and has_dispatch(view):
        executor.connect()
    jobs = prepare_jobs(view, report, LayoutStarter(layout, goal_id))
    report.dispatches += len(jobs)
    run_jobs(jobs, report, executor)


def has_dispatch(view: GoalView) -> bool:
    """True when the goal has an attempt to start or resume (what `prepare_jobs` would begin, at least one)."""
    intent = view.intent
    assert intent is not None
    for item in _active(view):
        if intent.automation.resume_approved and (item.state, item.next_action) == ("awaiting_approval", "resume"):
            return True
        if view.attempts_remaining > 0 and (
            item.state == "ready"
            or (intent.automation.retry_blocked and (item.state, item.next_action) == ("blocked", "retry"))
        ):
            return True
    return False


def needs_acceptance(view: GoalView) -> bool:
    """True when `accept_passing_proof` has an item to accept this tick (an acceptance is its own transition)."""
    intent = view.intent
    assert intent is not None
    return intent.automation.accept_passing_proof and any(
        item.state == "in_review" and not item.open_findings for item in _active(view)
    )


class LayoutStarter:
    """Begins each attempt under a lease of its own, on state re-read for it."""

    def __init__(self, layout: Layout, goal_id: str) -> None:
        self.layout, self.goal_id = layout, goal_id

    def start(self, work_id: str, retry: bool) -> PreparedAttempt:
        return begin_attempt(self.layout, work_id, actor=SUPERVISOR_ACTOR, retry=retry, goal_id=self.goal_id)

    def resume(self, work_id: str) -> PreparedAttempt:
        return begin_resume(self.layout, work_id, actor=SUPERVISOR_ACTOR, goal_id=self.goal_id)


class TreeStarter:
    """Begins attempts on the tree the tick loaded under the goal lease it still holds: the decision, the rules,
    the manifest and `attempt.started` share that one read. Each begin re-projects the goal from the same tree
    (incremental: only what the previous begin appended is re-folded)."""

    def __init__(self, layout: Layout, tree: Tree, goal_id: str) -> None:
        self.layout, self.tree, self.goal_id = layout, tree, goal_id

    def _scope(self, work_id: str) -> WorkScope:
        goal = readable_goal(self.tree, self.goal_id)
        item = goal.work_item(work_id)
        if item is None:
            raise Refused(f"work {work_id} is not governed by goal {self.goal_id}")
        return WorkScope(self.layout, self.tree, work_id, goal, item)

    def start(self, work_id: str, retry: bool) -> PreparedAttempt:
        prepared = begin_attempt_in(self._scope(work_id), actor=SUPERVISOR_ACTOR, retry=retry)
        self.tree.load_runs_of(self.tree.work[work_id])
        return prepared

    def resume(self, work_id: str) -> PreparedAttempt:
        return begin_resume_in(self._scope(work_id), actor=SUPERVISOR_ACTOR)


def _active(view: GoalView) -> list[WorkView]:
    return [w for w in view.work if w.active]


def accept_passing(layout: Layout, view: GoalView, report: TickReport) -> bool:
    """Accept every active item in review with no open findings, through the operator's transition."""
    accepted = False
    for item in _active(view):
        if item.state != "in_review" or item.open_findings:
            continue
        try:
            outcome = accept_work(layout, item.id, actor=SUPERVISOR_ACTOR)
        except LeaseBusy:
            raise
        except Refused as refusal:
            report.outcomes.append(
                {"kind": "accept", "work_id": item.id, "status": "refused", "reason": refusal.message}
            )
            continue
        report.acceptances += 1
        accepted = True
        report.outcomes.append(
            {
                "kind": "accept",
                "work_id": item.id,
                "status": outcome.outcome,
                "run_id": getattr(outcome.event, "run_id", None),
            }
        )
    return accepted


def prepare_jobs(view: GoalView, report: TickReport, starter: LayoutStarter | TreeStarter) -> list[PreparedAttempt]:
    """Record the resumes and starts this tick will run: resumes first, then ready items (and retryable ones
    with `retry_blocked`), at most `max_parallel_work` in all, new attempts at most `attempts_remaining`."""
    intent = view.intent
    assert intent is not None
    slots = intent.limits.max_parallel_work
    jobs: list[PreparedAttempt] = []
    active = _active(view)
    if intent.automation.resume_approved:
        for item in active:
            if len(jobs) < slots and (item.state, item.next_action) == ("awaiting_approval", "resume"):
                _begin(jobs, report, item, lambda w=item.id: starter.resume(w))
    starts = [w for w in active if w.state == "ready"]
    if intent.automation.retry_blocked:
        starts += [w for w in active if (w.state, w.next_action) == ("blocked", "retry")]
    budget = view.attempts_remaining
    for item in starts:
        if len(jobs) >= slots or budget <= 0 or report.error is not None:
            break
        retry = item.state == "blocked"
        if _begin(jobs, report, item, lambda w=item.id, r=retry: starter.start(w, r)):
            budget -= 1
    return jobs


def _begin(jobs: list[PreparedAttempt], report: TickReport, item: WorkView, begin: Any) -> bool:
    """Begin one attempt. A refused write stops the beginning of more (the ones begun still run: they hold
    their run leases and are recorded started)."""
    try:
        jobs.append(begin())
    except LeaseBusy:
        raise
    except SystemRefused as error:
        report.refused_by_system(error)
        report.outcomes.append({"kind": "attempt", "work_id": item.id, "status": "error", "reason": error.message})
        return False
    except Refused as refusal:
        report.outcomes.append({"kind": "attempt", "work_id": item.id, "status": "refused", "reason": refusal.message})
        return False
    return True


def run_jobs(jobs: list[PreparedAttempt], report: TickReport, executor: Executor = LOCAL) -> None:
    """Run the prepared attempts concurrently on `executor` and wait for every one to finish or park (one runs
    on this thread: no pool to start); each one's outcome goes into `report`. At most `max_parallel_work` were
    prepared, so at most that many run at once, wherever the executor runs them."""
    if len(jobs) == 1:
        report.outcomes.append(_outcome(jobs[0], lambda: jobs[0].run(None, "tick", executor), report))
    elif jobs:
        with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="harn-attempt") as pool:
            futures = [(job, pool.submit(job.run, None, "tick", executor)) for job in jobs]
            report.outcomes.extend(_outcome(job, future.result, report) for job, future in futures)


def _outcome(job: PreparedAttempt, result: Any, report: TickReport) -> dict[str, Any]:
    try:
        finished: AttemptResult = result()
    except HarnError as error:
        if isinstance(error, SystemRefused):
            report.refused_by_system(error)
        return {
            "kind": "attempt",
            "work_id": job.work_id,
            "run_id": job.run_id,
            "status": "error",
            "reason": error.message,
        }
    return {"kind": "attempt", **finished.to_json()}
