"""A scoped tree kept between transitions (`harn_tui.core.held`) and refreshed in place always projects what a
fresh read projects: after appends, new plans, work, runs and decisions written by another process, and after
damage, which makes it read the goal again rather than trust what it held."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest

from benchmarks.generator import generate_tree
from benchmarks.shapes import SIZES
from harn_tui.core.held import HELD, scoped_tree
from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.transitions import cancel_work
from harn_tui.core.tree import Tree
from tests.conftest import Harn
from tests.core.test_projection_cache import line
from tests.plan_builders import add_plan, make_goal


def held_view(layout: Layout, goal_id: str) -> GoalView:
    with scoped_tree(layout, goal_id) as tree:
        return project_goal(tree, goal_id)


def fresh_view(layout: Layout, goal_id: str) -> GoalView:
    return project_goal(Tree.load_scoped(layout, goal_id), goal_id)


@pytest.fixture
def synthetic(tmp_path: Path) -> Layout:
    generate_tree(tmp_path, SIZES["S"])
    HELD.clear()
    return Layout(tmp_path)


def test_a_held_tree_after_random_appends_projects_as_a_fresh_read(synthetic: Layout) -> None:
    goal_ids = sorted(os.listdir(synthetic.supervisors))
    rng = random.Random(20261130)
    for goal_id in goal_ids:
        held_view(synthetic, goal_id)
    seen: set[str] = set()
    for step in range(30):
        goal_id = rng.choice(goal_ids)
        governed = fresh_view(synthetic, goal_id).governed_work_ids
        for work_id in rng.sample(governed, min(3, len(governed))):
            path = synthetic.work(work_id) / "events.jsonl"
            seq = sum(1 for _ in path.open("rb")) + 1
            kind = rng.choice(["reopen", "reopen", "start", "cancel", "gap", "broken"])
            with open(path, "ab") as handle:
                handle.write(line(seq, step, kind))
        held, fresh = held_view(synthetic, goal_id), fresh_view(synthetic, goal_id)
        assert held.to_json() == fresh.to_json(), f"step {step}"
        seen.add(held.state)
    assert "corrupt" in seen and len(seen) > 1


def test_a_held_tree_follows_plans_decisions_and_work_written_by_another_process(
    layout: Layout, examples: Path, harn: Harn
) -> None:
    goal_id = make_goal(layout, examples)
    plan_id = add_plan(
        layout,
        goal_id,
        root="fix",
        items=[
            {
                "key": "probe",
                "title": "Probe",
                "template": "investigate",
                "objective": "Find the cause.",
                "acceptance": ["found"],
            },
            {
                "key": "fix",
                "title": "Fix",
                "template": "implement",
                "objective": "Fix it.",
                "acceptance": ["fixed"],
                "dependencies": ["probe"],
            },
        ],
    )
    before = held_view(layout, goal_id)
    assert before.plan(plan_id).status == "proposed"  # type: ignore[union-attr]
    harn.json("supervisor", "plan", "approve", goal_id, plan_id)
    after = held_view(layout, goal_id)
    assert after.to_json() == fresh_view(layout, goal_id).to_json()
    assert after.plan(plan_id).status == "applied"  # type: ignore[union-attr]
    assert after.generation == before.generation + 1
    assert after.active_root == f"{plan_id}-fix" and f"{plan_id}-probe" in after.governed_work_ids


def test_a_changed_record_is_not_trusted_the_goal_is_read_again(layout: Layout, examples: Path) -> None:
    goal_id = make_goal(layout, examples)
    assert held_view(layout, goal_id).state != "corrupt"
    goal_file = layout.goal(goal_id) / "goal.json"
    body = goal_file.read_bytes()
    time.sleep(0.02)  # past the file system's timestamp granularity: an edit in place shows in the mtime
    goal_file.chmod(0o600)
    with open(goal_file, "r+b") as handle:  # same size, same inode: one byte changed in place
        handle.seek(body.index(b'"schema_version": 1') + len('"schema_version": '))
        handle.write(b"7")
    tree = HELD.take(layout, goal_id)
    assert tree is not None and tree.refresh_scoped(goal_id) is False
    view = held_view(layout, goal_id)
    assert view.state == "corrupt" and str(goal_file) in (view.reason or "")


def break_first_line_in_place(log: Path) -> None:
    """Same length, same inode: the first event's seq becomes 9, past the file system's timestamp granularity."""
    body = log.read_bytes()
    time.sleep(0.02)
    log.write_bytes(body.replace(b'"seq":1,', b'"seq":9,', 1))


def assert_read_again_corrupt(layout: Layout, goal_id: str) -> None:
    damaged = held_view(layout, goal_id)
    assert damaged.state == "corrupt" and "seq 9" in (damaged.reason or "")
    assert damaged.to_json() == fresh_view(layout, goal_id).to_json()


def test_a_log_rewritten_in_place_is_read_again_whole(synthetic: Layout) -> None:
    goal_id = sorted(os.listdir(synthetic.supervisors))[0]
    view = held_view(synthetic, goal_id)
    break_first_line_in_place(synthetic.work(view.work[0].id) / "events.jsonl")
    assert_read_again_corrupt(synthetic, goal_id)


def test_a_held_tree_is_lent_to_one_caller_at_a_time(synthetic: Layout) -> None:
    goal_id = sorted(os.listdir(synthetic.supervisors))[0]
    held_view(synthetic, goal_id)
    taken: list[Tree | None] = []
    with scoped_tree(synthetic, goal_id) as first:
        thread = threading.Thread(target=lambda: taken.append(HELD.take(synthetic, goal_id)))
        thread.start()
        thread.join()
        with scoped_tree(synthetic, goal_id) as second:
            assert second is not first
    assert taken == [None], "while lent out, no other thread is given the tree"
    assert HELD.take(synthetic, goal_id) is first, "the tree given back last is the one kept"


def test_a_caller_that_fails_does_not_give_its_tree_back(synthetic: Layout) -> None:
    goal_id = sorted(os.listdir(synthetic.supervisors))[0]
    held_view(synthetic, goal_id)
    with pytest.raises(RuntimeError), scoped_tree(synthetic, goal_id):
        raise RuntimeError("a transition failed half way")
    assert HELD.take(synthetic, goal_id) is None


def attempts_by_run(view: GoalView) -> dict[str, tuple[str | None, str | None]]:
    return {a.run_id: (a.summary, a.proof_sha256) for item in view.work for a in item.attempts}


def decisions(view: GoalView) -> object:
    """What a tick or a transition decides on: the goal's and every item's state and next action."""
    return view.state, view.next_action, [(w.id, w.state, w.next_action, w.attempts_used) for w in view.work]


def proofs_of(layout: Layout, goal_id: str) -> tuple[list[Path], list[Path]]:
    """(latest attempts' proofs, earlier attempts' proofs) of the goal's items, from a fresh read."""
    tree = Tree.load_scoped(layout, goal_id)
    latest, earlier = [], []
    for work in tree.work.values():
        started = tree.runs_told(work).started
        latest += [layout.run(run_id) / "proof.json" for run_id in started[-1:]]
        earlier += [layout.run(run_id) / "proof.json" for run_id in started[:-1]]
    return [p for p in latest if p.exists()], [p for p in earlier if p.exists()]


