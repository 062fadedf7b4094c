"""Lost-attempt repair: an attempt whose runner died is recorded as failed (`reason: "lost"`) by the next writer."""

from __future__ import annotations

from collections.abc import Iterable

from harn_tui.core.layout import Layout
from harn_tui.core.leases import is_held
from harn_tui.core.records import AttemptFinished, WorkEvent
from harn_tui.core.tree import Tree
from harn_tui.core.writer import SUPERVISOR_ACTOR, append_event

LOST_REASON = "lost"


def open_runs(events: Iterable[WorkEvent]) -> list[str]:
    """Runs started (or resumed) and not finished since, in order of their start."""
    open_: dict[str, None] = {}
    for event in events:
        if event.event in ("attempt.started", "attempt.resumed"):
            open_[event.run_id] = None
        elif event.event == "attempt.finished":
            open_.pop(event.run_id, None)
    return list(open_)


def lost_runs(layout: Layout, events: Iterable[WorkEvent]) -> list[str]:
    """Open runs whose run lease is free right now: their runner is gone."""
    return [run_id for run_id in open_runs(events) if not is_held(layout.run(run_id) / "lease")]


def repair_lost_attempts(tree: Tree, work_ids: Iterable[str]) -> list[AttemptFinished]:
    """Append `attempt.finished {status: failed, reason: lost}` (actor supervisor) for every lost run of the
    given work. The caller holds the lease that governs that work and loaded `tree` under it."""
    repaired: list[AttemptFinished] = []
    for work_id in work_ids:
        work = tree.work.get(work_id)
        if work is None or work.intent is None or work.log.problem is not None:
            continue
        work.log.refresh()
        for run_id in lost_runs(tree.layout, work.events):
            repaired.append(
                append_event(work.log, AttemptFinished, SUPERVISOR_ACTOR, run_id=run_id, status="failed",
                             reason=LOST_REASON)
            )
            run = tree.runs.get(run_id)
            if run is not None:
                run.live = False
    return repaired
