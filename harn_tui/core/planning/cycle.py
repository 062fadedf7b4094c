"""One planner cycle: request, planner (with one retry), host validation, reviewers, the recorded outcome.

The goal lease is held only to decide and create the request and to record the outcome, never while a
planner or reviewer runs. A failure never leaves a partial graph: nothing but the plan's own files changes.
"""

from __future__ import annotations

import hashlib
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harn_tui.core.addresses import EVENTS, revision_dir_name
from harn_tui.core.clock import now_iso
from harn_tui.core.faults import fault_point
from harn_tui.core.fsio import record_bytes, write_immutable
from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.planning.inputs import applied_work_count, build_planner_input, input_document
from harn_tui.core.planning.outcome import PlanOutcome, bounded
from harn_tui.core.planning.requests import ACTION_TRIGGERS, create_plan_request
from harn_tui.core.planning.reviews import attention_reason, review_candidate, revision_reason, rounds_exhausted
from harn_tui.core.planning.validation import PlanRules, ValidReply, check_planner_reply
from harn_tui.core.planning.view import loop_tree
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.records import (
    GoalIntent,
    PlanAttention,
    PlanFailed,
    PlannerInput,
    PlanProposed,
    PlanRequest,
    PlanReviewed,
    PlanRevisionRequested,
    Proposal,
    ReviewReceipt,
)
from harn_tui.core.records.events import PLAN_EVENTS_ADAPTER
from harn_tui.core.records.plan import PlannerRevision
from harn_tui.core.specialists import FailureKind, SpecialistCall, SpecialistFailure, call_specialist
from harn_tui.core.transitions.lost import repair_lost_attempts
from harn_tui.core.writer import SUPERVISOR_ACTOR, append_event

PLAN_ACTIONS = frozenset(ACTION_TRIGGERS)


@dataclass(frozen=True)
class PlannerFailed:
    kind: FailureKind
    reason: str


@dataclass(frozen=True)
class PlanContext:
    """One plan request in flight: where it lives and what it is checked against."""

    layout: Layout
    intent: GoalIntent
    request: PlanRequest
    planner_input: PlannerInput
    rules: PlanRules

    @property
    def directory(self) -> Path:
        return self.layout.plan(self.request.goal_id, self.request.id)

    def round_directory(self, round_number: int) -> Path:
        """Round 0 keeps its files in the plan directory, revision round r in `revision-<r>/`."""
        return self.directory if round_number == 0 else self.directory / revision_dir_name(round_number)

    @property
    def max_revision_rounds(self) -> int:
        return self.intent.replanning.max_revision_rounds if self.intent.replanning is not None else 0

    @property
    def env(self) -> dict[str, str]:
        return {
            "HARN_GOAL_ID": self.request.goal_id,
            "HARN_PLAN_ID": self.request.id,
            "HARN_ROOT": str(self.layout.root),
        }

    def outcome(self, status: str, **fields: Any) -> PlanOutcome:
        return PlanOutcome(self.request.id, self.request.sequence, self.request.trigger, status, **fields)


def run_plan_cycle(layout: Layout, goal_id: str) -> PlanOutcome | None:
    """Run one plan request if the goal (re-read under its lease) is planner-eligible; None if it is not.

    Lost attempts are recorded first (this is a write under the lease), so the request's graph fingerprint is
    the one the goal keeps afterwards."""
    context = _open_request(layout, goal_id)
    if context is None:
        return None
    fault_point("tick.plan_request")
    answer = ask_planner(context)
    fault_point("tick.planner_called")
    if isinstance(answer, PlannerFailed):
        outcome = _record_failure(context, answer)
    elif answer.reply.decision == "attention":
        outcome = _record_attention_decision(context, _proposal(context, answer))
    elif context.intent.replanning and context.intent.replanning.reviewers:
        outcome = _review_and_record(context, _proposal(context, answer))
    else:
        outcome = _record_proposal(context, _proposal(context, answer), receipt=None)
    fault_point("tick.plan_recorded")
    return outcome


def _open_request(layout: Layout, goal_id: str) -> PlanContext | None:
    goal_dir = layout.goal(goal_id)
    with hold_lease(goal_dir / "lease", f"goal {goal_id}"), loop_tree(layout, goal_id) as (tree, view):
        if view.next_action not in PLAN_ACTIONS:
            return None
        if repair_lost_attempts(tree, view.governed_work_ids):
            tree.refresh_scoped(goal_id)
            view = project_goal(tree, goal_id)
        intent = view.intent
        if view.next_action not in PLAN_ACTIONS or intent is None or intent.replanning is None:
            return None
        request = create_plan_request(goal_dir, view, ACTION_TRIGGERS[view.next_action])
        planner_input = build_planner_input(tree, view, intent, request)
        directory = layout.plan(goal_id, request.id)
        write_immutable(directory / "planner-input.json", record_bytes(input_document(planner_input)))
    return PlanContext(layout, intent, request, planner_input, plan_rules(view, intent, request))


