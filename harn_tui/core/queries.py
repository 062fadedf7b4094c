"""Read-side documents for the CLI and console: goals, work, plans, approvals, pending decisions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harn_tui.core.errors import CorruptJournal, NotFound
from harn_tui.core.ids import check_id
from harn_tui.core.journal import read_json
from harn_tui.core.layout import Layout
from harn_tui.core.manifest import proof_of
from harn_tui.core.projection import GoalView, PlanView, WorkResolver, WorkView, project_goal
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.rules import governing_goal, provenance_goal
from harn_tui.core.transitions.scope import owning_goal
from harn_tui.core.tree import Tree, bulk_allocation
from harn_tui.core.workspace_diff import committed_diff


@dataclass(frozen=True)
class TreeView:
    """Every goal projected once, plus the owner goal of each work item."""

    tree: Tree
    goals: tuple[GoalView, ...]
    owner: dict[str, str]

    def goal(self, goal_id: str) -> GoalView | None:
        return next((g for g in self.goals if g.id == goal_id), None)


def project_tree(tree: Tree) -> TreeView:
    """Every goal projected. The views are long-lived and acyclic, like the tree: the collector is paused while
    they are built (and they are frozen when there are many), as `Tree.load` does for the records."""
    resolver = WorkResolver(tree)
    with bulk_allocation(freeze=True):
        goals = tuple(project_goal(tree, goal_id, resolver) for goal_id in sorted(tree.goals))
    owner: dict[str, str] = {}
    for goal in goals:
        for work_id in goal.governed_work_ids:
            owner.setdefault(work_id, goal.id)
    return TreeView(tree, goals, owner)


def goal_owner_of(tree: Tree, work_id: str) -> str | None:
    """The goal governing `work_id` (`rules.governing_goal`), over the projected graphs."""
    work = tree.work.get(work_id)
    named = provenance_goal(work.intent.source.kind, work.intent.source.ref) if work and work.intent else None

    def holders() -> Iterator[str]:  # projected only when the provenance names no goal of the tree
        yield from (goal.id for goal in project_tree(tree).goals if work_id in goal.governed_work_ids)

    return governing_goal(named if named in tree.goals else None, holders())


def goals_sharing(tree: Tree, work_id: str, governing: str | None) -> list[str]:
    """The goals other than `governing` whose graphs hold `work_id` too (two goals made on one root, say): they
    see its state, but `governing` decides for it."""
    return [goal.id for goal in project_tree(tree).goals if goal.id != governing and work_id in goal.governed_work_ids]


TORN = "torn final line (no trailing newline)"


def with_torn_logs(tree: Tree, goal: GoalView) -> GoalView:
    """The goal with every torn log of its plans and governed work added to `problems` (SPEC 2: a reader
    ignores a torn final line and reports it; it does not make the goal corrupt)."""
    files = tree.goals.get(goal.id)
    if files is None or goal.state == "corrupt":
        return goal
    logs = [(plan.log.path, plan.log.torn) for plan in files.ordered_plans()]
    logs += [(tree.work[w].log.path, tree.work[w].log.torn) for w in goal.governed_work_ids if w in tree.work]
    torn = tuple({"path": str(path), "problem": TORN} for path, is_torn in logs if is_torn)
    return replace(goal, problems=goal.problems + torn) if torn else goal


def show_goal(layout: Layout, goal_id: str) -> GoalView:
    """Goal-scoped: reads only this goal and the work it governs. NotFound (4) or CorruptJournal (5)."""
    return shown_goal(layout, goal_id)[1]


def shown_goal(layout: Layout, goal_id: str) -> tuple[Tree, GoalView]:
    """`show_goal` with the tree it read."""
    tree = scoped_goal_tree(layout, goal_id)
    return tree, with_torn_logs(tree, project_goal(tree, goal_id))


def goal_document(layout: Layout, goal_id: str) -> tuple[dict[str, Any], Tree]:
    """`supervisor show GOAL`: the readable goal's document, and the tree it was read from."""
    tree, view = shown_goal(layout, goal_id)
    return require_readable(view).to_json(), tree


def scoped_goal_tree(layout: Layout, goal_id: str) -> Tree:
    """The goal and the work it governs, read for one addressed goal: UsageError (2), NotFound (4) or
    CorruptJournal (5) for a goal directory that is a link."""
    check_id(goal_id, "goal id")
    _require_plain(layout.goal(goal_id))
    if not (layout.goal(goal_id)).is_dir():
        raise NotFound(f"goal {goal_id} does not exist")
    return Tree.load_scoped(layout, goal_id)


