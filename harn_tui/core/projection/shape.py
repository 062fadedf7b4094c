"""A goal's graph walk (active closure, governed items, their order and reach), cached per tree."""

from __future__ import annotations

from harn_tui.core.projection.cache import GoalShape, ProjectionCache
from harn_tui.core.projection.plans import PlanView
from harn_tui.core.projection.resolver import WorkResolver
from harn_tui.core.tree import Tree


def goal_shape(
    tree: Tree,
    cache: ProjectionCache,
    resolver: WorkResolver,
    goal_id: str,
    original_root: str | None,
    active_root: str | None,
    applied: list[PlanView],
) -> GoalShape:
    """The goal's graph walk, reused until a work intent is (re)read or the applied plans change."""
    key = (tree.intent_version, len(tree.work), original_root, active_root, tuple(p.work_ids for p in applied))
    found = cache.shapes.get(goal_id)
    if found is not None and found[0] == key:
        return found[1]
    active_ids = resolver.closure(active_root)
    governed = governed_ids(resolver, original_root, applied)
    active_set = frozenset(active_ids)
    ordered = [*active_ids, *(w for w in governed if w not in active_set)]
    reach, dependents = _reach(tree, [*governed, *active_ids])
    shape = GoalShape(active_ids, governed, ordered, active_set, reach, dependents)
    cache.shapes[goal_id] = (key, shape)
    return shape


def governed_ids(resolver: WorkResolver, original_root: str | None, applied: list[PlanView]) -> list[str]:
    """The original closure followed by every applied plan's `work_ids` in sequence order, each once."""
    governed = resolver.closure(original_root)
    seen = set(governed)
    for plan in applied:
        for work_id in plan.work_ids:
            if work_id not in seen:
                seen.add(work_id)
                governed.append(work_id)
    return governed


def _reach(tree: Tree, roots: list[str]) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """Every item reachable from `roots` through dependencies, and who depends on whom among them."""
    seen: dict[str, None] = {}
    dependents: dict[str, list[str]] = {}
    stack = list(roots)
    while stack:
        work_id = stack.pop()
        if work_id in seen:
            continue
        seen[work_id] = None
        work = tree.work.get(work_id)
        if work is not None and work.intent is not None:
            for dependency in work.intent.dependencies:
                dependents.setdefault(dependency, []).append(work_id)
                stack.append(dependency)
    return tuple(seen), {dependency: tuple(users) for dependency, users in dependents.items()}
