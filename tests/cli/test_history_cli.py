"""`harn supervisor history`, `show --at` and `plan diff`, driven as a subprocess over a real replanned goal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.creation import init_tree
from harn_tui.core.layout import Layout
from harn_tui.core.supervisor import run_goal
from harn_tui.core.transitions import approve_plan
from tests.conftest import Harn, tree_bytes
from tests.goal_kit import LOOP, GoalKit, apply_reply, item, make_root, scripted

GOAL = "goal-replanned"
ENTRY_FIELDS = {"position", "ts", "source", "id", "seq", "event", "actor", "reason", "summary"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A goal whose root failed, whose first plan was approved and applied, and whose second plan is proposed,
    built once (the supervisor runs templates and the planner): (root, first plan, second plan)."""
    base = tmp_path_factory.mktemp("replanned")
    layout = init_tree(base / "root")
    kit = GoalKit(layout, base)
    kit.team["planner"] = scripted(
        base,
        "planner",
        apply_reply(item("durable", template="failing"), rationale="Replace the lock with a durable queue."),
        apply_reply(item("measure"), item("rewrite", deps=("measure",)), rationale="Measure, then rewrite."),
    )
    kit.templates["failing"] = {"path": str(LOOP / "fail.py"), "root": True, "max_attempts": 1}
    kit.create(root_work=make_root(layout, template=LOOP / "fail.py"), goal_id=GOAL)
    run_goal(layout, GOAL)
    first = sorted(p.name for p in (layout.goal(GOAL) / "plans").iterdir())[0]
    approve_plan(layout, GOAL, first, actor="bob")
    run_goal(layout, GOAL)
    plans = sorted(p.name for p in (layout.goal(GOAL) / "plans").iterdir())
    return layout.root, first, plans[1]


@pytest.fixture
def replanned(built: tuple[Path, str, str], root: Path) -> tuple[str, str]:
    """A private copy of the replanned goal's tree in this test's root: (first plan, second plan)."""
    shutil.rmtree(root / ".harnery")
    shutil.copytree(built[0] / ".harnery", root / ".harnery")
    return built[1], built[2]


def entries(harn: Harn) -> list[dict[str, Any]]:
    document = harn.json("supervisor", "history", GOAL)
    assert document["goal_id"] == GOAL and document["problems"] == []
    return list(document["events"])


def test_history_lists_every_entry_in_order_with_its_summary(harn: Harn, replanned: tuple[str, str]) -> None:
    first, second = replanned
    events = entries(harn)
    assert all(set(e) == ENTRY_FIELDS for e in events)
    assert [e["position"] for e in events] == list(range(1, len(events) + 1))
    kinds = [(e["source"], e["event"]) for e in events]
    assert set(kinds[:2]) == {("work", "work.created"), ("goal", "goal.created")}
    # The root is created first; within one millisecond the goal's log sorts first, as the history documents.
    assert [e["source"] for e in events[:2]] == (
        ["goal", "work"] if events[0]["ts"] == events[1]["ts"] else ["work", "goal"]
    )
    requested = [e for e in events if e["event"] == "plan.requested"]
    assert [(e["id"], e["seq"]) for e in requested] == [(first, 0), (second, 0)]
    applied = next(e for e in events if e["event"] == "plan.applied")
    assert applied["actor"] == "bob" and applied["summary"].startswith(f"applied: root {first}-durable")
    failed = [e for e in events if e["event"] == "attempt.finished"]
    assert all(e["summary"].startswith("attempt 1 failed") for e in failed), failed
    assert next(e for e in events if e["event"] == "goal.created")["seq"] is None
    text = harn("supervisor", "history", GOAL)
    assert text.returncode == 0 and f"history of {GOAL} ({len(events)} entries)" in text.stdout


def test_show_at_before_the_first_apply_is_generation_zero_with_its_blocked_root(
    harn: Harn, replanned: tuple[str, str]
) -> None:
    first, _ = replanned
    events = entries(harn)
    applied = next(e["position"] for e in events if e["event"] == "plan.applied")
    before = harn.json("supervisor", "show", GOAL, "--at", f"event:{applied - 1}")
    assert (before["generation"], before["root_work_id"], before["position"]) == (0, "root-work", applied - 1)
    assert before["present"] is False and before["at"] == events[applied - 2]["ts"]
    assert before["work"][0]["id"] == "root-work" and before["work"][0]["state"] == "blocked"
    assert (before["state"], before["pending_plan_id"]) == ("awaiting_attention", first)
    after = harn.json("supervisor", "show", GOAL, "--at", events[applied - 1]["ts"])
    assert (after["generation"], after["root_work_id"]) == (1, f"{first}-durable")
    now = harn.json("supervisor", "show", GOAL)
    whole = harn.json("supervisor", "show", GOAL, "--at", f"event:{len(events)}")
    assert whole["present"] is True
    assert {k: v for k, v in whole.items() if k not in ("at", "position", "present")} == now


