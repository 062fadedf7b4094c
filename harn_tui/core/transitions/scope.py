"""Where a transition acts: the lease that governs its address and the durable state re-read under it.

Work that a goal governs is guarded by the goal lease (`supervisors/<goal>/lease`); standalone work by its
own `work/<id>/lease`. Existence is checked before a lease is taken, so a missing address creates nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harn_tui.core.errors import CorruptJournal, NotFound
from harn_tui.core.held import Check, scoped_tree
from harn_tui.core.ids import check_id, is_valid_id
from harn_tui.core.journal import read_bytes, read_record
from harn_tui.core.layout import Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.projection import GoalView, WorkResolver, WorkView, project_goal
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.records import AttemptFinished, GoalIntent
from harn_tui.core.rules import governing_goal, provenance_goal
from harn_tui.core.transitions.lost import repair_lost_attempts
from harn_tui.core.tree import Tree
from harn_tui.core.tree_files import GoalFiles, PlanFiles, WorkFiles

OWNER_RETRIES = 3


def _read_json(path: Path) -> object:
    try:
        return json.loads(read_bytes(path))
    except (OSError, ValueError, CorruptJournal):
        return None


def owning_goal(layout: Layout, work_id: str, *, fail_closed: bool = False) -> str | None:
    """The goal that governs `work_id`: the goal its plan provenance names, else the first goal (by id) whose
    original root closure holds it; None for standalone work. Reads intents only, no projection.

    With `fail_closed` (writers), a goal whose goal.json exists but is unreadable (or is gone while its plans are
    there) may govern the work: CorruptJournal naming it, instead of treating the work as standalone."""
    intent = _read_json(layout.work(work_id) / "intent.json")
    named: str | None = None
    if isinstance(intent, dict):
        source = intent.get("source")
        if isinstance(source, dict):
            named = provenance_goal(str(source.get("kind")), str(source.get("ref") or ""))
    if named is not None and not (is_valid_id(named) and os.path.lexists(layout.goal(named))):
        named = None
    closures: dict[str, set[str]] = {}
    unreadable: list[str] = []

    def holders() -> Iterator[str]:  # read lazily: the walk stops at the first goal holding the work
        for goal_id in _goal_ids(layout):
            root, problem = _goal_root(layout, goal_id)
            if problem is not None:
                unreadable.append(problem)
            if root is not None and work_id in _closure(layout, root, closures):
                yield goal_id

    owner = governing_goal(named, holders())
    if owner is None and fail_closed and unreadable:
        raise CorruptJournal(f"{unreadable[0]}; so whether that goal governs work {work_id} is unknown")
    return owner


def _goal_root(layout: Layout, goal_id: str) -> tuple[str | None, str | None]:
    """(original root work id, why the goal's own record cannot say which work it governs). The record is
    validated, not only parsed: a damaged goal.json that still parses (a renamed key, a root that names no
    work) is no evidence that its root is standalone. An aborted creation (no goal.json, no plan) is neither."""
    directory = layout.goal(goal_id)
    path = directory / "goal.json"
    if os.path.islink(directory):
        return None, f"{directory}: a symbolic link"
    if not os.path.lexists(path) and not _has_entries(directory / "plans"):
        return None, None
    try:
        goal = read_record(path, GoalIntent)
    except CorruptJournal as error:  # the root it names, if any, still counts (readers show work with its goal)
        raw = _read_json(path)
        root = raw.get("root_work_id") if isinstance(raw, dict) else None
        return (root if isinstance(root, str) else None), error.message
    root = goal.root_work_id
    if goal.id != goal_id:
        return root, f"{path}: id {goal.id!r} does not match its directory"
    if root is not None and not os.path.lexists(layout.work(root)):
        return root, f"{path}: its root work {root} does not exist"
    return root, None


def _has_entries(directory: Path) -> bool:
    """True when `directory` holds anything (an aborted goal creation has no plan yet)."""
    try:
        with os.scandir(directory) as entries:
            return any(True for _ in entries)
    except OSError:
        return os.path.lexists(directory)


def _goal_ids(layout: Layout) -> list[str]:
    try:
        names = layout.supervisors.iterdir()
        return sorted(p.name for p in names if is_valid_id(p.name) and (p.is_dir() or p.is_symlink()))
    except FileNotFoundError:
        return []


def _closure(layout: Layout, root: str, cache: dict[str, set[str]]) -> set[str]:
    if root in cache:
        return cache[root]
    seen: set[str] = set()
    stack = [root]
    while stack:
        current = stack.pop()
        if current in seen or not is_valid_id(current):
            continue
        seen.add(current)
        intent = _read_json(layout.work(current) / "intent.json")
        dependencies = intent.get("dependencies") if isinstance(intent, dict) else None
        if isinstance(dependencies, list):
            stack.extend(str(d) for d in dependencies)
    cache[root] = seen
    return seen


def require_goal(layout: Layout, goal_id: str) -> None:
    check_id(goal_id, "goal id")
    _require_plain(layout.goal(goal_id))
    if not layout.goal(goal_id).is_dir():
        raise NotFound(f"goal {goal_id} does not exist")


def require_work(layout: Layout, work_id: str) -> None:
    check_id(work_id, "work id")
    _require_plain(layout.work(work_id))
    if not layout.work(work_id).is_dir():
        raise NotFound(f"work {work_id} does not exist")


def _require_plain(directory: Path) -> None:
    """A goal or work directory that is a symbolic link (or no directory) is damage (5): its lease would be taken
    through the link, outside the tree, before anything is read."""
    problem = directory_problem(directory) or directory_problem(directory.parent)
    if problem is not None:
        raise CorruptJournal(problem)


def readable_goal(tree: Tree, goal_id: str) -> GoalView:
    """The goal's projection, or CorruptJournal (5) when its records are unreadable."""
    view = project_goal(tree, goal_id)
    if view.state == "corrupt":
        raise CorruptJournal(f"goal {goal_id} is corrupt: {view.reason}")
    return view


@dataclass
class GoalScope:
    """One goal re-read under its lease."""

    layout: Layout
    tree: Tree
    goal: GoalView

    @property
    def files(self) -> GoalFiles:
        return self.tree.goals[self.goal.id]

    def plan_files(self, plan_id: str) -> PlanFiles:
        return self.files.plans[plan_id]

    def repair_lost(self) -> list[AttemptFinished]:
        """Record every lost attempt of the goal's governed work; call only right before appending."""
        return repair_lost_attempts(self.tree, self.goal.governed_work_ids)


@contextlib.contextmanager
def goal_scope(layout: Layout, goal_id: str) -> Iterator[GoalScope]:
    """Hold the goal lease and yield the goal freshly loaded and projected (NotFound 4, CorruptJournal 5)."""
    require_goal(layout, goal_id)
    with hold_lease(layout.goal(goal_id) / "lease", f"goal {goal_id}"), scoped_tree(layout, goal_id) as tree:
        yield GoalScope(layout, tree, readable_goal(tree, goal_id))


@dataclass
class WorkScope:
    """One work item re-read under the lease that governs it, projected in its goal's context if it has one."""

    layout: Layout
    tree: Tree
    work_id: str
    goal: GoalView | None
    view: WorkView

    @property
    def goal_id(self) -> str | None:
        return self.goal.id if self.goal is not None else None

    @property
    def files(self) -> WorkFiles:
        return self.tree.work[self.work_id]

    def repair_lost(self) -> list[AttemptFinished]:
        """Record every lost attempt under this lease; call only right before appending."""
        return repair_lost_attempts(self.tree, governed_by_lease(self.tree, self.work_id, self.goal_id))


def governed_by_lease(tree: Tree, work_id: str, goal_id: str | None) -> list[str]:
    """The work whose lost attempts the holder of this lease may record: the goal's loaded work, else the item."""
    return list(tree.work) if goal_id is not None else [work_id]


def _work_view(tree: Tree, work_id: str, goal: GoalView | None) -> WorkView:
    item = goal.work_item(work_id) if goal is not None else None
    if item is not None:
        return item
    view = WorkResolver(tree).view(work_id)
    if view is None or view.problem is not None:
        why = view.problem if view is not None else "unreadable"
        raise CorruptJournal(f"work {work_id} is corrupt: {why}")
    return view


@contextlib.contextmanager
def work_lease(
    layout: Layout, work_id: str, goal_id: str | None = None, check: Check = "all"
) -> Iterator[tuple[Tree, str | None]]:
    """Hold the lease governing `work_id` (its goal's, else its own) and yield the tree re-read under it with
    the owning goal's id; no projection, so a writer can still record what it must on a damaged goal. A writer
    that reads less than the goal (an attempt's finish) passes a narrower `check` (see `held.scoped_tree`).

    `goal_id` names the goal explicitly (the supervisor knows it); otherwise the owner is looked up, and looked
    up again under the lease in case a goal adopted the work in between.
    """
    require_work(layout, work_id)
    if goal_id is not None:
        require_goal(layout, goal_id)
    for _ in range(OWNER_RETRIES):
        owner = goal_id or owning_goal(layout, work_id, fail_closed=True)
        lease = layout.goal(owner) / "lease" if owner else layout.work(work_id) / "lease"
        what = f"goal {owner}" if owner else f"work {work_id}"
        with hold_lease(lease, what):
            if goal_id is None and owning_goal(layout, work_id, fail_closed=True) != owner:
                continue
            with owner_tree(layout, work_id, owner, check) as tree:
                if work_id not in tree.work:
                    tree.load_work_closure([work_id])
                yield tree, owner
            return
    raise CorruptJournal(f"work {work_id}: its owning goal kept changing while the lease was taken")


@contextlib.contextmanager
def owner_tree(layout: Layout, work_id: str, owner: str | None, check: Check = "all") -> Iterator[Tree]:
    """The owning goal's scoped tree (kept between transitions), else the standalone item's closure."""
    if owner is None:
        yield Tree.load_standalone(layout, work_id)
        return
    with scoped_tree(layout, owner, check) as tree:
        yield tree


@contextlib.contextmanager
def work_scope(layout: Layout, work_id: str, goal_id: str | None = None) -> Iterator[WorkScope]:
    """Hold the lease governing `work_id` and yield it projected (NotFound 4, CorruptJournal 5)."""
    with work_lease(layout, work_id, goal_id) as (tree, owner):
        goal = readable_goal(tree, owner) if owner is not None else None
        yield WorkScope(layout, tree, work_id, goal, _work_view(tree, work_id, goal))
