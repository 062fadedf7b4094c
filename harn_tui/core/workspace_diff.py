"""The change an attempt committed: `git diff base commit` of a proof's git workspace, read-only."""

from __future__ import annotations

import subprocess

from harn_tui.core.errors import NotFound
from harn_tui.core.records import GitWorkspace

DIFF_TIMEOUT_S = 60


def committed_diff(workspace: GitWorkspace) -> str:
    """The attempt's diff as git prints it without colour or external tools; `NotFound` when the repository or
    either commit is gone (a branch deleted and garbage-collected, a repository moved)."""
    argv = [
        "git",
        "-C",
        workspace.repository,
        "-c",
        "core.quotepath=off",
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        workspace.base,
        workspace.commit,
        "--",
    ]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=DIFF_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError as error:
        raise NotFound(f"git is not installed: {error}") from error
    except subprocess.TimeoutExpired as error:
        raise NotFound(f"git diff in {workspace.repository} did not finish in {DIFF_TIMEOUT_S} s") from error
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise NotFound(
            f"the diff {workspace.base[:12]}..{workspace.commit[:12]} in {workspace.repository} cannot be read: "
            + (why[-1] if why else f"git exited {done.returncode}")
        )
    return done.stdout.decode("utf-8", "replace")
