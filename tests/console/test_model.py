"""The console's live model and read helpers: incremental re-reads, other actors' transitions, graph rows,
retry eligibility. Real trees written through the core."""

from __future__ import annotations

import json

import pytest

from harn_tui.console.graph import graph_rows
from harn_tui.console.model import ConsoleModel
from harn_tui.console.views import retry_eligibility, review_queue
from harn_tui.core.errors import Refused, SystemRefused
from harn_tui.core.finish_note import reserve_note, write_note
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease
from harn_tui.core.records import AttemptStarted
from harn_tui.core.transitions import decide_approval, reopen_work, retry_plan
from tests.tui import builders as b
from tests.tui import scenarios as s


@pytest.fixture(autouse=True)
def _clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARN_FIXED_NOW", "2026-07-16T10:00:00Z")


def test_an_appended_event_reprojects_only_the_goal_it_touches(layout: Layout) -> None:
    s.everything(layout)
    model = ConsoleModel.load(layout)
    before = dict(model.goals)
    reopen_work(layout, "docs", actor="bob", findings=["one more thing"])
    update = model.apply([layout.work("docs") / "events.jsonl"])
    assert update.goals == {s.REVIEW_GOAL}
    assert model.goals[s.REVIEW_GOAL].work_item("docs").state == "ready"  # type: ignore[union-attr]
    assert all(model.goals[g] is before[g] for g in before if g != s.REVIEW_GOAL)
    others = update.transitions_by_others("alice")
    assert [(e.actor, e.event, e.target, e.goal_id) for e in others] == [
        ("bob", "work.reopened", "docs", s.REVIEW_GOAL)
    ]
    assert update.transitions_by_others("bob") == []
    assert model.apply([layout.work("docs") / "events.jsonl"]).empty


def test_an_applied_plan_loads_the_materialized_work(layout: Layout) -> None:
    s.plan_goal(layout)
    model = ConsoleModel.load(layout)
    b.applied(layout, s.PLAN_GOAL, s.PENDING_PLAN)
    update = model.apply([layout.plan(s.PLAN_GOAL, s.PENDING_PLAN) / "events.jsonl"])
    goal = model.goals[s.PLAN_GOAL]
    assert update.goals == {s.PLAN_GOAL} and goal.active_root == f"{s.PENDING_PLAN}-verify"
    assert goal.work_item(f"{s.PENDING_PLAN}-guard") is not None
    assert [(e.actor, e.event) for e in update.seen] == [("alice", "plan.applied")]


def test_approval_decisions_presence_transcripts_and_cache_are_routed(layout: Layout) -> None:
    s.approval_goal(layout)
    model = ConsoleModel.load(layout)
    decide_approval(layout, "apr-run-migrate-1-1", verdict="deny", actor="bob", reason="not now")
    update = model.apply([layout.approval("apr-run-migrate-1-1") / "decision.json"])
    assert update.goals == {s.APPROVAL_GOAL}
    assert [(e.actor, e.event) for e in update.transitions_by_others("alice")] == [("bob", "approval.deny")]
    transcript = layout.run("run-migrate-1") / "transcript.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text(
        "".join(json.dumps({"seq": i, "ts": "t", "stream": "stdout", "line": f"line {i}"}) + "\n" for i in range(1, 10))
        + '{"torn": '
    )
    update = model.apply([layout.presence / "bob@h-1.json", layout.cache / "x", transcript])
    assert update.presence and update.transcripts == {"run-migrate-1"} and not update.goals
    assert model.transcript_tail("run-migrate-1", 3) == ["stdout: line 7", "stdout: line 8", "stdout: line 9"]
    assert model.transcript_tail("run-nope") == []


def test_liveness_follows_the_run_lease(layout: Layout) -> None:
    b.work(layout, "long", title="Long job")
    b.goal(layout, "goal-live", root="long")
    lease = HeldLease(layout.run("run-long-1") / "lease", "run")
    b.work_event(layout, "long", AttemptStarted, run_id="run-long-1", attempt=1, trigger="initial")
    model = ConsoleModel.load(layout)
    assert model.goals["goal-live"].state == "running"
    assert model.refresh_liveness().empty
    lease.release()
    update = model.refresh_liveness()
    assert "goal-live" in update.goals
    assert model.goals["goal-live"].work_item("long").latest_attempt.status == "lost"  # type: ignore[union-attr]


def test_a_runner_that_dies_after_noting_why_its_result_was_not_recorded_shows_the_note(layout: Layout) -> None:
    """The note is read when the lease is found free, as a fresh load reads it: the live console and a fresh
    one show the same failed attempt, never a live "lost" beside a fresh "failed"."""
    b.work(layout, "long", title="Long job")
    b.goal(layout, "goal-live", root="long")
    run_dir = layout.run("run-long-1")
    lease = HeldLease(run_dir / "lease", "run")
    reserve_note(run_dir)
    b.work_event(layout, "long", AttemptStarted, run_id="run-long-1", attempt=1, trigger="initial")
    model = ConsoleModel.load(layout)
    assert write_note(run_dir, "run-long-1", SystemRefused("cannot write proof.json: No space left on device"))
    lease.release()
    assert "goal-live" in model.refresh_liveness().goals
    attempt = model.goals["goal-live"].work_item("long").latest_attempt  # type: ignore[union-attr]
    assert attempt is not None and attempt.status == "failed"
    assert "No space left on device" in (attempt.reason or "")
    assert model.goals["goal-live"].to_json() == ConsoleModel.load(layout).goals["goal-live"].to_json()


