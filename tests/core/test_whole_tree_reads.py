"""A whole-tree load keeps proofs as summary and digest and shares equal intent parts, and reads the same facts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.generator import generate_tree
from benchmarks.shapes import SIZES
from harn_tui.core.layout import Layout
from harn_tui.core.projection import project_goal
from harn_tui.core.tree import Tree
from harn_tui.core.tree_files import proof_path


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("whole")
    generate_tree(root, SIZES["S"])
    return root


def test_a_kept_proof_is_the_proof_each_goal_reads_alone(synthetic: Path) -> None:
    layout = Layout(synthetic)
    whole = Tree.load(layout)
    for goal_id in sorted(whole.goals):
        alone = Tree.load_scoped(layout, goal_id)
        assert project_goal(whole, goal_id) == project_goal(alone, goal_id)
        for run_id, run in alone.runs.items():
            kept = whole.runs[run_id]
            assert (kept.proof_summary, kept.proof_sha256) == (
                run.proof.summary if run.proof else None,
                run.proof_sha256,
            )
            assert kept.proof == run.proof and kept.problem is None
            assert kept.proof is kept.proof, "a proof read back is kept"


def test_a_proof_changed_after_the_load_is_not_served_as_the_one_read(synthetic: Path) -> None:
    layout = Layout(synthetic)
    whole = Tree.load(layout)
    run = next(r for r in whole.runs.values() if r.proof_summary is not None)
    path = Path(proof_path(layout.runs, run.id))
    original = path.read_bytes()
    try:
        document = json.loads(original)
        path.write_text(json.dumps({**document, "summary": "rewritten after the read"}))
        assert run.proof is None and run.has_proof is False
        assert run.problem == f"{path}: changed since it was read"
        fresh = Tree.load(layout).runs[run.id]
        assert fresh.proof is not None and fresh.proof.summary == "rewritten after the read"
    finally:
        path.write_bytes(original)


def test_equal_template_and_source_parts_are_one_object(synthetic: Path) -> None:
    tree = Tree.load(Layout(synthetic))
    intents = [w.intent for w in tree.work.values() if w.intent is not None]
    for intent in intents:
        on_disk = json.loads((tree.layout.work(intent.id) / "intent.json").read_bytes())
        assert intent.template.model_dump() == on_disk["template"]
        assert intent.source.model_dump() == on_disk["source"]
    by_value = {(i.template.path, i.template.sha256): i.template for i in intents}
    assert all(i.template is by_value[(i.template.path, i.template.sha256)] for i in intents)
    assert len({id(i.template) for i in intents}) == len(by_value) < len(intents)


def history_runs(tree: Tree) -> list[str]:
    """Runs whose attempt is no longer its item's latest."""
    return [run_id for work in tree.work.values() for run_id in tree.runs_told(work).started[:-1]]


def goal_of(tree: Tree, run_id: str) -> str:
    owner = tree.run_owner(run_id)
    return next(g for g in sorted(tree.goals) if any(w.id == owner for w in project_goal(tree, g).work))


def test_a_whole_tree_load_reads_the_proofs_of_history_only_when_asked(synthetic: Path) -> None:
    layout = Layout(synthetic)
    whole = Tree.load(layout)
    history = history_runs(whole)
    assert history, "the synthetic tree has retried items"
    latest = [told.started[-1] for work in whole.work.values() if (told := whole.runs_told(work)).started]
    assert all(whole.runs[run_id].proof_deferred for run_id in history)
    assert not any(whole.runs[run_id].proof_deferred for run_id in latest)
    views = {goal_id: project_goal(whole, goal_id) for goal_id in sorted(whole.goals)}
    assert all(whole.runs[run_id].proof_deferred for run_id in history), "projecting reads no history proof"
    run_id = history[0]
    attempt = next(a for view in views.values() for w in view.work for a in w.attempts if a.run_id == run_id)
    alone = Tree.load_scoped(layout, goal_of(whole, run_id)).runs[run_id]
    assert alone.proof is not None
    assert (attempt.summary, attempt.proof_sha256) == (alone.proof.summary, alone.proof_sha256)
    assert not whole.runs[run_id].proof_deferred, "asking for the summary read the proof, once"


@pytest.mark.parametrize("damage", ["invalid JSON", "a symbolic link for its directory"])
def test_a_damaged_proof_of_history_is_reported_when_asked_as_a_scoped_read_reports_it(
    synthetic: Path, tmp_path: Path, damage: str
) -> None:
    root = tmp_path / "tree"
    shutil.copytree(synthetic, root, symlinks=True)
    layout = Layout(root)
    run_id = history_runs(Tree.load(layout))[0]
    directory = layout.runs / run_id
    if damage == "invalid JSON":
        (directory / "proof.json").write_text("{not json")
    else:
        moved = tmp_path / "elsewhere"
        directory.rename(moved)
        directory.symlink_to(moved)
    whole = Tree.load(layout)
    # a linked directory is seen in the listing the load takes anyway: reported at once
    assert whole.runs[run_id].proof_deferred == (damage == "invalid JSON")
    goal_id = goal_of(whole, run_id)
    alone = Tree.load_scoped(layout, goal_id)
    assert project_goal(whole, goal_id) == project_goal(alone, goal_id)
    run, expected = whole.runs[run_id], alone.runs[run_id]
    assert expected.problem is not None
    assert (run.problem, run.proof, run.proof_summary) == (expected.problem, None, None)
