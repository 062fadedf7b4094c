"""Reopening a completed mission (`plan reopen`): the mission plans one more milestone with the operator's reason;
repeats are idempotent by reason, and only the latest completed plan of a mission with a milestone left reopens.
Real missions run by the real loop with scripted planners and the example templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from harn_tui.core.errors import Refused, UsageError
from harn_tui.core.layout import Layout
from harn_tui.core.planning import run_plan_cycle
from harn_tui.core.queries import show_goal
from harn_tui.core.supervisor import run_goal
from harn_tui.core.transitions import reopen_plan
from tests.conftest import Harn, tree_bytes
from tests.goal_kit import GoalKit, apply_reply, item, plan_files, read, scripted

REASON = "The queue must also survive a disk full; plan that milestone."


def milestone(sequence: int) -> dict[str, object]:
    return {"sequence": sequence, "title": f"Milestone {sequence}", "objective": "Jobs survive.", "acceptance": []}


def completed_mission(layout: Layout, directory: Path, max_milestones: int = 3) -> str:
    """A mission whose first milestone was applied and accepted, then completed (plans 1 and 2)."""
    kit = GoalKit(layout, directory)
    kit.team["planner"] = scripted(
        directory,
        "planner",
        apply_reply(item("durable-queue"), milestone=milestone(1)),
        {"decision": "complete", "rationale": "Every acceptance criterion of the mission holds."},
        apply_reply(item("disk-full"), milestone=milestone(2)),
    )
    goal_id = kit.create(
        mission={"objective": "Replace the queue.", "acceptance": ["no job lost"], "max_milestones": max_milestones},
        auto_apply=True,
        options={"accept_passing_proof": True},
    )
    assert run_goal(layout, goal_id).stop_reason == "succeeded"
    return goal_id


@pytest.fixture
def mission(layout: Layout, tmp_path: Path) -> str:
    directory = tmp_path / "files"
    directory.mkdir()
    return completed_mission(layout, directory)


def refused(
    layout: Layout, match: str, goal_id: str, plan_id: str, reason: str = REASON, error: type[Exception] = Refused
) -> None:
    before = tree_bytes(layout.root)
    with pytest.raises(error, match=match):
        reopen_plan(layout, goal_id, plan_id, actor="alice", reason=reason)
    assert tree_bytes(layout.root) == before


def test_a_reopened_mission_plans_its_next_milestone_with_the_reason(layout: Layout, mission: str) -> None:
    completed = show_goal(layout, mission).plans[-1]
    outcome = reopen_plan(layout, mission, completed.id, actor="alice", reason=REASON)
    assert outcome.applied and outcome.to_json()["event"]["event"] == "plan.reopened"
    goal = show_goal(layout, mission)
    assert (goal.state, goal.next_action) == ("ready", "plan_milestone")
    assert (goal.latest_plan_status, goal.plans[-1].reason) == ("reopened", REASON)
    assert REASON in goal.reason
    assert goal.milestones_completed == 1 and not goal.mission_complete
    next_plan = run_plan_cycle(layout, mission)
    assert next_plan is not None and (next_plan.trigger, next_plan.sequence) == ("milestone", 3)
    latest = read(plan_files(layout, mission)[2] / "planner-input.json")["latest_plan"]
    assert latest["id"] == completed.id and (latest["status"], latest["reason"]) == ("reopened", REASON)


def test_a_repeat_is_already_done_and_a_different_reason_is_refused(layout: Layout, mission: str) -> None:
    plan_id = show_goal(layout, mission).plans[-1].id
    first = reopen_plan(layout, mission, plan_id, actor="alice", reason=REASON)
    before = tree_bytes(layout.root)
    again = reopen_plan(layout, mission, plan_id, actor="bob", reason=REASON)
    assert again.outcome == "already_done" and again.to_json()["event"] == first.to_json()["event"]
    assert tree_bytes(layout.root) == before
    refused(layout, "already reopened with a different reason", mission, plan_id, reason="Something else.")


def test_only_the_latest_completed_plan_reopens(layout: Layout, mission: str) -> None:
    first, completed = show_goal(layout, mission).plans
    refused(layout, f"plan {first.id} is not the latest plan", mission, first.id)
    refused(layout, "blank", mission, completed.id, reason="  ", error=UsageError)
    reopen_plan(layout, mission, completed.id, actor="alice", reason=REASON)
    assert run_plan_cycle(layout, mission) is not None
    proposed = show_goal(layout, mission).plans[-1]
    refused(layout, f"plan {proposed.id} is proposed, not completed", mission, proposed.id)


def test_a_mission_without_a_milestone_left_is_not_reopened(layout: Layout, tmp_path: Path) -> None:
    directory = tmp_path / "files"
    directory.mkdir()
    goal_id = completed_mission(layout, directory, max_milestones=1)
    plan_id = show_goal(layout, goal_id).plans[-1].id
    refused(layout, "no milestone left: .* completed 1 of its 1 milestones", goal_id, plan_id)


def test_the_cli_reopens_with_exit_codes_of_the_contract(harn: Harn, layout: Layout, mission: str) -> None:
    plan_id = show_goal(layout, mission).plans[-1].id
    verb = ("supervisor", "plan", "reopen", mission, plan_id)
    assert harn(*verb).returncode == 2, "--reason is required"
    assert harn.json(*verb, "--reason", REASON)["outcome"] == "applied"
    assert harn.json(*verb, "--reason", REASON)["outcome"] == "already_done"
    error = harn.json(*verb, "--reason", "other", expect=3)["error"]
    assert error["code"] == "refused" and "different reason" in error["message"]
    assert (
        harn.json("supervisor", "plan", "reopen", mission, "plan-0009-deadbeef", "--reason", "x", expect=4)["error"][
            "code"
        ]
        == "not_found"
    )
    shown = harn.json("supervisor", "show", mission)
    assert (shown["state"], shown["next_action"], shown["latest_plan_status"]) == (
        "ready",
        "plan_milestone",
        "reopened",
    )
