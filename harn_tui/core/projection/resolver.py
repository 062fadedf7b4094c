"""Memoized work projection across the tree: a dependency's state is computed once per projection."""

from __future__ import annotations

from harn_tui.core.projection.work import WorkView, project_work_item
from harn_tui.core.tree import Tree


class WorkResolver:
    """Projects work items on demand, resolving dependencies first (a cycle or a missing item is unmet)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._views: dict[str, WorkView] = {}
        self._visiting: set[str] = set()

    def view(self, work_id: str) -> WorkView | None:
        if work_id in self._views:
            return self._views[work_id]
        work = self.tree.work.get(work_id)
        if work is None or work_id in self._visiting:
            return None
        self._visiting.add(work_id)
        try:
            dependency_states: dict[str, str] = {}
            if work.intent is not None:
                for dependency in work.intent.dependencies:
                    dep_view = self.view(dependency)
                    dependency_states[dependency] = dep_view.state if dep_view is not None else "missing"
            view = project_work_item(work, dependency_states, self.tree.runs, self.tree.approvals)
        finally:
            self._visiting.discard(work_id)
        self._views[work_id] = view
        return view

    def state(self, work_id: str) -> str:
        view = self.view(work_id)
        return view.state if view is not None else "missing"

    def closure(self, root: str | None) -> list[str]:
        """The root and its transitive dependencies, root first, each once."""
        if root is None:
            return []
        order: list[str] = []
        seen: set[str] = set()
        stack = [root]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            order.append(current)
            work = self.tree.work.get(current)
            if work is not None and work.intent is not None:
                stack.extend(reversed(work.intent.dependencies))
        return order
