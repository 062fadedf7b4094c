"""Goal projection: SPEC section 5's rules in order, plan-driven states, budgets, generations, corruption."""

from __future__ import annotations

from pathlib import Path

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.tree import Tree
from tests.conftest import Harn
from tests.core import journal_builders as b


def project(layout: Layout, goal_id: str) -> GoalView:
    return project_goal(Tree.load(layout), goal_id)


def test_goal_follows_its_root_from_ready_to_review_to_succeeded(layout: Layout) -> None:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    assert (project(layout, "g").state, project(layout, "g").next_action) == ("ready", "run")
    b.attempt(layout, "root", "r1", status="passed", number=1)
    view = project(layout, "g")
    assert (view.state, view.next_action) == ("awaiting_attention", "review")
    b.accept(layout, "root", "r1")
    view = project(layout, "g")
    assert (view.state, view.next_action, view.attempts_used) == ("succeeded", "none", 1)


def test_blocked_root_asks_for_a_replan_only_when_replanning_is_configured(layout: Layout) -> None:
    b.work(layout, "r1", max_attempts=1)
    b.work(layout, "r2", max_attempts=1)
    b.goal(layout, "with", root="r1")
    b.goal(layout, "without", root="r2", replanning=False)
    b.attempt(layout, "r1", "a1", status="failed", number=1)
    b.attempt(layout, "r2", "a2", status="failed", number=1)
    assert project(layout, "with").next_action == "replan"
    without = project(layout, "without")
    assert (without.state, without.next_action) == ("blocked", "none")
    assert "no replanning" in without.reason


def test_blocked_retry_holds_before_the_planner(layout: Layout) -> None:
    b.work(layout, "root", max_attempts=3)
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "a1", status="failed", number=1)
    view = project(layout, "g")
    assert (view.state, view.next_action) == ("blocked", "retry")


def test_attempt_budget_is_counted_across_the_goal(layout: Layout) -> None:
    b.work(layout, "root", max_attempts=5)
    b.goal(layout, "g", root="root", max_total_attempts=2)
    b.attempt(layout, "root", "a1", status="failed", number=1)
    b.attempt(layout, "root", "a2", status="failed", number=2)
    view = project(layout, "g")
    assert (view.state, view.next_action, view.attempts_remaining) == ("budget_exhausted", "none", 0)


def test_a_proposed_plan_awaits_review_with_its_id(layout: Layout) -> None:
    b.work(layout, "root", max_attempts=1)
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "a1", status="failed", number=1)
    fingerprint = project(layout, "g").graph_fingerprint
    b.plan(
        layout,
        "g",
        "plan-0001-aaaaaaaa",
        sequence=1,
        fingerprint=fingerprint,
        prior_root="root",
        events=(("plan.proposed", {}),),
        work=({"key": "fix", "title": "Fix", "objective": "Fix it", "template": "implement"},),
        root_key="fix",
    )
    view = project(layout, "g")
    assert (view.state, view.next_action, view.pending_plan_id) == (
        "awaiting_attention",
        "review_plan",
        "plan-0001-aaaaaaaa",
    )
    assert view.attention_plan_id is None and view.replans_used == 1


def attention_goal(layout: Layout, max_replans: int = 3) -> str:
    b.work(layout, "root", max_attempts=1)
    b.goal(layout, "g", root="root", max_replans=max_replans)
    b.attempt(layout, "root", "a1", status="failed", number=1)
    fingerprint = project(layout, "g").graph_fingerprint
    return b.plan(
        layout,
        "g",
        "plan-0001-bbbbbbbb",
        sequence=1,
        fingerprint=fingerprint,
        prior_root="root",
        decision="attention",
        events=(("plan.proposed", {}), ("plan.attention", {"reason": "unclear"})),
    )


def test_attention_plan_is_retryable_while_graph_and_root_are_unchanged(layout: Layout) -> None:
    plan_id = attention_goal(layout)
    view = project(layout, "g")
    assert (view.state, view.next_action, view.attention_plan_id) == ("awaiting_attention", "retry_plan", plan_id)
    assert view.pending_plan_id is None and view.latest_plan_status == "attention"
    b.plan_events(layout, "g", plan_id, ("plan.retry_requested", {"reason": "split it", "actor": "alice"}))
    view = project(layout, "g")
    assert (view.state, view.next_action, view.attention_plan_id) == ("ready", "replan", None)
    assert view.plans[-1].reason == "split it"


