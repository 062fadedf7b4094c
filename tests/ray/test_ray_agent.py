"""The agent template on the Ray cluster: the worker node runs the model CLI (the fake one its PATH has) in a git
worktree of the repository at the same absolute path, and the host judges the proof it brings back."""

from __future__ import annotations

import json
import os
from pathlib import Path

from harn_tui.core.layout import Layout
from tests.agent.kit import CHECK_GREETING, agent_template, agent_work, git, make_repository, team_file, tree_in
from tests.ray.conftest import on_ray
from tests.ray.test_ray_faults import ON_SECOND, harn_process, transcript_lines
from tests.ray_cluster import LocalCluster


def test_an_agent_attempt_on_the_second_node_commits_its_branch_and_the_host_judges_it(
    ray_cluster: LocalCluster, tmp_path: Path
) -> None:
    repository = make_repository(tmp_path / "repo")
    (repository / "notes.txt").write_text("the user's own uncommitted work\n")
    before = git(repository, "status", "--porcelain", "--untracked-files=all")
    layout: Layout = tree_in(repository)
    kit = tmp_path / "kit"
    kit.mkdir()
    template = agent_template(tmp_path / "implement.py", team_file(kit), checks=[CHECK_GREETING])
    work_id = agent_work(layout, template)
    env = {**ON_SECOND, "PATH": os.environ["PATH"]}  # no fake CLI on the host's PATH: the worker node has one
    running = harn_process(repository, *on_ray(ray_cluster, "work", "run", work_id), env=env)
    stdout, stderr = running.communicate(timeout=300)
    assert running.returncode == 0, stderr
    result = json.loads(stdout)
    lines = [line["line"] for line in transcript_lines(repository, result["run_id"])]
    assert (result["status"], result["work"]["state"]) == ("passed", "in_review"), (result["reason"], lines)
    proof = json.loads((layout.run(result["run_id"]) / "proof.json").read_text())
    workspace = proof["workspace"]
    branch = f"harn/{work_id}/{result['run_id']}"
    assert (workspace["branch"], workspace["repository"]) == (branch, str(repository))
    assert git(repository, "rev-parse", branch).strip() == workspace["commit"]
    assert git(repository, "show", f"{branch}:greeting.py").startswith("def greet(name):")
    assert [c["status"] for c in proof["acceptance"]] == ["satisfied"]
    assert git(repository, "status", "--porcelain", "--untracked-files=all") == before, "main checkout untouched"
    assert git(repository, "worktree", "list", "--porcelain").count("worktree ") == 1, "the worktree is removed"
    assert "agent: I'll read the request, then write the module and its test." in lines
    assert not any(line.startswith("{") for line in lines)
