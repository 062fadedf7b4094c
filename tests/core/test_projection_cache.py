"""Re-projecting a loaded tree after changes gives exactly what a fresh load gives (the cache never serves stale)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from benchmarks import records
from benchmarks.generator import generate_tree
from benchmarks.shapes import SIZES
from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease
from harn_tui.core.projection import GoalView, WorkResolver, graph_fingerprint, project_goal
from harn_tui.core.records import AttemptStarted, WorkReopened
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.tree import Tree
from harn_tui.core.writer import append_event


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synthetic")
    generate_tree(root, SIZES["S"])
    return root


def project_all(tree: Tree, resolver: WorkResolver | None = None) -> dict[str, GoalView]:
    return {goal_id: project_goal(tree, goal_id, resolver) for goal_id in sorted(tree.goals)}


def line(seq: int, stamp: int, kind: str) -> bytes:
    ts = records.iso_at(records.BASE_EPOCH + 10**8 + stamp)
    if kind == "reopen":
        finding = {"id": "f1", "statement": "Still wrong.", "actor": "tester"}
        return records.event_line(records.event(seq, ts, "work.reopened", "tester", findings=[finding], reason=None))
    if kind == "start":
        payload = {"run_id": f"run-test-{stamp}", "attempt": 9, "trigger": "retry"}
        return records.event_line(records.event(seq, ts, "attempt.started", "tester", **payload))
    if kind == "gap":
        return records.event_line(records.event(seq + 3, ts, "work.cancelled", "tester", reason="gap"))
    if kind == "broken":
        return b'{"schema_version": 1, "seq": \n'
    return records.event_line(records.event(seq, ts, "work.cancelled", "tester", reason="stop"))


def test_reprojection_after_random_changes_equals_a_fresh_load(synthetic: Path) -> None:
    layout = Layout(synthetic)
    tree = Tree.load(layout)
    project_all(tree)
    rng = random.Random(20260601)
    work_ids = sorted(tree.work)
    sizes = {work_id: (layout.work(work_id) / "events.jsonl").stat().st_size for work_id in work_ids}
    seen_states: set[str] = set()
    try:
        for step in range(25):
            changed = []
            for work_id in rng.sample(work_ids, 3):
                path = layout.work(work_id) / "events.jsonl"
                kind = rng.choice(["reopen", "reopen", "start", "cancel", "gap", "broken", "restore", "restore"])
                if kind == "restore":
                    os.truncate(path, sizes[work_id])
                else:
                    with open(path, "ab") as handle:
                        handle.write(line(len(tree.work[work_id].events) + 1, step, kind))
                changed.append(path)
            for path in changed:
                tree.refresh_path(path)
            incremental = project_all(tree, WorkResolver(tree) if step % 2 else None)
            fresh = project_all(Tree.load(layout))
            assert incremental == fresh, f"step {step}"
            for view in incremental.values():
                seen_states.add(view.state)
                if view.state != "corrupt":
                    active = [w for w in view.work if w.active]
                    assert view.graph_fingerprint == graph_fingerprint(view.active_root, view.generation, active)
    finally:
        for work_id, size in sizes.items():
            os.truncate(layout.work(work_id) / "events.jsonl", size)
    assert {"corrupt", "ready"} <= seen_states


def test_a_log_appended_through_its_tail_is_not_served_stale(synthetic: Path) -> None:
    """Transitions append through `tree.work[id].log` directly, without `refresh_path`; the next projection sees it."""
    layout = Layout(synthetic)
    tree = Tree.load(layout)
    goal_id = sorted(tree.goals)[0]
    before = project_goal(tree, goal_id)
    target = next(w for w in before.work if w.state == "in_review")
    path = layout.work(target.id) / "events.jsonl"
    size = path.stat().st_size
    try:
        append_event(tree.work[target.id].log, WorkReopened, "tester", findings=[])
        after = project_goal(tree, goal_id)
        item = after.work_item(target.id)
        assert item is not None and item.state == "ready"
        assert after == project_goal(Tree.load(layout), goal_id)
    finally:
        os.truncate(path, size)


def test_a_log_read_in_pieces_reports_the_problem_a_whole_read_reports(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    lines = [line(1, 1, "reopen"), line(2, 2, "reopen"), line(3, 3, "gap"), line(4, 4, "broken")]
    piecewise = JsonlTail(path, WORK_EVENTS_ADAPTER)
    for body in lines:
        with open(path, "ab") as handle:
            handle.write(body)
        piecewise.refresh()
    whole = JsonlTail(path, WORK_EVENTS_ADAPTER)
    whole.refresh()
    assert whole.problem is not None and "line 3: seq 6 breaks the gapless sequence" in whole.problem
    assert piecewise.problem == whole.problem
    assert len(piecewise.events) == len(whole.events) == 2


def test_a_run_lease_released_without_a_file_event_is_not_served_stale(synthetic: Path) -> None:
    """Callers re-probe leases and set `RunFiles.live` themselves; a running attempt then projects as lost."""
    layout = Layout(synthetic)
    tree = Tree.load(layout)
    goal_id = sorted(tree.goals)[0]
    target = next(w for w in project_goal(tree, goal_id).work if w.state == "in_review")
    path = layout.work(target.id) / "events.jsonl"
    size = path.stat().st_size
    lease = HeldLease(layout.run("run-cache-live") / "lease", "run")
    try:
        append_event(
            tree.work[target.id].log, AttemptStarted, "tester", run_id="run-cache-live", attempt=5, trigger="retry"
        )
        tree.load_runs_of(tree.work[target.id])
        assert project_goal(tree, goal_id).work_item(target.id).state == "running"  # type: ignore[union-attr]
        lease.release()
        tree.runs["run-cache-live"].live = False
        item = project_goal(tree, goal_id).work_item(target.id)
        assert item is not None and item.latest_attempt is not None and item.latest_attempt.status == "lost"
    finally:
        lease.release()
        os.truncate(path, size)
