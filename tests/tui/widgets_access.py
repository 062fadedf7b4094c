"""Small pilot helpers shared by console tests and snapshots."""

from __future__ import annotations

from typing import Any

from harn_tui.tui.widgets.goals import GoalsPanel


async def goals_select(pilot: Any, goal_id: str) -> None:
    """Focus the goals table and move its cursor to `goal_id`, as the arrow keys would."""
    goals = pilot.app.main.query_one(GoalsPanel)
    goals.focus()
    goals.select_key(goal_id)
    await pilot.pause()
