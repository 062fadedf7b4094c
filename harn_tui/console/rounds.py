"""A plan's review rounds as the console shows them: each round's candidate and review, and what the planner
changed from one round's candidate to the next."""

from __future__ import annotations

from dataclasses import dataclass

from harn_tui.core.projection import PlanView
from harn_tui.core.records import Proposal, ReviewReceipt

STEP_FIELDS = ("title", "objective", "acceptance", "dependencies", "template")


@dataclass(frozen=True)
class ReviewRound:
    """Round 0 is the planner's first candidate; round r >= 1 was opened by `plan.revision_requested` (`reason`)."""

    number: int
    reason: str | None
    candidate: Proposal | None
    review: ReviewReceipt | None
    changes: tuple[str, ...]


def review_rounds(plan: PlanView) -> list[ReviewRound]:
    """Every round of a plan that was revised at least once (none for a plan without revisions)."""
    if not plan.revisions:
        return []
    rounds = [ReviewRound(0, None, plan.candidate, plan.review, ())]
    for revision in plan.revisions:
        before = rounds[-1].candidate
        changes = tuple(round_changes(before, revision.candidate)) if before and revision.candidate else ()
        rounds.append(ReviewRound(revision.round, revision.reason, revision.candidate, revision.review, changes))
    return rounds


def round_changes(before: Proposal, after: Proposal) -> list[str]:
    """One line per difference: the decision, the rationale, the root, each step added, removed or changed."""
    changes: list[str] = []
    if before.decision != after.decision:
        changes.append(f"decision {before.decision} → {after.decision}")
    if before.rationale != after.rationale:
        changes.append("rationale rewritten")
    if before.root != after.root:
        changes.append(f"root {before.root or 'none'} → {after.root or 'none'}")
    old = {step.key: step for step in before.work}
    new = {step.key: step for step in after.work}
    changes += [f"added step {key}" for key in new if key not in old]
    changes += [f"removed step {key}" for key in old if key not in new]
    for key, step in new.items():
        previous = old.get(key)
        if previous is None:
            continue
        fields = [name for name in STEP_FIELDS if getattr(previous, name) != getattr(step, name)]
        if fields:
            changes.append(f"changed step {key}: {', '.join(fields)}")
    if before.milestone != after.milestone:
        changes.append("milestone changed")
    return changes or ["no change"]