def damage_in_place(path: Path) -> None:
    """Same size, same inode, one byte different: invalid JSON from then on."""
    time.sleep(0.02)  # past the file system's timestamp granularity
    path.chmod(0o600)
    body = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.seek(body.index(b"{"))
        handle.write(b"[")


def test_a_damaged_latest_proof_is_seen_by_a_deciding_read(synthetic: Layout) -> None:
    goal_id = next(g for g in sorted(os.listdir(synthetic.supervisors)) if proofs_of(synthetic, g)[0])
    held_view(synthetic, goal_id)
    proof = proofs_of(synthetic, goal_id)[0][0]
    run_id = proof.parent.name
    damage_in_place(proof)
    held, fresh = held_view(synthetic, goal_id), fresh_view(synthetic, goal_id)
    assert held.to_json() == fresh.to_json()
    assert attempts_by_run(held)[run_id] == (None, None), "the damaged proof is no longer trusted"


def test_earlier_proofs_are_history_a_decision_is_the_one_a_fresh_read_makes(synthetic: Layout) -> None:
    goal_id = next(g for g in sorted(os.listdir(synthetic.supervisors)) if proofs_of(synthetic, g)[1])
    before = held_view(synthetic, goal_id)
    earlier = proofs_of(synthetic, goal_id)[1]
    for proof in earlier:
        damage_in_place(proof)
    held, fresh = held_view(synthetic, goal_id), fresh_view(synthetic, goal_id)
    assert decisions(held) == decisions(fresh) == decisions(before)
    assert all(attempts_by_run(fresh)[p.parent.name] == (None, None) for p in earlier), "a fresh read sees them"


def test_an_edit_in_place_after_this_process_appended_is_still_seen(synthetic: Layout) -> None:
    goal_id = sorted(os.listdir(synthetic.supervisors))[0]
    view = held_view(synthetic, goal_id)
    item = next(w for w in view.work if w.state not in ("succeeded", "cancelled"))
    cancel_work(synthetic, item.id, actor="tester", reason="enough")  # appended through the held tree
    break_first_line_in_place(synthetic.work(item.id) / "events.jsonl")
    assert_read_again_corrupt(synthetic, goal_id)
