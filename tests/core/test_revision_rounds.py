"""Review revision rounds: reviewers that ask for a revision send the candidate back to the planner within the same
plan request (no replan slot), each round's files under `revision-<r>/`, until they approve, ask for attention, or
the frozen rounds run out. Real scripted specialists, real plan files, the real approve transition."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.errors import Refused
from harn_tui.core.layout import Layout
from harn_tui.core.planning import run_plan_cycle
from harn_tui.core.queries import plan_document, show_goal
from harn_tui.core.transitions import approve_plan
from harn_tui.core.verify import verify_tree
from tests.conftest import harn_env
from tests.goal_kit import GoalKit, apply_reply, item, lose_attempt, make_root, plan_events, plan_files, read, scripted

FIRST = apply_reply(item("fix"), rationale="One step: fix it.")
REVISED = apply_reply(
    item("probe", template="investigate"), item("fix", deps=("probe",)), rationale="Probe first, then fix."
)
REVISE = {
    "verdict": "revise",
    "rationale": "Probe before fixing.",
    "findings": [{"code": "order", "severity": "blocking", "summary": "no probe step"}],
}
APPROVE = {"verdict": "approve", "rationale": "Good now.", "findings": []}
ATTENTION = {"verdict": "attention", "rationale": "A human must choose the queue.", "findings": []}


@pytest.fixture
def kit(layout: Layout, tmp_path: Path) -> GoalKit:
    directory = tmp_path / "files"
    directory.mkdir()
    return GoalKit(layout, directory)


def stuck_goal(kit: GoalKit, planner: list[Any], reviewer: list[Any], rounds: int) -> str:
    """A goal whose root was lost, with one reviewer; the k-th element answers HARN_CALL k of the plan request."""
    kit.team["planner"] = scripted(kit.directory, "planner", planner)
    kit.team["critic"] = scripted(kit.directory, "critic", reviewer)
    root = make_root(kit.layout)
    goal_id = kit.create(root_work=root, reviewers=("critic",), replanning={"max_revision_rounds": rounds})
    lose_attempt(kit.layout, root, goal_id)
    return goal_id


def test_revise_once_then_approve_proposes_the_revised_round_and_approve_applies_it(kit: GoalKit) -> None:
    # round 0: calls 1 (and 2 for a retry); round 1: calls 3 (and 4)
    goal_id = stuck_goal(kit, [FIRST, FIRST, REVISED], [REVISE, REVISE, APPROVE], rounds=2)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "proposed"
    [plan_dir] = plan_files(kit.layout, goal_id)
    events = plan_events(plan_dir)
    assert [e["event"] for e in events] == ["plan.revision_requested", "plan.reviewed", "plan.proposed"]
    assert events[0]["round"] == 1 and "Probe before fixing." in events[0]["reason"]
    assert "no probe step" in events[0]["reason"]
    assert read(plan_dir / "review.json")["outcome"] == "revise"
    assert read(plan_dir / "candidate.json")["rationale"] == "One step: fix it."
    revision = plan_dir / "revision-1"
    revised_input = read(revision / "planner-input.json")
    assert revised_input["revision"]["round"] == 1
    assert revised_input["revision"]["candidate"] == read(plan_dir / "candidate.json")
    assert revised_input["revision"]["reviews"][0]["verdict"] == "revise"
    assert "revision" not in read(plan_dir / "planner-input.json")
    candidate = (revision / "candidate.json").read_bytes()
    assert (plan_dir / "proposal.json").read_bytes() == candidate
    assert read(revision / "review.json")["outcome"] == "approved"
    assert events[1]["round"] == 1 and events[1]["candidate_sha256"] == hashlib.sha256(candidate).hexdigest()

    goal = show_goal(kit.layout, goal_id)
    assert (goal.next_action, goal.replans_used) == ("review_plan", 1), "a revision uses no replan slot"
    document = plan_document(kit.layout, goal, goal.plans[0])
    assert [r["round"] for r in document["revisions"]] == [1]
    assert document["revisions"][0]["candidate"]["rationale"] == "Probe first, then fix."
    assert document["review"]["outcome"] == "revise"

    assert approve_plan(kit.layout, goal_id, outcome.plan_id, actor="alice").applied
    goal = show_goal(kit.layout, goal_id)
    assert goal.generation == 1 and len(goal.active_ids) == 2
    assert verify_tree(kit.layout) == []


def test_rounds_exhausted_ask_for_attention_with_every_round_kept(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit, [FIRST, FIRST, REVISED], [REVISE], rounds=1)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert [e["event"] for e in plan_events(plan_dir)] == ["plan.revision_requested", "plan.attention"]
    assert "revision rounds exhausted (1)" in plan_events(plan_dir)[1]["reason"]
    assert read(plan_dir / "revision-1" / "review.json")["outcome"] == "attention"
    assert not (plan_dir / "proposal.json").exists()
    goal = show_goal(kit.layout, goal_id)
    assert (goal.next_action, goal.attention_plan_id, goal.replans_used) == ("retry_plan", outcome.plan_id, 1)


def test_an_attention_verdict_never_revises(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit, [FIRST], [ATTENTION], rounds=3)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert [e["event"] for e in plan_events(plan_dir)] == ["plan.attention"]
    assert read(plan_dir / "review.json")["outcome"] == "attention"
    assert not (plan_dir / "revision-1").exists()


def test_without_rounds_a_revise_verdict_is_attention_as_before(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit, [FIRST], [REVISE], rounds=0)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert [e["event"] for e in plan_events(plan_dir)] == ["plan.attention"]


def test_a_revision_invalid_twice_is_attention_not_failure(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit, [FIRST, FIRST, "not json", {"decision": "maybe"}], [REVISE, REVISE, APPROVE], rounds=1)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert (plan_dir / "revision-1" / "planner-retry.json").exists()
    [_, attention] = plan_events(plan_dir)
    assert attention["event"] == "plan.attention" and "revision 1 was invalid twice" in attention["reason"]


def test_approve_checks_the_digest_of_the_approved_rounds_candidate(kit: GoalKit) -> None:
    goal_id = stuck_goal(kit, [FIRST, FIRST, REVISED], [REVISE, REVISE, APPROVE], rounds=1)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None
    [plan_dir] = plan_files(kit.layout, goal_id)
    swapped = plan_dir / "revision-1" / "candidate.json"
    body = json.loads(swapped.read_text())
    body["rationale"] = "Something else was reviewed."
    swapped.chmod(0o600)
    os.replace(_write(plan_dir / "other.json", body), swapped)
    with pytest.raises(Refused, match=r"candidate digest changed: revision-1/candidate\.json"):
        approve_plan(kit.layout, goal_id, outcome.plan_id, actor="alice")


def _write(path: Path, body: Any) -> Path:
    path.write_text(json.dumps(body, indent=2) + "\n")
    return path


@pytest.mark.parametrize(
    "point", ["tick.revision_requested:1", "tick.revision_planner_called:1", "tick.reviewers_called:2"]
)
def test_a_kill_between_rounds_is_counted_as_an_interrupted_request_and_never_leaves_two_proposals(
    kit: GoalKit, point: str
) -> None:
    goal_id = stuck_goal(kit, [FIRST, FIRST, REVISED], [REVISE, REVISE, APPROVE], rounds=1)
    root = str(kit.layout.root)
    killed = subprocess.run(
        [sys.executable, "-m", "harn_tui", "--root", root, "supervisor", "tick", goal_id],
        capture_output=True,
        text=True,
        env=harn_env({"HARN_FAULT": point}),
        timeout=60,
    )
    assert killed.returncode == 137, killed.stderr
    goal = show_goal(kit.layout, goal_id)
    assert (goal.latest_plan_status, goal.next_action) == ("interrupted", "replan")
    assert run_plan_cycle(kit.layout, goal_id) is not None
    goal = show_goal(kit.layout, goal_id)
    assert [p.status for p in goal.plans] == ["interrupted", "proposed"]
    assert goal.replans_used == 2, "the interrupted request used its slot"
    assert [p.name for p in plan_files(kit.layout, goal_id) if (p / "proposal.json").exists()] == [goal.plans[1].id]
    assert verify_tree(kit.layout) == []
