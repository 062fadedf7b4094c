"""Found by the race soak: a goal created over standalone work ("adopting" it) must wait for a standalone
transition that holds the work's lease, or two writers under two different leases decide on the same log.

Before the fix `create_supervisor` wrote goal.json under the new goal's lease only: a `work run` that had
checked the item under the work lease could append `attempt.started` after the goal's own writers (under the
goal lease) had already cancelled the work, or started an attempt of their own.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from harn_tui.core.creation import GoalOptions, create_supervisor, create_work
from harn_tui.core.layout import Layout
from harn_tui.core.records import WorkCancelled
from harn_tui.core.transitions import cancel_work
from harn_tui.core.transitions.scope import work_lease
from harn_tui.core.verify import verify_tree
from harn_tui.core.writer import append_event

HOLD_S = 1.0


def test_a_goal_adopting_standalone_work_waits_for_the_writer_holding_its_lease(layout: Layout, examples: Path) -> None:
    create_work(
        layout,
        title="Root",
        template=examples / "templates" / "implement.py",
        objective="Do it.",
        work_id="root-1",
        actor="tester",
    )
    held_r, held_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # a standalone writer: holds the work lease, decides, appends, lets go
        try:
            with work_lease(layout, "root-1") as (tree, owner):
                assert owner is None
                os.write(held_w, b"1")
                time.sleep(HOLD_S)
                append_event(tree.work["root-1"].log, WorkCancelled, "standalone-writer", reason="decided alone")
        finally:
            os._exit(0)
    os.read(held_r, 1)
    adoption = threading.Thread(
        target=create_supervisor,
        kwargs={
            "layout": layout,
            "team_file": examples / "team.json",
            "root_work": "root-1",
            "options": GoalOptions(goal_id="goal-adopter"),
        },
    )
    adoption.start()
    time.sleep(HOLD_S / 3)
    adopted_while_held = (layout.goal("goal-adopter") / "goal.json").exists()
    if adopted_while_held:  # the goal's own writers now act under the goal lease, beside the standalone one
        cancel_work(layout, "root-1", actor="goal-writer", reason="decided under the goal")
    os.waitpid(pid, 0)
    adoption.join(timeout=30)
    assert not adopted_while_held, "the goal adopted the work while a standalone writer held its lease"
    assert (layout.goal("goal-adopter") / "goal.json").exists()
    assert verify_tree(layout) == []
