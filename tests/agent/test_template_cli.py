"""`harn template list|new`, `init --agents` and `work diff` as the CLI reports them: what is written, and every
bad input refused with the rule it broke and nothing written."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from harn_tui.agent import AgentParameters
from harn_tui.agent.script import agent_script
from harn_tui.cli import main
from tests.agent.kit import git, make_repository, team_file


def harn(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main([*args, "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out or captured.err)


def test_template_list_and_new_write_a_short_script_naming_every_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, listed = harn(capsys, "template", "list")
    assert code == 0 and [t["kind"] for t in listed["templates"]] == ["agent"]
    team = team_file(tmp_path)
    path = tmp_path / "implement.py"
    code, written = harn(
        capsys,
        "template",
        "new",
        "agent",
        str(path),
        "--worker",
        "worker",
        "--judge",
        "judge",
        "--team",
        str(team),
        "--check",
        "git status --short",
        "--ask-first",
        "--workspace",
        "none",
        "--base",
        "main",
        "--agent-arg=--allowedTools",
        "--agent-arg",
        "Edit",
        "--max-diff-kb",
        "64",
    )
    assert code == 0, written
    text = path.read_text()
    assert text.startswith(f"#!{sys.executable}\n") and stat.S_IMODE(path.stat().st_mode) == 0o700
    for literal in (
        "worker='worker'",
        "judge='judge'",
        "checks=['git status --short']",
        "ask_first=True",
        "workspace='none'",
        "base='main'",
        "agent_args=['--allowedTools', 'Edit']",
        "max_diff_kb=64",
        "'adapter': 'claude-code'",
        "raise SystemExit(run_agent_template(PARAMETERS))",
    ):
        assert literal in text, literal
    assert len(text.splitlines()) < 60
    assert written["parameters"]["team"]["worker"]["cwd"] == str(tmp_path)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--worker", "worker", "--judge", "worker"], "must be different team members"),
        (["--worker", "nobody", "--team", "TEAM"], "--worker 'nobody' is not a member of the team file"),
        (["--worker", "scripted", "--team", "TEAM"], "is a scripted profile"),
        (["--worker", "worker", "--check", "no-such-command --x"], "'no-such-command' is not a command on PATH"),
        (["--worker", "worker", "--check", "python3 -c 'unbalanced"], "does not split with shell rules"),
        (["--worker", "worker", "--workspace", "git"], "is not inside a git work tree"),
        (["--worker", "bad/id"], "--worker"),
    ],
)
def test_template_new_refuses_bad_input_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    team = team_file(tmp_path)
    members = json.loads(team.read_text())
    replies = tmp_path / "replies.jsonl"
    replies.write_text("{}\n")
    members["scripted"] = {"adapter": "scripted", "replies": str(replies), "instructions": "canned"}
    team.write_text(json.dumps(members))
    path = tmp_path / "implement.py"
    code, failed = harn(
        capsys, "template", "new", "agent", str(path), *[str(team) if a == "TEAM" else a for a in arguments]
    )
    assert (code, failed["error"]["code"]) == (2, "usage") and message in failed["error"]["message"]
    assert not path.exists()


def test_an_existing_file_is_refused_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "implement.py"
    path.write_text("mine\n")
    code, failed = harn(capsys, "template", "new", "agent", str(path), "--worker", "worker")
    assert code == 3 and f"{path} already exists" in failed["error"]["message"]
    assert path.read_text() == "mine\n"


def test_init_agents_writes_the_kit_and_refuses_an_existing_kit_file_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repository(tmp_path / "project")
    code, kit = harn(capsys, "--root", str(root), "init", "--agents", "codex")
    assert code == 0 and kit["notes"] == []
    team = json.loads((root / "harn" / "team.json").read_text())
    assert sorted(team) == ["judge", "planner", "reviewer", "worker"]
    assert {p["adapter"] for p in team.values()} == {"codex"} and all(
        len(p["instructions"]) > 200 for p in team.values()
    )
    replanning = json.loads((root / "harn" / "replanning.json").read_text())
    assert {t: s["root"] for t, s in replanning["templates"].items()} == {"implement": True, "investigate": False}
    expected = agent_script(AgentParameters(worker="worker", judge="judge"))
    assert (root / "harn" / "templates" / "implement.py").read_text() == expected
    assert "--check" in (root / "harn" / "README.md").read_text()
    assert git(root, "status", "--porcelain", "--untracked-files=all").split() == [
        "??",
        "harn/README.md",
        "??",
        "harn/mission.json",
        "??",
        "harn/replanning.json",
        "??",
        "harn/team.json",
        "??",
        "harn/templates/implement.py",
        "??",
        "harn/templates/investigate.py",
    ], "nothing of .harnery/ shows"
    (root / "harn" / "mission.json").unlink()
    code, failed = harn(capsys, "--root", str(root), "init", "--agents", "codex")
    assert code == 3 and f"{root}/harn/team.json already exists" in failed["error"]["message"]
    assert not (root / "harn" / "mission.json").exists(), "a refused kit writes nothing"


def test_work_diff_of_work_without_a_git_workspace_is_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    template = tmp_path / "t.py"
    template.write_text("#!/bin/sh\nexit 0\n")
    template.chmod(0o755)
    assert main(["--root", str(root), "init"]) == 0
    assert (
        main(["--root", str(root), "work", "create", "Plain", str(template), "--objective", "o", "--id", "work-plain"])
        == 0
    )
    capsys.readouterr()
    code, failed = harn(capsys, "--root", str(root), "work", "diff", "work-plain")
    assert (code, failed["error"]["code"]) == (4, "not_found")
    assert "has no attempt with a git workspace" in failed["error"]["message"]
    code, failed = harn(capsys, "--root", str(root), "work", "diff", "work-plain", "--run", "run-nope")
    assert code == 4 and "run run-nope is not an attempt of work work-plain" in failed["error"]["message"]
    code, schema = harn(capsys, "schema", "proof")
    assert code == 0 and "workspace" in schema["properties"]
