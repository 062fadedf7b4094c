"""A goal at a past point: the loaded tree restricted to what the first K history entries announce.

The past is projected by the one projection (`project_goal`) over a `Tree` holding exactly the records and events
that existed then, so it can never disagree with the rules of the present. A record joins with its announcing
entry: a plan request with `plan.requested`, a proposal with `plan.proposed`, a candidate and review receipt
with the review's event, a revision round with its `plan.revision_requested`, a work intent with
`work.created`, a proof with its run's final `attempt.finished`, an approval request with the
`attempt.finished` that parked on it, a decision with `approval.decided`. Liveness is historical: a run started
and unfinished at that point is running if it finishes later, a plan requested and undecided is planning if it
has an outcome later; otherwise both are as they are now. Nothing is repaired and nothing is written.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from harn_tui.core.history.entries import GoalHistory, HistoryEntry
from harn_tui.core.journal import JsonlTail
from harn_tui.core.projection.plans import plan_status
from harn_tui.core.tree import Tree
from harn_tui.core.tree_files import ApprovalFiles, GoalFiles, PlanFiles, RevisionFiles, RunFiles, WorkFiles

REVIEW_EVENTS = frozenset({"plan.reviewed", "plan.attention", "plan.revision_requested"})
NO_OUTCOME = frozenset({"plan.requested", "plan.reviewed", "plan.revision_requested", "damaged"})


@dataclass(frozen=True, slots=True)
class Selection:
    """Which entries of each source id are selected (by seq; synthetic entries by event) and what comes later."""

    chosen: dict[str, set[Any]]
    later: tuple[HistoryEntry, ...]

    @classmethod
    def of(cls, history: GoalHistory, position: int) -> Selection:
        chosen: dict[str, set[Any]] = defaultdict(set)
        for entry in history.entries[:position]:
            chosen[f"{entry.source}:{entry.id}"].add(entry.event if entry.seq in (None, 0) else entry.seq)
            if entry.damaged:
                chosen[f"{entry.source}:{entry.id}"].add(entry.event)
        return cls(chosen, history.entries[position:])

    def of_source(self, source: str, owner: str) -> set[Any]:
        return self.chosen.get(f"{source}:{owner}", set())


def tree_at(tree: Tree, goal_id: str, history: GoalHistory, position: int) -> Tree:
    """A new tree holding goal `goal_id` as it stood after the first `position` entries of `history`."""
    selection = Selection.of(history, position)
    past = Tree(tree.layout)
    source = tree.goals[goal_id]
    goal = GoalFiles(
        source.id, source.directory, intent=source.intent, problems=dict(source.problems), loop_held=source.loop_held
    )
    past.goals[goal_id] = goal
    later_plans = {e.id for e in selection.later if e.source == "plan" and e.event not in NO_OUTCOME}
    for plan in source.plans.values():
        if plan.request is None:  # an aborted or broken creation: damage of the goal, not history
            goal.plans[plan.id] = plan
            continue
        chosen = selection.of_source("plan", plan.id)
        if "plan.requested" in chosen:
            goal.plans[plan.id] = _plan_at(plan, chosen, plan.id in later_plans)
    later_finishes = {e.run_id for e in selection.later if e.event == "attempt.finished"}
    for work_id in history.work_ids:
        work = tree.work.get(work_id)
        chosen = selection.of_source("work", work_id)
        if work is not None and chosen:
            _add_work_at(past, tree, work, chosen, later_finishes)
    decided = {e.id for e in history.entries[:position] if e.event == "approval.decided"}
    for approval in past.approvals.values():
        if approval.id not in decided:
            approval.decision = None
    return past


def _plan_at(plan: PlanFiles, chosen: set[Any], outcome_later: bool) -> PlanFiles:
    events = [event for event in plan.events if event.seq in chosen]
    named = {event.event for event in events}
    reviewed = bool(named & REVIEW_EVENTS)
    past = PlanFiles(
        plan.id,
        plan.directory,
        request=plan.request,
        proposal=plan.proposal if "plan.proposed" in named else None,
        proposal_sha256=plan.proposal_sha256 if "plan.proposed" in named else None,
        candidate=plan.candidate if reviewed else None,
        review=plan.review if reviewed else None,
        problems=dict(plan.problems),
    )
    past.log = _log_at(plan.log, events, "damaged" in chosen)
    past.revisions = _revisions_at(plan, events)
    undecided = plan_status(past, loop_held=False)[0] == "interrupted"
    past.loop_held = True if undecided and outcome_later else None
    return past


def _revisions_at(plan: PlanFiles, events: list[Any]) -> dict[int, RevisionFiles]:
    """The revision rounds opened by a selected `plan.revision_requested`; a round's candidate and review once
    an event after its opening is selected (the review that answered it)."""
    rounds: dict[int, RevisionFiles] = {}
    for index, event in enumerate(events):
        found = plan.revisions.get(getattr(event, "round", -1))
        if event.event != "plan.revision_requested" or found is None:
            continue
        answered = index + 1 < len(events)
        rounds[found.round] = RevisionFiles(
            found.round,
            found.directory,
            found.candidate if answered else None,
            found.candidate_sha256 if answered else None,
            found.review if answered else None,
            dict(found.problems),
        )
    return rounds


def _add_work_at(past: Tree, tree: Tree, work: WorkFiles, chosen: set[Any], later_finishes: set[str | None]) -> None:
    events = [event for event in work.events if event.seq in chosen]
    created = any(event.event == "work.created" for event in events) or not work.events
    copy = WorkFiles(work.id, work.directory, intent=work.intent if created else None, problems=dict(work.problems))
    copy.log = _log_at(work.log, events, "damaged" in chosen)
    past.work[work.id] = copy
    finished: set[str] = set()
    for event in events:
        if event.event == "attempt.finished":
            if event.status != "parked":
                finished.add(event.run_id)
            if event.approval_id and event.approval_id in tree.approvals:
                found = tree.approvals[event.approval_id]
                past.approvals[found.id] = ApprovalFiles(
                    found.id, found.directory, found.request, found.decision, found.problem
                )
    for run_id in dict.fromkeys(e.run_id for e in events if e.event == "attempt.started"):
        found_run = tree.runs.get(run_id)
        run = RunFiles(run_id, tree.layout.runs)
        if found_run is not None:
            run.live = True if run_id in later_finishes else found_run.live
            if run_id in finished:
                run.proof, run.proof_sha256, run.problem = found_run.proof, found_run.proof_sha256, found_run.problem
        past.runs[run_id] = run


def _log_at(log: JsonlTail[Any], events: list[Any], damaged: bool) -> JsonlTail[Any]:
    """A log holding `events` only; its damage (a bad line, a torn tail) once the damaged entry is selected."""
    past: JsonlTail[Any] = JsonlTail(log.path, log.adapter, events=events, seen=log.seen)
    if damaged:
        past.problem, past.torn = log.problem, log.torn
    return past
