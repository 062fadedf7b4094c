"""Independent reviewers: each judges the candidate; a receipt records every verdict (SPEC section 7)."""

from __future__ import annotations

from collections.abc import Mapping

from harn_tui.core.clock import now_iso
from harn_tui.core.planning.inputs import build_reviewer_input, input_document
from harn_tui.core.planning.outcome import bounded
from harn_tui.core.planning.validation import parse_json_object, structural_problems
from harn_tui.core.records import GoalIntent, PlannerInput, Proposal, ReviewerReply, ReviewReceipt
from harn_tui.core.records.plan import Problem, Review, ReviewerInput
from harn_tui.core.rules import REVISION_ROUND_LEFT, review_revision
from harn_tui.core.specialists import SpecialistCall, SpecialistFailure, call_specialist


def review_candidate(
    intent: GoalIntent,
    planner_input: PlannerInput,
    candidate: Proposal,
    candidate_sha256: str,
    context: Mapping[str, str],
    *,
    round_number: int = 0,
    max_revision_rounds: int = 0,
) -> ReviewReceipt:
    """Ask every frozen reviewer in order: approved only if all approve with no blocking finding; `revise` when
    `rules.review_revision` holds (round `round_number` has made that many revisions); else attention."""
    assert intent.replanning is not None
    reviews = [
        run_reviewer(
            build_reviewer_input(reviewer_id, intent, planner_input, candidate, candidate_sha256),
            intent,
            context,
            round_number,
        )
        for reviewer_id in intent.replanning.reviewers
    ]
    receipt = ReviewReceipt(
        plan_id=candidate.plan_id,
        candidate_sha256=candidate_sha256,
        reviews=reviews,
        outcome="attention",
        created_at=now_iso(),
    )
    if all(_clean_approval(review) for review in reviews):
        return receipt.model_copy(update={"outcome": "approved"})
    if review_revision(reviews, round_number, max_revision_rounds).holds:
        return receipt.model_copy(update={"outcome": "revise"})
    return receipt


def _clean_approval(review: Review) -> bool:
    return review.verdict == "approve" and not any(f.severity == "blocking" for f in review.findings)


def rounds_exhausted(receipt: ReviewReceipt, round_number: int, max_revision_rounds: int) -> bool:
    """The reviewers asked only for a revision, and none is left: the attention's reason says so."""
    checks = review_revision(receipt.reviews, round_number, max_revision_rounds)
    return round_number > 0 and checks.failing == [checks.named(REVISION_ROUND_LEFT)]


def run_reviewer(
    request: ReviewerInput, intent: GoalIntent, context: Mapping[str, str], round_number: int = 0
) -> Review:
    """One reviewer: an invalid reply gets one retry with problems; failing twice, a crash or a timeout
    counts as an `attention` verdict whose rationale says what went wrong."""
    reviewer_id = request.reviewer_id
    current = request
    problems: list[Problem] = []
    for try_number in (1, 2):
        call = SpecialistCall(
            role="reviewer",
            member_id=reviewer_id,
            profile=intent.team[reviewer_id],
            request=input_document(current),
            sequence=request.sequence,
            call_index=2 * round_number + try_number,
            context=context,
        )
        try:
            text = call_specialist(call)
        except SpecialistFailure as failure:
            return _failed_review(reviewer_id, f"reviewer {reviewer_id} failed ({failure.kind}): {failure.message}")
        value, problems = parse_json_object(text)
        if not problems:
            model, problems = structural_problems(value, ReviewerReply)
            if isinstance(model, ReviewerReply):
                return Review(
                    reviewer=reviewer_id,
                    verdict=model.verdict,
                    rationale=model.rationale,
                    findings=list(model.findings),
                )
        current = request.model_copy(update={"problems": problems, "previous_reply": value})
    listed = "; ".join(f"{p.path}: {p.message}" for p in problems)
    return _failed_review(reviewer_id, f"reviewer {reviewer_id} replied invalid twice: {listed}")


def _failed_review(reviewer_id: str, rationale: str) -> Review:
    return Review(reviewer=reviewer_id, verdict="attention", rationale=bounded(rationale), findings=[])


def attention_reason(receipt: ReviewReceipt) -> str:
    """The plan.attention reason: every reviewer that did not approve cleanly, with its rationale."""
    return bounded("reviewers asked for attention: " + _objections(receipt))


def revision_reason(receipt: ReviewReceipt) -> str:
    """The plan.revision_requested reason: the reviewers' rationales and blocking findings."""
    return bounded("reviewers asked for a revision: " + _objections(receipt))


def _objections(receipt: ReviewReceipt) -> str:
    parts: list[str] = []
    for review in receipt.reviews:
        blocking = [f for f in review.findings if f.severity == "blocking"]
        if review.verdict == "approve" and not blocking:
            continue
        text = f"{review.reviewer} ({review.verdict}): {review.rationale}"
        if blocking:
            text += " [blocking: " + "; ".join(f"{f.code}: {f.summary}" for f in blocking) + "]"
        parts.append(text)
    return " | ".join(parts)
