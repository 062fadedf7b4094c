"""Small pilot helpers shared by console tests and snapshots."""

from __future__ import annotations

import time
from typing import Any

from harn_tui.tui.widgets.goals import GoalsPanel


async def goals_select(pilot: Any, goal_id: str, timeout: float = 3.0) -> None:
    """Focus the goals table and move its cursor to `goal_id`, as the arrow keys would, and wait until the graph
    and tabs show it (they are refilled right after the frame that moves the cursor)."""
    goals = pilot.app.main.query_one(GoalsPanel)
    goals.focus()
    goals.select_key(goal_id)
    await pilot.pause()
    deadline = time.monotonic() + timeout
    while pilot.app.main.shown_goal != goal_id:
        assert time.monotonic() < deadline, f"the panels never showed {goal_id}"
        await pilot.pause(0.01)
    await pilot.pause()  # the refilled tables measure their new rows when idle
    await pilot.pause()
