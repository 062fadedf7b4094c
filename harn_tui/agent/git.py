"""Running git for the agent template: no shell, the host's identity, no hooks, nothing redirected to the user's
index or working tree by an inherited `GIT_*` variable."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

HOST_NAME = "harn"
HOST_EMAIL = "harn@localhost"
GIT_TIMEOUT_S = 300.0
# variables that would point git at another repository, index or work tree than the one a call names
REDIRECTING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX", "GIT_NAMESPACE")


class GitFailure(Exception):
    """A git command that exited non-zero, could not start, or ran out of time; the message says which."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr = stderr


def git_environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTING}
    env.update(
        GIT_AUTHOR_NAME=HOST_NAME,
        GIT_AUTHOR_EMAIL=HOST_EMAIL,
        GIT_COMMITTER_NAME=HOST_NAME,
        GIT_COMMITTER_EMAIL=HOST_EMAIL,
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
    )
    return env


def git(cwd: Path, *args: str, timeout_s: float = GIT_TIMEOUT_S) -> str:
    """stdout of `git -C cwd args...` (hooks off, signing off, the host's identity); GitFailure otherwise."""
    done = run_git(cwd, args, timeout_s=timeout_s)
    if done.returncode != 0:
        raise GitFailure(
            f"git {' '.join(args[:2])} failed: {last_line(done.stderr) or f'exit {done.returncode}'}", done.stderr
        )
    return done.stdout


def run_git(cwd: Path, args: Sequence[str], *, timeout_s: float = GIT_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    argv = [
        "git",
        "-C",
        str(cwd),
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "commit.gpgsign=false",
        "-c",
        f"user.name={HOST_NAME}",
        "-c",
        f"user.email={HOST_EMAIL}",
        "-c",
        "core.quotepath=off",
        *args,
    ]
    try:
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=max(1.0, timeout_s),
            env=git_environment(),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise GitFailure("git is not installed (no `git` on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitFailure(f"git {' '.join(args[:2])} did not finish in {timeout_s:g} s") from None


def git_ok(cwd: Path, *args: str) -> bool:
    """Whether `git args...` exits 0 (a question such as `merge-base --is-ancestor`)."""
    return run_git(cwd, args).returncode == 0


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""
