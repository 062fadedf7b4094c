"""What the console shows of attempts' git workspaces: the one-line summary, which attempts have a diff, and
how each line of a diff reads (added, removed, hunk, file header).

Pure functions of projected views and loaded proofs; the diff text itself comes from `workspace_diff`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from harn_tui.core.projection import WorkView
from harn_tui.core.records import GitWorkspace, Proof

SHORT_COMMIT = 7  # git's own default abbreviation

DiffLineKind = Literal["file", "hunk", "added", "removed", "context"]
_FILE_HEADERS = (
    "diff --git ",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "Binary files ",
)


def diffstat(workspace: GitWorkspace) -> str:
    """`+N -M in K files`, as git's `--shortstat` counts them."""
    files = "file" if workspace.files_changed == 1 else "files"
    return f"+{workspace.insertions} -{workspace.deletions} in {workspace.files_changed} {files}"


def workspace_line(workspace: GitWorkspace) -> str:
    """`branch short-commit +N -M in K files`: where an attempt's committed change is and how big it is."""
    return f"{workspace.branch} {workspace.commit[:SHORT_COMMIT]} {diffstat(workspace)}"


@dataclass(frozen=True)
class AttemptDiff:
    """An attempt whose proof names a git workspace: one diff the console can open."""

    work_id: str
    run_id: str
    number: int
    workspace: GitWorkspace


def diffable_attempts(work: WorkView, proof_of: Callable[[str], Proof | None]) -> list[AttemptDiff]:
    """The work's attempts with a git workspace, newest first: the first is the one `harn work diff` shows by
    default."""
    found: list[AttemptDiff] = []
    for attempt in reversed(work.attempts):
        proof = proof_of(attempt.run_id)
        if proof is not None and proof.workspace is not None:
            found.append(AttemptDiff(work.id, attempt.run_id, attempt.number, proof.workspace))
    return found


def diff_line_kind(line: str, in_hunk: bool) -> DiffLineKind:
    """What one line of a unified diff is. Inside a hunk a leading `+`/`-` is an added or removed line (even
    `+++ x`, which is an added line `++ x`); outside one, the lines before the first `@@` are file headers."""
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("diff --git ") or (not in_hunk and line.startswith(_FILE_HEADERS)):
        return "file"
    if in_hunk and line.startswith("+"):
        return "added"
    if in_hunk and line.startswith("-"):
        return "removed"
    return "context"


def diff_line_kinds(lines: list[str]) -> list[DiffLineKind]:
    """`diff_line_kind` of every line of a diff, in order (a `diff --git` header ends the hunk before it)."""
    kinds: list[DiffLineKind] = []
    in_hunk = False
    for line in lines:
        kind = diff_line_kind(line, in_hunk)
        if kind == "hunk":
            in_hunk = True
        elif kind == "file":
            in_hunk = False
        kinds.append(kind)
    return kinds