def test_show_at_bad_input_before_the_goal_and_the_future(harn: Harn, replanned: tuple[str, str]) -> None:
    before = tree_bytes(harn.root)
    for bad in ("yesterday", "2026-01-02T03:04:05"):
        error = harn.json("supervisor", "show", GOAL, "--at", bad, expect=2)["error"]
        assert error["code"] == "usage" and "--at" in error["message"], bad
    error = harn.json("supervisor", "show", GOAL, "--at", "2000-01-01T00:00:00+05:00", expect=4)["error"]
    assert error["code"] == "not_found" and "did not exist yet" in error["message"]
    future = harn.json("supervisor", "show", GOAL, "--at", "2999-01-01T00:00:00+01:00")
    assert (future["present"], future["at"]) == (True, "2998-12-31T23:00:00.000Z")
    text = harn("supervisor", "show", GOAL, "--at", "2999-01-01T00:00:00Z")
    assert text.returncode == 0 and "the present state" in text.stdout.splitlines()[0]
    assert tree_bytes(harn.root) == before, "reading the past writes nothing"


def test_plan_diff_of_an_applied_and_a_proposed_plan(harn: Harn, replanned: tuple[str, str]) -> None:
    first, second = replanned
    applied = harn.json("supervisor", "plan", "diff", GOAL, first)
    assert applied == {
        "plan_id": first,
        "status": "applied",
        "before": {"generation": 0, "root_work_id": "root-work", "work_ids": ["root-work"]},
        "after": {"generation": 1, "root_work_id": f"{first}-durable", "work_ids": [f"{first}-durable"]},
        "replaced": ["root-work"],
        "kept": [],
        "added": [f"{first}-durable"],
    }
    proposed = harn.json("supervisor", "plan", "diff", GOAL, second)
    assert proposed["status"] == "proposed" and proposed["before"]["generation"] == 1
    assert proposed["after"]["root_work_id"] == f"{second}-rewrite"
    assert proposed["replaced"] == [f"{first}-durable"]
    assert proposed["added"] == [f"{second}-measure", f"{second}-rewrite"] and proposed["kept"] == []
    text = harn("supervisor", "plan", "diff", GOAL, second)
    assert f"replaced: {first}-durable" in text.stdout and "generation 1 -> 2" in text.stdout


def test_plan_diff_refusals(harn: Harn, replanned: tuple[str, str], layout: Layout) -> None:
    assert harn.json("supervisor", "plan", "diff", GOAL, "plan-0099-deadbeef", expect=4)["error"]["code"] == "not_found"
    lone = layout.plan(GOAL, "plan-0003-00000000")
    lone.mkdir(parents=True)
    request = json.loads((layout.plan(GOAL, replanned[1]) / "request.json").read_text())
    (lone / "request.json").write_text(json.dumps({**request, "id": lone.name, "sequence": 3}))
    refused = harn.json("supervisor", "plan", "diff", GOAL, lone.name, expect=3)["error"]
    assert refused["code"] == "refused" and "nothing to compare" in refused["message"]


def test_a_damaged_log_line_shows_as_damaged_and_the_rest_of_the_history_still_shows(
    harn: Harn, replanned: tuple[str, str], layout: Layout
) -> None:
    whole = entries(harn)
    log = layout.work("root-work") / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(
        b"".join(lines[:2]) + b'{"schema_version": 1, "seq": 3, "event": "attempt.finished"}\n' + b"".join(lines[3:])
    )
    document = harn.json("supervisor", "history", GOAL)
    damaged = [e for e in document["events"] if e["event"] == "damaged"]
    assert len(damaged) == 1 and damaged[0]["id"] == "root-work" and damaged[0]["seq"] == 3
    assert "line 3" in damaged[0]["summary"] and damaged[0]["summary"].startswith("damaged:")
    assert document["problems"] == [{"path": str(log), "problem": damaged[0]["reason"]}]
    others = [e["event"] for e in document["events"] if e["id"] != "root-work"]
    assert others == [e["event"] for e in whole if e["id"] != "root-work"], "the rest still shows"
    position = damaged[0]["position"]
    shown = harn.json("supervisor", "show", GOAL, "--at", f"event:{position - 1}")
    assert shown["state"] != "corrupt"
    assert harn.json("supervisor", "show", GOAL, "--at", f"event:{position}", expect=5)["error"]["code"] == "corrupt"
    log.write_bytes(b"".join(lines) + b'{"schema_version": 1, "seq"')
    torn = harn.json("supervisor", "history", GOAL)
    last = [e for e in torn["events"] if e["id"] == "root-work"][-1]
    assert last["event"] == "damaged" and "torn" in last["summary"]
    assert harn.json("supervisor", "show", GOAL, "--at", f"event:{last['position']}")["state"] != "corrupt"
