"""`harn verify`: walk the whole tree and report every problem with its path (cache/ is ignored)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from harn_tui.core.fsio import is_temp_name
from harn_tui.core.journal import describe_validation
from harn_tui.core.layout import Layout
from harn_tui.core.records import ApprovalDecision, ApprovalRequest, AttemptManifest, Proof
from harn_tui.core.tree import Tree


def verify_tree(layout: Layout) -> list[dict[str, str]]:
    problems: list[dict[str, str]] = []

    def add(path: Path | str, problem: str) -> None:
        problems.append({"path": str(path), "problem": problem})

    tree = Tree.load(layout)
    for goal in tree.goals.values():
        for message in goal.problems.values():
            add(goal.directory / "goal.json", message)
        for plan in goal.plans.values():
            if plan.request is None and (plan.directory / "events.jsonl").exists():
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
    for run_id in _ids(layout.runs):
        _verify_run(layout.runs / run_id, add)
    for approval in tree.approvals.values():
        if approval.problem:
            add(approval.directory, approval.problem)
    for goal in tree.goals.values():
        for plan in goal.plans.values():
            for event in plan.events:
                if event.event == "plan.applied":
                    for work_id in event.work_ids:
                        if work_id not in tree.work or tree.work[work_id].intent is None:
                            add(plan.directory / "events.jsonl", f"applied work {work_id} is not materialized")
    return problems


def _log_problems(path: Path, problem: str | None, torn: bool, add: object) -> None:
    assert callable(add)
    if problem:
        add(path, problem)
    if torn:
        add(path, "torn final line (no trailing newline)")


def _verify_run(directory: Path, add: object) -> None:
    assert callable(add)
    for name, model in (("manifest.json", AttemptManifest), ("proof.json", Proof)):
        path = directory / name
        try:
            model.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            if name == "manifest.json":
                add(path, "missing")
        except ValidationError as error:
            add(path, describe_validation(error))
    transcript = directory / "transcript.jsonl"
    try:
        data = transcript.read_bytes()
    except FileNotFoundError:
        return
    if data and not data.endswith(b"\n"):
        add(transcript, "torn final line (no trailing newline)")
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            if not isinstance(json.loads(line), dict):
                raise ValueError
        except ValueError:
            add(transcript, f"line {number}: malformed JSON")
            break


def _ids(directory: Path) -> list[str]:
    try:
        return sorted(n for n in os.listdir(directory) if not is_temp_name(n))
    except FileNotFoundError:
        return []


__all__ = ["ApprovalDecision", "ApprovalRequest", "verify_tree"]
