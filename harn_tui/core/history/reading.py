"""Reading a goal over time for the CLI and console: WHEN parsed and selected, the past projected, plans diffed."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from harn_tui.core.clock import iso
from harn_tui.core.errors import CorruptJournal, NotFound, UsageError
from harn_tui.core.history.diff import PlanDiff, plan_diff
from harn_tui.core.history.entries import GoalHistory, goal_history, history_work_ids, instant, instant_key
from harn_tui.core.history.past import tree_at
from harn_tui.core.ids import check_id
from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.queries import plan_view, require_readable, scoped_goal_tree, with_torn_logs
from harn_tui.core.tree import Tree

EVENT_PREFIX = "event:"


@dataclass(frozen=True, slots=True)
class When:
    """A parsed `--at`: the first `count` entries, or every entry at or before `moment`."""

    count: int | None = None
    moment: datetime | None = None


@dataclass(frozen=True)
class GoalOverTime:
    """A loaded goal, its present projection and its history."""

    tree: Tree
    live: GoalView
    history: GoalHistory

    @classmethod
    def of(cls, tree: Tree, live: GoalView) -> GoalOverTime:
        goal = tree.goals[live.id]
        if goal.intent is None:
            raise CorruptJournal(f"goal {live.id} is corrupt: {live.reason}")
        work_ids = history_work_ids(tree, goal, live.governed_work_ids)
        return cls(tree, live, goal_history(tree, live.id, work_ids))

    def view_at(self, position: int) -> GoalView:
        """The goal as it stood right after entry `position` (1-based), torn logs reported as in the present."""
        past = tree_at(self.tree, self.live.id, self.history, position)
        return with_torn_logs(past, project_goal(past, self.live.id))

    def created_position(self) -> int:
        """The position of the `goal.created` entry: a selection shorter than this has no goal yet."""
        return next(k for k, e in enumerate(self.history.entries, start=1) if e.event == "goal.created")


def load_goal_over_time(layout: Layout, goal_id: str) -> GoalOverTime:
    """Goal-scoped, as `supervisor show` reads. NotFound (4); CorruptJournal (5) when goal.json is unreadable."""
    tree = scoped_goal_tree(layout, goal_id)
    return GoalOverTime.of(tree, project_goal(tree, goal_id))


def parse_when(text: str) -> When:
    """`event:K` (ASCII digits) or an ISO 8601 timestamp with an offset; anything else is bad input (2)."""
    if text.startswith(EVENT_PREFIX):
        digits = text[len(EVENT_PREFIX) :]
        if not digits or not digits.isascii() or not digits.isdigit():
            raise UsageError(f"--at {text!r}: event:K needs a whole number K >= 0 (ASCII digits)")
        return When(count=int(digits))
    try:
        moment = instant(text) if text.isascii() else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None or "T" not in text:
        raise UsageError(
            f"--at {text!r}: not an ISO 8601 timestamp with an offset (e.g. 2026-01-02T03:04:05Z) or event:K"
        )
    return When(moment=moment)


def select_position(over: GoalOverTime, when: When) -> tuple[int, str]:
    """(position, at): how many entries `when` selects and the bound in UTC `Z`. NotFound (4) past the end or
    before the goal existed."""
    entries = over.history.entries
    if when.count is not None:
        position = when.count
        if position > len(entries):
            raise NotFound(f"--at event:{position}: goal {over.live.id} has {len(entries)} history entries")
        at = iso(instant(entries[position - 1].ts)) if position else ""
    else:
        assert when.moment is not None
        bound = when.moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
        position = bisect.bisect_right([instant_key(e.ts) for e in entries], bound)
        at = iso(when.moment)
    created = over.created_position()
    if position < created:
        raise NotFound(
            f"goal {over.live.id} did not exist yet at {at or 'event:0'} "
            f"(created at {entries[created - 1].ts}, entry {created})"
        )
    return position, at


def show_at_document(layout: Layout, goal_id: str, at_text: str) -> dict[str, Any]:
    when = parse_when(at_text)
    over = load_goal_over_time(layout, goal_id)
    position, at = select_position(over, when)
    view = require_readable(over.view_at(position))
    return {**view.to_json(), "at": at, "position": position, "present": position == len(over.history)}


def plan_diff_of(over: GoalOverTime, plan_id: str) -> PlanDiff:
    return plan_diff(over.tree, over.live, lambda: over.history, plan_view(over.live, plan_id))


def plan_diff_document(layout: Layout, goal_id: str, plan_id: str) -> dict[str, Any]:
    check_id(plan_id, "plan id")
    over = load_goal_over_time(layout, goal_id)
    require_readable(over.live)
    return plan_diff_of(over, plan_id).to_json()
