"""Plan transitions in the core: approve (apply, complete), reject, retry; every rule's refusal leaves the tree
byte-for-byte unchanged, and every repeat is `already_done` with nothing appended."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.errors import CorruptJournal, NotFound, Refused, UsageError
from harn_tui.core.layout import Layout
from harn_tui.core.transitions import approve_plan, reject_plan, retry_plan
from harn_tui.core.transitions.materialize import planned_work
from harn_tui.core.tree import Tree
from harn_tui.core.verify import verify_tree
from tests.conftest import tree_bytes
from tests.plan_builders import (
    GOAL,
    ROOT_WORK,
    add_plan,
    events_of,
    goal_view,
    make_goal,
    plan_events,
    record_attempt,
)


@pytest.fixture
def goal(layout: Layout, examples: Path) -> str:
    """A goal whose root failed for good (max_attempts 1): the planner's turn. Reviewers: the example critic."""
    make_goal(layout, examples, max_attempts=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    return GOAL


def refused(layout: Layout, call: object, match: str, error: type[Exception] = Refused) -> None:
    """`call()` raises `error` matching `match` and writes nothing."""
    before = tree_bytes(layout.root)
    with pytest.raises(error, match=match):
        call()  # type: ignore[operator]
    assert tree_bytes(layout.root) == before


# ----- approve: apply


def test_approve_materializes_the_proposal_then_appends_plan_applied(layout: Layout, goal: str) -> None:
    plan = add_plan(
        layout,
        items=[
            {
                "key": "investigate",
                "title": "Find it",
                "objective": "Look.",
                "acceptance": ["found"],
                "dependencies": [ROOT_WORK],
                "template": "investigate",
            },
            {
                "key": "implement",
                "title": "Fix it",
                "objective": "Fix.",
                "acceptance": ["fixed"],
                "dependencies": ["investigate"],
                "template": "implement",
            },
        ],
    )
    outcome = approve_plan(layout, goal, plan, actor="alice", reason="looks right")
    assert outcome.outcome == "applied"
    event = outcome.to_json()["event"]
    ids = [f"{plan}-investigate", f"{plan}-implement"]
    assert (event["event"], event["actor"], event["root_work_id"], event["work_ids"], event["reason"]) == (
        "plan.applied",
        "alice",
        f"{plan}-implement",
        ids,
        "looks right",
    )
    proposal = json.loads((layout.plan(goal, plan) / "proposal.json").read_text())
    catalog = goal_view(layout).intent.replanning.templates  # type: ignore[union-attr]
    for work_id, template, deps in ((ids[0], "investigate", [ROOT_WORK]), (ids[1], "implement", [ids[0]])):
        intent = json.loads((layout.work(work_id) / "intent.json").read_text())
        assert intent["created_at"] == proposal["proposed_at"]
        assert intent["source"] == {"kind": "plan", "ref": f"{goal}/{plan}"}
        assert intent["template"] == {"path": catalog[template].path, "sha256": catalog[template].sha256}
        assert intent["max_attempts"] == catalog[template].max_attempts
        assert intent["dependencies"] == deps
        assert [(e["event"], e["actor"]) for e in events_of(layout, work_id)] == [("work.created", "alice")]
    view = goal_view(layout)
    assert (view.generation, view.active_root, view.latest_plan_status) == (1, ids[1], "applied")
    assert view.governed_work_ids == (ROOT_WORK, *ids)
    assert verify_tree(layout) == []


def test_approve_twice_is_already_done_and_appends_nothing(layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    first = approve_plan(layout, goal, plan, actor="alice")
    before = tree_bytes(layout.root)
    second = approve_plan(layout, goal, plan, actor="bob", reason="a different reason is not compared")
    assert second.outcome == "already_done"
    assert second.to_json()["event"] == first.to_json()["event"]
    assert tree_bytes(layout.root) == before


def test_approve_complete_appends_plan_completed_and_the_mission_succeeds(layout: Layout, examples: Path) -> None:
    make_goal(layout, examples, root_work=None, mission=True)
    plan = add_plan(layout, decision="complete", trigger="milestone")
    outcome = approve_plan(layout, GOAL, plan, actor="alice")
    assert outcome.to_json()["event"]["event"] == "plan.completed"
    assert [e["event"] for e in plan_events(layout, GOAL, plan)][-1] == "plan.completed"
    assert goal_view(layout).state == "succeeded"
    assert approve_plan(layout, GOAL, plan, actor="alice").outcome == "already_done"


# ----- approve: refusals


def test_approve_refuses_a_plan_that_is_not_proposed(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention")
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="alice"), f"plan {plan} is attention, not proposed")


def test_approve_refuses_a_plan_that_is_not_the_latest(layout: Layout, goal: str) -> None:
    older = add_plan(layout)
    newer = add_plan(layout)
    refused(
        layout,
        lambda: approve_plan(layout, goal, older, actor="alice"),
        f"plan {older} is not the latest plan of goal {goal} \\(the latest is {newer}\\)",
    )


def test_approve_refuses_a_stale_root(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, prior_root="work-elsewhere")
    refused(
        layout,
        lambda: approve_plan(layout, goal, plan, actor="alice"),
        f"stale root: plan {plan} was requested for root work-elsewhere, but the active root is {ROOT_WORK}",
    )


def test_approve_refuses_a_changed_template(layout: Layout, goal: str, examples: Path) -> None:
    plan = add_plan(layout)
    with (examples / "templates" / "investigate.py").open("a") as handle:
        handle.write("# edited after the goal froze it\n")
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="alice"), "template investigate .* changed")


