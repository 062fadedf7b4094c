"""Views reused across projections of one loaded tree until the records they were folded from change.

A console re-projects a goal after every change to any of its files; without reuse each re-projection
re-folds every work item and plan of the goal. A cached work view remembers what it was folded from: the
`WorkFiles`, its intent and log objects, the log's change count (`JsonlTail.changes`), the stamp the `Tree`
bumps when a run or approval the work names is re-read, and its dependencies' states. Anything different is
re-folded, so a stale view is never served, even after a log was refreshed outside `Tree.refresh_path` or
a caller flipped `RunFiles.live` of an open run itself.
A goal's last projection is kept with the entries it used; re-projecting it re-folds only the items whose
entries no longer match, and their dependents while states keep changing.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from harn_tui.core.projection.plans import PlanView, project_plan
from harn_tui.core.projection.work import WorkView
from harn_tui.core.records import GoalIntent
from harn_tui.core.tree import Tree
from harn_tui.core.tree_files import PlanFiles, RunFiles, WorkFiles

if TYPE_CHECKING:
    from harn_tui.core.projection.goal_view import GoalView


class WorkEntry:
    """One cached work view, what it was folded from, its active-flagged twin and its fingerprint fragment."""

    __slots__ = ("changes", "fragment", "intent", "log", "open_runs", "stamp", "states", "twin", "view", "work")

    def __init__(
        self, work: WorkFiles, states: tuple[str, ...], stamp: int, view: WorkView, runs: Mapping[str, RunFiles]
    ) -> None:
        self.work = work
        self.intent = work.intent
        self.log = work.log
        self.changes = work.log.changes
        self.stamp = stamp
        self.states = states
        self.view = view
        self.twin: WorkView | None = None
        self.fragment: str | None = None
        self.open_runs = tuple(
            (run, run.live)
            for attempt in view.attempts
            if attempt.status in ("running", "lost") and (run := runs.get(attempt.run_id)) is not None
        )
        """Runs of attempts without an end and their liveness when folded: callers flip `RunFiles.live`."""

    def current(self, work: WorkFiles | None, stamp: int) -> bool:
        """True while `work` is the same files, unchanged since this view was folded."""
        return (
            work is self.work
            and work.intent is self.intent
            and work.log is self.log
            and self.log.changes == self.changes
            and stamp == self.stamp
            and (not self.open_runs or all(run.live == live for run, live in self.open_runs))
        )

    def with_active(self, active: bool) -> WorkView:
        """The view with `active` set, made once per entry (goals mark their active closure)."""
        if self.view.active == active:
            return self.view
        if self.twin is None:
            self.twin = replace(self.view, active=active)
        return self.twin


@dataclass(frozen=True)
class GoalShape:
    """A goal's graph walk: active closure (root first), governed items, and the order `work[]` lists them."""

    active_ids: list[str]
    governed: list[str]
    ordered: list[str]
    active_set: frozenset[str]
    reach: tuple[str, ...]
    """Governed items and all their transitive dependencies: everything the goal's work views fold."""
    dependents: dict[str, tuple[str, ...]]
    governed_index: dict[str, int] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, int] = {}
        for position, work_id in enumerate(self.governed):
            index.setdefault(work_id, position)
        object.__setattr__(self, "governed_index", index)

    def with_dependents(self, changed: Iterable[str]) -> set[str]:
        """`changed` and every item of the reach that depends on one of them, transitively."""
        stale: set[str] = set()
        stack = list(changed)
        while stack:
            work_id = stack.pop()
            if work_id not in stale:
                stale.add(work_id)
                stack.extend(self.dependents.get(work_id, ()))
        return stale


class GoalMemo:
    """A goal's last projection and the work entry each item of its reach was folded with (None: no view)."""

    __slots__ = ("_positions", "entries", "intent", "plans", "shape", "view", "views")

    def __init__(
        self,
        intent: GoalIntent,
        plans: tuple[PlanView, ...],
        shape: GoalShape,
        entries: dict[str, WorkEntry | None],
        view: GoalView,
    ) -> None:
        self.intent = intent
        self.plans = plans
        self.shape = shape
        self.entries = entries
        self.views = {work_id: entry.view for work_id, entry in entries.items() if entry is not None}
        self.view = view
        self._positions: dict[str, int] | None = None

    @property
    def positions(self) -> dict[str, int]:
        """Where each item sits in the remembered view's `work[]`."""
        if self._positions is None:
            self._positions = {item.id: position for position, item in enumerate(self.view.work)}
        return self._positions

    def changed(self, tree: Tree) -> list[str]:
        """Items whose records were re-read, refreshed or replaced since this projection."""
        found: list[str] = []
        work_map, stamps = tree.work, tree.work_stamps
        for work_id, entry in self.entries.items():
            work = work_map.get(work_id)
            if entry is None:
                if work is not None:
                    found.append(work_id)
            elif not entry.current(work, stamps.get(work_id, 0)):
                found.append(work_id)
        return found


class ProjectionCache:
    """Per-tree reuse of work views, plan views, goal shapes, goal projections and graph fingerprints."""

    def __init__(self) -> None:
        self.work: dict[str, WorkEntry] = {}
        self.shapes: dict[str, tuple[tuple[Any, ...], GoalShape]] = {}
        self.plans: dict[str, tuple[tuple[Any, ...], PlanView, tuple[object, ...]]] = {}
        self.fingerprints: dict[str, tuple[tuple[Any, ...], str]] = {}
        self.goals: dict[str, GoalMemo] = {}

    def plan_view(self, plan: PlanFiles, loop_held: bool) -> PlanView:
        """The plan's view, re-projected when its files, its log or the goal loop's lease changed."""
        log = plan.log
        rounds = tuple((r.candidate, r.review) for r in plan.revisions.values())
        key = (
            id(plan),
            id(plan.request),
            id(plan.proposal),
            id(plan.candidate),
            id(plan.review),
            plan.proposal_sha256,
            id(log),
            log.changes,
            loop_held,
            tuple((id(c), id(r)) for c, r in rounds),
        )
        found = self.plans.get(plan.id)
        if found is not None and found[0] == key:
            return found[1]
        view = project_plan(plan, loop_held)
        self.plans[plan.id] = (key, view, (plan, plan.request, plan.proposal, plan.candidate, plan.review, log, rounds))
        return view


_CACHES: weakref.WeakKeyDictionary[Tree, ProjectionCache] = weakref.WeakKeyDictionary()


def cache_for(tree: Tree) -> ProjectionCache:
    """The projection cache of `tree` (dropped with it)."""
    cache = _CACHES.get(tree)
    if cache is None:
        cache = _CACHES[tree] = ProjectionCache()
    return cache
