"""The agent's git workspace beyond the simple case: ask-first parks with the worktree removed and resumes on
the same branch; dependencies' accepted commits are merged, a conflict is `upstream`; an existing branch is
reused; a detached main checkout is left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.runner import run_work
from harn_tui.core.transitions import accept_work, decide_approval
from tests.agent.kit import agent_template, agent_work, git, proof, recorded, transcript_lines


def test_ask_first_parks_with_the_plan_then_the_same_run_implements_it(
    layout: Layout, repository: Path, team: Path, fakes: Path, tmp_path: Path
) -> None:
    template = agent_template(tmp_path / "implement.py", team, ask_first=True)
    work_id = agent_work(layout, template)
    parked = run_work(layout, work_id, actor="alice", retry=False)
    assert (parked.status, parked.work_state) == ("parked", "awaiting_approval")
    request = json.loads((layout.approval(parked.approval_id or "") / "request.json").read_text())
    assert request["question"] == "Approve the agent's plan for Write greeting.py?"
    assert request["details"].startswith("1. Read the repository") and "2. Write greeting.py" in request["details"]
    assert "Rationale: The smallest change" in request["details"]
    branch = f"harn/{work_id}/{parked.run_id}"
    assert not (layout.run(parked.run_id) / "scratch" / "workspace").exists(), "a park removes the worktree"
    assert git(repository, "rev-parse", branch).strip() == git(repository, "rev-parse", "main").strip()
    [planning] = recorded(fakes, "worker-plan")
    assert planning["argv"][1:] == ["-p", "--output-format", "json"], "the plan call gets no edit permission"
    decide_approval(layout, parked.approval_id or "", verdict="approve", actor="bob")
    done = run_work(layout, work_id, actor="alice", retry=False)
    assert (done.run_id, done.resumed, done.status) == (parked.run_id, True, "passed"), done.reason
    [worker] = recorded(fakes, "worker")
    assert "The approved plan (follow it):\n1. Read the repository" in worker["prompt"]
    assert proof(layout, done.run_id)["workspace"]["branch"] == branch
    assert "harn: the plan was approved by bob; implementing it" in transcript_lines(layout, done.run_id)


def test_ask_first_denied_is_a_decision_failure_that_stops_for_a_human(
    layout: Layout, team: Path, fakes: Path, tmp_path: Path
) -> None:
    template = agent_template(tmp_path / "implement.py", team, ask_first=True)
    work_id = agent_work(layout, template)
    parked = run_work(layout, work_id, actor="alice", retry=False)
    decide_approval(layout, parked.approval_id or "", verdict="deny", actor="bob", reason="use the logging module")
    done = run_work(layout, work_id, actor="alice", retry=False)
    assert (done.status, done.class_, done.work_state, done.next_action) == ("failed", "decision", "blocked", "none")
    assert "denied the agent's plan: use the logging module" in (done.reason or "")
    assert recorded(fakes, "worker") == [], "a denied plan is never implemented"


def test_a_dependency_merge_that_conflicts_is_upstream_naming_the_file(
    layout: Layout, repository: Path, team: Path, fakes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = agent_template(tmp_path / "implement.py", team)
    runs = {}
    for work_id, text in (("work-one", "one\n"), ("work-two", "two\n")):
        monkeypatch.setenv("FAKE_CLI_FILES", json.dumps({"shared.txt": text}))
        agent_work(layout, template, work_id=work_id)
        runs[work_id] = run_work(layout, work_id, actor="alice", retry=False)
        assert runs[work_id].status == "passed", runs[work_id].reason
        accept_work(layout, work_id, actor="bob")
    monkeypatch.setenv("FAKE_CLI_FILES", json.dumps({"notes.txt": "merged\n"}))
    agent_work(layout, template, work_id="work-first", depends_on=["work-one"])
    merged = run_work(layout, "work-first", actor="alice", retry=False)
    assert merged.status == "passed", merged.reason
    workspace = proof(layout, merged.run_id)["workspace"]
    assert git(repository, "show", f"{workspace['base']}:shared.txt") == "one\n", "the dependency was merged in"
    assert git(repository, "log", "-1", "--format=%an|%P", workspace["base"]).startswith("harn|")
    assert len(git(repository, "log", "-1", "--format=%P", workspace["base"]).split()) == 2, "--no-ff: a merge"
    agent_work(layout, template, work_id="work-both", depends_on=["work-one", "work-two"])
    conflict = run_work(layout, "work-both", actor="alice", retry=False)
    assert (conflict.status, conflict.class_) == ("failed", "upstream")
    assert "merging dependency harn/work-two/" in (conflict.reason or "") and "conflicts in shared.txt" in (
        conflict.reason or ""
    )
    assert not (layout.run(conflict.run_id) / "scratch" / "workspace").exists()


def test_an_existing_branch_is_reused_and_a_detached_main_checkout_is_untouched(
    layout: Layout, repository: Path, team: Path, fakes: Path, tmp_path: Path
) -> None:
    from harn_tui.agent.workspace import create_workspace, discard_worktree

    head = git(repository, "rev-parse", "HEAD").strip()
    git(repository, "checkout", "-q", "--detach")
    before = git(repository, "status", "--porcelain", "--branch")
    path = tmp_path / "ws"
    first = create_workspace(repository, path, "harn/w/r", prior=None, base=None, dependencies=[])
    (path / "kept.txt").write_text("committed on the branch\n")
    git(path, "add", "kept.txt")
    git(path, "commit", "-q", "-m", "by hand")
    discard_worktree(repository, path)
    again = create_workspace(repository, path, "harn/w/r", prior=None, base=None, dependencies=[])
    assert first.base == head and (path / "kept.txt").exists(), "the branch is checked out as it is"
    assert again.base == git(repository, "rev-parse", "harn/w/r").strip()
    discard_worktree(repository, path)
    assert git(repository, "status", "--porcelain", "--branch") == before


def test_in_a_goal_ask_first_parks_the_goal_and_a_denial_stops_it_for_a_human(
    layout: Layout, team: Path, fakes: Path, tmp_path: Path
) -> None:
    from harn_tui.agent import agent_parameters, write_agent_template
    from harn_tui.core.creation import GoalOptions, create_supervisor
    from harn_tui.core.supervisor import run_goal

    parameters = agent_parameters(worker="worker", judge="judge", ask_first=True, where=tmp_path)
    template = write_agent_template(tmp_path / "implement.py", parameters)  # members from the goal's own team
    work_id = agent_work(layout, template)
    create_supervisor(layout, team_file=team, root_work=work_id, options=GoalOptions(goal_id="goal-agents"))
    parked = run_goal(layout, "goal-agents")
    assert parked.stop_reason == "needs_human"
    assert parked.goal is not None and parked.goal.next_action == "resolve_approval"
    [planning] = recorded(fakes, "worker-plan")
    assert json.loads(planning["prompt"].split("Request:\n", 1)[1])["instructions"] == "You are the worker."
    [approval] = [p for p in layout.approvals.iterdir()]
    decide_approval(layout, approval.name, verdict="deny", actor="bob", reason="not this way")
    stopped = run_goal(layout, "goal-agents")
    assert stopped.goal is not None
    [item] = [w for w in stopped.goal.work if w.id == work_id]
    assert (item.state, item.next_action) == ("blocked", "none") and "not this way" in item.reason
    assert stopped.stop_reason in ("needs_human", "blocked") and recorded(fakes, "worker") == []
