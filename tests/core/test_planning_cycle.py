"""The planner cycle against real subprocess planners and reviewers: what lands in the plan directory,
what the goal projects afterwards, and what the next planner is told."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.planning import run_plan_cycle
from harn_tui.core.planning.inputs import planner_reply_schema
from harn_tui.core.queries import show_goal
from harn_tui.core.records import PlannerReply
from harn_tui.core.transitions import reject_plan, retry_plan
from tests.goal_kit import (
    EXAMPLES,
    LOOP,
    GoalKit,
    apply_reply,
    command,
    item,
    lose_attempt,
    make_root,
    plan_events,
    plan_files,
    read,
    scripted,
)

FIXTURES = Path(__file__).parent.parent / "fixtures"
PLANNER_INPUT_KEYS = {
    "schema_version",
    "role",
    "plan_id",
    "sequence",
    "trigger",
    "goal",
    "instructions",
    "active_root_work_id",
    "generation",
    "budgets",
    "latest_plan",
    "templates",
    "work",
    "reply_schema",
}


@pytest.fixture
def kit(layout: Layout, tmp_path: Path) -> GoalKit:
    directory = tmp_path / "files"
    directory.mkdir()
    return GoalKit(layout, directory)


def stuck_goal(kit: GoalKit, **create: object) -> str:
    """A goal whose only root failed its one attempt (lost in a crash): the planner is due (`replan`)."""
    root = make_root(kit.layout)
    goal_id = kit.create(root_work=root, **create)  # type: ignore[arg-type]
    lose_attempt(kit.layout, root, goal_id)
    assert show_goal(kit.layout, goal_id).next_action == "replan"
    return goal_id


def work_dirs(layout: Layout) -> list[str]:
    return sorted(p.name for p in layout.work_dir.iterdir())


def test_a_valid_reply_becomes_a_proposal_and_the_planner_saw_the_spec_input(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit)
    before = show_goal(kit.layout, goal_id)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "proposed" and outcome.trigger == "recovery"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert plan_dir.name == outcome.plan_id and plan_dir.name.startswith("plan-0001-")
    request = read(plan_dir / "request.json")
    assert request["sequence"] == 1 and request["trigger"] == "recovery"
    assert request["prior_root_work_id"] == "root-work"
    planner_input = read(plan_dir / "planner-input.json")
    assert set(planner_input) == PLANNER_INPUT_KEYS
    assert planner_input["role"] == "planner" and planner_input["latest_plan"] is None
    assert planner_input["reply_schema"] == planner_reply_schema() == PlannerReply.model_json_schema(by_alias=True)
    assert planner_input["budgets"] == {
        "replans_remaining": 4,
        "attempts_remaining": 99,
        "max_work_items_per_plan": 8,
        "work_items_remaining": 25,
        "milestones_remaining": None,
    }
    assert planner_input["templates"] == {
        "implement": {"root": True, "max_attempts": 3},
        "investigate": {"root": False, "max_attempts": 2},
    }
    [root_view] = planner_input["work"]
    assert root_view["id"] == "root-work" and root_view["state"] == "blocked" and root_view["attempts_used"] == 1
    proposal = read(plan_dir / "proposal.json")
    assert proposal["root"] == "implement" and [w["key"] for w in proposal["work"]] == ["investigate", "implement"]
    assert [(e["event"], e["actor"]) for e in plan_events(plan_dir)] == [("plan.proposed", "supervisor")]
    after = show_goal(kit.layout, goal_id)
    assert (after.state, after.next_action, after.pending_plan_id) == (
        "awaiting_attention",
        "review_plan",
        outcome.plan_id,
    )
    assert after.replans_remaining == before.replans_remaining - 1
    assert request["graph_fingerprint"] == after.graph_fingerprint, "the lost attempt was repaired first"
    lost = [e for e in read_events(kit.layout, "root-work") if e["event"] == "attempt.finished"]
    assert lost == [lost[0]] and lost[0]["reason"] == "lost" and lost[0]["actor"] == "supervisor"


def read_events(layout: Layout, work_id: str) -> list[dict[str, object]]:
    import json

    return [json.loads(line) for line in (layout.work(work_id) / "events.jsonl").read_text().splitlines()]


def test_an_invalid_reply_gets_one_retry_with_problems_and_the_previous_reply(kit: GoalKit) -> None:
    bad = apply_reply(item("Bad_Key"))
    kit.team["planner"] = scripted(kit.directory, "planner", [bad, apply_reply(item("fix"))])
    goal_id = stuck_goal(kit)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "proposed"
    [plan_dir] = plan_files(kit.layout, goal_id)
    retry = read(plan_dir / "planner-retry.json")
    first = read(plan_dir / "planner-input.json")
    assert {k: v for k, v in retry.items() if k not in ("problems", "previous_reply")} == first
    assert retry["previous_reply"] == bad
    assert [p["path"] for p in retry["problems"]] == ["$.work[0].key"]
    assert read(plan_dir / "proposal.json")["work"][0]["key"] == "fix"


def test_a_second_invalid_reply_fails_the_plan_and_creates_no_work(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", ["not json", apply_reply(item("fix", template="nope"))])
    goal_id = stuck_goal(kit)
    work_before = work_dirs(kit.layout)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and (outcome.status, outcome.failure_class) == ("failed", "invalid")
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert read(plan_dir / "planner-retry.json")["previous_reply"] == "not json"
    [failed] = plan_events(plan_dir)
    assert failed["event"] == "plan.failed" and failed["class"] == "invalid"
    assert "$.work[0].template" in failed["reason"] and "'nope' is not in the frozen catalog" in failed["reason"]
    assert not (plan_dir / "proposal.json").exists() and not (plan_dir / "candidate.json").exists()
    assert work_dirs(kit.layout) == work_before
    goal = show_goal(kit.layout, goal_id)
    assert goal.latest_plan_status == "failed" and goal.next_action == "replan" and goal.replans_used == 1


def test_a_planner_timeout_fails_the_plan(kit: GoalKit) -> None:
    kit.team["planner"] = command("python3", str(LOOP / "slow_planner.py"), "30", timeout_s=1)
    goal_id = stuck_goal(kit)
    started = time.monotonic()
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert time.monotonic() - started < 5
    assert outcome is not None and (outcome.status, outcome.failure_class) == ("failed", "timeout")
    [plan_dir] = plan_files(kit.layout, goal_id)
    [failed] = plan_events(plan_dir)
    assert failed["class"] == "timeout" and "within 1 s" in failed["reason"]
    assert not (plan_dir / "proposal.json").exists()


def test_a_planner_crash_fails_the_plan_with_its_stderr(kit: GoalKit) -> None:
    kit.team["planner"] = command("python3", str(FIXTURES / "specialists" / "crash.py"))
    goal_id = stuck_goal(kit)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.failure_class == "crash"
    assert "exited 3: planner model unavailable" in (outcome.reason or "")


def test_a_planner_attention_decision_is_proposed_and_in_attention(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", {"decision": "attention", "rationale": "Which queue?"})
    goal_id = stuck_goal(kit)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert read(plan_dir / "proposal.json")["decision"] == "attention"
    assert [(e["event"], e.get("reason")) for e in plan_events(plan_dir)] == [
        ("plan.proposed", None),
        ("plan.attention", "Which queue?"),
    ]
    goal = show_goal(kit.layout, goal_id)
    assert (goal.next_action, goal.attention_plan_id) == ("retry_plan", outcome.plan_id)


def test_reviewers_that_approve_leave_a_receipt_and_the_candidate_bytes_as_proposal(kit: GoalKit) -> None:
    kit.team["critic"] = command("python3", str(EXAMPLES / "reviewer.py"))
    goal_id = stuck_goal(kit, reviewers=("critic",))
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "proposed"
    [plan_dir] = plan_files(kit.layout, goal_id)
    candidate = (plan_dir / "candidate.json").read_bytes()
    assert (plan_dir / "proposal.json").read_bytes() == candidate
    review = read(plan_dir / "review.json")
    assert review["outcome"] == "approved" and review["candidate_sha256"] == hashlib.sha256(candidate).hexdigest()
    assert [r["reviewer"] for r in review["reviews"]] == ["critic"]
    events = plan_events(plan_dir)
    assert [e["event"] for e in events] == ["plan.reviewed", "plan.proposed"]
    assert events[0]["candidate_sha256"] == review["candidate_sha256"]


def test_a_reviewer_asking_for_attention_keeps_the_receipt_and_no_proposal(kit: GoalKit) -> None:
    six = apply_reply(*(item(f"step-{n}", deps=(f"step-{n - 1}",) if n else ()) for n in range(6)))
    kit.team["planner"] = scripted(kit.directory, "planner", six)
    kit.team["critic"] = command("python3", str(EXAMPLES / "reviewer.py"))
    kit.team["second"] = scripted(kit.directory, "second", {"verdict": "approve", "rationale": "Fine.", "findings": []})
    goal_id = stuck_goal(kit, reviewers=("second", "critic"))
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert (plan_dir / "candidate.json").exists() and not (plan_dir / "proposal.json").exists()
    review = read(plan_dir / "review.json")
    assert review["outcome"] == "attention"
    assert [(r["reviewer"], r["verdict"]) for r in review["reviews"]] == [
        ("second", "approve"),
        ("critic", "attention"),
    ]
    assert review["reviews"][1]["findings"][0]["code"] == "scope.too-wide"
    [attention] = plan_events(plan_dir)
    assert attention["event"] == "plan.attention"
    assert "critic (attention): Too many steps for one plan" in attention["reason"]
    assert "scope.too-wide" in attention["reason"]
    goal = show_goal(kit.layout, goal_id)
    assert (goal.state, goal.next_action) == ("awaiting_attention", "retry_plan")


def test_a_reviewer_that_replies_invalid_twice_counts_as_attention(kit: GoalKit) -> None:
    kit.team["critic"] = scripted(kit.directory, "critic", ["maybe?", {"verdict": "sure"}])
    goal_id = stuck_goal(kit, reviewers=("critic",))
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    [review] = read(plan_dir / "review.json")["reviews"]
    assert review["verdict"] == "attention" and "replied invalid twice" in review["rationale"]
    assert "$.verdict" in review["rationale"]


def test_an_aborted_creation_has_its_sequence_reused(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit)
    aborted = kit.layout.goal(goal_id) / "plans" / "plan-0001-deadbeef"
    aborted.mkdir(parents=True)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.plan_id == "plan-0001-deadbeef" and outcome.sequence == 1


def test_the_next_request_tells_the_planner_about_the_failed_one(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", "garbage", apply_reply(item("fix")))
    goal_id = stuck_goal(kit)
    first = run_plan_cycle(kit.layout, goal_id)
    second = run_plan_cycle(kit.layout, goal_id)
    assert first is not None and first.status == "failed"
    assert second is not None and second.status == "proposed" and second.sequence == 2
    latest = read(plan_files(kit.layout, goal_id)[1] / "planner-input.json")["latest_plan"]
    assert latest == {"id": first.plan_id, "status": "failed", "reason": first.reason, "rationale": None}


def test_a_rejection_reason_reaches_the_next_planner(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit)
    first = run_plan_cycle(kit.layout, goal_id)
    assert first is not None
    reject_plan(kit.layout, goal_id, first.plan_id, actor="alice", reason="Investigate the lock order first.")
    second = run_plan_cycle(kit.layout, goal_id)
    assert second is not None and second.status == "proposed"
    second_dir = plan_files(kit.layout, goal_id)[1]
    latest = read(second_dir / "planner-input.json")["latest_plan"]
    assert latest["status"] == "rejected" and latest["reason"] == "Investigate the lock order first."
    assert latest["rationale"].startswith("Investigate first")
    assert "Operator guidance: Investigate the lock order first." in read(second_dir / "proposal.json")["rationale"]


def test_retry_requested_leads_to_a_new_request_whose_input_carries_the_guidance(kit: GoalKit) -> None:
    kit.team["planner"] = scripted(
        kit.directory, "planner", {"decision": "attention", "rationale": "Which queue?"}, apply_reply(item("fix"))
    )
    goal_id = stuck_goal(kit)
    first = run_plan_cycle(kit.layout, goal_id)
    assert first is not None and first.status == "attention"
    assert run_plan_cycle(kit.layout, goal_id) is None, "attention keeps the goal quiescent"
    retry_plan(kit.layout, goal_id, first.plan_id, actor="alice", reason="Use the durable queue from ADR 12.")
    second = run_plan_cycle(kit.layout, goal_id)
    assert second is not None and second.sequence == 2 and second.status == "proposed"
    latest = read(plan_files(kit.layout, goal_id)[1] / "planner-input.json")["latest_plan"]
    assert latest == {
        "id": first.plan_id,
        "status": "retry_requested",
        "reason": "Use the durable queue from ADR 12.",
        "rationale": "Which queue?",
    }


def test_an_ineligible_goal_gets_no_request_and_nothing_is_written(
    kit: GoalKit, root: Path, snapshot_tree: object
) -> None:
    goal_id = stuck_goal(kit)
    assert run_plan_cycle(kit.layout, goal_id) is not None
    before = snapshot_tree(root)  # type: ignore[operator]
    assert run_plan_cycle(kit.layout, goal_id) is None
    assert snapshot_tree(root) == before  # type: ignore[operator]


def test_a_mission_gets_its_initial_plan_with_a_milestone(kit: GoalKit) -> None:
    milestone = {"sequence": 1, "title": "Durable queue", "objective": "Write the queue.", "acceptance": []}
    kit.team["planner"] = scripted(kit.directory, "planner", apply_reply(item("queue"), milestone=milestone))
    goal_id = kit.create(
        mission={"objective": "Replace the queue.", "acceptance": ["no job lost"], "max_milestones": 2}
    )
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and (outcome.trigger, outcome.status) == ("initial", "proposed")
    [plan_dir] = plan_files(kit.layout, goal_id)
    planner_input = read(plan_dir / "planner-input.json")
    assert planner_input["active_root_work_id"] is None and planner_input["work"] == []
    assert planner_input["budgets"]["milestones_remaining"] == 2
    assert planner_input["goal"]["mission"]["objective"] == "Replace the queue."
    assert read(plan_dir / "proposal.json")["milestone"]["sequence"] == 1
