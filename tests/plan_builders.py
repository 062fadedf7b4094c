"""Test builders: goals, plans written straight through the core (before any planner runs), templates, and
supervisor-like attempt events. Shared by every suite that needs a plan or an attempt on disk."""

from __future__ import annotations

import hashlib
import json
import stat
import sys
from pathlib import Path
from typing import Any

from harn_tui.core.clock import now, now_iso
from harn_tui.core.creation import GoalOptions, create_supervisor, create_work
from harn_tui.core.fsio import record_bytes, write_immutable, write_record
from harn_tui.core.ids import new_plan_id, new_run_id
from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.records import (
    AttemptFinished,
    AttemptManifest,
    AttemptStarted,
    PlanAttention,
    PlanProposed,
    PlanRequest,
    PlanReviewed,
    Proof,
    Proposal,
    ReviewReceipt,
)
from harn_tui.core.records.events import PLAN_EVENTS_ADAPTER
from harn_tui.core.tree import Tree
from harn_tui.core.writer import append_event

ROOT_WORK = "work-root"
GOAL = "goal-test"

DEFAULT_ITEMS: list[dict[str, Any]] = [
    {
        "key": "investigate",
        "title": "Find the cause",
        "objective": "Read the failing proof.",
        "acceptance": ["cause written down"],
        "dependencies": [],
        "template": "investigate",
    },
    {
        "key": "implement",
        "title": "Fix the cause",
        "objective": "Fix what was found.",
        "acceptance": ["tests pass"],
        "dependencies": ["investigate"],
        "template": "implement",
    },
]

# a three-item plan: a, b after a, and the root `implement` after both (for races over one graph)
THREE_ITEMS: list[dict[str, Any]] = [
    {"key": "a", "title": "A", "objective": "A.", "template": "investigate"},
    {"key": "b", "title": "B", "objective": "B.", "dependencies": ["a"], "template": "investigate"},
    {"key": "implement", "title": "C", "objective": "C.", "dependencies": ["a", "b"], "template": "implement"},
]


