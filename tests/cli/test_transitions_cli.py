"""The transition verbs of `harn` as a subprocess: documents, exit codes 0/2/3/4/5, the `--json` error document,
one clear stderr line without it, and an unchanged tree after every failure."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from harn_tui.cli import main
from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from tests.conftest import Harn, tree_bytes
from tests.plan_builders import GOAL, MODAL_TEMPLATE, ROOT_WORK, add_plan, make_goal, record_attempt, write_template


def fails(harn: Harn, expect: int, code: str, match: str, *args: str, env: dict[str, str] | None = None) -> str:
    """Run a failing verb with --json: its exit code, error document and an unchanged tree; returns the message."""
    before = tree_bytes(harn.root)
    result = harn(*args, "--json", env=env)
    assert result.returncode == expect, (result.stdout, result.stderr)
    error = json.loads(result.stdout)["error"]
    assert error["code"] == code
    assert match in error["message"], error["message"]
    assert tree_bytes(harn.root) == before
    return str(error["message"])


@pytest.fixture
def goal(layout: Layout, examples: Path) -> str:
    make_goal(layout, examples, max_attempts=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    return GOAL


@pytest.fixture
def template(tmp_path: Path) -> Path:
    return write_template(tmp_path / "templates", "modal.py", MODAL_TEMPLATE)


def test_plan_approve_applies_once_then_is_already_done(harn: Harn, layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    first = harn.json("supervisor", "plan", "approve", goal, plan, "--reason", "go")
    assert (first["outcome"], first["event"]["event"], first["event"]["actor"]) == ("applied", "plan.applied", "tester")
    assert first["event"]["work_ids"] == [f"{plan}-investigate", f"{plan}-implement"]
    again = harn("supervisor", "plan", "approve", goal, plan, "--actor", "bob")
    assert (again.returncode, again.stdout.strip()) == (0, f"already_done: plan.applied (seq {first['event']['seq']})")
    assert harn.json("verify")["ok"] is True


def test_plan_refusals_and_bad_addresses(harn: Harn, layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention")
    fails(harn, 3, "refused", f"plan {plan} is attention, not proposed", "supervisor", "plan", "approve", goal, plan)
    result = harn("supervisor", "plan", "approve", goal, plan)
    assert (result.returncode, result.stdout) == (3, "")
    assert result.stderr == f"harn: plan {plan} is attention, not proposed\n"
    fails(harn, 4, "not_found", "does not exist", "supervisor", "plan", "approve", goal, "plan-0009-00000000")
    fails(harn, 4, "not_found", "goal goal-none does not exist", "supervisor", "plan", "approve", "goal-none", plan)
    fails(harn, 2, "usage", "not a valid ID", "supervisor", "plan", "approve", goal, "..")
    fails(harn, 2, "usage", "--reason", "supervisor", "plan", "reject", goal, plan)
    fails(harn, 2, "usage", "at most 2000", "supervisor", "plan", "retry", goal, plan, "--reason", "x" * 2001)


def test_plan_retry_keeps_the_first_reason(harn: Harn, layout: Layout, goal: str) -> None:
    plan = add_plan(layout, decision="attention")
    shown = harn.json("supervisor", "show", goal)
    assert (shown["next_action"], shown["attention_plan_id"]) == ("retry_plan", plan)
    done = harn.json("supervisor", "plan", "retry", goal, plan, "--reason", "Use the new parser.")
    assert (done["outcome"], done["event"]["reason"]) == ("applied", "Use the new parser.")
    fails(
        harn,
        3,
        "refused",
        "already retry_requested with a different reason",
        "supervisor",
        "plan",
        "retry",
        goal,
        plan,
        "--reason",
        "Something else.",
    )


def test_a_corrupt_goal_is_exit_5(harn: Harn, layout: Layout, goal: str) -> None:
    plan = add_plan(layout)
    with (layout.plan(goal, plan) / "events.jsonl").open("ab") as handle:
        handle.write(b'{"schema_version": 1, "seq": 9}\n')
    fails(harn, 5, "corrupt", "is corrupt", "supervisor", "plan", "reject", goal, plan, "--reason", "no")


def test_work_review_round_trip(harn: Harn, layout: Layout, template: Path) -> None:
    create_work(
        layout, title="Item", template=template, objective="Do it.", acceptance=["done"], work_id="w1", actor="tester"
    )
    env = {"TEMPLATE_MODE": "pass"}
    ran = harn.json("work", "run", "w1", env=env)
    assert (ran["status"], ran["attempt"], ran["trigger"], ran["work"]) == (
        "passed",
        1,
        "initial",
        {"state": "in_review", "next_action": "review"},
    )
    reopened = harn.json("work", "reopen", "w1", "--finding", "throws on big input", "--finding", "no test")
    assert [f["id"] for f in reopened["event"]["findings"]] == ["f1", "f2"]
    assert harn.json("work", "run", "w1", env=env)["trigger"] == "reopen"
    fails(harn, 3, "refused", "findings not disposed: f2", "work", "accept", "w1", "--dispose", "f1=fixed")
    fails(
        harn,
        3,
        "refused",
        "unknown finding id f3",
        "work",
        "accept",
        "w1",
        "--dispose",
        "f1=fixed",
        "--dispose",
        "f2=fixed",
        "--dispose",
        "f3=fixed",
    )
    fails(harn, 2, "usage", "deferred needs a reason", "work", "accept", "w1", "--dispose", "f1=deferred")
    accepted = harn.json("work", "accept", "w1", "--dispose", "f1=fixed", "--dispose", "f2=deferred:see #12: later")
    assert accepted["event"]["dispositions"][1] == {"id": "f2", "outcome": "deferred", "reason": "see #12: later"}
    fails(harn, 3, "refused", "is succeeded; cancel needs", "work", "cancel", "w1")


def test_work_run_and_retry_exit_0_whatever_the_outcome(harn: Harn, layout: Layout, template: Path) -> None:
    create_work(layout, title="Item", template=template, objective="Do it.", work_id="w1", actor="tester")
    failed = harn.json("work", "run", "w1", env={"TEMPLATE_MODE": "exit3"})
    assert (failed["status"], failed["reason"], failed["work"]["next_action"]) == (
        "failed",
        "the template exited with code 3",
        "retry",
    )
    fails(harn, 3, "refused", "is blocked/retry, not ready", "work", "run", "w1")
    timed_out = harn.json("work", "retry", "w1", env={"TEMPLATE_MODE": "sleep", "HARN_ATTEMPT_TIMEOUT_S": "0.5"})
    assert (timed_out["trigger"], timed_out["status"]) == ("retry", "failed")
    assert timed_out["reason"].startswith("timeout")
    fails(harn, 4, "not_found", "work w-none does not exist", "work", "retry", "w-none")


def test_approval_verbs(harn: Harn, layout: Layout, template: Path) -> None:
    create_work(layout, title="Deploy", template=template, objective="Deploy.", work_id="w1", actor="tester")
    parked = harn.json("work", "run", "w1", env={"TEMPLATE_MODE": "park"})
    approval = parked["approval_id"]
    assert (parked["status"], parked["work"]["next_action"]) == ("parked", "resolve_approval")
    assert harn.json("pending")["pending"][0]["approval_id"] == approval
    decided = harn.json("approval", "approve", approval, "--reason", "ok")
    assert (decided["outcome"], decided["event"]["verdict"]) == ("applied", "approve")
    fails(harn, 3, "refused", "already decided: approved by tester", "approval", "deny", approval)
    fails(harn, 4, "not_found", "does not exist", "approval", "deny", "apr-none-1")
    resumed = harn.json("work", "run", "w1", env={"TEMPLATE_MODE": "park"})
    assert (resumed["run_id"], resumed["resumed"], resumed["status"]) == (parked["run_id"], True, "passed")


def test_cancel_through_the_cli(harn: Harn, layout: Layout, examples: Path) -> None:
    create_work(
        layout,
        title="Item",
        template=examples / "templates" / "implement.py",
        objective="Do it.",
        work_id="w1",
        actor="tester",
    )
    done = harn.json("work", "cancel", "w1", "--reason", "not needed")
    assert (done["outcome"], done["event"]["event"], done["event"]["reason"]) == (
        "applied",
        "work.cancelled",
        "not needed",
    )
    assert harn.json("work", "cancel", "w1", "--reason", "not needed")["outcome"] == "already_done"
    fails(harn, 3, "refused", "already cancelled with a different reason", "work", "cancel", "w1")


def test_a_decision_run_in_process_leaves_the_callers_collector_as_it_was(
    harn: Harn, layout: Layout, goal: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the `harn` process itself, which ends after the verb, freezes what its imports made; a caller running
    `main` in its own long-lived process (the soak worker) keeps its cycle collector on and nothing frozen."""
    plan = add_plan(layout)
    monkeypatch.setenv("HARN_ACTOR", "tester")
    frozen = gc.get_freeze_count()
    assert main(["--root", str(harn.root), "supervisor", "plan", "approve", goal, plan, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "applied"
    assert gc.isenabled() and gc.get_freeze_count() == frozen
