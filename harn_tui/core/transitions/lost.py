"""Lost-attempt repair: an attempt whose runner died is recorded as failed (`reason: "lost"`) by the next writer;
one whose runner said in its finish note why the result could not be recorded is failed with class
`environment` (uncharged) and that reason."""

from __future__ import annotations

from collections.abc import Iterable

from harn_tui.core.finish_note import read_note
from harn_tui.core.leases import is_held
from harn_tui.core.records import AttemptFinished
from harn_tui.core.tree import Tree
from harn_tui.core.tree_files import WorkFiles
from harn_tui.core.writer import SUPERVISOR_ACTOR, append_event

LOST_REASON = "lost"


def repair_lost_attempts(tree: Tree, work_ids: Iterable[str]) -> list[AttemptFinished]:
    """Append `attempt.finished {status: failed, reason: lost}` (actor supervisor) for every lost run of the
    given work. The caller holds the lease that governs that work and read `tree` under it, perhaps only in part
    (an attempt's finish brings up to date only the logs it reads): a run the tree shows running with its
    lease free has its item's log brought up to date before it is called lost, since its runner may have
    recorded its finish after the tree last read that log."""
    repaired: list[AttemptFinished] = []
    for work_id in work_ids:
        work = tree.work.get(work_id)
        if work is None or work.intent is None or work.log.problem is not None:
            continue
        if not _lost(tree, work):
            continue
        tree.refresh_logs_of([work_id])
        for run_id in _lost(tree, work):
            unrecorded = read_note(tree.layout.run(run_id), run_id)
            found = {"class": "environment", "reason": unrecorded} if unrecorded else {"reason": LOST_REASON}
            repaired.append(
                append_event(work.log, AttemptFinished, SUPERVISOR_ACTOR, run_id=run_id, status="failed", **found)
            )
            run = tree.runs.get(run_id)
            if run is not None:
                run.live = False
    return repaired


def _lost(tree: Tree, work: WorkFiles) -> list[str]:
    """The runs the work's log (as the tree read it) shows running whose run lease is free now."""
    return [run_id for run_id in tree.runs_told(work).running if not is_held(tree.layout.run(run_id) / "lease")]