def plan_rules(view: GoalView, intent: GoalIntent, request: PlanRequest) -> PlanRules:
    replanning = intent.replanning
    assert replanning is not None
    return PlanRules(
        trigger=request.trigger,
        is_mission=intent.mission is not None,
        catalog=replanning.templates,
        active_ids=frozenset(view.active_ids),
        max_items_per_plan=replanning.max_work_items_per_plan,
        items_remaining=max(0, replanning.max_total_work_items - applied_work_count(view)),
        milestones_completed=view.milestones_completed,
        max_milestones=intent.mission.max_milestones if intent.mission is not None else None,
    )


def ask_planner(
    context: PlanContext, round_number: int = 0, first: PlannerInput | None = None
) -> ValidReply | PlannerFailed:
    """Call the frozen planner for one round (its first input `first`, default the request's); every problem gets
    exactly one more try with `problems` and `previous_reply`. Round r's calls are `HARN_CALL` 2r+1 and 2r+2."""
    first = first or context.planner_input
    current = first
    for try_number in (1, 2):
        replanning = context.intent.replanning
        assert replanning is not None
        call = SpecialistCall(
            role="planner",
            member_id=replanning.planner,
            profile=context.intent.team[replanning.planner],
            request=input_document(current),
            sequence=context.request.sequence,
            call_index=2 * round_number + try_number,
            context=context.env,
        )
        try:
            text = call_specialist(call)
        except SpecialistFailure as failure:
            return PlannerFailed(failure.kind, failure.message)
        checked = check_planner_reply(text, context.rules)
        if checked.valid is not None:
            return checked.valid
        listed = "; ".join(f"{p.path}: {p.message}" for p in checked.problems)
        if try_number == 2:
            which = "reply" if round_number == 0 else f"revision {round_number}"
            return PlannerFailed("invalid", f"the planner's {which} was invalid twice: {listed}")
        current = first.model_copy(update={"problems": list(checked.problems), "previous_reply": checked.previous})
        directory = context.round_directory(round_number)
        write_immutable(directory / "planner-retry.json", record_bytes(input_document(current)))
    raise AssertionError("unreachable: the loop returns on the second try")


def _proposal(context: PlanContext, answer: ValidReply) -> Proposal:
    reply = answer.reply
    return Proposal(
        plan_id=context.request.id,
        decision=reply.decision,
        rationale=reply.rationale,
        root=answer.root,
        work=list(reply.work),
        milestone=reply.milestone,
        proposed_at=now_iso(),
    )


def _log(context: PlanContext) -> JsonlTail[Any]:
    return JsonlTail(context.directory / EVENTS, PLAN_EVENTS_ADAPTER)


def _goal_lease(context: PlanContext) -> AbstractContextManager[None]:
    goal_id = context.request.goal_id
    return hold_lease(context.layout.goal(goal_id) / "lease", f"goal {goal_id}")


def _record_failure(context: PlanContext, failure: PlannerFailed) -> PlanOutcome:
    reason = bounded(failure.reason)
    with _goal_lease(context):
        append_event(_log(context), PlanFailed, SUPERVISOR_ACTOR, reason=reason, **{"class": failure.kind})
    return context.outcome("failed", reason=reason, failure_class=failure.kind)


def _record_attention_decision(context: PlanContext, proposal: Proposal) -> PlanOutcome:
    reason = bounded(proposal.rationale)
    with _goal_lease(context):
        write_immutable(context.directory / "proposal.json", record_bytes(proposal))
        log = _log(context)
        append_event(log, PlanProposed, SUPERVISOR_ACTOR)
        append_event(log, PlanAttention, SUPERVISOR_ACTOR, reason=reason)
    return context.outcome("attention", decision="attention", reason=reason)


def complete_attention(layout: Layout, goal_id: str) -> PlanOutcome | None:
    """Record the `plan.attention` of an attention decision whose tick was killed right after `plan.proposed`:
    such a plan projects `proposed` with nothing an operator can approve and no reason. The next tick appends
    what the killed one would have (reason: the proposal's rationale). None when the pending plan is not one."""
    with hold_lease(layout.goal(goal_id) / "lease", f"goal {goal_id}"), loop_tree(layout, goal_id) as (tree, view):
        plan = view.plan(view.pending_plan_id or "")
        if plan is None or plan.proposal is None or plan.proposal.decision != "attention":
            return None
        reason = bounded(plan.proposal.rationale)
        append_event(tree.goals[goal_id].plans[plan.id].log, PlanAttention, SUPERVISOR_ACTOR, reason=reason)
    return PlanOutcome(plan.id, plan.sequence, plan.trigger, "attention", decision="attention", reason=reason)