def _require_plain(directory: Path) -> None:
    """An addressed goal or work directory that is a link (even a dangling one) or no directory is damage (5)."""
    problem = directory_problem(directory)
    if problem is not None:
        raise CorruptJournal(problem)


def require_readable(view: GoalView) -> GoalView:
    if view.state == "corrupt":
        raise CorruptJournal(f"goal {view.id} is corrupt: {view.reason}")
    return view


def list_goals(layout: Layout) -> dict[str, Any]:
    return goals_document(layout)[0]


def goals_document(layout: Layout) -> tuple[dict[str, Any], Tree]:
    """`supervisor list`: every goal's summary and every goal's problems, and the tree they were read from."""
    tree = Tree.load(layout)
    view = project_tree(tree)
    goals = [_goal_summary(g) for g in view.goals]
    problems = [p for g in view.goals for p in with_torn_logs(tree, g).problems]
    return {"goals": goals, "problems": problems}, tree


def _goal_summary(goal: GoalView) -> dict[str, Any]:
    document = goal.to_json()
    return {
        key: document[key]
        for key in (
            "id",
            "title",
            "state",
            "next_action",
            "reason",
            "root_work_id",
            "generation",
            "attempts_used",
            "attempts_remaining",
            "replans_used",
            "replans_remaining",
            "milestones_completed",
            "pending_plan_id",
            "attention_plan_id",
            "latest_plan_status",
        )
    }


def plan_view(goal: GoalView, plan_id: str) -> PlanView:
    check_id(plan_id, "plan id")
    plan = goal.plan(plan_id)
    if plan is None:
        raise NotFound(f"plan {plan_id} does not exist in goal {goal.id}")
    return plan


def plan_document(layout: Layout, goal: GoalView, plan: PlanView) -> dict[str, Any]:
    directory = layout.plan(goal.id, plan.id)
    return {
        **plan.to_json(),
        "request": plan.request.model_dump(mode="json"),
        "planner_input": read_json(directory / "planner-input.json"),
        "proposal": plan.proposal.model_dump(mode="json") if plan.proposal else None,
        "review": plan.review.model_dump(mode="json") if plan.review else None,
        "revisions": [revision.to_json() for revision in plan.revisions],
        "rationale": plan.rationale,
        "events": [e.model_dump(mode="json", by_alias=True) for e in plan.events],
    }


def load_work_view(layout: Layout, work_id: str) -> tuple[Tree, WorkView, str | None]:
    """(tree, view, owning goal id) for one work item, projected in its goal's context when it has one.

    The addressed work unreadable is CorruptJournal (5); work whose goal is unreadable still shows, with its goal.
    """
    check_id(work_id, "work id")
    _require_plain(layout.work(work_id))
    if not layout.work(work_id).is_dir():
        raise NotFound(f"work {work_id} does not exist")
    tree = Tree.load(layout)
    if work_id not in tree.work:  # an aborted creation: whole-tree reads leave it out; addressed, it is shown
        tree.load_work(work_id)
    goal_id = goal_owner_of(tree, work_id) or owning_goal(layout, work_id)
    if goal_id is not None and goal_id in tree.goals:
        goal = project_goal(tree, goal_id)
        item = goal.work_item(work_id)
        if item is not None:
            return tree, item, goal_id
    view = WorkResolver(tree).view(work_id)
    if view is None or view.problem is not None:
        raise CorruptJournal(f"work {work_id} is corrupt: {view.problem if view is not None else 'unreadable'}")
    return tree, view, goal_id


def work_document(tree: Tree, view: WorkView, goal_id: str | None) -> dict[str, Any]:
    """`work show`: each attempt carries the `workspace` its proof recorded (null without one)."""
    work = tree.work[view.id]
    return {
        **view.to_json(),
        "goal_id": goal_id,
        "also_goal_ids": goals_sharing(tree, view.id, goal_id),
        "problem": view.problem,
        "intent": work.intent.model_dump(mode="json") if work.intent else None,
        "events": [e.model_dump(mode="json", by_alias=True) for e in work.events],
        "attempts": [{**a.to_json(), "workspace": _workspace_json(tree, a.run_id)} for a in view.attempts],
    }


def _workspace_json(tree: Tree, run_id: str) -> dict[str, Any] | None:
    proof = proof_of(run_id, tree.runs, tree.layout.runs)
    return proof.workspace.model_dump(mode="json") if proof is not None and proof.workspace is not None else None


