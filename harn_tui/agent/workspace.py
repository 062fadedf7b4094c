"""The attempt's git workspace: a worktree of the user's repository on its own branch, built from the work's
last passing commit (else the base) plus its dependencies' accepted commits; committed by the host; removed at the
end with its branch kept. The user's own working tree and index are never touched: every command runs in the
worktree or only reads and writes refs and `.git/worktrees/`."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from harn_tui.agent.git import GitFailure, git, git_ok, run_git
from harn_tui.core.records import GitWorkspace

FailureClass = Literal["environment", "upstream"]


class WorkspaceFailure(Exception):
    """The workspace cannot be built: `class_` is the proof's class (environment: no repository, no commit, a
    rejected branch name, git itself failing; upstream: a dependency merge that conflicts)."""

    def __init__(self, class_: FailureClass, reason: str) -> None:
        super().__init__(reason)
        self.class_: FailureClass = class_
        self.reason = reason


@dataclass(frozen=True)
class Workspace:
    """A built workspace: where it is, its branch, and `base`, the commit the attempt starts from."""

    repository: Path
    path: Path
    branch: str
    base: str


def branch_name(work_id: str, run_id: str) -> str:
    return f"harn/{work_id}/{run_id}"


def repository_of(directory: Path) -> Path | None:
    """The top of the git work tree holding `directory`, or None outside one. A repository git refuses because
    another account owns it is `GitFailure` naming `safe.directory`: working in scratch instead would drop the
    operator's repository without a word."""
    done = run_git(directory, ["rev-parse", "--show-toplevel"])
    if done.returncode != 0 and "dubious ownership" in done.stderr:
        raise GitFailure(
            f"git refuses the repository holding {directory}: another account owns it (dubious ownership); "
            "each operator allows it once with `git config --global --add safe.directory <repository>`",
            done.stderr,
        )
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return Path(done.stdout.strip()).resolve()


def _environment(action: str, error: GitFailure) -> WorkspaceFailure:
    return WorkspaceFailure("environment", f"{action}: {error.message}")


def _commit_of(repository: Path, ref: str) -> str | None:
    done = run_git(repository, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"])
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def _check_branch(repository: Path, branch: str) -> None:
    if run_git(repository, ["check-ref-format", "--branch", branch]).returncode != 0:
        raise WorkspaceFailure("environment", f"git rejects the branch name {branch!r} (see git check-ref-format)")


def _start_commit(repository: Path, prior: GitWorkspace | None, base: str | None) -> str:
    if prior is not None:
        found = _commit_of(repository, prior.commit)
        if found is None:
            raise WorkspaceFailure(
                "environment",
                f"the work's last passing commit {prior.commit[:12]} (branch {prior.branch}) is not in {repository}",
            )
        return found
    ref = base or "HEAD"
    found = _commit_of(repository, ref)
    if found is not None:
        return found
    if base is None:
        raise WorkspaceFailure(
            "environment",
            f"the repository {repository} has no commit yet (the workspace starts from HEAD; make a first commit)",
        )
    raise WorkspaceFailure("environment", f"--base {base!r} does not name a commit in {repository}")


def discard_worktree(repository: Path, path: Path) -> None:
    """Remove the worktree at `path` (registered or only a directory left behind) and prune git's records of it;
    its branch stays."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists() and run_git(repository, ["worktree", "remove", "--force", "--force", str(path)]).returncode:
        shutil.rmtree(path, ignore_errors=True)
    with contextlib.suppress(GitFailure):
        git(repository, "worktree", "prune")


def create_workspace(
    repository: Path,
    path: Path,
    branch: str,
    *,
    prior: GitWorkspace | None,
    base: str | None,
    dependencies: Sequence[GitWorkspace],
) -> Workspace:
    """Build the worktree at `path` on `branch`: an existing branch (a resumed run) is checked out as it is;
    a new one starts at `prior.commit`, else `base` (default HEAD). Then every dependency commit the branch does
    not contain yet is merged (`--no-ff`, by the host); a conflict is `upstream`, naming the files."""
    _check_branch(repository, branch)
    try:
        git(repository, "worktree", "prune")
        if path.exists() or path.is_symlink():
            discard_worktree(repository, path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if _commit_of(repository, f"refs/heads/{branch}") is not None:
            git(repository, "worktree", "add", "--quiet", str(path), branch)
        else:
            start = _start_commit(repository, prior, base)
            git(repository, "worktree", "add", "--quiet", "-b", branch, str(path), start)
    except GitFailure as error:
        raise _environment(f"git worktree add {path} failed", error) from None
    try:
        for dependency in dependencies:
            _merge(path, dependency)
        head = git(path, "rev-parse", "HEAD").strip()
    except GitFailure as error:
        raise _environment("building the workspace failed", error) from None
    except WorkspaceFailure:
        discard_worktree(repository, path)
        raise
    return Workspace(repository=repository, path=path, branch=branch, base=head)


def _merge(path: Path, dependency: GitWorkspace) -> None:
    short = dependency.commit[:12]
    if _commit_of(path, dependency.commit) is None:
        raise WorkspaceFailure(
            "upstream", f"the dependency commit {short} (branch {dependency.branch}) is not in the repository"
        )
    if git_ok(path, "merge-base", "--is-ancestor", dependency.commit, "HEAD"):
        return
    done = run_git(
        path, ["merge", "--no-ff", "--no-edit", "-m", f"merge {dependency.branch} ({short})", dependency.commit]
    )
    if done.returncode == 0:
        return
    conflicted = run_git(path, ["diff", "--name-only", "--diff-filter=U"]).stdout.split()
    run_git(path, ["merge", "--abort"])
    files = ", ".join(conflicted[:20]) + (f" and {len(conflicted) - 20} more" if len(conflicted) > 20 else "")
    raise WorkspaceFailure(
        "upstream",
        f"merging dependency {dependency.branch} ({short}) conflicts"
        + (f" in {files}" if files else f": {done.stderr.strip()[-400:]}"),
    )


def commit_workspace(workspace: Workspace, message: str) -> str:
    """Commit every change in the worktree (by the host, never the agent); no change is no commit. Returns the
    branch's commit."""
    git(workspace.path, "add", "--all")
    if not git_ok(workspace.path, "diff", "--cached", "--quiet"):
        git(workspace.path, "commit", "--quiet", "--no-verify", "-m", message)
    return git(workspace.path, "rev-parse", "HEAD").strip()


def diffstat(repository: Path, base: str, commit: str) -> tuple[int, int, int]:
    """(files changed, insertions, deletions) of `git diff base commit`; a binary file counts as changed."""
    files = insertions = deletions = 0
    for line in git(repository, "diff", "--numstat", "--no-renames", base, commit, "--").splitlines():
        added, removed, _ = [*line.split("\t", 2), "", ""][:3]
        files += 1
        insertions += int(added) if added.isdigit() else 0
        deletions += int(removed) if removed.isdigit() else 0
    return files, insertions, deletions


def workspace_record(workspace: Workspace, commit: str) -> GitWorkspace:
    files, insertions, deletions = diffstat(workspace.repository, workspace.base, commit)
    return GitWorkspace(
        kind="git",
        repository=str(workspace.repository),
        branch=workspace.branch,
        base=workspace.base,
        commit=commit,
        files_changed=files,
        insertions=insertions,
        deletions=deletions,
    )
