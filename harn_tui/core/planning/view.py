"""The goal as the loop holding its `supervisor.lock` sees it: freshly re-read, with that lock counted as free.

Plan status `planning` means "no outcome yet while a supervisor holds the lock". The loop that holds the
lock is not planning when it decides, so a plan without an outcome is, to it, `interrupted`.
"""

from __future__ import annotations

from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.tree import Tree


def loop_view(layout: Layout, goal_id: str) -> tuple[Tree, GoalView]:
    tree = Tree.load_scoped(layout, goal_id)
    tree.goals[goal_id].loop_held = False
    return tree, project_goal(tree, goal_id)