def test_approve_refuses_a_missing_template(layout: Layout, goal: str, examples: Path) -> None:
    plan = add_plan(layout)
    (examples / "templates" / "implement.py").unlink()
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="alice"), "template implement .* cannot be read")


def test_approve_refuses_a_proposal_whose_digest_differs_from_the_review(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, reviewed_sha256="0" * 64)
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="alice"), "proposal digest changed")


def test_approve_refuses_an_unreviewed_proposal_when_the_goal_has_reviewers(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, skip_review=True)
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="alice"), "has no plan.reviewed event")


def test_approve_without_reviewers_needs_no_review(layout: Layout, examples: Path) -> None:
    make_goal(layout, examples, max_attempts=1, reviewers=[])
    record_attempt(layout, ROOT_WORK, passed=False)
    plan = add_plan(layout)
    assert approve_plan(layout, GOAL, plan, actor="alice").outcome == "applied"


def test_approve_refuses_a_dependency_that_is_neither_a_key_nor_active_work(layout: Layout, goal: str) -> None:
    plan = add_plan(
        layout,
        items=[
            {
                "key": "implement",
                "title": "Fix",
                "objective": "Fix.",
                "dependencies": ["work-unknown"],
                "template": "implement",
            }
        ],
    )
    refused(
        layout,
        lambda: approve_plan(layout, goal, plan, actor="alice"),
        "depends on 'work-unknown', which is neither an earlier key nor active work",
    )


def test_approve_fails_closed_on_existing_work_with_a_different_intent(
    layout: Layout, goal: str, examples: Path
) -> None:
    plan = add_plan(layout)
    create_work(
        layout,
        title="Squatter",
        template=examples / "templates" / "implement.py",
        objective="Other.",
        work_id=f"{plan}-implement",
        actor="mallory",
    )
    refused(
        layout,
        lambda: approve_plan(layout, goal, plan, actor="alice"),
        f"work {plan}-implement exists with a different intent; materialization fails closed",
    )
    assert not layout.work(f"{plan}-investigate").exists(), "nothing is written before every item checks out"


def test_approve_addresses_are_checked_before_state(layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    refused(layout, lambda: approve_plan(layout, "../etc", plan, actor="alice"), "not a valid ID", UsageError)
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="alice", reason="  "), "blank", UsageError)
    refused(layout, lambda: approve_plan(layout, "goal-none", plan, actor="alice"), "does not exist", NotFound)
    refused(layout, lambda: approve_plan(layout, goal, "plan-0009-00000000", actor="alice"), "does not exist", NotFound)
    (layout.goal(goal) / "goal.json").chmod(0o600)
    body = (layout.goal(goal) / "goal.json").read_bytes()
    (layout.goal(goal) / "goal.json").write_bytes(body.replace(b'"title"', b'"titel"'))
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="alice"), "is corrupt", CorruptJournal)


