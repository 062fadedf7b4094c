"""The transitions the crash matrix kills: every operator verb of SPEC 8 that writes, and seven kinds of tick.

Each entry builds the tree the command acts on, gives its argv, and says what "done exactly once" means after a
kill and one repeat of the same command (attempt semantics: an attempt killed after `attempt.started` is lost,
charged, recorded by the next writer; the repeat of `work run` is then refused, as for any blocked item).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from harn_tui.core.projection import project_goal
from harn_tui.core.transitions import approve_plan, reopen_work
from harn_tui.core.tree import Tree
from tests.goal_kit import EXAMPLES, GoalKit, apply_reply, item, make_root, scripted
from tests.plan_builders import (
    GOAL,
    ROOT_WORK,
    THREE_ITEMS,
    add_plan,
    make_goal,
    record_attempt,
)
from tests.reliability.crash_kit import Child, Transition, log_events, log_lines, run_cli

WORK = "w-under-test"


def examples(workdir: Path) -> Path:
    target = workdir / "examples"
    if not target.exists():
        shutil.copytree(EXAMPLES, target)
    return target


PROOF = (
    '{"schema_version":1,"run_id":"%s","status":"%s","summary":"done","acceptance":[{"criterion":"done",'
    '"status":"%s","evidence":"seen"}],"class":%s,"finished_at":"2026-11-30T12:00:00Z"}'
)
PASS_SH = f"""#!/bin/sh
printf '{PROOF}' "$HARN_RUN_ID" succeeded satisfied null > "$HARN_PROOF"
"""
PARK_SH = f"""#!/bin/sh
if [ -z "$HARN_APPROVAL" ]; then
  printf '{{"question":"May I deploy?","details":"prod"}}' > "$HARN_RUN_DIR/approval-request.json"
  exit 75
fi
if grep -q '"verdict": *"approve"' "$HARN_APPROVAL"; then
  printf '{PROOF}' "$HARN_RUN_ID" succeeded satisfied null > "$HARN_PROOF"
else
  printf '{PROOF}' "$HARN_RUN_ID" failed unsatisfied '"decision"' > "$HARN_PROOF"
fi
"""


def shell_template(workdir: Path, name: str, body: str) -> Path:
    """A /bin/sh template (a millisecond to start, so the matrix spends its time on harn, not on Python
    interpreters); its work's only criterion must be "done"."""
    path = workdir / "templates" / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
        path.chmod(0o755)
    return path


def passing(workdir: Path) -> Path:
    return shell_template(workdir, "pass.sh", PASS_SH)


def parking(workdir: Path) -> Path:
    """Parks for an approval; resumed, passes when approved and fails (class decision) when denied."""
    return shell_template(workdir, "park.sh", PARK_SH)


def work_events(layout: Layout, work_id: str = WORK) -> list[dict[str, Any]]:
    return log_lines(layout.work(work_id) / "events.jsonl")


def count(events: list[dict[str, Any]], name: str, **fields: Any) -> int:
    return sum(1 for e in events if e["event"] == name and all(e.get(k) == v for k, v in fields.items()))


def plan_log(layout: Layout, ctx: dict[str, Any]) -> list[str]:
    return log_events(layout.plan(ctx["goal"], ctx["plan"]) / "events.jsonl")


def goal_view(layout: Layout, goal_id: str) -> Any:
    return project_goal(Tree.load_scoped(layout, goal_id), goal_id)


def parked_approval(layout: Layout, work_id: str = WORK) -> str:
    finished = [e for e in work_events(layout, work_id) if e["event"] == "attempt.finished"]
    assert finished and finished[-1]["status"] == "parked", finished
    return str(finished[-1]["approval_id"])


# ----- creation


def build_supervisor_create(layout: Layout, workdir: Path) -> dict[str, Any]:
    ex = examples(workdir)
    make_root(layout, "root-w", template=ex / "templates" / "implement.py", accept=("done",))
    return {"ex": ex, "goal": "goal-new"}