def test_graph_rows_mark_shared_dependencies_and_group_superseded_generations(layout: Layout) -> None:
    s.plan_goal(layout)
    goal = ConsoleModel.load(layout).goals[s.PLAN_GOAL]
    rows = graph_rows(goal)
    assert [(r.kind, r.key, r.prefix) for r in rows] == [
        ("heading", "heading:active", ""),
        ("item", f"item:{s.APPLIED_PLAN}-fix", ""),
        ("item", f"item:{s.APPLIED_PLAN}-lexer", "├─ "),
        ("item", "item:fixtures", "│  └─ "),
        ("shared", f"shared:{s.APPLIED_PLAN}-fix>fixtures", "└─ "),
        ("heading", "heading:gen0", ""),
        ("item", "item:parser", "├─ "),
        ("item", "item:investigate", "└─ "),
    ]
    assert rows[1].is_root and rows[3].active and not rows[6].active
    assert len([r for r in rows if r.work_id == "fixtures" and r.kind == "item"]) == 1


def test_retry_eligibility_names_each_rule(layout: Layout) -> None:
    s.attention_goal(layout)
    s.attention_goal(layout, eligible=False, goal_id=s.STALE_GOAL, plan_id=s.STALE_PLAN, root="deploy-2")
    model = ConsoleModel.load(layout)
    eligible = retry_eligibility(model.goals[s.ATTENTION_GOAL])
    assert eligible.eligible and eligible.plan_id == s.ATTENTION_PLAN
    assert [c.name for c in eligible.checks.checks] == [
        "latest plan",
        "in attention",
        "root unchanged",
        "fingerprint unchanged",
        "mission not complete",
        "replan slot left",
    ]
    stale = retry_eligibility(model.goals[s.STALE_GOAL])
    assert not stale.eligible and [c.name for c in stale.checks.failing] == ["fingerprint unchanged"]
    with pytest.raises(Refused) as refused:  # the console's failing line is the core's refusal, word for word
        retry_plan(layout, s.STALE_GOAL, s.STALE_PLAN, actor="alice", reason="go")
    assert refused.value.message == stale.checks.failing[0].why
    assert refused.value.message.startswith("stale graph: ")
    s.review_goal(layout)
    nothing = retry_eligibility(ConsoleModel.load(layout).goals[s.REVIEW_GOAL])
    assert nothing.plan_id is None and not nothing.eligible


def test_review_queue_holds_work_in_review_and_work_with_open_findings(layout: Layout) -> None:
    s.review_goal(layout)
    goal = ConsoleModel.load(layout).goals[s.REVIEW_GOAL]
    assert [(w.id, w.state, len(w.open_findings)) for w in review_queue(goal)] == [("docs", "in_review", 2)]


def test_standalone_work_needing_a_human_is_one_goal_shaped_row_that_follows_changes(layout: Layout) -> None:
    from harn_tui.console.views import STANDALONE

    s.review_goal(layout)
    s.standalone_work(layout)
    model = ConsoleModel.load(layout)
    standalone = model.standalone
    assert standalone is not None and standalone.id == STANDALONE and standalone.needs_human
    assert [w.id for w in standalone.work] == ["hotfix", "rotate"]  # not the accepted cleanup, not goal work
    assert [g.id for g in model.console_goals()] == [s.REVIEW_GOAL, STANDALONE]
    assert model.goal_view(STANDALONE) is standalone and model.goal_list()[-1].id == s.REVIEW_GOAL
    assert [r.work_id for r in graph_rows(standalone) if r.kind == "item"] == ["hotfix", "rotate"]
    decide_approval(layout, "apr-run-rotate-1-1", verdict="approve", actor="bob")
    update = model.apply([layout.approval("apr-run-rotate-1-1") / "decision.json"])
    assert update.goals == {STANDALONE}
    assert model.standalone is not None and [w.id for w in model.standalone.work] == ["hotfix"]
    assert [(e.actor, e.event) for e in update.transitions_by_others("alice")] == [("bob", "approval.approve")]
    reopen_work(layout, "hotfix", actor="bob", findings=["still leaks"])
    update = model.apply([layout.work("hotfix") / "events.jsonl"])
    assert update.goals == {STANDALONE} and model.standalone is None
    assert [g.id for g in model.console_goals()] == [s.REVIEW_GOAL]
    b.attempt(layout, "hotfix", "run-hotfix-3", status="passed", number=3)
    assert model.apply([layout.work("hotfix") / "events.jsonl"]).goals == {STANDALONE}
    assert [w.id for w in model.standalone.work] == ["hotfix"]
    b.work(layout, "late", title="Created while the console runs")
    assert model.apply([layout.work("late") / "intent.json"]).goals == frozenset()  # ready: needs no human
