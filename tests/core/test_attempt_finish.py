"""An attempt's finish reads only the logs it decides on (its item, that item's dependencies, the items with a
running attempt) and brings exactly those up to date under the goal lease. What other processes wrote while
the template ran (the goal lease is free then) must still be seen: a dependency reopened, another item's runner
that died, or one that finished normally and must not be recorded lost."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.records import AttemptFinished
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.runner import PreparedAttempt, begin_attempt
from harn_tui.core.transitions import accept_work, approve_plan
from harn_tui.core.writer import append_event
from tests.conftest import Harn
from tests.plan_builders import GOAL, add_plan, events_of, make_goal, record_attempt, start_lost_attempt


def two_items(layout: Layout, examples: Path) -> tuple[str, str]:
    """A goal whose applied plan is `investigate` -> `implement` (implement depends on investigate)."""
    make_goal(layout, examples, reviewers=[])
    plan_id = add_plan(layout)
    approve_plan(layout, GOAL, plan_id, actor="alice")
    return f"{plan_id}-investigate", f"{plan_id}-implement"


def test_a_dependency_reopened_while_the_template_ran_is_seen_by_the_finish(
    layout: Layout, examples: Path, harn: Harn
) -> None:
    investigate, implement = two_items(layout, examples)
    record_attempt(layout, investigate, passed=True)
    accept_work(layout, investigate, actor="alice")
    prepared = begin_attempt(layout, implement, actor="supervisor", goal_id=GOAL)
    harn.json("work", "reopen", investigate, "--reason", "the cause was wrong")  # another process, lease free
    result = prepared.run(60.0)
    assert result.status == "passed"
    assert (result.work_state, result.next_action) == ("waiting", "wait")


def side_by_side(layout: Layout, examples: Path) -> tuple[str, str]:
    """A goal whose applied plan has two independent items `a` and `b` under a root that needs both."""
    make_goal(layout, examples, reviewers=[])
    plan_id = add_plan(
        layout,
        root="both",
        items=[
            {"key": key, "title": key, "objective": "Do it.", "template": "implement", "acceptance": ["done"]}
            for key in ("a", "b")
        ]
        + [
            {
                "key": "both",
                "title": "Both",
                "objective": "Join.",
                "template": "implement",
                "acceptance": ["done"],
                "dependencies": ["a", "b"],
            }
        ],
    )
    approve_plan(layout, GOAL, plan_id, actor="alice")
    return f"{plan_id}-a", f"{plan_id}-b"


def finishes(layout: Layout, work_id: str, run_id: str) -> list[tuple[str, str | None]]:
    return [
        (e["status"], e.get("reason"))
        for e in events_of(layout, work_id)
        if e["event"] == "attempt.finished" and e["run_id"] == run_id
    ]


@contextlib.contextmanager
def begun_while_another_runs(layout: Layout, examples: Path) -> Iterator[tuple[str, str, PreparedAttempt]]:
    """`b` begun while `a` has a running attempt whose runner (another process) holds its run lease; the block
    is that runner's life. Yields (a, a's run, b's prepared attempt)."""
    a, b = side_by_side(layout, examples)
    other_run = start_lost_attempt(layout, a)
    with hold_lease(layout.run(other_run) / "lease", "the runner of a, in another process"):
        yield a, other_run, begin_attempt(layout, b, actor="supervisor", goal_id=GOAL)


def test_a_runner_that_died_while_the_template_ran_is_recorded_lost_by_the_finish(
    layout: Layout, examples: Path
) -> None:
    with begun_while_another_runs(layout, examples) as (a, other_run, prepared):
        pass  # a's runner is gone by the time b finishes
    assert prepared.run(60.0).status == "passed"
    assert finishes(layout, a, other_run) == [("failed", "lost")]
    assert events_of(layout, a)[-1]["actor"] == "supervisor"


def test_a_runner_that_finished_while_the_template_ran_is_not_recorded_lost(layout: Layout, examples: Path) -> None:
    with begun_while_another_runs(layout, examples) as (a, other_run, prepared):
        append_event(
            JsonlTail(layout.work(a) / "events.jsonl", WORK_EVENTS_ADAPTER),
            AttemptFinished,
            "supervisor",
            run_id=other_run,
            status="failed",
            reason="exit code 3",
            **{"class": None},
        )
    assert prepared.run(60.0).status == "passed"
    assert finishes(layout, a, other_run) == [("failed", "exit code 3")]
