"""Every phase of a tick killed once (`HARN_FAULT=<point>:1`, an immediate exit as if SIGKILLed): the next run
recovers to the same end state and the tree verifies clean.

The goal exercises every point in one run: the root fails, the planner answers, the reviewer asks for one revision
and approves the revised reply, the plan is auto-applied, the new root runs, passes and is accepted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harn_tui.core.faults import FAULT_POINTS
from harn_tui.core.layout import Layout
from harn_tui.core.supervisor import run_goal
from harn_tui.core.verify import verify_tree
from tests.conftest import harn_env
from tests.goal_kit import LOOP, GoalKit, apply_reply, item, make_root, scripted

TICK_POINTS = [point for point in FAULT_POINTS if point.startswith("tick.")]


def test_every_tick_phase_has_a_fault_point() -> None:
    assert TICK_POINTS == [
        "tick.start",
        "tick.plan_request",
        "tick.planner_called",
        "tick.reviewers_called",
        "tick.revision_requested",
        "tick.revision_planner_called",
        "tick.plan_recorded",
        "tick.plan_applied",
        "tick.attempt_started",
        "tick.attempt_process_started",
        "tick.attempt_finished",
        "tick.accept",
        "tick.end",
    ]


@pytest.mark.parametrize("point", TICK_POINTS)
def test_a_crash_at_each_tick_phase_is_recovered(point: str, layout: Layout, root: Path, tmp_path: Path) -> None:
    kit = GoalKit(layout, tmp_path)
    kit.team["planner"] = scripted(tmp_path, "planner", apply_reply(item("fresh")))
    revise = {"verdict": "revise", "rationale": "Name the risk.", "findings": []}
    approve = {"verdict": "approve", "rationale": "Fine.", "findings": []}
    kit.team["critic"] = scripted(tmp_path, "critic", [revise, revise, approve])
    goal_id = kit.create(
        root_work=make_root(layout, template=LOOP / "fail.py"),
        reviewers=("critic",),
        auto_apply=True,
        options={"accept_passing_proof": True},
        replanning={"max_revision_rounds": 1},
    )
    crashed = subprocess.run(
        [sys.executable, "-m", "harn_tui", "--root", str(root), "supervisor", "run", goal_id, "--json"],
        capture_output=True,
        text=True,
        env=harn_env({"HARN_FAULT": f"{point}:1"}),
        timeout=60,
    )
    assert crashed.returncode == 137, (point, crashed.stdout, crashed.stderr)
    recovered = run_goal(layout, goal_id)
    assert recovered.stop_reason == "succeeded", (point, recovered.to_json())
    goal = recovered.goal
    assert goal is not None and goal.generation == 1 and goal.replans_used in (1, 2)
    assert verify_tree(layout) == []
