"""The two seed scenarios end to end, through `harn` as a subprocess with real planner and template processes.

Seed 001 (replanning): a root fails, the planner proposes a recovery root, the operator approves, the
replacement completes; both generations stay governed and every attempt is counted.
Seed 000 (attention recovery): the planner asks for attention, the goal is quiescent, the operator retries with
guidance, and the next plan request (the next sequence) carries that guidance to the planner.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harn
from tests.goal_kit import LOOP

Snapshot = Callable[[Path], dict[str, bytes]]


def write_goal_files(directory: Path, examples: Path, planner: str) -> tuple[Path, Path]:
    team = directory / "team.json"
    team.write_text(
        json.dumps(
            {
                "planner": {
                    "adapter": "command",
                    "argv": ["python3", str(LOOP / planner)],
                    "timeout_s": 60,
                    "instructions": "Plan bounded recovery work.",
                }
            }
        )
    )
    replanning = directory / "replanning.json"
    replanning.write_text(
        json.dumps(
            {
                "planner": "planner",
                "max_replans": 3,
                "templates": {"implement": {"path": str(examples / "templates" / "implement.py"), "root": True}},
            }
        )
    )
    return team, replanning


def create_failing_goal(harn: Harn, examples: Path, tmp_path: Path, planner: str, goal_id: str) -> None:
    harn.json(
        "work",
        "create",
        "Lock-based job queue",
        str(LOOP / "fail.py"),
        "--objective",
        "Keep jobs safe.",
        "--accept",
        "no job is lost across a crash",
        "--max-attempts",
        "1",
        "--id",
        "root-work",
    )
    team, replanning = write_goal_files(tmp_path, examples, planner)
    harn.json(
        "supervisor",
        "create",
        "--team",
        str(team),
        "--replanning",
        str(replanning),
        "--root-work",
        "root-work",
        "--id",
        goal_id,
    )


def test_seed_001_a_failed_root_is_replaced_by_an_approved_recovery_root(
    harn: Harn, examples: Path, tmp_path: Path
) -> None:
    create_failing_goal(harn, examples, tmp_path, "recovery_planner.py", "goal-seed-001")
    first = harn.json("supervisor", "run", "goal-seed-001")
    assert first["stop_reason"] == "needs_human" and (first["dispatches"], first["replans"]) == (1, 1)
    assert [(o["kind"], o["status"]) for o in first["outcomes"]] == [("attempt", "failed"), ("plan", "proposed")]
    goal = first["goal"]
    assert (goal["state"], goal["next_action"]) == ("awaiting_attention", "review_plan")
    plan_id = goal["pending_plan_id"]
    plan = harn.json("supervisor", "plan", "show", "goal-seed-001", plan_id)
    assert plan["trigger"] == "recovery" and plan["request"]["prior_root_work_id"] == "root-work"
    assert plan["planner_input"]["work"][0]["proof_summary"] == "the lock-based approach deadlocks under load"
    assert "deadlocks under load" in plan["proposal"]["rationale"]

    approved = harn.json("supervisor", "plan", "approve", "goal-seed-001", plan_id)
    assert approved["outcome"] == "applied"
    replacement = f"{plan_id}-durable-queue"
    assert approved["event"]["root_work_id"] == replacement

    second = harn.json("supervisor", "run", "goal-seed-001")
    assert second["stop_reason"] == "needs_human" and second["outcomes"][0]["work_id"] == replacement
    assert second["goal"]["next_action"] == "review"
    assert harn.json("work", "accept", replacement)["outcome"] == "applied"

    final = harn.json("supervisor", "show", "goal-seed-001")
    assert (final["state"], final["generation"], final["root_work_id"]) == ("succeeded", 1, replacement)
    assert final["governed_work_ids"] == ["root-work", replacement]
    assert final["attempts_used"] == 2 and final["attempts_remaining"] == 98
    assert [(w["id"], w["state"], w["active"]) for w in final["work"]] == [
        (replacement, "succeeded", True),
        ("root-work", "blocked", False),
    ]
    assert [(p["id"], p["status"]) for p in final["plans"]] == [(plan_id, "applied")]
    assert harn.json("supervisor", "run", "goal-seed-001")["stop_reason"] == "succeeded"
    assert harn.json("verify") == {"ok": True, "problems": []}


def test_seed_000_attention_is_quiescent_until_an_operator_retries_with_guidance(
    harn: Harn, examples: Path, tmp_path: Path, root: Path, snapshot_tree: Snapshot
) -> None:
    create_failing_goal(harn, examples, tmp_path, "guided_planner.py", "goal-seed-000")
    first = harn.json("supervisor", "run", "goal-seed-000")
    goal = first["goal"]
    attention_id = goal["attention_plan_id"]
    assert (goal["state"], goal["next_action"], goal["latest_plan_status"]) == (
        "awaiting_attention",
        "retry_plan",
        "attention",
    )
    assert attention_id is not None and goal["pending_plan_id"] is None
    pending = harn.json("pending")["pending"]
    assert {"kind": "retry_plan", "goal_id": "goal-seed-000", "plan_id": attention_id} == {
        k: pending[0][k] for k in ("kind", "goal_id", "plan_id")
    }

    before = snapshot_tree(root)
    for verb in ("tick", "run"):
        quiet = harn.json("supervisor", verb, "goal-seed-000")
        assert (quiet["stop_reason"], quiet["cycles"], quiet["replans"]) == ("needs_human", 0, 0)
    assert snapshot_tree(root) == before, "a goal that needs a human is never written to"

    guidance = "Use the Postgres-backed queue from ADR 12; the Redis one is not approved."
    retried = harn.json("supervisor", "plan", "retry", "goal-seed-000", attention_id, "--reason", guidance)
    assert retried["outcome"] == "applied" and retried["event"]["reason"] == guidance
    again = harn.json("supervisor", "plan", "retry", "goal-seed-000", attention_id, "--reason", guidance)
    assert again["outcome"] == "already_done"

    tick = harn.json("supervisor", "tick", "goal-seed-000")
    assert tick["replans"] == 1 and tick["cycles"] == 1
    [outcome] = tick["outcomes"]
    assert (outcome["sequence"], outcome["status"]) == (2, "proposed")
    new_plan = harn.json("supervisor", "plan", "show", "goal-seed-000", outcome["plan_id"])
    latest = new_plan["planner_input"]["latest_plan"]
    assert latest["id"] == attention_id and latest["status"] == "retry_requested" and latest["reason"] == guidance
    assert guidance in new_plan["proposal"]["rationale"]
    old_plan = harn.json("supervisor", "plan", "show", "goal-seed-000", attention_id)
    assert old_plan["status"] == "retry_requested" and old_plan["proposal"]["decision"] == "attention"
    assert [e["event"] for e in old_plan["events"]] == ["plan.proposed", "plan.attention", "plan.retry_requested"]
    assert tick["goal"]["replans_used"] == 2 and tick["goal"]["next_action"] == "review_plan"
    assert harn.json("verify")["ok"] is True
