"""Attempts of goal work: the goal's rules (active closure, not succeeded, budget), the supervisor API with its
goal id, park/resume through `resume_attempt`, concurrent attempts from threads, and the goal lease."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.errors import Refused
from harn_tui.core.layout import Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.runner import AttemptResult, begin_attempt, resume_attempt, run_work, start_attempt
from harn_tui.core.transitions import approve_plan, cancel_work, decide_approval
from tests.conftest import tree_bytes
from tests.plan_builders import (
    GOAL,
    MODAL_TEMPLATE,
    ROOT_WORK,
    add_plan,
    events_of,
    goal_view,
    make_goal,
    write_template,
)


@pytest.fixture
def template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TEMPLATE_MODE", "pass")
    return write_template(tmp_path / "templates", "modal.py", MODAL_TEMPLATE)


def refused(layout: Layout, match: str, call: object) -> None:
    before = tree_bytes(layout.root)
    with pytest.raises(Refused, match=match):
        call()  # type: ignore[operator]
    assert tree_bytes(layout.root) == before


def test_goal_work_runs_with_the_goal_in_its_manifest(layout: Layout, examples: Path, template: Path) -> None:
    make_goal(layout, examples, template=template)
    result = start_attempt(layout, ROOT_WORK, actor="supervisor", goal_id=GOAL)
    assert (result.goal_id, result.status, result.work_state) == (GOAL, "passed", "in_review")
    manifest = json.loads((layout.run(result.run_id) / "manifest.json").read_text())
    assert manifest["goal_id"] == GOAL
    assert set(manifest["team"]) == {"planner", "critic", "implementer"}
    assert goal_view(layout).next_action == "review"


def test_superseded_work_is_never_dispatchable(
    layout: Layout, examples: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_goal(layout, examples, template=template, reviewers=[])
    monkeypatch.setenv("TEMPLATE_MODE", "exit3")
    run_work(layout, ROOT_WORK, actor="alice", retry=False)
    approve_plan(layout, GOAL, add_plan(layout), actor="alice")
    refused(
        layout,
        f"work {ROOT_WORK} is not in the active graph of goal {GOAL}",
        lambda: run_work(layout, ROOT_WORK, actor="alice", retry=True),
    )


def test_no_attempt_once_the_goal_budget_is_spent(
    layout: Layout, examples: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_goal(layout, examples, template=template, max_total_attempts=1)
    monkeypatch.setenv("TEMPLATE_MODE", "exit3")
    run_work(layout, ROOT_WORK, actor="alice", retry=False)
    refused(
        layout,
        f"budget exhausted: goal {GOAL} has used all 1 of its attempts",
        lambda: run_work(layout, ROOT_WORK, actor="alice", retry=True),
    )


def test_no_attempt_once_the_goal_succeeded(layout: Layout, examples: Path, template: Path) -> None:
    make_goal(layout, examples, root_work=None, mission=True, reviewers=[])
    first = add_plan(
        layout,
        trigger="initial",
        root="implement",
        items=[{"key": "implement", "title": "Do", "objective": "Do.", "template": "implement"}],
    )
    approve_plan(layout, GOAL, first, actor="alice")
    approve_plan(layout, GOAL, add_plan(layout, decision="complete", trigger="milestone"), actor="alice")
    assert goal_view(layout).state == "succeeded"
    refused(
        layout, f"goal {GOAL} has succeeded", lambda: run_work(layout, f"{first}-implement", actor="alice", retry=False)
    )


def test_goal_work_is_resumed_by_the_supervisor_not_by_work_run(
    layout: Layout, examples: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_goal(layout, examples, template=template)
    monkeypatch.setenv("TEMPLATE_MODE", "park")
    parked = start_attempt(layout, ROOT_WORK, actor="supervisor", goal_id=GOAL, fault_prefix="tick")
    request = json.loads((layout.approval(parked.approval_id or "") / "request.json").read_text())
    assert request["goal_id"] == GOAL
    assert goal_view(layout).next_action == "resolve_approval"
    decide_approval(layout, parked.approval_id or "", verdict="approve", actor="alice")
    assert (goal_view(layout).state, goal_view(layout).next_action) == ("ready", "run")
    refused(
        layout, "awaiting_approval/resume, not ready", lambda: run_work(layout, ROOT_WORK, actor="alice", retry=False)
    )
    done = resume_attempt(layout, ROOT_WORK, actor="supervisor", goal_id=GOAL)
    assert (done.run_id, done.resumed, done.status) == (parked.run_id, True, "passed")
    resumed = [e for e in events_of(layout, ROOT_WORK) if e["event"] == "attempt.resumed"]
    assert resumed == [
        {**resumed[0], "run_id": parked.run_id, "approval_id": parked.approval_id, "actor": "supervisor"}
    ]


def test_a_cancelled_parked_attempt_makes_its_approval_moot(
    layout: Layout, examples: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_goal(layout, examples, template=template)
    monkeypatch.setenv("TEMPLATE_MODE", "park")
    parked = start_attempt(layout, ROOT_WORK, actor="supervisor", goal_id=GOAL)
    cancel_work(layout, ROOT_WORK, actor="alice", reason="not needed")
    refused(
        layout,
        f"approval {parked.approval_id} is moot: work {ROOT_WORK} is cancelled",
        lambda: decide_approval(layout, parked.approval_id or "", verdict="approve", actor="alice"),
    )
    refused(
        layout,
        "a resume needs awaiting_approval/resume",
        lambda: resume_attempt(layout, ROOT_WORK, actor="supervisor", goal_id=GOAL),
    )


def test_attempts_start_concurrently_from_threads(
    layout: Layout, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEMPLATE_SLEEP", "0.3")
    for name in ("work-a", "work-b"):
        create_work(
            layout, title=name, template=template, objective="Go.", acceptance=["done"], work_id=name, actor="tester"
        )
    results: dict[str, AttemptResult | Exception] = {}
    barrier = threading.Barrier(3)

    def attempt(name: str, key: str) -> None:
        barrier.wait()
        try:
            results[key] = start_attempt(layout, name, actor="supervisor")
        except Refused as error:
            results[key] = error

    threads = [
        threading.Thread(target=attempt, args=args)
        for args in (("work-a", "a"), ("work-b", "b"), ("work-a", "a-again"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert getattr(results["b"], "status", None) == "passed"
    same = sorted((results["a"], results["a-again"]), key=lambda r: isinstance(r, Refused))
    assert getattr(same[0], "status", None) == "passed", "one of the two attempts on work-a ran"
    assert isinstance(same[1], Refused) and "work-a is running" in same[1].message
    for name in ("work-a", "work-b"):
        assert [e["seq"] for e in events_of(layout, name)] == [1, 2, 3]


def test_a_busy_goal_lease_is_a_refusal(
    layout: Layout, examples: Path, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_goal(layout, examples, template=template)
    monkeypatch.setenv("HARN_LEASE_TIMEOUT_S", "0.2")
    with hold_lease(layout.goal(GOAL) / "lease", "test"):
        refused(layout, f"busy: the goal {GOAL} lease", lambda: cancel_work(layout, ROOT_WORK, actor="alice"))
        refused(layout, f"busy: the goal {GOAL} lease", lambda: run_work(layout, ROOT_WORK, actor="alice", retry=False))


def test_an_abandoned_prepared_attempt_is_recovered_as_lost(layout: Layout, examples: Path, template: Path) -> None:
    make_goal(layout, examples, template=template)
    prepared = begin_attempt(layout, ROOT_WORK, actor="supervisor", goal_id=GOAL)
    assert goal_view(layout).state == "running"
    prepared.abandon()
    view = goal_view(layout).work_item(ROOT_WORK)
    assert view is not None and (view.state, view.attempts[-1].status) == ("blocked", "lost")
    cancel_work(layout, ROOT_WORK, actor="alice")
    assert [(e["event"], e.get("reason")) for e in events_of(layout, ROOT_WORK)[-2:]] == [
        ("attempt.finished", "lost"),
        ("work.cancelled", None),
    ]