def argv_supervisor_create(ctx: dict[str, Any]) -> list[str]:
    ex = ctx["ex"]
    return [
        "supervisor",
        "create",
        "--team",
        str(ex / "team.json"),
        "--replanning",
        str(ex / "replanning.json"),
        "--root-work",
        "root-w",
        "--id",
        ctx["goal"],
    ]


def done_supervisor_create(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    view = goal_view(layout, ctx["goal"])
    assert (view.state, view.active_root) == ("ready", "root-w"), (view.state, view.reason)


def build_work_create(layout: Layout, workdir: Path) -> dict[str, Any]:
    ex = examples(workdir)
    make_root(layout, "dep-w", template=ex / "templates" / "implement.py")
    return {"ex": ex}


def argv_work_create(ctx: dict[str, Any]) -> list[str]:
    return [
        "work",
        "create",
        "New work",
        str(ctx["ex"] / "templates" / "implement.py"),
        "--objective",
        "Do it.",
        "--accept",
        "it works",
        "--depends-on",
        "dep-w",
        "--id",
        WORK,
    ]


def done_work_create(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert [e["event"] for e in work_events(layout)] == ["work.created"]


# ----- plans


def build_apply_plan(layout: Layout, workdir: Path) -> dict[str, Any]:
    make_goal(layout, examples(workdir), max_attempts=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    return {"goal": GOAL, "plan": add_plan(layout, items=THREE_ITEMS)}


def build_apply_plan_torn(layout: Layout, workdir: Path) -> dict[str, Any]:
    """A plan log whose last line was torn by an earlier power loss: the approve truncates it, then appends."""
    ctx = build_apply_plan(layout, workdir)
    with open(layout.plan(GOAL, ctx["plan"]) / "events.jsonl", "ab") as log:
        log.write(b'{"schema_version":1,"seq":3,"ts":"2026-')
    return ctx


def argv_approve(ctx: dict[str, Any]) -> list[str]:
    return ["supervisor", "plan", "approve", ctx["goal"], ctx["plan"], "--reason", "Looks right."]


def done_applied(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert plan_log(layout, ctx).count("plan.applied") == 1
    ids = [f"{ctx['plan']}-{key}" for key in ("a", "b", "implement")]
    for work_id in ids:
        assert [e["event"] for e in work_events(layout, work_id)] == ["work.created"], work_id
    view = goal_view(layout, GOAL)
    assert (view.generation, view.active_root, view.state) == (1, ids[2], "ready"), view.reason
    document = child.document()
    assert document["outcome"] in ("applied", "already_done") and document["event"]["work_ids"] == ids


def build_complete_plan(layout: Layout, workdir: Path) -> dict[str, Any]:
    make_goal(layout, examples(workdir), root_work=None, mission=True)
    return {"goal": GOAL, "plan": add_plan(layout, decision="complete", trigger="milestone")}


def done_completed(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert plan_log(layout, ctx).count("plan.completed") == 1
    assert goal_view(layout, GOAL).state == "succeeded"


def build_proposed(layout: Layout, workdir: Path) -> dict[str, Any]:
    make_goal(layout, examples(workdir), max_attempts=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    return {"goal": GOAL, "plan": add_plan(layout)}


def done_rejected(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert plan_log(layout, ctx).count("plan.rejected") == 1
    assert child.document()["event"]["reason"] == "Not this way."


def build_attention(layout: Layout, workdir: Path) -> dict[str, Any]:
    make_goal(layout, examples(workdir), max_attempts=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    return {"goal": GOAL, "plan": add_plan(layout, decision="attention")}


def build_completed_mission(layout: Layout, workdir: Path) -> dict[str, Any]:
    make_goal(layout, examples(workdir), root_work=None, mission=True)
    plan = add_plan(layout, decision="complete", trigger="milestone")
    approve_plan(layout, GOAL, plan, actor="tester")
    return {"goal": GOAL, "plan": plan}


def done_mission_reopened(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert plan_log(layout, ctx).count("plan.reopened") == 1
    view = goal_view(layout, GOAL)
    assert view.latest_plan_status == "reopened" and view.state == "ready"


def done_retry(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert plan_log(layout, ctx).count("plan.retry_requested") == 1
    assert goal_view(layout, GOAL).next_action == "replan"


# ----- work decisions


def build_in_review_with_findings(layout: Layout, workdir: Path) -> dict[str, Any]:
    create_work(
        layout,
        title="Item",
        template=passing(workdir),
        objective="Do it.",
        acceptance=["done"],
        work_id=WORK,
        actor="tester",
    )
    record_attempt(layout, WORK, passed=True)
    reopen_work(layout, WORK, actor="tester", findings=["the log is noisy", "a test is missing"])
    record_attempt(layout, WORK, passed=True, trigger="reopen")
    return {}


def done_accepted(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    events = work_events(layout)
    assert count(events, "work.accepted") == 1
    assert len(events[-1]["dispositions"]) == 2


def build_in_review(layout: Layout, workdir: Path) -> dict[str, Any]:
    create_work(
        layout,
        title="Item",
        template=passing(workdir),
        objective="Do it.",
        acceptance=["done"],
        work_id=WORK,
        actor="tester",
    )
    record_attempt(layout, WORK, passed=True)
    return {}


def done_reopened(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    events = work_events(layout)
    assert count(events, "work.reopened") == 1
    assert [f["statement"] for f in events[-1]["findings"]] == ["retry with logs", "add a test"]


def build_ready(layout: Layout, workdir: Path) -> dict[str, Any]:
    create_work(
        layout,
        title="Item",
        template=passing(workdir),
        objective="Do it.",
        acceptance=["done"],
        work_id=WORK,
        actor="tester",
    )
    return {}


def done_cancelled(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert count(work_events(layout), "work.cancelled", reason="not needed") == 1


def build_parked(layout: Layout, workdir: Path) -> dict[str, Any]:
    create_work(
        layout,
        title="Deploy",
        template=parking(workdir),
        objective="Deploy it.",
        acceptance=["done"],
        work_id=WORK,
        actor="tester",
    )
    assert run_cli(layout.root, ["work", "run", WORK]).code == 0
    return {"approval": parked_approval(layout)}


def done_decided(verdict: str) -> Any:
    def done(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
        decision = json.loads((layout.approval(ctx["approval"]) / "decision.json").read_text())
        assert decision["verdict"] == verdict
        assert child.document()["event"]["verdict"] == verdict

    return done


def build_goal_item_in_review(layout: Layout, workdir: Path) -> dict[str, Any]:
    make_goal(layout, examples(workdir), template=passing(workdir), acceptance=("done",))
    record_attempt(layout, ROOT_WORK, passed=True)
    return {}


def done_goal_accepted(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert count(work_events(layout, ROOT_WORK), "work.accepted") == 1
    assert goal_view(layout, GOAL).state == "succeeded"


# ----- attempts


def started_already(layout: Layout, ctx: dict[str, Any]) -> set[int]:
    """Once the attempt is recorded started (or resumed), the repeat of `work run` is refused (3): the attempt
    either passed (in review) or was lost with its process (blocked, charged)."""
    return {3} if count(work_events(layout, ctx.get("work", WORK)), ctx["start_event"]) > ctx["starts"] else {0}


def done_one_attempt(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    """Exactly one new attempt (or resume) was recorded, and it either passed or was lost."""
    events = work_events(layout, ctx.get("work", WORK))
    assert count(events, ctx["start_event"]) == ctx["starts"] + 1, events
    finished = [e for e in events if e["event"] == "attempt.finished"][ctx["finishes"] :]
    assert all(e["status"] == "passed" or e["reason"] == "lost" for e in finished), finished


def build_run_ready(layout: Layout, workdir: Path) -> dict[str, Any]:
    build_ready(layout, workdir)
    return {"start_event": "attempt.started", "starts": 0, "finishes": 0}


def build_retry_blocked(layout: Layout, workdir: Path) -> dict[str, Any]:
    build_ready(layout, workdir)
    record_attempt(layout, WORK, passed=False)
    return {"start_event": "attempt.started", "starts": 1, "finishes": 1}


def retry_repeat(layout: Layout, ctx: dict[str, Any]) -> set[int]:
    """A lost retry leaves the item blocked/retry again, so the repeat retries (0); a passed one refuses (3)."""
    return {3} if count(work_events(layout), "attempt.finished", status="passed") else {0}


def done_retried(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    events = work_events(layout)
    assert count(events, "attempt.finished", status="passed") == 1
    finished = [e for e in events if e["event"] == "attempt.finished"][1:]
    assert all(e["status"] == "passed" or e["reason"] == "lost" for e in finished), finished


def build_resume(layout: Layout, workdir: Path) -> dict[str, Any]:
    approval = build_parked(layout, workdir)["approval"]
    assert run_cli(layout.root, ["approval", "approve", approval]).code == 0
    return {"start_event": "attempt.resumed", "starts": 0, "finishes": 1}


def build_goal_item_ready(layout: Layout, workdir: Path) -> dict[str, Any]:
    make_goal(layout, examples(workdir), template=passing(workdir), acceptance=("done",))
    return {"work": ROOT_WORK, "start_event": "attempt.started", "starts": 0, "finishes": 0}


# ----- ticks


def goal_kit(layout: Layout, workdir: Path, template: Path) -> GoalKit:
    """A GoalKit whose catalog templates are both `template`."""
    kit = GoalKit(layout, workdir)
    for spec in kit.templates.values():
        spec["path"] = str(template)
    return kit


def build_planning_tick(layout: Layout, workdir: Path) -> dict[str, Any]:
    """A failed root; the tick asks the planner (scripted), the reviewer approves, auto_apply materializes."""
    kit = goal_kit(layout, workdir, passing(workdir))
    kit.team["planner"] = scripted(
        workdir,
        "planner",
        apply_reply(
            item("a", template="investigate"),
            item("b", template="investigate", deps=("a",)),
            item("fresh", deps=("a", "b")),
        ),
    )
    kit.team["critic"] = scripted(workdir, "critic", {"verdict": "approve", "rationale": "Fine.", "findings": []})
    goal = kit.create(
        root_work=make_root(layout, max_attempts=1, accept=("done",)), reviewers=("critic",), auto_apply=True
    )
    record_attempt(layout, "root-work", passed=False)
    return {"goal": goal}


def done_planning_tick(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    view = goal_view(layout, ctx["goal"])
    applied = [p for p in view.plans if p.status == "applied"]
    assert view.generation == 1 and len(applied) == 1, [(p.id, p.status) for p in view.plans]
    assert len(applied[0].work_ids) == 3


def build_revision_tick(layout: Layout, workdir: Path) -> dict[str, Any]:
    """As the planning tick, but the reviewer first asks for a revision (one round allowed), then approves."""
    kit = goal_kit(layout, workdir, passing(workdir))
    kit.team["planner"] = scripted(workdir, "planner", apply_reply(item("fresh")))
    revise = {"verdict": "revise", "rationale": "Say why.", "findings": []}
    approve = {"verdict": "approve", "rationale": "Fine.", "findings": []}
    kit.team["critic"] = scripted(workdir, "critic", [revise, revise, approve])
    goal = kit.create(
        root_work=make_root(layout, max_attempts=1, accept=("done",)),
        reviewers=("critic",),
        auto_apply=True,
        replanning={"max_revision_rounds": 1},
    )
    record_attempt(layout, "root-work", passed=False)
    return {"goal": goal}


def done_revision_tick(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    view = goal_view(layout, ctx["goal"])
    applied = [p for p in view.plans if p.status == "applied"]
    assert view.generation == 1 and len(applied) == 1, [(p.id, p.status) for p in view.plans]
    assert [r.round for r in applied[0].revisions] == [1]
    proposals = [p.id for p in view.plans if p.proposal is not None]
    assert proposals == [applied[0].id], "never two proposals"


def build_scripted_planner_tick(layout: Layout, workdir: Path, reply: object) -> dict[str, Any]:
    kit = goal_kit(layout, workdir, passing(workdir))
    kit.team["planner"] = scripted(workdir, "planner", reply)
    goal = kit.create(root_work=make_root(layout, max_attempts=1, accept=("done",)))
    record_attempt(layout, "root-work", passed=False)
    return {"goal": goal}


def build_attention_tick(layout: Layout, workdir: Path) -> dict[str, Any]:
    """The planner answers `attention`: proposal.json, plan.proposed and plan.attention under one lease hold."""
    return build_scripted_planner_tick(
        layout, workdir, {"decision": "attention", "rationale": "A human must pick the queue library.", "work": []}
    )


def done_attention_tick(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    view = goal_view(layout, ctx["goal"])
    statuses = sorted(p.status for p in view.plans)
    assert statuses.count("attention") == 1 and set(statuses) <= {"attention", "interrupted"}, statuses
    assert (view.state, view.next_action) == ("awaiting_attention", "retry_plan"), view.reason


def build_failed_tick(layout: Layout, workdir: Path) -> dict[str, Any]:
    """The planner answers nonsense twice (planner-retry.json is written between): plan.failed."""
    return build_scripted_planner_tick(layout, workdir, ["nonsense", "still nonsense"])


def done_failed_tick(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    """Each tick is one plan request: the interrupted one (if any) is left as it was, every finished one failed
    exactly once (a repeat after a recorded failure asks the planner again, as any next tick would)."""
    view = goal_view(layout, ctx["goal"])
    statuses = [p.status for p in view.plans]
    assert "failed" in statuses and set(statuses) <= {"failed", "interrupted"} and len(statuses) <= 2, statuses


def build_attempt_tick(layout: Layout, workdir: Path) -> dict[str, Any]:
    """A ready root; the tick starts it, the template passes. `retry_blocked` lets the repeat retry a lost one."""
    root = make_root(layout, template=passing(workdir), max_attempts=3, accept=("done",))
    goal = goal_kit(layout, workdir, passing(workdir)).create(root_work=root, options={"retry_blocked": True})
    return {"goal": goal}


def done_attempt_tick(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    events = work_events(layout, "root-work")
    assert count(events, "attempt.finished", status="passed") == 1, events


def build_accept_tick(layout: Layout, workdir: Path) -> dict[str, Any]:
    """`accept_passing_proof`: the tick accepts the passing dependency, then starts the root, which passes."""
    template = passing(workdir)
    create_work(
        layout,
        title="First",
        template=template,
        objective="Do it.",
        acceptance=["done"],
        work_id="dep-w",
        actor="tester",
    )
    record_attempt(layout, "dep-w", passed=True)
    create_work(
        layout,
        title="Root",
        template=template,
        objective="Do it.",
        acceptance=["done"],
        depends_on=["dep-w"],
        work_id="root-work",
        actor="tester",
    )
    goal = goal_kit(layout, workdir, template).create(
        root_work="root-work", options={"retry_blocked": True, "accept_passing_proof": True}
    )
    return {"goal": goal}


def done_accept_tick(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    assert count(work_events(layout, "dep-w"), "work.accepted") == 1
    root = work_events(layout, "root-work")
    assert count(root, "attempt.finished", status="passed") == 1, root
    assert count(root, "work.accepted") <= 1


def build_resume_tick(layout: Layout, workdir: Path) -> dict[str, Any]:
    """A root parked on an approval that is approved; the tick resumes the run (`resume_approved`)."""
    template = parking(workdir)
    root = make_root(layout, template=template, max_attempts=3, accept=("done",))
    goal = goal_kit(layout, workdir, template).create(root_work=root, options={"retry_blocked": True})
    assert run_cli(layout.root, ["supervisor", "tick", goal]).code == 0
    assert run_cli(layout.root, ["approval", "approve", parked_approval(layout, root)]).code == 0
    return {"goal": goal}


def done_resume_tick(layout: Layout, ctx: dict[str, Any], child: Child) -> None:
    """The approved run was resumed once; it passed, or it was lost and the retry parks again."""
    events = work_events(layout, "root-work")
    assert count(events, "attempt.resumed") == 1, events
    passed = count(events, "attempt.finished", status="passed")
    lost = count(events, "attempt.finished", reason="lost")
    assert (passed, lost) in ((1, 0), (0, 1)), events


def argv_tick(ctx: dict[str, Any]) -> list[str]:
    return ["supervisor", "tick", ctx["goal"]]


TRANSITIONS: list[Transition] = [
    Transition(
        "supervisor create",
        build_supervisor_create,
        argv_supervisor_create,
        done_supervisor_create,
        lambda layout, ctx: {3} if (layout.goal("goal-new") / "goal.json").is_file() else {0},
    ),
    Transition(
        "work create",
        build_work_create,
        argv_work_create,
        done_work_create,
        lambda layout, ctx: {3} if count(work_events(layout), "work.created") else {0},
    ),
    Transition("plan approve (apply, 3 items)", build_apply_plan, argv_approve, done_applied),
    Transition("plan approve (over a torn tail)", build_apply_plan_torn, argv_approve, done_applied),
    Transition("plan approve (complete)", build_complete_plan, argv_approve, done_completed),
    Transition(
        "plan reject",
        build_proposed,
        lambda ctx: ["supervisor", "plan", "reject", ctx["goal"], ctx["plan"], "--reason", "Not this way."],
        done_rejected,
    ),
    Transition(
        "plan retry",
        build_attention,
        lambda ctx: ["supervisor", "plan", "retry", ctx["goal"], ctx["plan"], "--reason", "Smaller steps."],
        done_retry,
    ),
    Transition(
        "plan reopen",
        build_completed_mission,
        lambda ctx: ["supervisor", "plan", "reopen", ctx["goal"], ctx["plan"], "--reason", "One more."],
        done_mission_reopened,
    ),
    Transition(
        "work accept",
        build_in_review_with_findings,
        lambda ctx: ["work", "accept", WORK, "--dispose", "f1=fixed", "--dispose", "f2=deferred:next week"],
        done_accepted,
    ),
    Transition(
        "work accept (goal item)",
        build_goal_item_in_review,
        lambda ctx: ["work", "accept", ROOT_WORK, "--reason", "Verified."],
        done_goal_accepted,
    ),
    Transition(
        "work reopen",
        build_in_review,
        lambda ctx: ["work", "reopen", WORK, "--finding", "retry with logs", "--finding", "add a test"],
        done_reopened,
    ),
    Transition(
        "work cancel", build_ready, lambda ctx: ["work", "cancel", WORK, "--reason", "not needed"], done_cancelled
    ),
    Transition(
        "approval approve", build_parked, lambda ctx: ["approval", "approve", ctx["approval"]], done_decided("approve")
    ),
    Transition(
        "approval deny",
        build_parked,
        lambda ctx: ["approval", "deny", ctx["approval"], "--reason", "too risky"],
        done_decided("deny"),
    ),
    Transition("work run", build_run_ready, lambda ctx: ["work", "run", WORK], done_one_attempt, started_already),
    Transition(
        "work run (goal item)",
        build_goal_item_ready,
        lambda ctx: ["work", "run", ROOT_WORK],
        done_one_attempt,
        started_already,
    ),
    Transition("work run (resume)", build_resume, lambda ctx: ["work", "run", WORK], done_one_attempt, started_already),
    Transition("work retry", build_retry_blocked, lambda ctx: ["work", "retry", WORK], done_retried, retry_repeat),
    Transition("tick: planner, reviewer, auto-apply", build_planning_tick, argv_tick, done_planning_tick),
    Transition("tick: reviewer asks for a revision", build_revision_tick, argv_tick, done_revision_tick),
    Transition("tick: planner asks for attention", build_attention_tick, argv_tick, done_attention_tick),
    Transition("tick: planner invalid twice", build_failed_tick, argv_tick, done_failed_tick),
    Transition("tick: attempt start/finish", build_attempt_tick, argv_tick, done_attempt_tick),
    Transition("tick: accept, then start", build_accept_tick, argv_tick, done_accept_tick),
    Transition("tick: resume an approved park", build_resume_tick, argv_tick, done_resume_tick),
]