def write_template(directory: Path, name: str, body: str) -> Path:
    """An executable Python template run by this interpreter (body: the script after the shebang)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


PASSING_TEMPLATE = """
import datetime, json, os
manifest = json.load(open(os.environ["HARN_MANIFEST"]))
print("attempt", manifest["attempt"]["number"], manifest["attempt"]["trigger"])
proof = {"run_id": os.environ["HARN_RUN_ID"], "status": "succeeded", "summary": "done",
         "acceptance": [{"criterion": c, "status": "satisfied", "evidence": "ok"}
                        for c in manifest["work"]["acceptance"]],
         "class": None, "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
json.dump(proof, open(os.environ["HARN_PROOF"], "w"))
"""


def replanning_file(examples: Path, **overrides: Any) -> Path:
    """The example replanning file with `overrides` (e.g. reviewers=[], max_replans=1), written beside it."""
    data = json.loads((examples / "replanning.json").read_text())
    data.update(overrides)
    path = examples / f"replanning-{hashlib.sha256(json.dumps(data).encode()).hexdigest()[:8]}.json"
    path.write_text(json.dumps(data))
    return path


def make_goal(
    layout: Layout,
    examples: Path,
    *,
    goal_id: str = GOAL,
    root_work: str | None = ROOT_WORK,
    template: Path | None = None,
    acceptance: tuple[str, ...] = ("it works",),
    max_attempts: int = 3,
    mission: bool = False,
    max_total_attempts: int | None = None,
    create_root: bool = True,
    **replanning: Any,
) -> str:
    """A goal over a fresh root work item (or an existing one, or a mission) with the example team and a
    replanning catalog (the example's, with `replanning` overrides)."""
    if root_work is not None and create_root:
        create_work(
            layout,
            title="Root work",
            template=template or examples / "templates" / "implement.py",
            objective="Make it work.",
            acceptance=acceptance,
            max_attempts=max_attempts,
            work_id=root_work,
            actor="tester",
        )
    create_supervisor(
        layout,
        team_file=examples / "team.json",
        root_work=root_work,
        mission_file=examples / "mission.json" if mission else None,
        replanning_file=replanning_file(examples, **replanning),
        options=GoalOptions(goal_id=goal_id, max_total_attempts=max_total_attempts),
    )
    return goal_id


def goal_view(layout: Layout, goal_id: str = GOAL) -> GoalView:
    return project_goal(Tree.load_scoped(layout, goal_id), goal_id)


def add_plan(
    layout: Layout,
    goal_id: str = GOAL,
    *,
    decision: str = "apply",
    items: list[dict[str, Any]] | None = None,
    root: str | None = "implement",
    trigger: str = "recovery",
    attention: str | None = None,
    via_reviewers: bool = False,
    reviewed_sha256: str | None = None,
    prior_root: str | bool | None = True,
    fingerprint: str | None = None,
    skip_review: bool = False,
) -> str:
    """A plan as the supervisor would leave it: request, proposal and events (`plan.reviewed` when the goal has
    reviewers, `plan.proposed`, `plan.attention` for an attention decision). `via_reviewers` leaves a reviewer
    attention instead: a receipt, no proposal. Returns the plan id."""
    view = goal_view(layout, goal_id)
    assert view.intent is not None and view.intent.replanning is not None
    sequence = len(view.plans) + 1
    plan_id = new_plan_id(sequence)
    directory = layout.plan(goal_id, plan_id)
    request = PlanRequest(
        id=plan_id,
        goal_id=goal_id,
        sequence=sequence,
        trigger=trigger,
        graph_fingerprint=fingerprint or view.graph_fingerprint,
        prior_root_work_id=view.active_root if prior_root is True else (prior_root or None),
        created_at=now_iso(),
    )
    write_record(directory / "request.json", request)
    if decision == "apply":
        work = DEFAULT_ITEMS if items is None else items
    else:
        work, root = [], None
    proposal = Proposal(
        plan_id=plan_id,
        decision=decision,
        rationale="Because the root failed.",
        root=root,
        work=work,
        milestone=None,
        proposed_at=now_iso(),
    )
    body = record_bytes(proposal)
    log = JsonlTail(directory / "events.jsonl", PLAN_EVENTS_ADAPTER)
    reviewers = view.intent.replanning.reviewers
    if reviewers and not skip_review and (decision != "attention" or via_reviewers):
        write_immutable(directory / "candidate.json", body)
        outcome = "attention" if via_reviewers else "approved"
        verdict = "attention" if via_reviewers else "approve"
        receipt = ReviewReceipt(
            plan_id=plan_id,
            candidate_sha256=hashlib.sha256(body).hexdigest(),
            outcome=outcome,
            reviews=[{"reviewer": r, "verdict": verdict, "rationale": "looked at it"} for r in reviewers],
            created_at=now_iso(),
        )
        write_record(directory / "review.json", receipt)
        if via_reviewers:
            append_event(log, PlanAttention, "supervisor", reason=attention or "the reviewers want a human")
            return plan_id
        append_event(
            log, PlanReviewed, "supervisor", candidate_sha256=reviewed_sha256 or hashlib.sha256(body).hexdigest()
        )
    write_immutable(directory / "proposal.json", body)
    append_event(log, PlanProposed, "supervisor")
    if decision == "attention":
        append_event(log, PlanAttention, "supervisor", reason=attention or "the planner needs a human")
    return plan_id


def _begin_attempt(layout: Layout, work_id: str, actor: str, trigger: str) -> tuple[str, JsonlTail[Any]]:
    """A manifest and `attempt.started` for a new run of `work_id`; returns the run id and the work log."""
    work = Tree(layout).load_work(work_id)
    intent = work.intent
    assert intent is not None
    number = 1 + sum(1 for e in work.events if e.event == "attempt.started")
    run_id = new_run_id(now())
    manifest = AttemptManifest.model_validate(
        {
            "run_id": run_id,
            "goal_id": None,
            "work": {
                "id": work_id,
                "title": intent.title,
                "objective": intent.objective,
                "acceptance": list(intent.acceptance),
            },
            "attempt": {"number": number, "trigger": trigger, "prior": None, "findings": []},
            "template": intent.template.model_dump(),
            "team": {},
            "created_at": now_iso(),
        }
    )
    write_record(layout.run(run_id) / "manifest.json", manifest)
    append_event(work.log, AttemptStarted, actor, run_id=run_id, attempt=number, trigger=trigger)
    return run_id, work.log


def record_attempt(
    layout: Layout,
    work_id: str,
    *,
    passed: bool,
    class_: str | None = None,
    actor: str = "supervisor",
    trigger: str = "initial",
) -> str:
    """A finished attempt written directly (manifest, proof, started + finished events), as a supervisor would
    leave it; for tests that need a state without running a template. Returns the run id."""
    run_id, log = _begin_attempt(layout, work_id, actor, trigger)
    criteria = Tree(layout).load_work(work_id).intent.acceptance  # type: ignore[union-attr]
    status = "satisfied" if passed else "unsatisfied"
    proof = Proof.model_validate(
        {
            "run_id": run_id,
            "status": "succeeded" if passed else "failed",
            "summary": "recorded by a test",
            "acceptance": [{"criterion": c, "status": status, "evidence": "test"} for c in criteria],
            "class": class_,
            "finished_at": now_iso(),
        }
    )
    write_record(layout.run(run_id) / "proof.json", proof)
    append_event(
        log,
        AttemptFinished,
        actor,
        run_id=run_id,
        status="passed" if passed else "failed",
        reason=None if passed else "recorded failure",
        **{"class": class_},
    )
    return run_id


def start_lost_attempt(layout: Layout, work_id: str) -> str:
    """An `attempt.started` whose runner is gone (no run lease held): it projects as lost."""
    run_id, _ = _begin_attempt(layout, work_id, "supervisor", "initial")
    return run_id


def events_of(layout: Layout, work_id: str) -> list[dict[str, Any]]:
    path = layout.work(work_id) / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def plan_events(layout: Layout, goal_id: str, plan_id: str) -> list[dict[str, Any]]:
    path = layout.plan(goal_id, plan_id) / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


MODAL_TEMPLATE = r'''
"""A test template whose behaviour the caller picks through the inherited environment (TEMPLATE_MODE)."""
import datetime, json, os, subprocess, sys, time

mode = os.environ.get("TEMPLATE_MODE", "pass")
manifest = json.load(open(os.environ["HARN_MANIFEST"]))
scratch = os.environ["HARN_RUN_DIR"]
criteria = manifest["work"]["acceptance"]
time.sleep(float(os.environ.get("TEMPLATE_SLEEP", "0")))


def prove(status="succeeded", satisfied=True, cls=None, listed=None, run_id=None, summary="done"):
    state = "satisfied" if satisfied else "unsatisfied"
    proof = {"schema_version": 1, "run_id": run_id or os.environ["HARN_RUN_ID"], "status": status,
             "summary": summary,
             "acceptance": [{"criterion": c, "status": state, "evidence": "seen"} for c in (listed or criteria)],
             "class": cls, "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
    with open(os.environ["HARN_PROOF"], "w") as handle:
        json.dump(proof, handle)


print("attempt", manifest["attempt"]["number"], manifest["attempt"]["trigger"], flush=True)
if mode == "pass":
    prove()
elif mode == "env":
    seen = {k: v for k, v in os.environ.items() if k.startswith("HARN_")}
    seen.update(cwd=os.getcwd(), stdin=sys.stdin.read())
    json.dump(seen, open(os.path.join(scratch, "env.json"), "w"))
    prove()
elif mode == "noproof":
    pass
elif mode == "badproof":
    prove(listed=["something else"])
elif mode == "wrongrun":
    prove(run_id="run-someone-else")
elif mode == "exit3":
    print("boom", file=sys.stderr)
    sys.exit(3)
elif mode.startswith("fail:"):
    cls = mode.split(":", 1)[1] or None
    prove(status="failed", satisfied=False, cls=cls, summary=f"failed with class {cls}")
elif mode == "sleep":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    open(os.path.join(scratch, "child.pid"), "w").write(str(child.pid))
    time.sleep(60)
elif mode == "longline":
    print("x" * 10000)
    print("short")
    prove()
elif mode == "park":
    counter = os.path.join(scratch, "parks.txt")
    parks = int(open(counter).read()) if os.path.exists(counter) else 0
    if parks < int(os.environ.get("TEMPLATE_PARKS", "1")):
        open(counter, "w").write(str(parks + 1))
        json.dump({"question": f"May I deploy? ({parks + 1})", "details": "prod"},
                  open(os.path.join(scratch, "approval-request.json"), "w"))
        sys.exit(75)
    decision = json.load(open(os.environ["HARN_APPROVAL"]))
    asked = json.load(open(os.environ["HARN_APPROVAL_REQUEST"]))
    assert asked["id"] == decision["approval_id"], "HARN_APPROVAL_REQUEST names the decided request"
    if decision["verdict"] == "approve":
        prove(summary="deployed after approval")
    else:
        prove(status="failed", satisfied=False, cls="decision", summary="denied: " + (decision["reason"] or ""))
sys.exit(0)
'''
