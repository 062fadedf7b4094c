"""The goal as the loop holding its `supervisor.lock` sees it: freshly re-read, with that lock counted as free.

Plan status `planning` means "no outcome yet while a supervisor holds the lock". The loop that holds the
lock is not planning when it decides, so a plan without an outcome is, to it, `interrupted`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from harn_tui.core.held import scoped_tree
from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.tree import Tree


@contextlib.contextmanager
def loop_tree(layout: Layout, goal_id: str) -> Iterator[tuple[Tree, GoalView]]:
    """The goal's tree, up to date, and its projection; the tree is lent until the block ends."""
    with scoped_tree(layout, goal_id) as tree:
        tree.goals[goal_id].loop_held = False
        yield tree, project_goal(tree, goal_id)


def loop_view(layout: Layout, goal_id: str) -> GoalView:
    with loop_tree(layout, goal_id) as (_, view):
        return view
