"""`tick_goal` and `run_goal` through real templates: dispatch, concurrency, automation switches, auto_apply,
budgets, refusals, and the quiescence of a goal that needs a human."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.errors import CorruptJournal, Refused
from harn_tui.core.layout import Layout
from harn_tui.core.supervisor import run_goal, tick_goal
from harn_tui.core.transitions import approve_plan, decide_approval, reopen_work
from tests.goal_kit import LOOP, GoalKit, apply_reply, command, item, make_root, plan_files, read, scripted

Snapshot = Callable[[Path], dict[str, bytes]]
REPORT_KEYS = {"stop_reason", "cycles", "dispatches", "acceptances", "replans", "outcomes", "goal"}


@pytest.fixture
def kit(layout: Layout, tmp_path: Path) -> GoalKit:
    directory = tmp_path / "files"
    directory.mkdir()
    return GoalKit(layout, directory)


def work_events(layout: Layout, work_id: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (layout.work(work_id) / "events.jsonl").read_text().splitlines()]


def test_a_tick_runs_the_ready_root_and_reports_what_it_did(kit: GoalKit) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout))
    report = tick_goal(kit.layout, goal_id).to_json()
    assert set(report) == REPORT_KEYS
    assert (report["stop_reason"], report["cycles"], report["dispatches"]) == ("needs_human", 1, 1)
    [outcome] = report["outcomes"]
    assert (outcome["kind"], outcome["work_id"], outcome["status"]) == ("attempt", "root-work", "passed")
    assert report["goal"]["state"] == "awaiting_attention" and report["goal"]["next_action"] == "review"
    started = [e for e in work_events(kit.layout, "root-work") if e["event"] == "attempt.started"]
    assert [(e["actor"], e["trigger"]) for e in started] == [("supervisor", "initial")]


def test_a_goal_that_needs_a_human_is_quiescent(kit: GoalKit, root: Path, snapshot_tree: Snapshot) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout))
    tick_goal(kit.layout, goal_id)
    before = snapshot_tree(root)
    for report in (tick_goal(kit.layout, goal_id), run_goal(kit.layout, goal_id)):
        assert (report.stop_reason, report.cycles, report.dispatches) == ("needs_human", 0, 0)
    assert snapshot_tree(root) == before


def test_a_second_supervisor_skips_a_busy_goal(kit: GoalKit, root: Path, snapshot_tree: Snapshot) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout))
    lock = kit.layout.goal(goal_id) / "supervisor.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
            "print('held', flush=True); time.sleep(30)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = snapshot_tree(root)
        report = tick_goal(kit.layout, goal_id)
        assert report.stop_reason == "busy" and report.dispatches == 0
        assert run_goal(kit.layout, goal_id).stop_reason == "busy"
        assert snapshot_tree(root) == before
    finally:
        holder.kill()
        holder.wait()


def test_ready_items_run_concurrently_up_to_max_parallel_work(
    kit: GoalKit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace"
    monkeypatch.setenv("LOOP_TRACE", str(trace))
    monkeypatch.setenv("LOOP_SLEEP_S", "0.6")
    for leaf in ("leaf-a", "leaf-b", "leaf-c"):
        make_root(kit.layout, leaf, template=LOOP / "slow_pass.py")
    create_work(
        kit.layout,
        title="Join",
        template=LOOP / "slow_pass.py",
        objective="Join.",
        depends_on=["leaf-a", "leaf-b", "leaf-c"],
        work_id="join",
        actor="tester",
    )
    goal_id = kit.create(root_work="join", options={"max_parallel_work": 2, "accept_passing_proof": True})
    started = time.monotonic()
    report = tick_goal(kit.layout, goal_id)
    elapsed = time.monotonic() - started
    assert report.dispatches == 2
    lines = [line.split() for line in trace.read_text().splitlines()]
    starts = {w: float(t) for kind, w, t in lines if kind == "start"}
    ends = {w: float(t) for kind, w, t in lines if kind == "end"}
    assert sorted(starts) == ["leaf-a", "leaf-b"], "two at once, in closure order"
    assert max(starts.values()) < min(ends.values()), "the two attempts must overlap"
    assert elapsed < 2 * 0.6 + 1.0, f"two 0.6 s attempts took {elapsed:.2f} s"
    final = run_goal(kit.layout, goal_id)
    assert final.stop_reason == "succeeded" and final.acceptances == 4
    assert final.goal is not None and final.goal.attempts_used == 4


def test_accept_passing_proof_accepts_through_the_operator_transition(kit: GoalKit) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout), options={"accept_passing_proof": True})
    report = run_goal(kit.layout, goal_id)
    assert (report.stop_reason, report.cycles, report.dispatches, report.acceptances) == ("succeeded", 2, 1, 1)
    accepted = [e for e in work_events(kit.layout, "root-work") if e["event"] == "work.accepted"]
    assert [(e["actor"], e["dispositions"]) for e in accepted] == [("supervisor", [])]


def test_work_with_open_findings_waits_for_the_operator(kit: GoalKit) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout), options={"accept_passing_proof": True})
    run_goal(kit.layout, goal_id)
    reopen_work(kit.layout, "root-work", actor="alice", findings=["Handle the empty queue."])
    report = run_goal(kit.layout, goal_id)
    assert (report.stop_reason, report.dispatches, report.acceptances) == ("needs_human", 1, 0)
    assert report.outcomes[0]["trigger"] == "reopen"
    goal = report.goal
    assert goal is not None and goal.next_action == "review"
    assert [f.statement for f in goal.work[0].open_findings] == ["Handle the empty queue."]
    manifest = read(kit.layout.run(report.outcomes[0]["run_id"]) / "manifest.json")
    assert manifest["attempt"]["findings"][0]["statement"] == "Handle the empty queue."


def test_an_approved_park_is_resumed_under_the_same_run(kit: GoalKit) -> None:
    root = make_root(kit.layout, template=Path(kit.templates["investigate"]["path"]))
    goal_id = kit.create(root_work=root)
    parked = tick_goal(kit.layout, goal_id)
    assert parked.stop_reason == "needs_human" and parked.outcomes[0]["status"] == "parked"
    approval_id = parked.outcomes[0]["approval_id"]
    decide_approval(kit.layout, approval_id, verdict="approve", actor="alice", reason="read-only is fine")
    resumed = tick_goal(kit.layout, goal_id)
    [outcome] = resumed.outcomes
    assert outcome["resumed"] is True and outcome["run_id"] == parked.outcomes[0]["run_id"]
    assert outcome["status"] == "passed" and resumed.dispatches == 1
    events = [e["event"] for e in work_events(kit.layout, root)]
    assert events == ["work.created", "attempt.started", "attempt.finished", "attempt.resumed", "attempt.finished"]
    assert resumed.goal is not None and resumed.goal.attempts_used == 1


def test_retry_blocked_retries_until_max_attempts(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", {"decision": "attention", "rationale": "Stuck."})
    root = make_root(kit.layout, template=LOOP / "fail.py", max_attempts=2)
    goal_id = kit.create(root_work=root, options={"retry_blocked": True}, replanning={"max_replans": 1})
    report = run_goal(kit.layout, goal_id)
    triggers = [o["trigger"] for o in report.outcomes if o["kind"] == "attempt"]
    assert triggers == ["initial", "retry"]
    assert report.outcomes[-1]["status"] == "attention" and report.stop_reason == "needs_human"
    manifest = read(kit.layout.run(report.outcomes[1]["run_id"]) / "manifest.json")
    assert manifest["attempt"]["prior"]["summary"] == "the lock-based approach deadlocks under load"


def test_without_retry_blocked_a_failed_item_waits_for_the_operator(kit: GoalKit) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout, template=LOOP / "fail.py", max_attempts=2))
    report = run_goal(kit.layout, goal_id)
    assert (report.stop_reason, report.dispatches) == ("blocked", 1)
    assert report.goal is not None and report.goal.next_action == "retry"


def test_auto_apply_applies_through_the_approve_transition(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", apply_reply(item("fresh")))
    goal_id = kit.create(
        root_work=make_root(kit.layout, template=LOOP / "fail.py"),
        auto_apply=True,
        options={"accept_passing_proof": True},
    )
    report = run_goal(kit.layout, goal_id)
    plans = [o for o in report.outcomes if o["kind"] == "plan"]
    assert [(p["status"], p["decision"]) for p in plans] == [("applied", "apply")]
    applied = [
        json.loads(line) for line in (plan_files(kit.layout, goal_id)[0] / "events.jsonl").read_text().splitlines()
    ][-1]
    assert (applied["event"], applied["actor"]) == ("plan.applied", "supervisor")
    assert report.stop_reason == "succeeded"
    goal = report.goal
    assert goal is not None and goal.generation == 1 and goal.attempts_used == 2
    assert list(goal.governed_work_ids) == ["root-work", f"{plans[0]['plan_id']}-fresh"]


def test_auto_apply_is_refused_when_a_template_changed_and_the_proposal_waits(
    kit: GoalKit, root: Path, snapshot_tree: Snapshot
) -> None:
    kit.team["planner"] = command("python3", str(LOOP / "edit_then_plan.py"), kit.templates["implement"]["path"])
    goal_id = kit.create(root_work=make_root(kit.layout, template=LOOP / "fail.py"), auto_apply=True)
    report = run_goal(kit.layout, goal_id)
    [plan] = [o for o in report.outcomes if o["kind"] == "plan"]
    assert plan["status"] == "proposed" and "auto_apply refused" in plan["reason"] and "changed" in plan["reason"]
    assert report.goal is not None and report.goal.next_action == "review_plan"
    before = snapshot_tree(root)
    again = tick_goal(kit.layout, goal_id)
    assert (again.stop_reason, again.cycles, again.outcomes) == ("needs_human", 0, [])
    assert snapshot_tree(root) == before, "a refused auto-apply writes nothing"
    with pytest.raises(Refused, match="changed"):
        approve_plan(kit.layout, goal_id, plan["plan_id"], actor="alice")


def test_a_changed_template_refuses_the_start_and_records_nothing(
    kit: GoalKit, root: Path, snapshot_tree: Snapshot, tmp_path: Path
) -> None:
    template = tmp_path / "mine.py"
    template.write_bytes((LOOP / "fail.py").read_bytes())
    template.chmod(0o755)
    goal_id = kit.create(root_work=make_root(kit.layout, template=template))
    template.write_text(template.read_text() + "\n# edited\n")
    before = snapshot_tree(root)
    report = run_goal(kit.layout, goal_id)
    assert (report.stop_reason, report.dispatches) == ("no_change", 0)
    assert report.outcomes[0]["status"] == "refused" and "changed" in report.outcomes[0]["reason"]
    assert snapshot_tree(root) == before


def test_attempts_are_counted_across_generations(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", apply_reply(item("again", template="failing")))
    kit.templates["failing"] = {"path": str(LOOP / "fail.py"), "root": True, "max_attempts": 1}
    goal_id = kit.create(
        root_work=make_root(kit.layout, template=LOOP / "fail.py"), auto_apply=True, options={"max_total_attempts": 2}
    )
    report = run_goal(kit.layout, goal_id)
    goal = report.goal
    assert goal is not None and report.stop_reason == "budget_exhausted"
    assert (goal.generation, goal.attempts_used, goal.attempts_remaining) == (1, 2, 0)


def test_every_plan_request_consumes_a_replan_slot(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", "not json")
    goal_id = kit.create(root_work=make_root(kit.layout, template=LOOP / "fail.py"), replanning={"max_replans": 2})
    report = run_goal(kit.layout, goal_id)
    assert [o["status"] for o in report.outcomes if o["kind"] == "plan"] == ["failed", "failed"]
    goal = report.goal
    assert goal is not None and report.stop_reason == "budget_exhausted"
    assert (goal.replans_used, goal.replans_remaining, goal.next_action) == (2, 0, "none")


def test_max_cycles_bounds_one_run(kit: GoalKit) -> None:
    make_root(kit.layout, "first")
    create_work(
        kit.layout,
        title="Second",
        template=Path(kit.templates["implement"]["path"]),
        objective="Next.",
        depends_on=["first"],
        work_id="second",
        actor="tester",
    )
    goal_id = kit.create(root_work="second", options={"max_cycles": 2, "accept_passing_proof": True})
    report = run_goal(kit.layout, goal_id)
    assert (report.stop_reason, report.cycles) == ("max_cycles", 2)
    again = run_goal(kit.layout, goal_id)
    assert again.stop_reason == "succeeded", "the bound is per run, not cumulative"


def test_an_attempt_timeout_kills_the_template_and_charges_the_attempt(
    kit: GoalKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARN_ATTEMPT_TIMEOUT_S", "1")
    goal_id = kit.create(root_work=make_root(kit.layout, template=LOOP / "hang.py", max_attempts=2))
    started = time.monotonic()
    report = tick_goal(kit.layout, goal_id)
    assert time.monotonic() - started < 5
    [outcome] = report.outcomes
    assert outcome["status"] == "failed" and "1" in outcome["reason"]
    assert report.goal is not None and report.goal.attempts_remaining == 99


def test_a_missing_proof_fails_the_attempt(kit: GoalKit) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout, template=LOOP / "no_proof.py"))
    [outcome] = tick_goal(kit.layout, goal_id).outcomes
    assert outcome["status"] == "failed" and "proof" in outcome["reason"]


def test_a_mission_runs_from_its_initial_plan_to_completion(kit: GoalKit) -> None:
    milestone = {"sequence": 1, "title": "Durable queue", "objective": "Jobs survive a crash.", "acceptance": []}
    kit.team["planner"] = scripted(
        kit.directory,
        "planner",
        apply_reply(item("durable-queue"), milestone=milestone),
        {"decision": "complete", "rationale": "Every acceptance criterion of the mission holds."},
    )
    goal_id = kit.create(
        mission={"objective": "Replace the queue.", "acceptance": ["no job lost"], "max_milestones": 2},
        auto_apply=True,
        options={"accept_passing_proof": True},
    )
    report = run_goal(kit.layout, goal_id)
    plans = [(o["trigger"], o["decision"], o["status"]) for o in report.outcomes if o["kind"] == "plan"]
    assert plans == [("initial", "apply", "applied"), ("milestone", "complete", "completed")]
    assert report.stop_reason == "succeeded"
    goal = report.goal
    assert goal is not None and (goal.milestones_completed, goal.generation, goal.replans_used) == (1, 1, 2)


def test_an_invalid_proof_fails_the_attempt(kit: GoalKit, tmp_path: Path) -> None:
    template = tmp_path / "bad_proof.py"
    template.write_text(
        "#!/usr/bin/env python3\nimport os\nopen(os.environ['HARN_PROOF'], 'w').write('{\"status\": 1}')\n"
    )
    template.chmod(0o755)
    goal_id = kit.create(root_work=make_root(kit.layout, template=template))
    [outcome] = tick_goal(kit.layout, goal_id).outcomes
    assert outcome["status"] == "failed" and "proof" in outcome["reason"]


def test_an_unreadable_goal_is_refused_as_corrupt_and_not_touched(
    kit: GoalKit, root: Path, snapshot_tree: Snapshot
) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout))
    (kit.layout.work("root-work") / "events.jsonl").write_text('{"schema_version": 1, "seq": 7}\n')
    before = snapshot_tree(root)
    for verb in (tick_goal, run_goal):
        with pytest.raises(CorruptJournal, match="root-work"):
            verb(kit.layout, goal_id)
    assert snapshot_tree(root) == before
