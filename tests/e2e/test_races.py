"""Races and crashes across real processes: 8 concurrent approvals, approve against reject, a crash in the middle
of materializing a plan (then the repeat that completes it), and a runner killed mid-attempt."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from tests.conftest import Harn, harn_env
from tests.plan_builders import (
    GOAL,
    MODAL_TEMPLATE,
    ROOT_WORK,
    THREE_ITEMS,
    add_plan,
    events_of,
    goal_view,
    make_goal,
    plan_events,
    record_attempt,
    write_template,
)


@pytest.fixture
def goal(layout: Layout, examples: Path) -> str:
    make_goal(layout, examples, max_attempts=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    return GOAL


def spawn(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(root), *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env(env),
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, dict[str, object]]:
    out, err = process.communicate(timeout=60)
    return process.returncode, json.loads(out) if out.strip() else {"stderr": err}


def all_logs_gapless(root: Path) -> None:
    for log in (root / ".harnery").rglob("events.jsonl"):
        lines = log.read_bytes().split(b"\n")
        assert lines[-1] == b"", f"{log} has a torn tail"
        assert [json.loads(line)["seq"] for line in lines[:-1]] == list(range(1, len(lines))), log


def test_eight_concurrent_approvals_apply_the_plan_exactly_once(harn: Harn, layout: Layout, goal: str) -> None:
    plan = add_plan(layout, items=THREE_ITEMS)
    processes = [spawn(harn.root, "supervisor", "plan", "approve", goal, plan, "--actor", f"op{i}") for i in range(8)]
    results = [finish(p) for p in processes]
    assert all(code in (0, 3) for code, _ in results), results
    outcomes = sorted(str(doc.get("outcome")) for code, doc in results if code == 0)
    assert outcomes.count("applied") == 1, outcomes
    assert [e["event"] for e in plan_events(layout, goal, plan)].count("plan.applied") == 1
    for key in ("a", "b", "implement"):
        assert [e["event"] for e in events_of(layout, f"{plan}-{key}")] == ["work.created"]
    all_logs_gapless(harn.root)
    assert harn.json("verify")["ok"] is True


def test_approve_racing_reject_has_exactly_one_winner(harn: Harn, layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    approve = spawn(harn.root, "supervisor", "plan", "approve", goal, plan)
    reject = spawn(harn.root, "supervisor", "plan", "reject", goal, plan, "--reason", "no")
    (approve_code, approved), (reject_code, rejected) = finish(approve), finish(reject)
    assert sorted((approve_code, reject_code)) == [0, 3]
    status = goal_view(layout).plan(plan).status  # type: ignore[union-attr]
    if approve_code == 0:
        assert (status, approved["outcome"]) == ("applied", "applied")
        assert rejected["error"] == {"code": "refused", "message": f"plan {plan} is applied, not proposed"}
    else:
        assert (status, rejected["outcome"]) == ("rejected", "applied")
        assert approved["error"] == {"code": "refused", "message": f"plan {plan} is rejected, not proposed"}
    all_logs_gapless(harn.root)


@pytest.mark.parametrize(
    "fault",
    [
        "materialize.item:1",
        "materialize.item:2",
        "materialize.before_applied:1",
        "write.link:2",
        "append.write:2",
        "append.fsync:3",
    ],
)
def test_a_crash_while_materializing_is_completed_by_the_repeat(
    harn: Harn, layout: Layout, goal: str, fault: str
) -> None:
    plan = add_plan(layout, items=THREE_ITEMS)
    crashed = harn("supervisor", "plan", "approve", goal, plan, env={"HARN_FAULT": fault})
    assert crashed.returncode == 137
    assert "plan.applied" not in [e["event"] for e in plan_events(layout, goal, plan)]
    repeat = harn.json("supervisor", "plan", "approve", goal, plan)
    ids = [f"{plan}-a", f"{plan}-b", f"{plan}-implement"]
    assert (repeat["outcome"], repeat["event"]["work_ids"]) == ("applied", ids)
    for work_id in ids:
        assert [e["event"] for e in events_of(layout, work_id)] == ["work.created"]
    view = goal_view(layout)
    assert (view.active_root, view.generation, view.state, view.next_action) == (ids[2], 1, "ready", "run")
    assert harn.json("verify") == {"ok": True, "problems": []}


def test_a_sigkill_during_materialization_is_completed_by_the_repeat(harn: Harn, layout: Layout, goal: str) -> None:
    """A real SIGKILL as soon as the first item appears (the fault-point tests above pin exact crash points;
    this one shows a kill from outside changes nothing about recovery, wherever it lands)."""
    items = [
        {
            "key": f"k{n}",
            "title": f"Step {n}",
            "objective": "Step.",
            "template": "investigate",
            "dependencies": [f"k{n - 1}"] if n else [],
        }
        for n in range(7)
    ]
    items.append(
        {"key": "implement", "title": "Root", "objective": "Root.", "template": "implement", "dependencies": ["k6"]}
    )
    plan = add_plan(layout, items=items)
    approve = spawn(harn.root, "supervisor", "plan", "approve", goal, plan)
    first = layout.work(f"{plan}-k0")
    deadline = time.monotonic() + 20
    while not first.exists() and approve.poll() is None:
        assert time.monotonic() < deadline, "materialization never started"
        time.sleep(0.0005)
    os.kill(approve.pid, signal.SIGKILL)
    approve.communicate(timeout=20)
    repeat = harn.json("supervisor", "plan", "approve", goal, plan)
    ids = [f"{plan}-{item['key']}" for item in items]
    assert repeat["event"]["work_ids"] == ids
    assert [e["event"] for e in plan_events(layout, goal, plan)].count("plan.applied") == 1
    for work_id in ids:
        assert [e["event"] for e in events_of(layout, work_id)] == ["work.created"]
    assert harn.json("verify") == {"ok": True, "problems": []}


def test_a_runner_killed_mid_attempt_leaves_a_lost_attempt_the_next_writer_records(
    harn: Harn, layout: Layout, tmp_path: Path
) -> None:
    template = write_template(tmp_path / "templates", "modal.py", MODAL_TEMPLATE)
    create_work(layout, title="Item", template=template, objective="Do it.", work_id="w1", actor="tester")
    runner = spawn(harn.root, "work", "run", "w1", env={"TEMPLATE_MODE": "pass", "TEMPLATE_SLEEP": "0.5"})
    deadline = time.monotonic() + 20
    while len(events_of(layout, "w1")) < 2:
        assert time.monotonic() < deadline, "the attempt never started"
        time.sleep(0.02)
    os.kill(runner.pid, signal.SIGKILL)
    runner.communicate(timeout=20)
    shown = harn.json("work", "show", "w1")
    assert (shown["state"], shown["attempts"][0]["status"]) == ("blocked", "lost")
    harn.json("work", "cancel", "w1")
    tail = events_of(layout, "w1")[-2:]
    assert [(e["event"], e["actor"], e.get("reason")) for e in tail] == [
        ("attempt.finished", "supervisor", "lost"),
        ("work.cancelled", "tester", None),
    ]
    assert harn.json("verify")["ok"] is True
