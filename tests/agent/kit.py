"""What the agent tests share: a git repository holding a tree, the fake model CLIs on PATH, agent templates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from harn_tui.agent import agent_parameters, write_agent_template
from harn_tui.core.creation import create_work, init_tree
from harn_tui.core.layout import Layout

FAKE_CLI = Path(__file__).parent.parent / "fixtures" / "fake_cli"
CHECK_GREETING = f"{sys.executable} -c \"import greeting; assert greeting.greet('x') == 'hello, x'\""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(cwd), *args],
        capture_output=True,
        text=True,
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "user",
            "GIT_AUTHOR_EMAIL": "user@example.com",
            "GIT_COMMITTER_NAME": "user",
            "GIT_COMMITTER_EMAIL": "user@example.com",
        },
    )
    return done.stdout


def make_repository(directory: Path, *, commit: bool = True) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    git(directory, "init", "-q", "-b", "main")
    if commit:
        (directory / "README.md").write_text("# project\n")
        git(directory, "add", "README.md")
        git(directory, "commit", "-q", "-m", "start")
    return directory


def team_file(directory: Path, adapter: str = "claude-code", timeout_s: int = 120) -> Path:
    team = {
        member: {"adapter": adapter, "timeout_s": timeout_s, "instructions": f"You are the {member}."}
        for member in ("worker", "judge")
    }
    path = directory / "team.json"
    path.write_text(json.dumps(team))
    return path


def agent_template(path: Path, team: Path, **options: Any) -> Path:
    options.setdefault("judge", "judge")
    parameters = agent_parameters(worker="worker", team_file=team, where=path.parent, **options)
    return write_agent_template(path, parameters)


def agent_work(layout: Layout, template: Path, work_id: str = "work-greet", **options: Any) -> str:
    options.setdefault("acceptance", ["greet works"])
    create_work(
        layout,
        title="Write greeting.py",
        template=template,
        objective="greet(name) says hello",
        work_id=work_id,
        actor="tester",
        **options,
    )
    return work_id


def tree_in(repository: Path) -> Layout:
    return init_tree(repository)


def recorded(directory: Path, role: str) -> list[dict[str, Any]]:
    """Every call the fakes recorded for `role`, in order."""
    if not directory.is_dir():
        return []
    return [json.loads(p.read_text()) for p in sorted(directory.glob(f"*-{role}.json"))]


def transcript_lines(layout: Layout, run_id: str) -> list[str]:
    path = layout.run(run_id) / "transcript.jsonl"
    return [json.loads(line)["line"] for line in path.read_text().splitlines()]


def proof(layout: Layout, run_id: str) -> dict[str, Any]:
    proof: dict[str, Any] = json.loads((layout.run(run_id) / "proof.json").read_text())
    return proof


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for a reaper that never comes in a container does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")
