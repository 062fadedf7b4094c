"""The goal graph flattened into display rows: the active DAG once per item, then superseded generations.

A dependency reached a second time is emitted as a `shared` row pointing back at the item shown first, so
a shared dependency is marked rather than silently duplicated. Standalone work (the console's `STANDALONE`
row) is a flat list. Pure: a function of one `GoalView`.
"""

from __future__ import annotations

from dataclasses import dataclass

from harn_tui.console.views import STANDALONE
from harn_tui.core.projection import GoalView, WorkView

RowKind = str  # "heading" | "item" | "shared" | "note"


@dataclass(frozen=True)
class GraphRow:
    """One line of the graph panel. `key` is stable across refreshes so the cursor can follow it."""

    key: str
    kind: RowKind
    text: str
    prefix: str = ""
    work_id: str | None = None
    active: bool = True
    is_root: bool = False
    generation: int | None = None
    view: WorkView | None = None


def graph_rows(goal: GoalView) -> list[GraphRow]:
    if goal.id == STANDALONE:
        return _standalone_rows(goal)
    rows: list[GraphRow] = [_active_heading(goal)]
    if goal.active_root is None:
        rows.append(GraphRow("note:no-root", "note", "no active graph yet: the mission awaits its first plan"))
    else:
        rows.extend(_dag_rows(goal))
    rows.extend(_superseded_rows(goal))
    return rows


def _standalone_rows(goal: GoalView) -> list[GraphRow]:
    """Standalone work has no graph: a heading, then each item that needs a human, in id order."""
    rows = [
        GraphRow(
            "heading:standalone", "heading", f"standalone work · {len(goal.work)} need a human · no goal", generation=0
        )
    ]
    rows += [GraphRow(f"item:{w.id}", "item", w.title, work_id=w.id, view=w, generation=0) for w in goal.work]
    return rows


def _active_heading(goal: GoalView) -> GraphRow:
    label = f"active generation {goal.generation}"
    if goal.active_root:
        label += f" · root {goal.active_root}"
    return GraphRow("heading:active", "heading", label, generation=goal.generation)


def _dag_rows(goal: GoalView) -> list[GraphRow]:
    views = {w.id: w for w in goal.work}
    rows: list[GraphRow] = []
    shown: set[str] = set()

    def visit(work_id: str, parent: str | None, lead: str, branch: str) -> None:
        view = views.get(work_id)
        if work_id in shown:
            rows.append(
                GraphRow(
                    f"shared:{parent}>{work_id}",
                    "shared",
                    f"{work_id} (shared dependency, shown above)",
                    prefix=lead + branch,
                    work_id=work_id,
                    view=view,
                    generation=goal.generation,
                )
            )
            return
        shown.add(work_id)
        title = view.title if view is not None else f"{work_id} (missing)"
        rows.append(
            GraphRow(
                f"item:{work_id}",
                "item",
                title,
                prefix=lead + branch,
                work_id=work_id,
                view=view,
                is_root=parent is None,
                generation=goal.generation,
            )
        )
        dependencies = list(view.dependencies) if view is not None else []
        child_lead = lead + ("" if parent is None else ("   " if branch == "└─ " else "│  "))
        for index, dependency in enumerate(dependencies):
            last = index == len(dependencies) - 1
            visit(dependency, work_id, child_lead, "└─ " if last else "├─ ")

    assert goal.active_root is not None
    visit(goal.active_root, None, "", "")
    return rows


def generations(goal: GoalView) -> list[tuple[int, str | None, list[str]]]:
    """(generation, plan id that created it or None for the original graph, its work ids) in order."""
    applied = [p for p in goal.plans if p.status in ("applied", "completed") and p.root_work_id]
    planned = {work_id for plan in applied for work_id in plan.work_ids}
    original = [w for w in goal.governed_work_ids if w not in planned]
    found: list[tuple[int, str | None, list[str]]] = [(0, None, original)]
    seen = set(original)
    for number, plan in enumerate(applied, start=1):
        ids = [w for w in plan.work_ids if w not in seen]
        seen.update(ids)
        found.append((number, plan.id, ids))
    return found


def _superseded_rows(goal: GoalView) -> list[GraphRow]:
    views = {w.id: w for w in goal.work}
    active = set(goal.active_ids)
    rows: list[GraphRow] = []
    for number, plan_id, work_ids in generations(goal):
        gone = [w for w in work_ids if w not in active]
        if not gone:
            continue
        origin = f"plan {plan_id}" if plan_id else "the original graph"
        rows.append(
            GraphRow(
                f"heading:gen{number}",
                "heading",
                f"superseded generation {number} · from {origin}",
                active=False,
                generation=number,
            )
        )
        for index, work_id in enumerate(gone):
            view = views.get(work_id)
            rows.append(
                GraphRow(
                    f"item:{work_id}",
                    "item",
                    view.title if view else work_id,
                    prefix="└─ " if index == len(gone) - 1 else "├─ ",
                    work_id=work_id,
                    view=view,
                    active=False,
                    generation=number,
                )
            )
    return rows
