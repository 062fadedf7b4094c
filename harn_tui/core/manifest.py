"""The attempt manifest handed to a template: the closed work context plus the attempt's own context."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harn_tui.core.clock import now_iso
from harn_tui.core.errors import CorruptJournal
from harn_tui.core.journal import parse_record, read_bytes
from harn_tui.core.projection import WorkView
from harn_tui.core.proof_intake import bounded_reason
from harn_tui.core.records import AttemptManifest, GoalIntent, Proof, WorkIntent
from harn_tui.core.records.common import CRITERIA_MAX
from harn_tui.core.records.run import AttemptContext, AttemptWorkspaces, GitWorkspace, PriorAttempt, WorkContext
from harn_tui.core.tree_files import RunFiles, WorkFiles


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
    return PriorAttempt.model_validate(
        {
            "run_id": latest.run_id,
            "summary": bounded_reason(summary),
            "unsatisfied": unsatisfied[:CRITERIA_MAX],
            "class": latest.class_,
        }
    )


def proof_of(run_id: str, runs: Mapping[str, RunFiles], runs_dir: Path) -> Proof | None:
    """A finished run's proof: as the tree read it, else from disk (a scoped read keeps only the latest proofs of
    each item); an unreadable proof is none (verify reports it)."""
    run = runs.get(run_id)
    if run is not None and run.proof is not None:
        return run.proof
    path = runs_dir / run_id / "proof.json"
    try:
        return parse_record(path, read_bytes(path), Proof)
    except (FileNotFoundError, CorruptJournal):
        return None


def attempt_workspaces(
    view: WorkView, intent: WorkIntent, work: Mapping[str, WorkFiles], runs: Mapping[str, RunFiles], runs_dir: Path
) -> AttemptWorkspaces:
    """`prior`: the workspace of the work's latest passing proof; `dependencies`: the git workspaces of its
    dependencies' accepted proofs, in the intent's dependency order (a dependency accepted without one adds none)."""
    prior: GitWorkspace | None = None
    passed = next((a for a in reversed(view.attempts) if a.status == "passed"), None)
    if passed is not None:
        proof = proof_of(passed.run_id, runs, runs_dir)
        prior = proof.workspace if proof is not None else None
    dependencies: list[GitWorkspace] = []
    for dependency in intent.dependencies:
        files = work.get(dependency)
        accepted = [e.run_id for e in files.events if e.event == "work.accepted"] if files is not None else []
        proof = proof_of(accepted[-1], runs, runs_dir) if accepted else None
        if proof is not None and proof.workspace is not None:
            dependencies.append(proof.workspace)
    return AttemptWorkspaces(prior=prior, dependencies=dependencies)


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
    work: Mapping[str, WorkFiles],
    runs_dir: Path,
) -> AttemptManifest:
    """`prior` only on retry; `findings` = every open finding on any trigger; `workspaces` on any trigger;
    `team` = the goal's frozen team."""
    return AttemptManifest(
        run_id=run_id,
        goal_id=goal_id,
        work=WorkContext(id=intent.id, title=intent.title, objective=intent.objective, acceptance=intent.acceptance),
        attempt=AttemptContext(
            number=number,
            trigger=trigger,
            prior=prior_synopsis(view, intent, runs) if trigger == "retry" else None,
            findings=list(view.open_findings),
            workspaces=attempt_workspaces(view, intent, work, runs, runs_dir),
        ),
        template=intent.template,
        team=dict(goal.team) if goal is not None else {},
        created_at=now_iso(),
    )
