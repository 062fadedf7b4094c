"""The agent template through the host's own runner: real git worktrees, the fake model CLIs as worker and judge,
real checks. Each test asserts what an operator would see: the proof, the branch, the transcript, the main
checkout left alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.runner import run_work
from harn_tui.core.verify import verify_tree
from tests.agent.kit import (
    CHECK_GREETING,
    agent_template,
    agent_work,
    alive,
    git,
    proof,
    recorded,
    team_file,
    transcript_lines,
)


def status(repository: Path) -> str:
    return git(repository, "status", "--porcelain", "--untracked-files=all")


def test_a_claude_worker_edits_its_worktree_and_the_host_commits_checks_and_judges(
    layout: Layout, repository: Path, team: Path, fakes: Path, tmp_path: Path
) -> None:
    (repository / "notes.txt").write_text("the user's own uncommitted work\n")  # a dirty main checkout
    before = status(repository)
    template = agent_template(tmp_path / "implement.py", team, checks=[CHECK_GREETING])
    work_id = agent_work(layout, template)
    result = run_work(layout, work_id, actor="alice", retry=False)
    assert (result.status, result.work_state) == ("passed", "in_review"), result.reason
    found = proof(layout, result.run_id)
    workspace = found["workspace"]
    branch = f"harn/{work_id}/{result.run_id}"
    assert (workspace["branch"], workspace["repository"]) == (branch, str(repository))
    assert workspace["base"] == git(repository, "rev-parse", "main").strip()
    assert git(repository, "rev-parse", branch).strip() == workspace["commit"]
    assert git(repository, "log", "-1", "--format=%an <%ae>|%s", branch).strip() == (
        f"harn <harn@localhost>|{work_id}: attempt 1"
    )
    assert git(repository, "show", f"{branch}:greeting.py").startswith("def greet(name):")
    assert (workspace["files_changed"], workspace["deletions"]) == (3, 0) and workspace["insertions"] > 0
    assert branch in found["summary"] and workspace["commit"][:12] in found["summary"]
    assert [c["status"] for c in found["acceptance"]] == ["satisfied"]
    assert status(repository) == before, "the user's working tree and index are untouched"
    assert not (layout.run(result.run_id) / "scratch" / "workspace").exists(), "the worktree is removed"
    assert git(repository, "worktree", "list", "--porcelain").count("worktree ") == 1
    lines = transcript_lines(layout, result.run_id)
    assert "agent: I'll read the request, then write the module and its test." in lines
    assert any(line.startswith("tool: Write ") and line.endswith("greeting.py") for line in lines)
    assert not any(line.startswith("{") for line in lines), "events are readable lines, not raw JSON"
    [worker] = recorded(fakes, "worker")
    assert worker["argv"][1:] == [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "acceptEdits",
    ]
    assert worker["cwd"] == str(layout.run(result.run_id) / "scratch" / "workspace")
    assert "Work item work-greet: Write greeting.py" in worker["prompt"] and "- greet works" in worker["prompt"]
    [judge] = recorded(fakes, "judge")
    assert judge["argv"][1:] == ["-p", "--output-format", "json"]
    request = json.loads(judge["prompt"].split("Request:\n", 1)[1])
    assert request["role"] == "judge" and "+def greet(name):" in request["diff"]
    assert request["checks"][0]["exit_code"] == 0 and request["checks"][0]["argv"][0] == sys.executable
    assert verify_tree(layout) == []


def test_a_codex_worker_streams_commands_and_file_changes(layout: Layout, tmp_path: Path, fakes: Path) -> None:
    directory = tmp_path / "codex-kit"
    directory.mkdir()
    template = agent_template(tmp_path / "implement.py", team_file(directory, "codex"))
    work_id = agent_work(layout, template)
    result = run_work(layout, work_id, actor="alice", retry=False)
    assert result.status == "passed", result.reason
    lines = transcript_lines(layout, result.run_id)
    assert "tool: run bash -lc ls" in lines
    assert any(line.startswith("tool result: exit 0: ") for line in lines)
    assert any(line.startswith("tool: add ") and line.endswith("greeting.py") for line in lines)
    [worker] = recorded(fakes, "worker")
    assert worker["argv"][1:] == ["exec", "--json", "--sandbox", "workspace-write", "-"]
    [judge] = recorded(fakes, "judge")
    assert "--sandbox" in judge["argv"] and judge["argv"][judge["argv"].index("--sandbox") + 1] == "read-only"


@pytest.mark.parametrize(
    ("misbehave", "expected"),
    [
        ("worker:exit1", "the worker worker exited 1"),
        ("worker:flood", "printed more than 1048576 bytes"),
    ],
)
def test_a_failing_worker_skips_checks_and_judge(
    layout: Layout,
    team: Path,
    fakes: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    misbehave: str,
    expected: str,
) -> None:
    monkeypatch.setenv("FAKE_CLI_MISBEHAVE", misbehave)
    monkeypatch.setenv("HARN_AGENT_OUTPUT_LIMIT_BYTES", str(1024 * 1024))
    template = agent_template(tmp_path / "implement.py", team, checks=[CHECK_GREETING])
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    assert (result.status, result.class_, result.next_action) == ("failed", None, "retry")
    found = proof(layout, result.run_id)
    assert expected in found["summary"]
    assert [c["status"] for c in found["acceptance"]] == ["unknown"]
    assert recorded(fakes, "judge") == [], "no judge after a failed worker"
    assert found["workspace"] is not None and found["workspace"]["files_changed"] == 0


def test_a_worker_past_its_timeout_is_killed_with_its_whole_group(
    layout: Layout, tmp_path: Path, fakes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "slow-kit"
    directory.mkdir()
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("FAKE_CLI_MISBEHAVE", "worker:sleep")
    monkeypatch.setenv("FAKE_CLI_PIDFILE", str(pidfile))
    template = agent_template(tmp_path / "implement.py", team_file(directory, timeout_s=2))
    started = time.monotonic()
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    assert time.monotonic() - started < 60
    assert result.status == "failed" and "timed out after 2 s" in (result.reason or "")
    for pid in map(int, pidfile.read_text().split()):
        assert not alive(pid), f"process {pid} of the worker's group survived"


def test_a_judge_replying_garbage_twice_leaves_every_criterion_unknown(
    layout: Layout, team: Path, fakes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLI_MISBEHAVE", "judge:garbage")
    template = agent_template(tmp_path / "implement.py", team)
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    found = proof(layout, result.run_id)
    assert result.status == "failed" and found["status"] == "succeeded", "the worker did its part"
    assert [c["status"] for c in found["acceptance"]] == ["unknown"]
    assert "judge judge replied invalid twice" in found["summary"]
    _, second = recorded(fakes, "judge")
    retry = json.loads(second["prompt"].split("Request:\n", 1)[1])
    assert retry["previous_reply"] == "I looked at it and it seems fine to me."
    assert retry["problems"][0]["path"] == "$"


def test_a_check_that_cannot_start_fails_the_attempt_with_its_evidence(
    layout: Layout, team: Path, fakes: Path, tmp_path: Path
) -> None:
    template = agent_template(tmp_path / "implement.py", team, checks=["./run-tests.sh --all"])
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    found = proof(layout, result.run_id)
    assert found["status"] == "failed" and "checks 0/1 passed" in found["summary"]
    [judge] = recorded(fakes, "judge")
    check = json.loads(judge["prompt"].split("Request:\n", 1)[1])["checks"][0]
    assert check["exit_code"] == 127 and "./run-tests.sh" in check["output_tail"]


def test_a_missing_worker_cli_is_an_uncharged_environment_failure(
    layout: Layout, team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + "/usr/bin:/bin")
    template = agent_template(tmp_path / "implement.py", team)
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    assert (result.status, result.class_, result.next_action) == ("failed", "environment", "retry")
    assert "the worker's CLI cannot run: claude is not on PATH" in (result.reason or "")


def test_a_write_outside_the_workspace_is_not_followed(
    layout: Layout, repository: Path, team: Path, fakes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside.txt"
    monkeypatch.setenv("FAKE_CLI_MISBEHAVE", "worker:outside")
    monkeypatch.setenv("FAKE_CLI_OUTSIDE", str(outside))
    template = agent_template(tmp_path / "implement.py", team)
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    assert outside.exists(), "the fake did write outside"
    branch = proof(layout, result.run_id)["workspace"]["branch"]
    committed = git(repository, "show", "--name-only", "--format=", branch).split()
    assert sorted(committed) == ["WORKLOG.md", "greeting.py", "test_greeting.py"]
    [judge] = recorded(fakes, "judge")
    assert "outside.txt" not in judge["prompt"]


def test_no_git_repository_is_an_environment_failure(tmp_path: Path, team: Path, fakes: Path) -> None:
    from tests.agent.kit import make_repository, tree_in

    (tmp_path / "plain").mkdir()
    elsewhere = tree_in(tmp_path / "plain")
    template_dir = make_repository(tmp_path / "templates-repo")
    template = agent_template(template_dir / "implement.py", team, workspace="git")
    result = run_work(elsewhere, agent_work(elsewhere, template), actor="alice", retry=False)
    assert (result.status, result.class_) == ("failed", "environment")
    assert "no git repository holds the tree's root" in (result.reason or "")


def test_a_repository_without_a_commit_is_an_environment_failure(tmp_path: Path, team: Path, fakes: Path) -> None:
    from tests.agent.kit import make_repository, tree_in

    layout = tree_in(make_repository(tmp_path / "empty", commit=False))
    template = agent_template(tmp_path / "implement.py", team)
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    assert (result.status, result.class_) == ("failed", "environment")
    assert "has no commit yet" in (result.reason or "")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving the repository to another account needs root")
def test_a_repository_git_refuses_for_its_owner_names_safe_directory(tmp_path: Path, team: Path, fakes: Path) -> None:
    """Another account's repository is not "no repository": the attempt fails saying how to allow it, and the
    worker never runs in scratch instead."""
    from tests.agent.kit import make_repository, tree_in

    repository = make_repository(tmp_path / "theirs")
    layout = tree_in(repository)
    template = agent_template(tmp_path / "implement.py", team)
    work = agent_work(layout, template)
    for path in [repository, *repository.rglob("*")]:
        if ".harnery" not in path.parts:
            os.lchown(path, 65534, 65534)
    result = run_work(layout, work, actor="alice", retry=False)
    assert (result.status, result.class_) == ("failed", "environment")
    assert "dubious ownership" in (result.reason or "") and "safe.directory" in (result.reason or "")
    assert recorded(fakes, "worker") == []


def test_a_branch_name_git_rejects_is_an_environment_failure(
    layout: Layout, team: Path, fakes: Path, tmp_path: Path
) -> None:
    template = agent_template(tmp_path / "implement.py", team)
    result = run_work(layout, agent_work(layout, template, work_id="fix.lock"), actor="alice", retry=False)
    assert (result.status, result.class_) == ("failed", "environment")
    assert "git rejects the branch name 'harn/fix.lock/" in (result.reason or "")


def test_a_runner_killed_mid_agent_leaves_a_workspace_verify_names_and_the_next_attempt_removes(
    layout: Layout, repository: Path, team: Path, fakes: Path, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    template = agent_template(tmp_path / "implement.py", team)
    work_id = agent_work(layout, template)
    env = {**os.environ, "FAKE_CLI_MISBEHAVE": "worker:sleep", "FAKE_CLI_PIDFILE": str(pidfile), "HARN_ACTOR": "alice"}
    runner = subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(layout.root), "work", "run", work_id],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and len(pidfile.read_text().split()) == 2) and time.monotonic() < deadline:
        time.sleep(0.1)
    worker_pids = list(map(int, pidfile.read_text().split()))
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    for pid in worker_pids:  # the template notices its runner is gone and kills its worker's group
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(pid), f"worker process {pid} outlived its runner"
    [leftover] = [p for p in verify_tree(layout) if "leftover workspace" in p["problem"]]
    assert leftover["path"].endswith("/scratch/workspace")
    assert f"the next attempt of work {work_id} removes it" in leftover["problem"]
    retried = run_work(layout, work_id, actor="alice", retry=True)
    assert retried.status == "passed", retried.reason
    assert not Path(leftover["path"]).exists()
    assert verify_tree(layout) == []
    assert git(repository, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_git_missing_is_an_environment_failure(
    layout: Layout, team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = agent_template(tmp_path / "implement.py", team)
    work_id = agent_work(layout, template)
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    result = run_work(layout, work_id, actor="alice", retry=False)
    assert (result.status, result.class_) == ("failed", "environment")
    assert "git is not installed" in (result.reason or "")


COMMAND_MEMBER = """
import json, os, sys
request = json.load(sys.stdin)
seen = {"role": os.environ["HARN_ROLE"], "cwd": os.getcwd(), "deadline": os.environ.get("HARN_DEADLINE"),
        "input_role": request["role"]}
