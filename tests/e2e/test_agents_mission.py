"""A mission done by agents, through the CLI only, as the README's "Real agents" section tells a new user: the
starter kit in a fresh git repository, a check added, the mission created and run; the planner's proposal
approved; the worker's commit on its branch; a reopen whose finding reaches the next attempt's agent, which starts
from the previous commit; acceptance; a sound tree and the user's checkout exactly as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agent.kit import CHECK_GREETING, FAKE_CLI, git, make_repository, recorded


class Cli:
    """`harn` run from the repository's root, the fake model CLIs first on PATH."""

    def __init__(self, cwd: Path, record: Path) -> None:
        self.cwd = cwd
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("HARN_", "FAKE_CLI_"))}
        self.env.update(
            PATH=f"{FAKE_CLI}{os.pathsep}{os.environ['PATH']}", FAKE_CLI_RECORD_DIR=str(record), HARN_ACTOR="operator"
        )

    def __call__(self, *args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "harn_tui", *args],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == expect, (args, done.returncode, done.stdout, done.stderr)
        return done

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "--json").stdout)


def test_a_mission_from_an_empty_repository_through_review_and_reopen(tmp_path: Path) -> None:
    repository = make_repository(tmp_path / "project", commit=False)
    git(repository, "commit", "-q", "--allow-empty", "-m", "start")
    harn = Cli(repository, tmp_path / "calls")
    started = harn("init", "--agents", "claude-code").stdout
    assert (
        "harn supervisor create --team harn/team.json --replanning harn/replanning.json --mission harn/mission.json"
        in started
        and "harn tui" in started
    )
    refused = harn("init", "--agents", "claude-code", expect=3)
    assert f"{repository}/harn/team.json already exists" in refused.stderr
    assert (repository / ".harnery" / ".gitignore").read_text() == "*\n"
    (repository / "harn" / "templates" / "implement.py").unlink()
    harn(
        "template",
        "new",
        "agent",
        "harn/templates/implement.py",
        "--worker",
        "worker",
        "--judge",
        "judge",
        "--check",
        CHECK_GREETING,
    )
    before = git(repository, "status", "--porcelain", "--untracked-files=all")

    goal = harn.json(
        "supervisor",
        "create",
        "--team",
        "harn/team.json",
        "--replanning",
        "harn/replanning.json",
        "--mission",
        "harn/mission.json",
        "--id",
        "goal-agents",
    )["id"]
    ran = harn.json("supervisor", "run", goal)
    assert ran["stop_reason"] == "needs_human" and ran["goal"]["next_action"] == "review_plan"
    harn.json("supervisor", "plan", "approve", goal, ran["goal"]["pending_plan_id"])
    ran = harn.json("supervisor", "run", goal)
    [item] = [w for w in ran["goal"]["work"] if w["active"]]
    assert item["state"] == "in_review", ran

    shown = harn.json("work", "show", item["id"])
    first = shown["attempts"][0]["workspace"]
    assert first["branch"] == f"harn/{item['id']}/{shown['attempts'][0]['run_id']}"
    assert git(repository, "rev-parse", first["branch"]).strip() == first["commit"]
    diff = harn.json("work", "diff", item["id"])
    assert diff["workspace"] == first and "+def greet(name):" in diff["diff"]
    assert harn("work", "diff", item["id"]).stdout.startswith("diff --git")

    harn.json("work", "reopen", item["id"], "--finding", "greet must also strip spaces around the name")
    ran = harn.json("supervisor", "run", goal)
    shown = harn.json("work", "show", item["id"])
    assert [a["status"] for a in shown["attempts"]] == ["passed", "passed"]
    second = shown["attempts"][1]["workspace"]
    assert second["base"] == first["commit"], "the reopened attempt starts from the previous commit"
    prompt = recorded(tmp_path / "calls", "worker")[-1]["prompt"]
    assert "- f1: greet must also strip spaces around the name" in prompt
    assert "Attempt 2 (reopen)." in prompt
    harn.json("work", "accept", item["id"], "--dispose", "f1=fixed")
    assert harn.json("verify") == {"ok": True, "problems": []}
    assert git(repository, "status", "--porcelain", "--untracked-files=all") == before
    assert git(repository, "worktree", "list", "--porcelain").count("worktree ") == 1
