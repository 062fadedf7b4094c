"""A goal's history read in process: `--at` parsing and selection, entries and summaries, the past of a plan."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harn_tui.core.errors import NotFound, UsageError
from harn_tui.core.history import GoalOverTime, load_goal_over_time, parse_when, select_position
from harn_tui.core.layout import Layout
from harn_tui.core.records import AttemptFinished, AttemptStarted
from tests.core import journal_builders as b


@pytest.fixture
def over(layout: Layout) -> GoalOverTime:
    b.work(layout, "root")
    time.sleep(0.002)  # timestamps have millisecond resolution: each entry below has an instant of its own
    b.goal(layout, "g", root="root")
    time.sleep(0.002)
    b.event(layout, "root", AttemptStarted, run_id="run-1", attempt=1, trigger="initial")
    time.sleep(0.002)
    b.event(layout, "root", AttemptFinished, run_id="run-1", status="failed", reason="line one\nline [b]two[/b]")
    return load_goal_over_time(layout, "g")


@pytest.mark.parametrize(
    "bad",
    [
        "yesterday",
        "event:",
        "event:-1",
        "event:１",
        "event:1.5",
        "2026-01-02",
        "2026-01-02T03:04:05",
        "２０２６-01-02T03:04:05Z",
        "event: 1",
    ],
)
def test_a_malformed_when_is_bad_input(bad: str) -> None:
    with pytest.raises(UsageError, match="--at"):
        parse_when(bad)


def test_selection_by_count_and_by_instant(over: GoalOverTime) -> None:
    entries = over.history.entries
    assert [e.event for e in entries] == ["work.created", "goal.created", "attempt.started", "attempt.finished"]
    assert select_position(over, parse_when("event:3")) == (3, entries[2].ts)
    assert select_position(over, parse_when(entries[2].ts))[0] == 3
    for early in ("event:0", "event:1", "2000-01-01T00:00:00Z"):
        with pytest.raises(NotFound, match="did not exist yet"):
            select_position(over, parse_when(early))
    with pytest.raises(NotFound, match="4 history entries"):
        select_position(over, parse_when("event:5"))
    assert select_position(over, parse_when("2999-01-01T00:00:00-02:00")) == (4, "2999-01-01T02:00:00.000Z")


def test_an_attempt_running_then_is_running_in_the_past_and_summaries_are_one_line(over: GoalOverTime) -> None:
    assert over.view_at(3).work_item("root").state == "running"  # type: ignore[union-attr]
    assert over.view_at(4).work_item("root").state == "blocked"  # type: ignore[union-attr]
    assert over.history.entries[3].summary == "attempt 1 failed: line one line [b]two[/b]"
    assert over.history.entries[3].run_id == "run-1"


def test_a_plan_requested_and_decided_later_was_planning(layout: Layout, tmp_path: Path) -> None:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "run-1", status="failed", number=1)
    b.plan(layout, "g", "plan-0001-00000001", sequence=1, fingerprint="x", prior_root="root", decision=None)
    over = load_goal_over_time(layout, "g")
    assert over.view_at(len(over.history)).latest_plan_status == "interrupted", "no outcome ever: as now"
    b.plan_events(layout, "g", "plan-0001-00000001", ("plan.failed", {"reason": "planner crashed"}))
    over = load_goal_over_time(layout, "g")
    requested = next(k for k, e in enumerate(over.history.entries, 1) if e.event == "plan.requested")
    past = over.view_at(requested)
    assert (past.state, past.latest_plan_status) == ("running", "planning")
    assert over.view_at(len(over.history)).latest_plan_status == "failed"


def test_entries_sort_as_instants_whatever_the_precision_or_offset() -> None:
    from harn_tui.core.history.entries import instant_key

    stamps = [
        "2026-01-01T00:00:14.074Z",
        "2026-01-01T02:00:14+02:00",
        "2026-01-01T00:00:13.9Z",
        "2026-01-01T00:00:14.5Z",
        "2025-12-31T23:00:15-01:00",
    ]
    assert sorted(stamps, key=instant_key) == [
        "2026-01-01T00:00:13.9Z",
        "2026-01-01T02:00:14+02:00",
        "2026-01-01T00:00:14.074Z",
        "2026-01-01T00:00:14.5Z",
        "2025-12-31T23:00:15-01:00",
    ]
