"""Lost-attempt repair: an attempt whose runner died is recorded as failed (`reason: "lost"`) by the next writer."""

from __future__ import annotations

from collections.abc import Iterable

from harn_tui.core.leases import is_held
from harn_tui.core.records import AttemptFinished
from harn_tui.core.tree import Tree
from harn_tui.core.writer import SUPERVISOR_ACTOR, append_event

LOST_REASON = "lost"


def repair_lost_attempts(tree: Tree, work_ids: Iterable[str]) -> list[AttemptFinished]:
    """Append `attempt.finished {status: failed, reason: lost}` (actor supervisor) for every lost run of the
    given work. The caller holds the lease that governs that work and read `tree` under it (its logs are
    current: only the holder appends), so the runs still running are those the tree's logs tell; each one's
    lease is probed now."""
    repaired: list[AttemptFinished] = []
    for work_id in work_ids:
        work = tree.work.get(work_id)
        if work is None or work.intent is None or work.log.problem is not None:
            continue
        running = tree.runs_told(work).running
        for run_id in [run_id for run_id in running if not is_held(tree.layout.run(run_id) / "lease")]:
            repaired.append(
                append_event(work.log, AttemptFinished, SUPERVISOR_ACTOR, run_id=run_id, status="failed",
                             reason=LOST_REASON)
            )
            run = tree.runs.get(run_id)
            if run is not None:
                run.live = False
    return repaired