def test_attention_without_a_replan_slot_is_a_dead_end_for_retry(layout: Layout) -> None:
    plan_id = attention_goal(layout, max_replans=1)
    view = project(layout, "g")
    assert (view.state, view.next_action, view.attention_plan_id) == ("awaiting_attention", "none", plan_id)


def test_attention_goes_stale_when_the_graph_changes(layout: Layout) -> None:
    attention_goal(layout)
    b.reopen(layout, "root", "look again")
    view = project(layout, "g")
    assert view.attention_plan_id is None and (view.state, view.next_action) == ("ready", "run")


def test_an_applied_plan_advances_the_generation_and_supersedes_the_old_root(layout: Layout) -> None:
    b.work(layout, "root", max_attempts=1)
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "a1", status="failed", number=1)
    b.work(layout, "plan-0001-cccccccc-fix")
    b.plan(
        layout,
        "g",
        "plan-0001-cccccccc",
        sequence=1,
        fingerprint="x",
        prior_root="root",
        events=(
            ("plan.proposed", {}),
            ("plan.applied", {"root_work_id": "plan-0001-cccccccc-fix", "work_ids": ["plan-0001-cccccccc-fix"]}),
        ),
    )
    view = project(layout, "g")
    assert view.generation == 1 and view.active_root == "plan-0001-cccccccc-fix"
    assert view.governed_work_ids == ("root", "plan-0001-cccccccc-fix")
    assert [(w.id, w.active) for w in view.work] == [("plan-0001-cccccccc-fix", True), ("root", False)]
    assert view.attempts_used == 1 and view.attempts_remaining == 99, "superseded attempts still count"
    assert (view.state, view.next_action) == ("ready", "run")


def test_a_mission_without_a_root_asks_for_its_first_plan(layout: Layout) -> None:
    b.goal(layout, "m", root=None, mission=True)
    view = project(layout, "m")
    assert (view.state, view.next_action, view.active_root) == ("ready", "plan_initial", None)


def test_fingerprint_is_stable_and_changes_with_the_active_graph(layout: Layout) -> None:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    first = project(layout, "g").graph_fingerprint
    assert first.startswith("sha256:") and first == project(layout, "g").graph_fingerprint
    b.attempt(layout, "root", "a1", status="failed", number=1)
    assert project(layout, "g").graph_fingerprint != first


DAMAGE = {
    "malformed JSON": (b'{"schema_version": 1, "seq": 2,,}\n', "malformed JSON"),
    "unknown schema version": (
        b'{"schema_version": 7, "seq": 2, "ts": "2026-11-30T12:00:00.000Z", "event": "work.cancelled", "actor": "a"}\n',
        "unknown schema version 7",
    ),
    "seq gap": (
        b'{"schema_version": 1, "seq": 5, "ts": "2026-11-30T12:00:00.000Z", "event": "work.cancelled",'
        b' "actor": "a", "reason": null}\n',
        "seq 5",
    ),
    "unknown event": (
        b'{"schema_version": 1, "seq": 2, "ts": "2026-11-30T12:00:00.000Z", "event": "work.teleported",'
        b' "actor": "a"}\n',
        "unknown event 'work.teleported'",
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_corrupt_goal_is_reported_and_its_neighbour_is_unaffected(
    layout: Layout, harn: Harn, root: Path, damage: str
) -> None:
    line, expected = DAMAGE[damage]
    b.work(layout, "ok-root")
    b.work(layout, "bad-root")
    b.goal(layout, "sound", root="ok-root")
    b.goal(layout, "broken", root="bad-root")
    with (layout.work("bad-root") / "events.jsonl").open("ab") as handle:
        handle.write(line)
    listing = harn.json("supervisor", "list")
    states = {g["id"]: g["state"] for g in listing["goals"]}
    assert states == {"sound": "ready", "broken": "corrupt"}
    assert any("bad-root" in p["path"] or "bad-root" in p["problem"] for p in listing["problems"])
    error = harn.json("supervisor", "show", "broken", expect=5)["error"]
    assert error["code"] == "corrupt" and "line 2" in error["message"] and expected in error["message"]
    assert harn.json("supervisor", "show", "sound")["state"] == "ready"
    assert harn("verify").returncode == 5


def test_a_torn_tail_alone_does_not_make_a_goal_corrupt(layout: Layout, harn: Harn) -> None:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    with (layout.work("root") / "events.jsonl").open("ab") as handle:
        handle.write(b'{"schema_version": 1, "seq": 2, "ts"')
    assert harn.json("supervisor", "show", "g")["state"] == "ready"
    report = harn.json("verify", expect=5)
    assert report["ok"] is False and "torn" in report["problems"][0]["problem"]
