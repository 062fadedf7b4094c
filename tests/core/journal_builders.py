"""Small builders that write real records and events through the core, for projection tests."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from harn_tui.core.clock import now_iso
from harn_tui.core.creation import create_work
from harn_tui.core.fsio import write_record
from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.records import AttemptFinished, AttemptStarted, Proof, WorkAccepted, WorkReopened
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER, Event
from harn_tui.core.writer import append_event

TEMPLATE_BODY = "#!/usr/bin/env python3\nprint('template')\n"


def template(tmp: Path) -> Path:
    path = tmp / "template.py"
    if not path.exists():
        path.write_text(TEMPLATE_BODY)
        path.chmod(0o755)
    return path


def work(
    layout: Layout,
    work_id: str,
    *,
    deps: tuple[str, ...] = (),
    accept: tuple[str, ...] = ("it works",),
    max_attempts: int = 3,
) -> str:
    create_work(
        layout,
        title=f"Work {work_id}",
        template=template(layout.root),
        objective=f"Do {work_id}",
        acceptance=list(accept),
        depends_on=list(deps),
        max_attempts=max_attempts,
        work_id=work_id,
        actor="alice",
    )
    return work_id


def log(layout: Layout, work_id: str) -> JsonlTail[Any]:
    return JsonlTail(layout.work(work_id) / "events.jsonl", WORK_EVENTS_ADAPTER)


def event(layout: Layout, work_id: str, kind: type[Event], actor: str = "supervisor", **payload: Any) -> None:
    append_event(log(layout, work_id), kind, actor, **payload)


def attempt(
    layout: Layout,
    work_id: str,
    run_id: str,
    *,
    status: str,
    number: int,
    cls: str | None = None,
    trigger: str = "initial",
    actor: str = "supervisor",
    proof: bool = True,
) -> None:
    """One finished attempt: started, proof.json written, finished."""
    event(layout, work_id, AttemptStarted, actor, run_id=run_id, attempt=number, trigger=trigger)
    if proof and status in ("passed", "failed"):
        write_record(
            layout.run(run_id) / "proof.json",
            Proof.model_validate(
                {
                    "run_id": run_id,
                    "status": "succeeded" if status == "passed" else "failed",
                    "summary": f"{status} by the builder",
                    "acceptance": [],
                    "class": cls,
                    "finished_at": now_iso(),
                }
            ),
        )
    event(
        layout,
        work_id,
        AttemptFinished,
        actor,
        run_id=run_id,
        status=status,
        **{"class": cls},
        reason=None if status == "passed" else "builder failure",
    )


def accept(layout: Layout, work_id: str, run_id: str) -> None:
    digest = hashlib.sha256((layout.run(run_id) / "proof.json").read_bytes()).hexdigest()
    event(layout, work_id, WorkAccepted, "alice", run_id=run_id, proof_sha256=digest, dispositions=[])


def reopen(layout: Layout, work_id: str, *statements: str) -> None:
    findings = [{"id": f"f{i}", "statement": s, "actor": "alice"} for i, s in enumerate(statements, start=1)]
    event(layout, work_id, WorkReopened, "alice", findings=findings)


def goal(
    layout: Layout,
    goal_id: str,
    *,
    root: str | None,
    replanning: bool = True,
    mission: bool = False,
    max_total_attempts: int | None = None,
    max_replans: int = 3,
    **options: Any,
) -> str:
    """A goal frozen through `create_supervisor` from team/replanning/mission files written here."""
    import json

    from harn_tui.core.creation import GoalOptions, create_supervisor

    files = layout.root / f"files-{goal_id}"
    files.mkdir(exist_ok=True)
    team = {"planner": {"adapter": "command", "argv": ["python3", "./planner.py"], "instructions": "Plan."}}
    (files / "team.json").write_text(json.dumps(team))
    replanning_file = None
    if replanning:
        tpl = template(layout.root)
        (files / "replanning.json").write_text(
            json.dumps(
                {
                    "planner": "planner",
                    "max_replans": max_replans,
                    "templates": {"implement": {"path": str(tpl), "root": True}},
                }
            )
        )
        replanning_file = files / "replanning.json"
    mission_file = None
    if mission:
        (files / "mission.json").write_text(json.dumps({"objective": "Ship it", "acceptance": ["shipped"]}))
        mission_file = files / "mission.json"
    create_supervisor(
        layout,
        team_file=files / "team.json",
        root_work=root,
        replanning_file=replanning_file,
        mission_file=mission_file,
        options=GoalOptions(goal_id=goal_id, max_total_attempts=max_total_attempts, **options),
    )
    return goal_id


def plan(
    layout: Layout,
    goal_id: str,
    plan_id: str,
    *,
    sequence: int,
    fingerprint: str,
    prior_root: str | None,
    trigger: str = "recovery",
    decision: str | None = "apply",
    events: tuple[tuple[str, dict[str, Any]], ...] = (),
    work: tuple[dict[str, Any], ...] = (),
    root_key: str | None = None,
) -> str:
    """A plan directory with request.json, optionally proposal.json, and the given plan events."""
    from harn_tui.core.records import PlanRequest, Proposal

    directory = layout.plan(goal_id, plan_id)
    write_record(
        directory / "request.json",
        PlanRequest(
            id=plan_id,
            goal_id=goal_id,
            sequence=sequence,
            trigger=trigger,
            graph_fingerprint=fingerprint,
            prior_root_work_id=prior_root,
            created_at=now_iso(),
        ),
    )
    if decision is not None:
        write_record(
            directory / "proposal.json",
            Proposal.model_validate(
                {
                    "plan_id": plan_id,
                    "decision": decision,
                    "rationale": "because [bold]reasons[/bold]",
                    "root": root_key,
                    "work": list(work),
                    "milestone": None,
                    "proposed_at": now_iso(),
                }
            ),
        )
    plan_events(layout, goal_id, plan_id, *events)
    return plan_id


def plan_events(layout: Layout, goal_id: str, plan_id: str, *events: tuple[str, dict[str, Any]]) -> None:
    from harn_tui.core.records import events as ev
    from harn_tui.core.records.events import PLAN_EVENTS_ADAPTER, PlanEvent

    tail: JsonlTail[PlanEvent] = JsonlTail(layout.plan(goal_id, plan_id) / "events.jsonl", PLAN_EVENTS_ADAPTER)

    kinds = {
        cls.model_fields["event"].default: cls
        for cls in (
            ev.PlanProposed,
            ev.PlanAttention,
            ev.PlanApplied,
            ev.PlanRejected,
            ev.PlanRetryRequested,
            ev.PlanFailed,
            ev.PlanCompleted,
            ev.PlanReviewed,
        )
    }
    for kind, payload in events:
        payload = dict(payload)
        append_event(tail, kinds[kind], payload.pop("actor", "supervisor"), **payload)
