"""Real git work for console tests: a repository whose commits are the same on every run (fixed author, committer
and dates), an attempt's change committed on its own branch in a real worktree, and the test template that
does exactly that inside a real attempt (or prints lines one at a time, or parks with its plan as details)."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.plan_builders import write_template

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "harn",
    "GIT_AUTHOR_EMAIL": "harn@localhost",
    "GIT_AUTHOR_DATE": "2026-07-16T10:00:00Z",
    "GIT_COMMITTER_NAME": "harn",
    "GIT_COMMITTER_EMAIL": "harn@localhost",
    "GIT_COMMITTER_DATE": "2026-07-16T10:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
BASE_FILES = {"README.md": "# demo\n", "app.py": "def main():\n    return 1\n"}


def git(directory: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(directory), *args], capture_output=True, text=True, check=False, env={**os.environ, **GIT_ENV}
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def repository(path: Path, files: dict[str, str] | None = None) -> Path:
    """A git repository at `path` (the tree root may be it: `.harnery/` is kept out by its `.gitignore`) with one
    commit of `files` on `main`."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if (path / ".harnery").is_dir():
        (path / ".harnery" / ".gitignore").write_text("*\n")
    for name, text in (files or BASE_FILES).items():
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "base")
    return path


def commit_change(
    repo: Path, workspace: Path, branch: str, files: dict[str, str], *, base: str = "main", message: str = "attempt"
) -> dict[str, Any]:
    """Commit `files` (name -> new text) on a new `branch` from `base` in a worktree at `workspace`, remove the
    worktree (the branch stays) and return the proof's `workspace` for it."""
    git(repo, "worktree", "add", "-q", "-b", branch, str(workspace), base)
    for name, text in files.items():
        target = workspace / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", message)
    base_commit = git(repo, "rev-parse", base).strip()
    commit = git(workspace, "rev-parse", "HEAD").strip()
    rows = [line.split("\t") for line in git(repo, "diff", "--numstat", base_commit, commit).splitlines()]
    git(repo, "worktree", "remove", "--force", str(workspace))
    return {
        "kind": "git",
        "repository": str(repo),
        "branch": branch,
        "base": base_commit,
        "commit": commit,
        "files_changed": len(rows),
        "insertions": sum(int(r[0]) for r in rows if r[0] != "-"),
        "deletions": sum(int(r[1]) for r in rows if r[1] != "-"),
    }


TEMPLATE = f"""
import sys
sys.path.insert(0, {str(REPOSITORY_ROOT)!r})
from tests.tui.git_attempts import template_main
template_main()
"""


def template(directory: Path) -> Path:
    """The test template (`GIT_TEMPLATE_MODE` picks what it does; its environment is the test's)."""
    return write_template(directory, "git_template.py", TEMPLATE)


def _prove(workspace: dict[str, Any] | None, summary: str) -> None:
    manifest = json.loads(Path(os.environ["HARN_MANIFEST"]).read_text())
    proof = {
        "schema_version": 1,
        "run_id": os.environ["HARN_RUN_ID"],
        "status": "succeeded",
        "summary": summary,
        "acceptance": [
            {"criterion": c, "status": "satisfied", "evidence": "the diff does it"}
            for c in manifest["work"]["acceptance"]
        ],
        "class": None,
        "finished_at": datetime.datetime.now(datetime.UTC).isoformat(),
        "workspace": workspace,
    }
    Path(os.environ["HARN_PROOF"]).write_text(json.dumps(proof))


def template_main() -> None:
    """`commit`: commit `$TEMPLATE_FILES` (JSON) in `$TEMPLATE_REPO` on `harn/<work>/<run>`. `follow`: print
    `line 1`, `line 2`, ... one at a time, each after the test creates `$TEMPLATE_GATE/<n>`. `park`: ask first
    (exit 75, `$TEMPLATE_DETAILS` as the approval's details), then finish once approved."""
    mode = os.environ.get("GIT_TEMPLATE_MODE", "commit")
    run_dir = Path(os.environ["HARN_RUN_DIR"])
    if mode == "commit":
        manifest = json.loads(Path(os.environ["HARN_MANIFEST"]).read_text())
        branch = f"harn/{manifest['work']['id']}/{os.environ['HARN_RUN_ID']}"
        workspace = commit_change(
            Path(os.environ["TEMPLATE_REPO"]), run_dir / "workspace", branch, json.loads(os.environ["TEMPLATE_FILES"])
        )
        print("committed", workspace["commit"], flush=True)
        _prove(workspace, f"{branch} at {workspace['commit'][:7]}")
    elif mode == "follow":
        gate = Path(os.environ["TEMPLATE_GATE"])
        for number in range(1, int(os.environ.get("TEMPLATE_LINES", "3")) + 1):
            while not (gate / str(number)).exists():
                time.sleep(0.02)
            print(f"line {number} of the agent's work", flush=True)
        _prove(None, "followed")
    elif mode == "park":
        if "HARN_APPROVAL" not in os.environ:
            ask = {
                "question": "Approve the agent's plan for Add the feature?",
                "details": os.environ["TEMPLATE_DETAILS"],
            }
            (run_dir / "approval-request.json").write_text(json.dumps(ask))
            sys.exit(75)
        _prove(None, "implemented the approved plan")
