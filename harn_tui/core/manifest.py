"""The attempt manifest handed to a template: the closed work context plus the attempt's own context."""

from __future__ import annotations

from collections.abc import Mapping

from harn_tui.core.clock import now_iso
from harn_tui.core.projection import WorkView
from harn_tui.core.proof_intake import bounded_reason
from harn_tui.core.records import AttemptManifest, GoalIntent, WorkIntent
from harn_tui.core.records.common import CRITERIA_MAX
from harn_tui.core.records.run import AttemptContext, PriorAttempt, WorkContext
from harn_tui.core.tree import RunFiles


def prior_synopsis(view: WorkView, intent: WorkIntent, runs: Mapping[str, RunFiles]) -> PriorAttempt | None:
    """A bounded synopsis of the latest (failed) attempt: its summary, unsatisfied criteria and class. A lost
    attempt has no proof, so none of its criteria count as satisfied."""
    latest = view.latest_attempt
    if latest is None:
        return None
    run = runs.get(latest.run_id)
    proof = run.proof if run is not None else None
    if proof is not None:
        summary = proof.summary or latest.reason or "failed"
        unsatisfied = [c.criterion for c in proof.acceptance if c.status != "satisfied"]
    else:
        summary = latest.reason or "failed"
        unsatisfied = list(intent.acceptance)
    return PriorAttempt.model_validate({
        "run_id": latest.run_id, "summary": bounded_reason(summary), "unsatisfied": unsatisfied[:CRITERIA_MAX],
        "class": latest.class_,
    })


def build_manifest(
    *,
    run_id: str,
    goal_id: str | None,
    goal: GoalIntent | None,
    intent: WorkIntent,
    view: WorkView,
    number: int,
    trigger: str,
    runs: Mapping[str, RunFiles],
) -> AttemptManifest:
    """`prior` only on retry; `findings` = every open finding on any trigger; `team` = the goal's frozen team."""
    return AttemptManifest(
        run_id=run_id,
        goal_id=goal_id,
        work=WorkContext(id=intent.id, title=intent.title, objective=intent.objective, acceptance=intent.acceptance),
        attempt=AttemptContext(
            number=number,
            trigger=trigger,
            prior=prior_synopsis(view, intent, runs) if trigger == "retry" else None,
            findings=list(view.open_findings),
        ),
        template=intent.template,
        team=dict(goal.team) if goal is not None else {},
        created_at=now_iso(),
    )
