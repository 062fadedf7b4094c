"""Work transitions in the core: reopen with findings, accept with dispositions, cancel (seed 003); every
refusal leaves the tree byte-for-byte unchanged, every repeat is `already_done`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.errors import CorruptJournal, NotFound, Refused, UsageError
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease
from harn_tui.core.projection import WorkResolver, WorkView
from harn_tui.core.records import Disposition
from harn_tui.core.transitions import accept_work, cancel_work, parse_disposition, reopen_work
from harn_tui.core.tree import Tree
from tests.conftest import tree_bytes
from tests.plan_builders import events_of, record_attempt, start_lost_attempt

WORK = "work-item"


@pytest.fixture
def work(layout: Layout, examples: Path) -> str:
    create_work(
        layout,
        title="Item",
        template=examples / "templates" / "implement.py",
        objective="Do it.",
        acceptance=["done"],
        work_id=WORK,
        actor="tester",
    )
    return WORK


@pytest.fixture
def in_review(layout: Layout, work: str) -> str:
    record_attempt(layout, work, passed=True)
    return work


def view(layout: Layout, work_id: str = WORK) -> WorkView:
    found = WorkResolver(Tree.load(layout)).view(work_id)
    assert found is not None
    return found


def refused(layout: Layout, call: Callable[[], object], match: str, error: type[Exception] = Refused) -> None:
    before = tree_bytes(layout.root)
    with pytest.raises(error, match=match):
        call()
    assert tree_bytes(layout.root) == before


def d(text: str) -> Disposition:
    return parse_disposition(text)


# ----- reopen


def test_reopen_numbers_findings_and_makes_the_work_ready(layout: Layout, in_review: str) -> None:
    outcome = reopen_work(
        layout, in_review, actor="alice", findings=[" throws on big input ", "no test"], reason="see findings"
    )
    event = outcome.to_json()["event"]
    assert event["findings"] == [
        {"id": "f1", "statement": "throws on big input", "actor": "alice"},
        {"id": "f2", "statement": "no test", "actor": "alice"},
    ]
    item = view(layout)
    assert (item.state, item.next_action) == ("ready", "run")
    assert [f.id for f in item.open_findings] == ["f1", "f2"]


def test_reopen_without_findings_keeps_the_open_set_and_new_findings_replace_it(layout: Layout, in_review: str) -> None:
    reopen_work(layout, in_review, actor="alice", findings=["one", "two"])
    record_attempt(layout, in_review, passed=True, trigger="reopen")
    reopen_work(layout, in_review, actor="alice")
    assert [f.statement for f in view(layout).open_findings] == ["one", "two"]
    record_attempt(layout, in_review, passed=True, trigger="reopen")
    reopen_work(layout, in_review, actor="bob", findings=["three"])
    assert [(f.id, f.statement, f.actor) for f in view(layout).open_findings] == [("f1", "three", "bob")]


@pytest.mark.parametrize("setup", ["succeeded", "blocked", "cancelled"])
def test_reopen_is_allowed_from_terminal_and_blocked_states(layout: Layout, work: str, setup: str) -> None:
    if setup == "succeeded":
        record_attempt(layout, work, passed=True)
        accept_work(layout, work, actor="alice")
    elif setup == "blocked":
        record_attempt(layout, work, passed=False)
    else:
        cancel_work(layout, work, actor="alice")
    assert view(layout).state == setup
    assert reopen_work(layout, work, actor="alice", findings=["again"]).outcome == "applied"
    assert view(layout).state == "ready"


def test_reopen_refuses_ready_work(layout: Layout, work: str) -> None:
    refused(
        layout,
        lambda: reopen_work(layout, work, actor="alice", findings=["x"]),
        f"work {work} is ready; reopen needs in_review, succeeded, blocked or cancelled",
    )


def test_reopen_refuses_running_work(layout: Layout, work: str) -> None:
    run_id = start_lost_attempt(layout, work)
    lease = HeldLease(layout.run(run_id) / "lease", "run")
    try:
        refused(layout, lambda: reopen_work(layout, work, actor="alice"), f"work {work} is running")
    finally:
        lease.release()


def test_reopen_repeat_and_different_findings(layout: Layout, in_review: str) -> None:
    reopen_work(layout, in_review, actor="alice", findings=["a", "b"])
    before = tree_bytes(layout.root)
    assert reopen_work(layout, in_review, actor="bob", findings=["a", "b"], reason="ignored").outcome == "already_done"
    assert tree_bytes(layout.root) == before
    refused(
        layout,
        lambda: reopen_work(layout, in_review, actor="alice", findings=["b", "a"]),
        "already reopened with different findings",
    )


def test_a_reopen_after_the_next_attempt_is_a_new_request(layout: Layout, in_review: str) -> None:
    reopen_work(layout, in_review, actor="alice", findings=["still wrong"])
    record_attempt(layout, in_review, passed=True, trigger="reopen")
    assert reopen_work(layout, in_review, actor="alice", findings=["still wrong"]).outcome == "applied"
    assert [e["event"] for e in events_of(layout, in_review)].count("work.reopened") == 2


def test_reopen_bounds_are_usage_errors(layout: Layout, in_review: str) -> None:
    refused(layout, lambda: reopen_work(layout, in_review, actor="a", findings=["x"] * 21), "at most 20", UsageError)
    refused(
        layout, lambda: reopen_work(layout, in_review, actor="a", findings=["x" * 1001]), "at most 1000", UsageError
    )
    refused(layout, lambda: reopen_work(layout, in_review, actor="a", findings=["  "]), "blank", UsageError)
    assert reopen_work(layout, in_review, actor="a", findings=["x" * 1000] * 20).outcome == "applied"


# ----- accept


def test_accept_records_the_proof_digest(layout: Layout, in_review: str) -> None:
    run_id = view(layout).attempts[-1].run_id
    event = accept_work(layout, in_review, actor="alice", reason="good").to_json()["event"]
    digest = hashlib.sha256((layout.run(run_id) / "proof.json").read_bytes()).hexdigest()
    assert (event["event"], event["run_id"], event["proof_sha256"], event["dispositions"], event["reason"]) == (
        "work.accepted",
        run_id,
        digest,
        [],
        "good",
    )
    assert view(layout).state == "succeeded"


def test_accept_needs_a_disposition_for_every_open_finding(layout: Layout, in_review: str) -> None:
    reopen_work(layout, in_review, actor="alice", findings=["one", "two"])
    record_attempt(layout, in_review, passed=True, trigger="reopen")
    refused(layout, lambda: accept_work(layout, in_review, actor="alice"), "findings not disposed: f1, f2")
    refused(
        layout,
        lambda: accept_work(layout, in_review, actor="alice", dispositions=[d("f1=fixed")]),
        "findings not disposed: f2",
    )
    refused(
        layout,
        lambda: accept_work(
            layout, in_review, actor="alice", dispositions=[d("f1=fixed"), d("f2=fixed"), d("f3=fixed")]
        ),
        "unknown finding id f3",
    )
    event = accept_work(
        layout, in_review, actor="alice", dispositions=[d("f1=fixed"), d("f2=deferred:tracked in #12: out of scope")]
    ).to_json()
    assert event["event"]["dispositions"] == [
        {"id": "f1", "outcome": "fixed", "reason": None},
        {"id": "f2", "outcome": "deferred", "reason": "tracked in #12: out of scope"},
    ]
    assert view(layout).open_findings == ()


def test_accept_refuses_dispositions_when_nothing_is_open(layout: Layout, in_review: str) -> None:
    refused(
        layout,
        lambda: accept_work(layout, in_review, actor="alice", dispositions=[d("f1=fixed")]),
        "has no open finding",
    )


def test_accept_refuses_work_that_is_not_in_review(layout: Layout, work: str) -> None:
    refused(layout, lambda: accept_work(layout, work, actor="alice"), f"work {work} is ready, not in_review")
    record_attempt(layout, work, passed=False)
    refused(layout, lambda: accept_work(layout, work, actor="alice"), f"work {work} is blocked, not in_review")


def test_accept_repeat_compares_the_disposition_set(layout: Layout, in_review: str) -> None:
    reopen_work(layout, in_review, actor="alice", findings=["one", "two"])
    record_attempt(layout, in_review, passed=True, trigger="reopen")
    accept_work(layout, in_review, actor="alice", dispositions=[d("f1=fixed"), d("f2=deferred:later")])
    before = tree_bytes(layout.root)
    again = accept_work(layout, in_review, actor="bob", dispositions=[d("f2=deferred:later"), d("f1=fixed")])
    assert again.outcome == "already_done"
    assert tree_bytes(layout.root) == before
    refused(
        layout,
        lambda: accept_work(layout, in_review, actor="alice", dispositions=[d("f1=fixed"), d("f2=fixed")]),
        "already accepted with different dispositions",
    )


def test_dispositions_parse_or_are_usage_errors() -> None:
    assert d("f1=fixed") == Disposition(id="f1", outcome="fixed")
    assert d("f12=deferred: a:b:c ").reason == "a:b:c"
    for bad in ("f1", "f1=", "f1=done", "f1=deferred", "f1=deferred:  ", "x/1=fixed", "f1=fixed:why", "=fixed"):
        with pytest.raises(UsageError):
            d(bad)
    with pytest.raises(UsageError, match="at most 2000"):
        d("f1=deferred:" + "x" * 2001)


def test_a_finding_disposed_twice_is_a_usage_error(layout: Layout, in_review: str) -> None:
    refused(
        layout,
        lambda: accept_work(layout, in_review, actor="alice", dispositions=[d("f1=fixed"), d("f1=fixed")]),
        "disposed twice",
        UsageError,
    )


# ----- cancel


def test_cancel_and_its_repeat(layout: Layout, work: str) -> None:
    assert cancel_work(layout, work, actor="alice", reason="not needed").outcome == "applied"
    assert view(layout).state == "cancelled"
    before = tree_bytes(layout.root)
    assert cancel_work(layout, work, actor="bob", reason="not needed").outcome == "already_done"
    assert tree_bytes(layout.root) == before
    refused(layout, lambda: cancel_work(layout, work, actor="alice"), "already cancelled with a different reason")


def test_cancel_refusals(layout: Layout, work: str) -> None:
    run_id = start_lost_attempt(layout, work)
    lease = HeldLease(layout.run(run_id) / "lease", "run")
    try:
        refused(
            layout,
            lambda: cancel_work(layout, work, actor="alice"),
            f"work {work} is running; cancel is refused while an attempt runs",
        )
    finally:
        lease.release()


def test_cancel_refuses_succeeded_work(layout: Layout, in_review: str) -> None:
    accept_work(layout, in_review, actor="alice")
    refused(layout, lambda: cancel_work(layout, in_review, actor="alice"), "is succeeded; cancel needs")


def test_cancel_of_waiting_work(layout: Layout, work: str, examples: Path) -> None:
    create_work(
        layout,
        title="After",
        template=examples / "templates" / "implement.py",
        objective="Then.",
        depends_on=[work],
        work_id="work-after",
        actor="tester",
    )
    assert view(layout, "work-after").state == "waiting"
    assert cancel_work(layout, "work-after", actor="alice").outcome == "applied"


# ----- lost attempts, addresses


def test_a_lost_attempt_is_recorded_by_the_next_writer_before_its_event(layout: Layout, work: str) -> None:
    run_id = start_lost_attempt(layout, work)
    assert view(layout).state == "blocked"
    cancel_work(layout, work, actor="alice")
    tail = events_of(layout, work)[-2:]
    assert [(e["event"], e["actor"], e.get("status"), e.get("reason"), e.get("run_id")) for e in tail] == [
        ("attempt.finished", "supervisor", "failed", "lost", run_id),
        ("work.cancelled", "alice", None, None, None),
    ]


def test_a_refusal_does_not_record_a_lost_attempt(layout: Layout, work: str) -> None:
    start_lost_attempt(layout, work)
    refused(layout, lambda: accept_work(layout, work, actor="alice"), "is blocked, not in_review")


def test_work_addresses(layout: Layout, work: str) -> None:
    refused(layout, lambda: cancel_work(layout, "a/b", actor="alice"), "not a valid ID", UsageError)
    refused(layout, lambda: cancel_work(layout, work, actor="bad actor"), "not a valid ID", UsageError)
    refused(layout, lambda: cancel_work(layout, "work-none", actor="alice"), "does not exist", NotFound)
    with (layout.work(work) / "events.jsonl").open("ab") as handle:
        handle.write(b'{"not": "an event"}\n')
    refused(layout, lambda: cancel_work(layout, work, actor="alice"), "is corrupt", CorruptJournal)


def test_a_torn_tail_is_repaired_by_the_next_append(layout: Layout, work: str) -> None:
    with (layout.work(work) / "events.jsonl").open("ab") as handle:
        handle.write(b'{"schema_version":1,"seq":2')
    cancel_work(layout, work, actor="alice")
    assert [e["seq"] for e in events_of(layout, work)] == [1, 2]
