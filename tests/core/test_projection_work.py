"""Work projection: the first matching state rule of SPEC section 5, attempts charged and uncharged, findings."""

from __future__ import annotations

from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease
from harn_tui.core.projection import WorkResolver, WorkView
from harn_tui.core.records import AttemptStarted, WorkCancelled
from harn_tui.core.tree import Tree
from tests.core import journal_builders as b


def view(layout: Layout, work_id: str) -> WorkView:
    found = WorkResolver(Tree.load(layout)).view(work_id)
    assert found is not None
    return found


def state(layout: Layout, work_id: str) -> tuple[str, str]:
    found = view(layout, work_id)
    return found.state, found.next_action


def test_new_work_is_ready_and_its_dependant_waits(layout: Layout) -> None:
    b.work(layout, "base")
    b.work(layout, "top", deps=("base",))
    assert state(layout, "base") == ("ready", "run")
    assert state(layout, "top") == ("waiting", "wait")
    b.attempt(layout, "base", "r1", status="passed", number=1)
    b.accept(layout, "base", "r1")
    assert state(layout, "base") == ("succeeded", "none")
    assert state(layout, "top") == ("ready", "run")


def test_a_live_run_is_running_and_a_lost_one_is_a_charged_failure(layout: Layout) -> None:
    b.work(layout, "w")
    b.event(layout, "w", AttemptStarted, run_id="r1", attempt=1, trigger="initial")
    lease = HeldLease(layout.run("r1") / "lease", "run r1")
    try:
        assert state(layout, "w") == ("running", "wait")
    finally:
        lease.release()
    lost = view(layout, "w")
    assert (lost.state, lost.next_action) == ("blocked", "retry")
    assert lost.attempts[0].status == "lost" and lost.charged_attempts == 1


def test_passing_attempt_goes_to_review_and_failures_exhaust_max_attempts(layout: Layout) -> None:
    b.work(layout, "w", max_attempts=2)
    b.attempt(layout, "w", "r1", status="failed", number=1)
    assert state(layout, "w") == ("blocked", "retry")
    b.attempt(layout, "w", "r2", status="failed", number=2, trigger="retry")
    assert state(layout, "w") == ("blocked", "none")
    b.work(layout, "v")
    b.attempt(layout, "v", "r3", status="passed", number=1)
    assert state(layout, "v") == ("in_review", "review")


def test_a_decision_failure_is_never_retried(layout: Layout) -> None:
    b.work(layout, "w")
    b.attempt(layout, "w", "r1", status="failed", number=1, cls="decision")
    assert state(layout, "w") == ("blocked", "none")


def test_uncharged_failures_do_not_count_but_three_in_a_row_stop_the_item(layout: Layout) -> None:
    b.work(layout, "w", max_attempts=1)
    for number in (1, 2):
        b.attempt(layout, "w", f"r{number}", status="failed", number=number, cls="upstream")
    found = view(layout, "w")
    assert (found.state, found.next_action) == ("blocked", "retry") and found.charged_attempts == 0
    b.attempt(layout, "w", "r3", status="failed", number=3, cls="environment")
    assert state(layout, "w") == ("blocked", "none")
    b.attempt(layout, "w", "r4", status="failed", number=4, cls="environment", actor="alice", trigger="retry")
    assert state(layout, "w") == ("blocked", "retry"), "an operator's retry opens a new streak"


def test_reopen_grants_a_fresh_attempt_and_findings_replace_the_open_set(layout: Layout) -> None:
    b.work(layout, "w", max_attempts=1)
    b.attempt(layout, "w", "r1", status="passed", number=1)
    b.reopen(layout, "w", "first", "second")
    found = view(layout, "w")
    assert (found.state, found.next_action) == ("ready", "run")
    assert [f.statement for f in found.open_findings] == ["first", "second"]
    b.attempt(layout, "w", "r2", status="passed", number=2, trigger="reopen")
    b.reopen(layout, "w")
    assert [f.id for f in view(layout, "w").open_findings] == ["f1", "f2"], "a reopen without findings keeps them"
    b.reopen(layout, "w", "only this")
    assert [f.statement for f in view(layout, "w").open_findings] == ["only this"]
    b.attempt(layout, "w", "r3", status="passed", number=3, trigger="reopen")
    b.accept(layout, "w", "r3")
    done = view(layout, "w")
    assert done.state == "succeeded" and done.open_findings == ()


def test_cancelled_work_stays_cancelled_until_reopened(layout: Layout) -> None:
    b.work(layout, "w")
    b.event(layout, "w", WorkCancelled, "alice")
    assert state(layout, "w") == ("cancelled", "none")
    b.reopen(layout, "w")
    assert state(layout, "w") == ("ready", "run")