# ----- approve: crash recovery of materialization


def test_repeat_approve_completes_a_partial_materialization(layout: Layout, goal: str) -> None:
    """What a crash can leave: one item complete, one intent without work.created, one bare directory."""
    plan = add_plan(
        layout,
        items=[
            {"key": "a", "title": "A", "objective": "A.", "template": "investigate"},
            {"key": "b", "title": "B", "objective": "B.", "dependencies": ["a"], "template": "investigate"},
            {"key": "implement", "title": "C", "objective": "C.", "dependencies": ["b"], "template": "implement"},
        ],
    )
    view = goal_view(layout)
    assert view.intent is not None and view.intent.replanning is not None
    planned = planned_work(
        goal,
        plan,
        view.plans[-1].proposal,  # type: ignore[arg-type]
        view.intent.replanning.templates,
        set(view.active_ids),
    )
    from harn_tui.core.fsio import write_record
    from harn_tui.core.records import WorkCreated
    from harn_tui.core.writer import append_event

    a, b, c = planned.intents
    write_record(layout.work(a.id) / "intent.json", a)
    append_event(Tree(layout).load_work(a.id).log, WorkCreated, "alice")
    write_record(layout.work(b.id) / "intent.json", b)
    layout.work(c.id).mkdir()
    outcome = approve_plan(layout, goal, plan, actor="bob")
    assert outcome.to_json()["event"]["work_ids"] == [a.id, b.id, c.id]
    assert [e["actor"] for e in events_of(layout, a.id)] == ["alice"], "an existing work.created is reused"
    assert [e["actor"] for e in events_of(layout, b.id)] == ["bob"]
    assert json.loads((layout.work(c.id) / "intent.json").read_text())["dependencies"] == [b.id]
    assert verify_tree(layout) == []


# ----- reject