def _review_and_record(context: PlanContext, candidate: Proposal) -> PlanOutcome:
    """Review rounds within this one plan request: while the reviewers only ask for revision (and rounds are
    left), the planner revises with their reviews; no replan slot is used. The round they approve becomes the
    proposal; anything else is attention (a crash or timeout of the revising planner is a failure)."""
    round_number, planner_input = 0, context.planner_input
    while True:
        directory = context.round_directory(round_number)
        body = record_bytes(candidate)
        write_immutable(directory / "candidate.json", body)
        digest = hashlib.sha256(body).hexdigest()
        receipt = review_candidate(
            context.intent,
            planner_input,
            candidate,
            digest,
            context.env,
            round_number=round_number,
            max_revision_rounds=context.max_revision_rounds,
        )
        fault_point("tick.reviewers_called")
        if receipt.outcome == "approved":
            return _record_proposal(context, candidate, receipt, round_number)
        if receipt.outcome == "attention":
            exhausted = rounds_exhausted(receipt, round_number, context.max_revision_rounds)
            return _record_review_attention(context, candidate, receipt, round_number, exhausted)
        round_number += 1
        planner_input = _request_revision(context, candidate, receipt, round_number)
        fault_point("tick.revision_requested")
        answer = ask_planner(context, round_number, planner_input)
        fault_point("tick.revision_planner_called")
        if isinstance(answer, PlannerFailed):
            if answer.kind == "invalid":
                return _record_attention(context, answer.reason, decision=candidate.decision)
            return _record_failure(context, answer)
        candidate = _proposal(context, answer)
        if candidate.decision == "attention":
            return _record_attention_decision(context, candidate)


def _request_revision(
    context: PlanContext, candidate: Proposal, receipt: ReviewReceipt, round_number: int
) -> PlannerInput:
    """Record the sent-back round (its review, then `plan.revision_requested` opening the next round) and write
    the next round's planner input: the request's input plus the candidate and every review."""
    reason = revision_reason(receipt)
    with _goal_lease(context):
        write_immutable(context.round_directory(round_number - 1) / "review.json", record_bytes(receipt))
        append_event(_log(context), PlanRevisionRequested, SUPERVISOR_ACTOR, round=round_number, reason=reason)
    revised = context.planner_input.model_copy(
        update={
            "revision": PlannerRevision(round=round_number, candidate=candidate, reviews=list(receipt.reviews)),
        }
    )
    write_immutable(context.round_directory(round_number) / "planner-input.json", record_bytes(input_document(revised)))
    return revised


def _record_review_attention(
    context: PlanContext, candidate: Proposal, receipt: ReviewReceipt, round_number: int, exhausted: bool
) -> PlanOutcome:
    reason = attention_reason(receipt)
    if exhausted:
        reason = bounded(f"revision rounds exhausted ({context.max_revision_rounds}); {reason}")
    with _goal_lease(context):
        write_immutable(context.round_directory(round_number) / "review.json", record_bytes(receipt))
        append_event(_log(context), PlanAttention, SUPERVISOR_ACTOR, reason=reason)
    return context.outcome("attention", decision=candidate.decision, reason=reason)


def _record_attention(context: PlanContext, reason: str, decision: str) -> PlanOutcome:
    """`plan.attention` with no review to record (a revision that was invalid twice)."""
    reason = bounded(reason)
    with _goal_lease(context):
        append_event(_log(context), PlanAttention, SUPERVISOR_ACTOR, reason=reason)
    return context.outcome("attention", decision=decision, reason=reason)


def _record_proposal(
    context: PlanContext, proposal: Proposal, receipt: ReviewReceipt | None, round_number: int = 0
) -> PlanOutcome:
    """With a receipt: the round's review.json, plan.reviewed {candidate_sha256, round}, then proposal.json (the
    approved round's candidate bytes), plan.proposed."""
    with _goal_lease(context):
        log = _log(context)
        if receipt is not None:
            write_immutable(context.round_directory(round_number) / "review.json", record_bytes(receipt))
            append_event(
                log, PlanReviewed, SUPERVISOR_ACTOR, candidate_sha256=receipt.candidate_sha256, round=round_number
            )
        write_immutable(context.directory / "proposal.json", record_bytes(proposal))
        append_event(log, PlanProposed, SUPERVISOR_ACTOR)
    return context.outcome("proposed", decision=proposal.decision)