with open(os.environ["SEEN_DIR"] + "/" + request["role"] + ".json", "w") as out:
    json.dump(seen, out)
if request["role"] == "worker":
    open("done.txt", "w").write("done by a command worker\\n")
    print("wrote done.txt")
else:
    print(json.dumps({"summary": "looked", "criteria": [
        {"criterion": c, "status": "satisfied", "evidence": "done.txt" if "done.txt" in request["diff"] else "?"}
        for c in request["work"]["acceptance"]]}))
"""


def test_command_members_get_their_role_their_input_on_stdin_and_the_workspace_as_cwd(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "command-kit"
    directory.mkdir()
    (directory / "member.py").write_text(COMMAND_MEMBER)
    team = directory / "team.json"
    team.write_text(
        json.dumps(
            {
                m: {"adapter": "command", "argv": [sys.executable, "./member.py"], "instructions": f"the {m}"}
                for m in ("worker", "judge")
            }
        )
    )
    monkeypatch.setenv("SEEN_DIR", str(tmp_path))
    template = agent_template(tmp_path / "implement.py", team)
    result = run_work(layout, agent_work(layout, template), actor="alice", retry=False)
    assert result.status == "passed", result.reason
    workspace = str(layout.run(result.run_id) / "scratch" / "workspace")
    for role in ("worker", "judge"):
        seen = json.loads((tmp_path / f"{role}.json").read_text())
        assert (seen["role"], seen["input_role"], seen["cwd"]) == (role, role, workspace)
        assert seen["deadline"] and seen["deadline"].endswith("Z")
    assert "wrote done.txt" in transcript_lines(layout, result.run_id)
    assert proof(layout, result.run_id)["acceptance"][0]["evidence"] == "done.txt"
