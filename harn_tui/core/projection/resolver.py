"""Memoized work projection across the tree: a dependency's state is computed once per projection."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from harn_tui.core.projection.cache import WorkEntry, cache_for
from harn_tui.core.projection.work import WorkView, project_work_item
from harn_tui.core.tree import Tree


class WorkResolver:
    """Projects work items on demand, resolving dependencies first (a cycle or a missing item is unmet).

    Views are reused from the tree's projection cache when nothing they were folded from has changed; a view
    whose dependencies ran into a cycle depends on the order of the walk and is never cached.
    """

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._cache = cache_for(tree)
        self._views: dict[str, WorkView] = {}
        self._entries: dict[str, WorkEntry] = {}
        self._visiting: set[str] = set()
        self._cycle_hits = 0

    def view(self, work_id: str) -> WorkView | None:
        found = self._views.get(work_id)
        if found is not None:
            return found
        work = self.tree.work.get(work_id)
        if work is None:
            return None
        if work_id in self._visiting:
            self._cycle_hits += 1
            return None
        hits = self._cycle_hits
        dependencies = work.intent.dependencies if work.intent is not None else ()
        states: tuple[str, ...] = ()
        if dependencies:
            self._visiting.add(work_id)
            try:
                states = tuple(self.state(dependency) for dependency in dependencies)
            finally:
                self._visiting.discard(work_id)
        stamp = self.tree.work_stamps.get(work_id, 0)
        entry = self._cache.work.get(work_id)
        if entry is not None and entry.states == states and entry.current(work, stamp):
            view = entry.view
            self._entries[work_id] = entry
        else:
            dependency_states = dict(zip(dependencies, states, strict=True))
            view = project_work_item(work, dependency_states, self.tree.runs, self.tree.approvals)
            if self._cycle_hits == hits:
                entry = WorkEntry(work, states, stamp, view, self.tree.runs)
                self._cache.work[work_id] = self._entries[work_id] = entry
        self._views[work_id] = view
        return view

    def flagged(self, view: WorkView, active: bool) -> WorkView:
        """`view` with its `active` flag for the goal being projected (a cached view's flagged copy is reused)."""
        if view.active == active:
            return view
        entry = self._cache.work.get(view.id)
        if entry is not None and entry.view is view:
            return entry.with_active(active)
        return replace(view, active=active)

    @property
    def cycle_hits(self) -> int:
        """How often a walk met an item already on its path (only a damaged tree has dependency cycles)."""
        return self._cycle_hits

    def seed(self, views: dict[str, WorkView], stale: set[str]) -> None:
        """Take `views` (a goal memo's) as already resolved, except the `stale` items, which are re-folded."""
        if not self._views:
            merged = dict(views)
            for work_id in stale:
                merged.pop(work_id, None)
            self._views = merged
            return
        for work_id, view in views.items():
            if work_id not in stale:
                self._views.setdefault(work_id, view)

    def forget(self, work_id: str) -> None:
        """Drop a resolved view so the next `view` re-folds it (a dependency's state changed)."""
        self._views.pop(work_id, None)
        self._entries.pop(work_id, None)

    def entries(self, work_ids: Iterable[str]) -> dict[str, WorkEntry | None]:
        """The cache entry each of `work_ids` was resolved with (None: missing, or not cacheable)."""
        entries = self._entries
        return {work_id: entries.get(work_id) for work_id in work_ids}

    def state(self, work_id: str) -> str:
        view = self.view(work_id)
        return view.state if view is not None else "missing"

    def closure(self, root: str | None) -> list[str]:
        """The root and its transitive dependencies, root first, each once."""
        return closure_of(root, self.dependencies) if root is not None else []

    def dependencies(self, work_id: str) -> Sequence[str]:
        """What a loaded item's intent depends on (nothing for an item not loaded or without a readable intent)."""
        work = self.tree.work.get(work_id)
        return work.intent.dependencies if work is not None and work.intent is not None else ()


def closure_of(root: str, dependencies: Callable[[str], Sequence[str]]) -> list[str]:
    """`root` and its transitive `dependencies`, depth first, root first, each once."""
    order: list[str] = []
    seen: set[str] = set()
    stack = [root]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        order.append(current)
        stack.extend(reversed(dependencies(current)))
    return order
