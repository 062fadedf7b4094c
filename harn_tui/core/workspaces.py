"""Workspaces a dead run left in its scratch: `runs/<id>/scratch/workspace` of a run neither live nor parked.

A finishing or parking agent template removes its worktree itself; one that died (its runner killed, the machine
lost) leaves it. `verify` reports these; the next attempt of the same work removes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harn_tui.core.leases import is_held
from harn_tui.core.records import WorkEvent

WORKSPACE_DIR = "workspace"


@dataclass(frozen=True)
class LeftoverWorkspace:
    run_id: str
    work_id: str | None
    path: Path


def workspace_of(runs_dir: Path, run_id: str) -> Path:
    """Where the agent template puts a run's workspace: `$HARN_RUN_DIR/workspace`."""
    return runs_dir / run_id / "scratch" / WORKSPACE_DIR


def parked_runs(events: Sequence[WorkEvent]) -> set[str]:
    """The runs of one work log whose latest word is a park (not resumed or finished since)."""
    parked: set[str] = set()
    for event in events:
        if event.event == "attempt.finished" and event.status == "parked":
            parked.add(event.run_id)
        elif event.event in ("attempt.finished", "attempt.resumed"):
            parked.discard(event.run_id)
    return parked


def leftover_workspaces(
    runs_dir: Path, run_ids: Iterable[str], logs: Iterable[tuple[str, Sequence[WorkEvent]]]
) -> list[LeftoverWorkspace]:
    """Of `run_ids`, those whose workspace exists while the run is neither live (its lease held) nor parked;
    `logs` are (work id, events) pairs naming who owns each run."""
    owner: dict[str, str] = {}
    parked: set[str] = set()
    for work_id, events in logs:
        for event in events:
            if event.event == "attempt.started":
                owner[event.run_id] = work_id
        parked |= parked_runs(events)
    found: list[LeftoverWorkspace] = []
    for run_id in run_ids:
        path = workspace_of(runs_dir, run_id)
        if run_id in parked or not _exists(path) or is_held(runs_dir / run_id / "lease"):
            continue
        found.append(LeftoverWorkspace(run_id, owner.get(run_id), path))
    return found


def _exists(path: Path) -> bool:
    try:
        return path.is_symlink() or path.exists()
    except OSError:
        return False
