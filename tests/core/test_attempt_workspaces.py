"""What the host does with workspaces for any template: the manifest's `attempt.workspaces` (the latest passing
proof's workspace, the dependencies' accepted ones in dependency order), a proof's `workspace` validated and kept,
and `verify` on a workspace a dead run left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from harn_tui.core.runner import run_work
from harn_tui.core.transitions import accept_work, reopen_work
from harn_tui.core.verify import verify_tree
from tests.plan_builders import write_template

# A template that proves with the workspace $WORKSPACE_JSON names (the commit spelled by the work and attempt).
WORKSPACE_TEMPLATE = """
import datetime, json, os, hashlib
manifest = json.load(open(os.environ["HARN_MANIFEST"]))
json.dump(manifest["attempt"]["workspaces"], open(os.path.join(os.environ["HARN_RUN_DIR"], "seen.json"), "w"))
tag = manifest["work"]["id"] + str(manifest["attempt"]["number"])
workspace = json.loads(os.environ.get("WORKSPACE_JSON", "{}")) or {
    "kind": "git", "repository": "/repo", "branch": "harn/" + tag, "base": "0" * 40,
    "commit": hashlib.sha1(tag.encode()).hexdigest(), "files_changed": 1, "insertions": 2, "deletions": 0}
proof = {"schema_version": 1, "run_id": os.environ["HARN_RUN_ID"], "status": "succeeded", "summary": "done",
         "acceptance": [{"criterion": c, "status": "satisfied", "evidence": "ok"}
                        for c in manifest["work"]["acceptance"]],
         "class": None, "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
         "workspace": workspace}
json.dump(proof, open(os.environ["HARN_PROOF"], "w"))
"""


@pytest.fixture
def template(tmp_path: Path) -> Path:
    return write_template(tmp_path / "templates", "workspace.py", WORKSPACE_TEMPLATE)


def make(layout: Layout, template: Path, work_id: str, depends_on: list[str] | None = None) -> str:
    create_work(
        layout,
        title=work_id,
        template=template,
        objective="Do it.",
        acceptance=["done"],
        depends_on=depends_on or [],
        work_id=work_id,
        actor="tester",
    )
    return work_id


def seen(layout: Layout, run_id: str) -> dict[str, object]:
    seen: dict[str, object] = json.loads((layout.run(run_id) / "scratch" / "seen.json").read_text())
    return seen


def proof_workspace(layout: Layout, run_id: str) -> dict[str, object]:
    workspace: dict[str, object] = json.loads((layout.run(run_id) / "proof.json").read_text())["workspace"]
    return workspace


def test_the_manifest_carries_the_prior_and_the_accepted_dependencies_in_order(layout: Layout, template: Path) -> None:
    first, second = make(layout, template, "work-b"), make(layout, template, "work-a")
    runs = {w: run_work(layout, w, actor="alice", retry=False).run_id for w in (first, second)}
    assert seen(layout, runs[first]) == {"prior": None, "dependencies": []}
    for work_id in (first, second):
        accept_work(layout, work_id, actor="bob")
    third = make(layout, template, "work-c", depends_on=[first, second])
    run = run_work(layout, third, actor="alice", retry=False)
    assert seen(layout, run.run_id) == {
        "prior": None,
        "dependencies": [proof_workspace(layout, runs[first]), proof_workspace(layout, runs[second])],
    }
    reopen_work(layout, third, actor="bob", findings=["the README is missing"])
    again = run_work(layout, third, actor="alice", retry=False)
    assert seen(layout, again.run_id)["prior"] == proof_workspace(layout, run.run_id), (
        "a reopened attempt starts from the work's latest passing workspace"
    )
    manifest = json.loads((layout.run(again.run_id) / "manifest.json").read_text())
    assert manifest["attempt"]["workspaces"]["prior"]["branch"] == "harn/work-c1"


def test_a_proof_with_a_malformed_workspace_is_a_host_failure(
    layout: Layout, template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work_id = make(layout, template, "work-x")
    monkeypatch.setenv(
        "WORKSPACE_JSON",
        json.dumps(
            {
                "kind": "git",
                "repository": "relative/repo",
                "branch": "b",
                "base": "0" * 40,
                "commit": "1" * 40,
                "files_changed": 0,
                "insertions": 0,
                "deletions": 0,
            }
        ),
    )
    result = run_work(layout, work_id, actor="alice", retry=False)
    assert result.status == "failed"
    assert "invalid proof" in (result.reason or "") and "absolute" in (result.reason or "")
    assert json.loads((layout.run(result.run_id) / "proof.json").read_text())["workspace"] is None


def test_verify_names_a_workspace_a_finished_run_left_and_ignores_the_scratch_inside(
    layout: Layout, template: Path
) -> None:
    work_id = make(layout, template, "work-y")
    result = run_work(layout, work_id, actor="alice", retry=False)
    assert verify_tree(layout) == []
    workspace = layout.run(result.run_id) / "scratch" / "workspace"
    workspace.mkdir()
    (workspace / "link").symlink_to("/etc/passwd")  # a repository's own symlink is no tree damage
    problems = verify_tree(layout)
    assert [p["path"] for p in problems] == [str(workspace)]
    assert "neither live nor parked" in problems[0]["problem"]
    assert f"the next attempt of work {work_id} removes it" in problems[0]["problem"]
    assert f"git worktree remove --force {workspace}" in problems[0]["problem"]