def work_diff(layout: Layout, work_id: str, run_id: str | None = None) -> dict[str, Any]:
    """`work diff ID [--run RUN]`: `git diff base commit` of that attempt (default: the latest attempt with a git
    workspace) as `{work_id, run_id, workspace, diff}`; no such attempt (or a gone commit) is NotFound."""
    tree, view, _ = load_work_view(layout, work_id)
    runs = [a.run_id for a in view.attempts]
    if run_id is not None and run_id not in runs:
        raise NotFound(f"run {run_id} is not an attempt of work {work_id}")
    for candidate in reversed(runs if run_id is None else [run_id]):
        proof = proof_of(candidate, tree.runs, layout.runs)
        if proof is not None and proof.workspace is not None:
            workspace = proof.workspace
            return {
                "work_id": work_id,
                "run_id": candidate,
                "workspace": workspace.model_dump(mode="json"),
                "diff": committed_diff(workspace),
            }
    if run_id is not None:
        raise NotFound(f"the attempt {run_id} of work {work_id} recorded no git workspace")
    raise NotFound(f"work {work_id} has no attempt with a git workspace")


def list_work(layout: Layout) -> dict[str, Any]:
    return work_list_document(layout)[0]


def work_list_document(layout: Layout) -> tuple[dict[str, Any], Tree]:
    """`work list`, and the tree it was read from."""
    tree = Tree.load(layout)
    view = project_tree(tree)
    resolver = WorkResolver(tree)
    items = []
    for work_id in sorted(tree.work):
        goal_id = view.owner.get(work_id)
        goal = view.goal(goal_id) if goal_id else None
        item = goal.work_item(work_id) if goal else None
        item = item or resolver.view(work_id)
        if item is not None:
            items.append({**item.to_json(), "goal_id": goal_id})
    return {"work": items}, tree


def pending(layout: Layout, with_questions: bool = False) -> dict[str, Any]:
    """Every decision waiting for a human, across goals and standalone work, oldest first. `with_questions`: an
    approval row also carries its request's question (for people; the JSON document has the contract's fields)."""
    return pending_document(layout, with_questions)[0]


def pending_document(layout: Layout, with_questions: bool = False) -> tuple[dict[str, Any], Tree]:
    """`pending`, and the tree it was read from."""
    from harn_tui.core.decisions import decisions_of

    tree = Tree.load(layout)
    view = project_tree(tree)
    resolver = WorkResolver(tree)
    standalone = [
        item
        for work_id in sorted(tree.work)
        if work_id not in view.owner and (item := resolver.view(work_id)) is not None
    ]
    rows = [decision.to_json() for decision in decisions_of(view.goals, standalone)]
    for row in rows if with_questions else []:
        if row["kind"] == "approval":
            approval = tree.approvals.get(row["approval_id"])
            row["question"] = approval.request.question if approval is not None and approval.request else None
    return {"pending": rows}, tree


def approval_document(tree: Tree, approval_id: str) -> dict[str, Any]:
    approval = tree.approvals.get(approval_id)
    if approval is None or approval.request is None:
        raise NotFound(f"approval {approval_id} does not exist")
    return {
        "id": approval_id,
        "status": _approval_status(tree, approval_id),
        "request": approval.request.model_dump(mode="json"),
        "decision": approval.decision.model_dump(mode="json") if approval.decision else None,
        "problem": approval.problem,
    }


def _approval_status(tree: Tree, approval_id: str) -> str:
    """decided; pending while its work is parked on it; else moot (the work was cancelled or moved on)."""
    approval = tree.approvals[approval_id]
    if approval.decision is not None:
        return "decided"
    work_id = approval.request.work_id if approval.request else None
    view = WorkResolver(tree).view(work_id) if work_id and work_id in tree.work else None
    if view is not None and view.state == "awaiting_approval" and view.approval_id == approval_id:
        return "pending"
    return "moot" if view is not None else "pending"


def load_approval_tree(layout: Layout, approval_id: str) -> Tree:
    """The approval, its work item (with dependencies), runs and approvals: enough to tell pending from moot."""
    check_id(approval_id, "approval id")
    if not layout.approval(approval_id).is_dir():
        raise NotFound(f"approval {approval_id} does not exist")
    tree = Tree(layout)
    approval = tree.load_approval(approval_id)
    work_id = approval.request.work_id if approval.request else None
    if work_id and layout.work(work_id).is_dir():
        tree.load_work_closure([work_id])
    return tree


def list_approvals(layout: Layout) -> dict[str, Any]:
    return approvals_document(layout)[0]


def approvals_document(layout: Layout) -> tuple[dict[str, Any], Tree]:
    """`approval list`, and the tree it was read from."""
    tree = Tree.load(layout)
    return {
        "approvals": [
            approval_document(tree, a) for a in sorted(tree.approvals) if tree.approvals[a].request is not None
        ]
    }, tree
