"""A whole-tree load keeps proofs as summary and digest and shares equal intent parts, and reads the same facts."""

from __future__ import annotations

import json
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
