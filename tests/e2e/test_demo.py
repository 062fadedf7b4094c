"""`harn demo --no-tui DIR`: a tree built by really running the supervisor, with every situation on show,
clean under `harn verify`, and live: the operator's next decisions move it on.

The build runs as a subprocess; the checks read the tree in-process through the same core queries the CLI
prints (fast, and the CLI documents are covered elsewhere)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from harn_tui.core.layout import Layout
from harn_tui.core.queries import load_work_view, pending, plan_document, plan_view, show_goal, work_document
from harn_tui.core.supervisor import run_goal, tick_goal
from harn_tui.core.transitions import approve_plan, decide_approval, retry_plan
from harn_tui.core.verify import verify_tree
from tests.conftest import harn_env


def build(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harn_tui", "demo", "--no-tui", str(directory), "--json"],
        capture_output=True,
        text=True,
        env=harn_env(),
        timeout=120,
    )


def plan_doc(layout: Layout, goal_id: str, plan_id: str) -> dict[str, Any]:
    goal = show_goal(layout, goal_id)
    return plan_document(layout, goal, plan_view(goal, plan_id))


def test_the_demo_tree_shows_every_situation_and_stays_live(tmp_path: Path) -> None:
    directory = tmp_path / "demo"
    built = build(directory)
    assert built.returncode == 0, built.stderr
    document = json.loads(built.stdout)
    assert document["root"] == str(directory) and document["problems"] == []
    goals = {g["id"]: g for g in document["goals"]}
    states = {goal_id: (g["state"], g["next_action"], g["generation"]) for goal_id, g in goals.items()}
    assert states == {
        "demo-1-job-queue": ("awaiting_attention", "review_plan", 0),
        "demo-2-session-store": ("awaiting_attention", "retry_plan", 0),
        "demo-3-rate-limit": ("awaiting_attention", "review", 0),
        "demo-4-credentials": ("awaiting_attention", "resolve_approval", 0),
        "demo-5-flaky-test": ("succeeded", "none", 1),
    }
    layout = Layout(directory)
    assert verify_tree(layout) == []
    kinds = [(row["kind"], row["goal_id"]) for row in pending(layout)["pending"]]
    assert kinds == [
        ("review_plan", "demo-1-job-queue"),
        ("retry_plan", "demo-2-session-store"),
        ("review_work", "demo-3-rate-limit"),
        ("approval", "demo-4-credentials"),
    ]

    card = plan_doc(layout, "demo-1-job-queue", goals["demo-1-job-queue"]["pending_plan_id"])
    assert [w["key"] for w in card["proposal"]["work"]] == ["measure", "durable-queue"]
    assert card["review"]["outcome"] == "approved"
    attention = plan_doc(layout, "demo-2-session-store", goals["demo-2-session-store"]["attention_plan_id"])
    assert attention["review"]["reviews"][0]["findings"][0]["severity"] == "blocking"
    assert attention["proposal"] is None and "skeptic (attention)" in attention["reason"]
    assert "session" in attention["rationale"] and "lock" not in attention["rationale"], "its own planner's story"
    assert "lock" in card["rationale"] and "session" not in card["rationale"]
    in_review = work_document(*load_work_view(layout, "api-rate-limit"))
    assert [f["id"] for f in in_review["open_findings"]] == ["f1", "f2"]
    assert [a["trigger"] for a in in_review["attempts"]] == ["initial", "reopen"]
    succeeded = show_goal(layout, "demo-5-flaky-test")
    assert len(succeeded.governed_work_ids) == 2 and succeeded.attempts_used == 2
    assert [w.active for w in succeeded.work] == [True, False]

    continue_the_demo(layout, goals)


def continue_the_demo(layout: Layout, goals: dict[str, Any]) -> None:
    """The scripted specialists and templates keep working after the build: approving the card finishes goal 1,
    retrying the attention plan gets a reviewed proposal, approving the park resumes it."""
    approve_plan(layout, "demo-1-job-queue", goals["demo-1-job-queue"]["pending_plan_id"], actor="bob")
    assert run_goal(layout, "demo-1-job-queue").stop_reason == "succeeded"
    retry_plan(
        layout,
        "demo-2-session-store",
        goals["demo-2-session-store"]["attention_plan_id"],
        actor="bob",
        reason="Shard by tenant.",
    )
    retried = tick_goal(layout, "demo-2-session-store")
    assert retried.outcomes[0]["status"] == "proposed"
    assert retried.goal is not None and retried.goal.next_action == "review_plan"
    retried_plan = retried.goal.plan(retried.goal.pending_plan_id or "")
    assert retried_plan is not None and "tenant" in (retried_plan.rationale or ""), "the retry follows the guidance"
    rows = pending(layout)["pending"]
    assert rows[-1]["kind"] == "review_plan", "oldest first: the retried plan's proposal is the newest decision"
    approval_id = next(row["approval_id"] for row in rows if row["kind"] == "approval")
    decide_approval(layout, approval_id, verdict="approve", actor="bob")
    resumed = tick_goal(layout, "demo-4-credentials")
    assert resumed.outcomes[0]["resumed"] is True
    assert resumed.goal is not None and resumed.goal.next_action == "review"
    assert verify_tree(layout) == []


def test_the_demo_refuses_a_directory_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    refused = build(tmp_path)
    assert refused.returncode == 2 and "not empty" in refused.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
