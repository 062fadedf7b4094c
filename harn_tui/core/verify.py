"""`harn verify`: walk the whole tree and report every problem with its path (cache/ is ignored, except for a
shared tree's group and modes, which hold for every entry)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from harn_tui.core import sharing
from harn_tui.core.addresses import EVENTS
from harn_tui.core.errors import CorruptJournal
from harn_tui.core.fsio import is_temp_name
from harn_tui.core.journal import describe_validation, read_bytes
from harn_tui.core.layout import HARNERY, Layout
from harn_tui.core.reader_bounds import (
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    NOT_FOLLOWED,
    directory_problem,
    open_regular,
    os_problem,
    over_limit,
)
from harn_tui.core.records import ApprovalDecision, ApprovalRequest, AttemptManifest, Proof
from harn_tui.core.tree import Tree
from harn_tui.core.workspaces import leftover_workspaces


def verify_tree(layout: Layout) -> list[dict[str, str]]:
    problems: list[dict[str, str]] = []

    def add(path: Path | str, problem: str) -> None:
        """A problem at `path`; a message that starts with a path under the tree names the exact file."""
        named, _, rest = problem.partition(": ")
        if rest and named.startswith(str(layout.base)):
            path, problem = named, rest
        problems.append({"path": str(path), "problem": problem})

    tree = Tree.load(layout)
    for goal in tree.goals.values():
        for message in goal.problems.values():
            add(goal.directory / "goal.json", message)
        for plan in goal.plans.values():
            if plan.request is None and (plan.directory / EVENTS).exists():
                add(plan.directory, "plan events without request.json")
            for message in plan.problems.values():
                add(plan.directory, message)
            _log_problems(plan.log.path, plan.log.problem, plan.log.torn, add)
    for work in tree.work.values():
        for message in work.problems.values():
            add(work.directory / "intent.json", message)
        if work.intent is None and not work.problems:
            add(work.directory / "intent.json", "missing")
        _log_problems(work.log.path, work.log.problem, work.log.torn, add)
        if work.intent is not None:
            for dependency in work.intent.dependencies:
                if dependency not in tree.work:
                    add(work.directory / "intent.json", f"dependency {dependency} does not exist")
    recorded_runs = {event.run_id for work in tree.work.values() for event in work.events if hasattr(event, "run_id")}
    for run_id in _ids(layout.runs):
        if run_id in recorded_runs or not _aborted_start(layout.runs / run_id):
            _verify_run(layout.runs / run_id, add)
    for approval in tree.approvals.values():
        if approval.problem:
            add(approval.directory, approval.problem)
    _leftover_workspaces(layout, tree, add)
    _links_and_odd_files(layout, problems, add)
    group = sharing.base_group(layout.base)
    if group is not None:
        named = {p["path"] for p in problems}
        for drift in sharing.walk_drift(layout.base, group, repair=False):
            if drift.path not in named:
                add(drift.path, drift.problem)
    for goal in tree.goals.values():
        for plan in goal.plans.values():
            for event in plan.events:
                if event.event == "plan.applied":
                    for work_id in event.work_ids:
                        if work_id not in tree.work or tree.work[work_id].intent is None:
                            add(plan.directory / EVENTS, f"applied work {work_id} is not materialized")
    return problems


def _log_problems(path: Path, problem: str | None, torn: bool, add: object) -> None:
    assert callable(add)
    if problem:
        add(path, problem)
    if torn:
        add(path, "torn final line (no trailing newline)")


def _aborted_start(directory: Path) -> bool:
    """A run directory no event names, with neither manifest nor proof: an attempt start that died before its
    manifest was linked (nothing was recorded; like a plan directory without request.json, it is ignored)."""
    return not (directory / "manifest.json").exists() and not (directory / "proof.json").exists()


def _verify_run(directory: Path, add: object) -> None:
    assert callable(add)
    linked = directory_problem(directory)
    if linked:
        add(directory, linked)
        return
    for name, model in (("manifest.json", AttemptManifest), ("proof.json", Proof)):
        path = directory / name
        try:
            model.model_validate_json(read_bytes(path))
        except FileNotFoundError:
            if name == "manifest.json":
                add(path, "missing")
        except CorruptJournal as error:
            add(path, error.message)
        except ValidationError as error:
            add(path, describe_validation(error))
    _verify_transcript(directory / "transcript.jsonl", add)


def _verify_transcript(transcript: Path, add: object) -> None:
    """Every line a JSON object; read a bounded piece at a time (a transcript may be large, or damaged)."""
    assert callable(add)
    try:
        fd, found = open_regular(transcript)
    except FileNotFoundError:
        return
    except CorruptJournal as error:
        add(transcript, error.message)
        return
    try:
        size = found.st_size
        if size > MAX_LOG_BYTES:
            add(transcript, over_limit(transcript, size, MAX_LOG_BYTES, "a log"))
            return
        position, number = 0, 0
        while position < size:
            data = os.pread(fd, min(size - position, MAX_LINE_BYTES), position)
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                if position + len(data) < size:
                    add(transcript, f"line {number + 1} is longer than {MAX_LINE_BYTES} bytes")
                else:
                    add(transcript, "torn final line (no trailing newline)")
                return
            for line in data[: cut - 1].split(b"\n"):
                number += 1
                try:
                    if not isinstance(json.loads(line), dict):
                        raise ValueError
                except ValueError:
                    add(transcript, f"line {number}: malformed JSON")
                    return
            position += cut
    except OSError as error:
        add(transcript, os_problem(transcript, error))
    finally:
        os.close(fd)


def _leftover_workspaces(layout: Layout, tree: Tree, add: object) -> None:
    """A workspace an attempt that died left (a park and a finish remove theirs)."""
    assert callable(add)
    logs = [(work.id, work.events) for work in tree.work.values()]
    for leftover in leftover_workspaces(layout.runs, _ids(layout.runs), logs):
        path = leftover.path
        by_whom = (
            f"the next attempt of work {leftover.work_id} removes it"
            if leftover.work_id
            else "no attempt names this run"
        )
        add(
            path,
            f"a leftover workspace of a run that is neither live nor parked ({by_whom}; to remove it now: "
            f"git worktree remove --force {path}, or delete the directory and run git worktree prune)",
        )


def _links_and_odd_files(layout: Layout, problems: list[dict[str, str]], add: object) -> None:
    """Every symbolic link, and every entry that is neither a directory nor a regular file, anywhere under
    `.harnery/` (cache/ and each run's scratch/ aside: a template's own files) that no problem names yet: none
    is ever followed or read."""
    assert callable(add)
    named = {p["path"] for p in problems}
    pending = [layout.base]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as error:
            add(directory, os_problem(directory, error))
            continue
        for entry in entries:
            if is_temp_name(entry.name) or (directory == layout.base and entry.name == "cache"):
                continue
            if entry.name == "scratch" and directory.parent == layout.runs:
                continue
            if entry.is_symlink():
                if entry.path not in named:
                    add(entry.path, NOT_FOLLOWED)
            elif entry.is_dir(follow_symlinks=False) and entry.name == HARNERY:
                add(
                    entry.path,
                    f"a {HARNERY}/ nested inside the tree: no harn command reads it (a root named "
                    f"{HARNERY} means the directory holding it); move out what it holds, or delete it",
                )
            elif entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif not entry.is_file(follow_symlinks=False) and entry.path not in named:
                add(entry.path, "neither a file nor a directory")


def _ids(directory: Path) -> list[str]:
    try:
        return sorted(n for n in os.listdir(directory) if not is_temp_name(n))
    except FileNotFoundError:
        return []


__all__ = ["ApprovalDecision", "ApprovalRequest", "verify_tree"]