def test_reject_records_the_reason_for_the_next_planner(layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    outcome = reject_plan(layout, goal, plan, actor="alice", reason="  Too broad; fix the parser first.  ")
    assert outcome.to_json()["event"]["reason"] == "Too broad; fix the parser first."
    view = goal_view(layout)
    assert (view.latest_plan_status, view.plans[-1].reason) == ("rejected", "Too broad; fix the parser first.")
    assert (view.state, view.next_action) == ("ready", "replan")


def test_reject_repeat_and_a_different_reason(layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    reject_plan(layout, goal, plan, actor="alice", reason="no")
    before = tree_bytes(layout.root)
    assert reject_plan(layout, goal, plan, actor="bob", reason=" no ").outcome == "already_done"
    assert tree_bytes(layout.root) == before
    refused(
        layout,
        lambda: reject_plan(layout, goal, plan, actor="alice", reason="yes"),
        f"plan {plan} is already rejected with a different reason",
    )


def test_reject_refusals(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention")
    refused(layout, lambda: reject_plan(layout, goal, plan, actor="alice", reason="no"), "is attention, not proposed")
    refused(layout, lambda: reject_plan(layout, goal, plan, actor="alice", reason=None), "required", UsageError)
    refused(
        layout, lambda: reject_plan(layout, goal, plan, actor="alice", reason="x" * 2001), "at most 2000", UsageError
    )


def test_approve_after_reject_names_the_new_state(layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    reject_plan(layout, goal, plan, actor="alice", reason="no")
    refused(layout, lambda: approve_plan(layout, goal, plan, actor="bob"), f"plan {plan} is rejected, not proposed")


# ----- retry (seed 000)


def test_retry_requests_another_planner_attempt_with_guidance(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention", attention="which parser?")
    view = goal_view(layout)
    assert (view.state, view.next_action, view.attention_plan_id) == ("awaiting_attention", "retry_plan", plan)
    request_before = (layout.plan(goal, plan) / "request.json").read_bytes()
    outcome = retry_plan(layout, goal, plan, actor="alice", reason="  Use the new parser.  ")
    event = outcome.to_json()["event"]
    assert (event["event"], event["reason"], event["actor"]) == ("plan.retry_requested", "Use the new parser.", "alice")
    view = goal_view(layout)
    assert (view.state, view.next_action, view.attention_plan_id) == ("ready", "replan", None)
    assert (view.latest_plan_status, view.plans[-1].reason) == ("retry_requested", "Use the new parser.")
    assert (layout.plan(goal, plan) / "request.json").read_bytes() == request_before
    assert [e["event"] for e in plan_events(layout, goal, plan)] == [
        "plan.proposed",
        "plan.attention",
        "plan.retry_requested",
    ]


def test_retry_of_a_reviewer_attention_keeps_the_receipt(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, via_reviewers=True)
    receipt = (layout.plan(goal, plan) / "review.json").read_bytes()
    assert retry_plan(layout, goal, plan, actor="alice", reason="narrow it").outcome == "applied"
    assert (layout.plan(goal, plan) / "review.json").read_bytes() == receipt


def test_retry_repeat_keeps_the_first_reason(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention")
    retry_plan(layout, goal, plan, actor="alice", reason="first")
    before = tree_bytes(layout.root)
    assert retry_plan(layout, goal, plan, actor="bob", reason="first").outcome == "already_done"
    assert tree_bytes(layout.root) == before
    refused(
        layout,
        lambda: retry_plan(layout, goal, plan, actor="alice", reason="second"),
        "already retry_requested with a different reason",
    )


def test_retry_refuses_a_plan_that_is_not_the_latest(layout: Layout, goal: str) -> None:
    older = add_plan(layout, decision="attention")
    add_plan(layout, decision="attention")
    refused(layout, lambda: retry_plan(layout, goal, older, actor="alice", reason="go"), "is not the latest plan")


def test_retry_refuses_a_plan_that_is_not_in_attention(layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    refused(layout, lambda: retry_plan(layout, goal, plan, actor="alice", reason="go"), "is proposed, not attention")


def test_retry_refuses_a_changed_graph(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention")
    record_attempt(layout, ROOT_WORK, passed=False, actor="alice")
    refused(layout, lambda: retry_plan(layout, goal, plan, actor="alice", reason="go"), "stale graph")


def test_retry_refuses_a_stale_root(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention", prior_root="work-elsewhere")
    refused(layout, lambda: retry_plan(layout, goal, plan, actor="alice", reason="go"), "stale root")


def test_retry_refuses_when_no_replan_slot_is_left(layout: Layout, examples: Path) -> None:
    make_goal(layout, examples, max_attempts=1, max_replans=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    plan = add_plan(layout, decision="attention")
    view = goal_view(layout)
    assert (view.state, view.next_action, view.attention_plan_id) == ("awaiting_attention", "none", plan)
    refused(layout, lambda: retry_plan(layout, GOAL, plan, actor="alice", reason="go"), "no replan slot left")


def test_retry_refuses_once_the_mission_is_complete(layout: Layout, examples: Path) -> None:
    make_goal(layout, examples, root_work=None, mission=True)
    done = add_plan(layout, decision="complete", trigger="milestone")
    approve_plan(layout, GOAL, done, actor="alice")
    plan = add_plan(layout, decision="attention", trigger="milestone")
    refused(layout, lambda: retry_plan(layout, GOAL, plan, actor="alice", reason="go"), "mission is complete")


def test_retry_reason_bounds(layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention")
    refused(layout, lambda: retry_plan(layout, goal, plan, actor="alice", reason=" \n "), "blank", UsageError)
    refused(
        layout, lambda: retry_plan(layout, goal, plan, actor="alice", reason="x" * 2001), "at most 2000", UsageError
    )
    assert retry_plan(layout, goal, plan, actor="alice", reason="x" * 2000).outcome == "applied"


def test_proposal_digest_is_of_the_file_bytes(layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    body = (layout.plan(goal, plan) / "proposal.json").read_bytes()
    reviewed = plan_events(layout, goal, plan)[0]
    assert reviewed["candidate_sha256"] == hashlib.sha256(body).hexdigest()
