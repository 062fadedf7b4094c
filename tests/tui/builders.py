"""Real trees for console tests, written through the core (records, leases, event appends); fixed IDs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from harn_tui.core.clock import now_iso
from harn_tui.core.creation import GoalOptions, create_supervisor, create_work
from harn_tui.core.fsio import record_bytes, write_immutable, write_record
from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.projection import project_goal
from harn_tui.core.records import (
    ApprovalRequest,
    AttemptFinished,
    AttemptStarted,
    PlanApplied,
    PlanAttention,
    PlanProposed,
    PlanRequest,
    PlanReviewed,
    PlanRevisionRequested,
    Proof,
    Proposal,
    ReviewReceipt,
    WorkAccepted,
    WorkIntent,
    WorkReopened,
)
from harn_tui.core.records.events import PLAN_EVENTS_ADAPTER, WORK_EVENTS_ADAPTER, Event
from harn_tui.core.tree import Tree
from harn_tui.core.writer import append_event

TEMPLATE = "#!/usr/bin/env python3\nprint('template')\n"
HOSTILE = "[bold]not bold[/bold] [link=http://x]click[/link] \x1b[31mred\x1b[0m [ABC] [$var] end"


def template(layout: Layout) -> Path:
    path = layout.root / "template.py"
    if not path.exists():
        path.write_text(TEMPLATE)
        path.chmod(0o755)
    return path


def work(
    layout: Layout,
    work_id: str,
    *,
    title: str | None = None,
    deps: tuple[str, ...] = (),
    accept: tuple[str, ...] = ("it works",),
    objective: str | None = None,
) -> str:
    create_work(
        layout,
        title=title or f"Work {work_id}",
        template=template(layout),
        objective=objective or f"Do {work_id}",
        acceptance=list(accept),
        depends_on=list(deps),
        work_id=work_id,
        actor="alice",
    )
    return work_id


def work_event(layout: Layout, work_id: str, kind: type[Event], actor: str = "supervisor", **payload: Any) -> None:
    append_event(JsonlTail(layout.work(work_id) / "events.jsonl", WORK_EVENTS_ADAPTER), kind, actor, **payload)


def plan_event(
    layout: Layout, goal_id: str, plan_id: str, kind: type[Event], actor: str = "supervisor", **payload: Any
) -> None:
    tail = JsonlTail(layout.plan(goal_id, plan_id) / "events.jsonl", PLAN_EVENTS_ADAPTER)
    append_event(tail, kind, actor, **payload)


def attempt(
    layout: Layout,
    work_id: str,
    run_id: str,
    *,
    status: str,
    number: int = 1,
    cls: str | None = None,
    summary: str = "",
    criteria: tuple[tuple[str, str], ...] = (("it works", "satisfied"),),
    workspace: dict[str, Any] | None = None,
) -> None:
    """A finished attempt: started, proof written (unless parked; with `workspace`, the proof names it),
    finished."""
    work_event(layout, work_id, AttemptStarted, run_id=run_id, attempt=number, trigger="initial")
    if status in ("passed", "failed"):
        write_record(
            layout.run(run_id) / "proof.json",
            Proof.model_validate(
                {
                    "run_id": run_id,
                    "status": "succeeded" if status == "passed" else "failed",
                    "summary": summary or f"attempt {number} {status}",
                    "acceptance": [{"criterion": c, "status": s, "evidence": f"checked {c}"} for c, s in criteria],
                    "class": cls,
                    "finished_at": now_iso(),
                    "workspace": workspace,
                }
            ),
        )
    finished: dict[str, Any] = {"class": cls}
    work_event(
        layout,
        work_id,
        AttemptFinished,
        run_id=run_id,
        status=status,
        **finished,
        reason=None if status != "failed" else (summary or "the check failed"),
        approval_id=f"apr-{run_id}-1" if status == "parked" else None,
    )


def accept(layout: Layout, work_id: str, run_id: str, actor: str = "alice") -> None:
    digest = hashlib.sha256((layout.run(run_id) / "proof.json").read_bytes()).hexdigest()
    work_event(layout, work_id, WorkAccepted, actor, run_id=run_id, proof_sha256=digest, dispositions=[])


def reopen(layout: Layout, work_id: str, *statements: str, actor: str = "alice") -> None:
    findings = [{"id": f"f{i}", "statement": s, "actor": actor} for i, s in enumerate(statements, start=1)]
    work_event(layout, work_id, WorkReopened, actor, findings=findings)


def approval_request(layout: Layout, work_id: str, run_id: str, goal_id: str | None, question: str) -> str:
    approval_id = f"apr-{run_id}-1"
    write_record(
        layout.approval(approval_id) / "request.json",
        ApprovalRequest(
            id=approval_id,
            run_id=run_id,
            work_id=work_id,
            goal_id=goal_id,
            question=question,
            details="the template wants to touch production",
            requested_at=now_iso(),
        ),
    )
    return approval_id


def goal(
    layout: Layout,
    goal_id: str,
    *,
    root: str | None,
    title: str | None = None,
    max_replans: int = 3,
    reviewers: bool = False,
) -> str:
    files = layout.root / f"files-{goal_id}"
    files.mkdir(exist_ok=True)
    team: dict[str, Any] = {
        "planner": {"adapter": "command", "argv": ["python3", "./planner.py"], "instructions": "Plan."}
    }
    if reviewers:
        team["reviewer"] = {"adapter": "command", "argv": ["python3", "./reviewer.py"], "instructions": "Review."}
    (files / "team.json").write_text(json.dumps(team))
    (files / "replanning.json").write_text(
        json.dumps(
            {
                "planner": "planner",
                "max_replans": max_replans,
                "reviewers": ["reviewer"] if reviewers else [],
                "templates": {"implement": {"path": str(template(layout)), "root": True}},
            }
        )
    )
    create_supervisor(
        layout,
        team_file=files / "team.json",
        root_work=root,
        replanning_file=files / "replanning.json",
        options=GoalOptions(goal_id=goal_id, title=title),
    )
    return goal_id


def _current(layout: Layout, goal_id: str) -> tuple[str, str | None]:
    view = project_goal(Tree.load(layout), goal_id)
    return view.graph_fingerprint, view.active_root


def plan(
    layout: Layout,
    goal_id: str,
    plan_id: str,
    *,
    sequence: int,
    decision: str = "apply",
    rationale: str = "The parser fails on nested input; fix it first, then re-run the suite.",
    steps: tuple[dict[str, Any], ...] = (),
    root_key: str | None = None,
    trigger: str = "recovery",
    stale: bool = False,
) -> str:
    """request.json (with the goal's current fingerprint) and proposal.json, plus `plan.proposed`."""
    fingerprint, root = _current(layout, goal_id)
    directory = layout.plan(goal_id, plan_id)
    write_record(
        directory / "request.json",
        PlanRequest.model_validate(
            {
                "id": plan_id,
                "goal_id": goal_id,
                "sequence": sequence,
                "trigger": trigger,
                "graph_fingerprint": "sha256:" + "0" * 64 if stale else fingerprint,
                "prior_root_work_id": root,
                "created_at": now_iso(),
            }
        ),
    )
    write_record(
        directory / "proposal.json",
        Proposal.model_validate(
            {
                "plan_id": plan_id,
                "decision": decision,
                "rationale": rationale,
                "root": root_key if decision == "apply" else None,
                "work": list(steps) if decision == "apply" else [],
                "milestone": None,
                "proposed_at": now_iso(),
            }
        ),
    )
    plan_event(layout, goal_id, plan_id, PlanProposed)
    return plan_id


def step(key: str, title: str, *, deps: tuple[str, ...] = (), objective: str = "") -> dict[str, Any]:
    return {
        "key": key,
        "title": title,
        "objective": objective or f"Do {key}",
        "acceptance": [f"{key} done"],
        "dependencies": list(deps),
        "template": "implement",
    }


def attention(layout: Layout, goal_id: str, plan_id: str, reason: str) -> None:
    plan_event(layout, goal_id, plan_id, PlanAttention, reason=reason)


def review(layout: Layout, goal_id: str, plan_id: str, outcome: str = "approved") -> None:
    """The receipt of the candidate the supervisor reviewed (`candidate.json`: the proposal's bytes)."""
    directory = layout.plan(goal_id, plan_id)
    body = (directory / "proposal.json").read_bytes()
    write_immutable(directory / "candidate.json", body)
    digest = hashlib.sha256(body).hexdigest()
    write_record(
        directory / "review.json",
        ReviewReceipt.model_validate(
            {
                "plan_id": plan_id,
                "candidate_sha256": digest,
                "outcome": outcome,
                "created_at": now_iso(),
                "reviews": [
                    {
                        "reviewer": "reviewer",
                        "verdict": "approve" if outcome == "approved" else "revise",
                        "rationale": "Steps are small and ordered.",
                        "findings": [{"code": "tests", "severity": "advisory", "summary": "add a regression test"}],
                    }
                ],
            }
        ),
    )
    if outcome == "approved":
        plan_event(layout, goal_id, plan_id, PlanReviewed, candidate_sha256=digest)


def applied(layout: Layout, goal_id: str, plan_id: str) -> None:
    """Materialize the proposal's work (deterministic ids, plan provenance) and append `plan.applied`."""
    directory = layout.plan(goal_id, plan_id)
    proposal = Proposal.model_validate_json((directory / "proposal.json").read_bytes())
    ref = template(layout)
    digest = hashlib.sha256(ref.read_bytes()).hexdigest()
    ids = []
    for item in proposal.work:
        work_id = f"{plan_id}-{item.key}"
        deps = [f"{plan_id}-{d}" if d in {w.key for w in proposal.work} else d for d in item.dependencies]
        intent = WorkIntent.model_validate(
            {
                "id": work_id,
                "title": item.title,
                "objective": item.objective,
                "acceptance": item.acceptance,
                "dependencies": deps,
                "template": {"path": str(ref), "sha256": digest},
                "max_attempts": 3,
                "source": {"kind": "plan", "ref": f"{goal_id}/{plan_id}"},
                "created_at": proposal.proposed_at,
            }
        )
        write_record(layout.work(work_id) / "intent.json", intent)
        work_event(layout, work_id, _created())
        ids.append(work_id)
    plan_event(
        layout, goal_id, plan_id, PlanApplied, actor="alice", root_work_id=f"{plan_id}-{proposal.root}", work_ids=ids
    )


def _created() -> type[Event]:
    from harn_tui.core.records import WorkCreated

    return WorkCreated


def corrupt_goal(layout: Layout, goal_id: str) -> None:
    directory = layout.goal(goal_id)
    directory.mkdir(parents=True, exist_ok=True)
    write_immutable(directory / "goal.json", b'{"schema_version": 1, "id": "' + goal_id.encode() + b'", "title": 3}\n')


def verdict(kind: str, rationale: str, blocking: str | None = None) -> dict[str, Any]:
    findings = [{"code": "evidence", "severity": "blocking", "summary": blocking}] if blocking else []
    return {"reviewer": "reviewer", "verdict": kind, "rationale": rationale, "findings": findings}


def revised_plan(
    layout: Layout,
    goal_id: str,
    plan_id: str,
    rounds: list[tuple[str, tuple[dict[str, Any], ...], str, dict[str, Any]]],
) -> str:
    """A plan whose candidates went through review rounds as the supervisor leaves them: each round's
    candidate.json and review.json (round r under revision-<r>/), `plan.revision_requested` opening each
    revision, and for a last review that approves, `plan.reviewed {round}`, proposal.json and `plan.proposed`.
    Each round is (rationale, steps, root key, the one review)."""
    fingerprint, root = _current(layout, goal_id)
    directory = layout.plan(goal_id, plan_id)
    write_record(
        directory / "request.json",
        PlanRequest.model_validate(
            {
                "id": plan_id,
                "goal_id": goal_id,
                "sequence": 1,
                "trigger": "recovery",
                "graph_fingerprint": fingerprint,
                "prior_root_work_id": root,
                "created_at": now_iso(),
            }
        ),
    )
    last = len(rounds) - 1
    body = b""
    for number, (rationale, steps, root_key, review_entry) in enumerate(rounds):
        where = directory if number == 0 else directory / f"revision-{number}"
        body = record_bytes(
            Proposal.model_validate(
                {
                    "plan_id": plan_id,
                    "decision": "apply",
                    "rationale": rationale,
                    "root": root_key,
                    "work": list(steps),
                    "milestone": None,
                    "proposed_at": now_iso(),
                }
            )
        )
        write_immutable(where / "candidate.json", body)
        approved = review_entry["verdict"] == "approve" and number == last
        outcome = "approved" if approved else ("revise" if number < last else "attention")
        write_record(
            where / "review.json",
            ReviewReceipt.model_validate(
                {
                    "plan_id": plan_id,
                    "candidate_sha256": hashlib.sha256(body).hexdigest(),
                    "outcome": outcome,
                    "created_at": now_iso(),
                    "reviews": [review_entry],
                }
            ),
        )
        if number < last:
            plan_event(
                layout,
                goal_id,
                plan_id,
                PlanRevisionRequested,
                round=number + 1,
                reason=f"reviewers asked for a revision: reviewer (revise): {review_entry['rationale']}",
            )
    if rounds[last][3]["verdict"] == "approve":
        plan_event(
            layout, goal_id, plan_id, PlanReviewed, candidate_sha256=hashlib.sha256(body).hexdigest(), round=last
        )
        write_immutable(directory / "proposal.json", body)
        plan_event(layout, goal_id, plan_id, PlanProposed)
    return plan_id
