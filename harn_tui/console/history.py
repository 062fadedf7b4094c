"""What the console shows of a goal over time: history rows (a run's events grouped), the past, plan diffs.

Everything is read from the core's history (`harn_tui.core.history`): the past is the core's projection of a
history prefix, the diff the core's `plan_diff`; the console only arranges them.
"""

from __future__ import annotations

from dataclasses import dataclass

from harn_tui.console.views import is_standalone, pending_proposal
from harn_tui.core.errors import HarnError
from harn_tui.core.history import GoalHistory, GoalOverTime, HistoryEntry, PlanDiff, plan_diff
from harn_tui.core.projection import GoalView
from harn_tui.core.tree import Tree

GROUPED_SOURCES = frozenset({"work", "approval"})


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One line of the History tab: entry `position` (1-based); `child` rows are later events of the run whose
    `attempt.started` row they follow (`last` marks the run's last one)."""

    position: int
    entry: HistoryEntry
    child: bool = False
    last: bool = False

    @property
    def key(self) -> str:
        return f"entry:{self.position}"


@dataclass(frozen=True, slots=True)
class PastView:
    """The selected goal as it stood right after entry `position` of `total`."""

    goal_id: str
    position: int
    total: int
    ts: str
    view: GoalView

    @property
    def heading(self) -> str:
        return f"viewing {self.ts} (entry {self.position} of {self.total}) · esc: back to now"


def history_rows(entries: tuple[HistoryEntry, ...]) -> list[HistoryRow]:
    """Every entry once, in history order, except that the later events of a run (its finish, resume, the
    decision of its approval) follow the row of the attempt that started it."""
    started: dict[str, int] = {}
    for position, entry in enumerate(entries, start=1):
        if entry.event == "attempt.started" and entry.run_id and entry.run_id not in started:
            started[entry.run_id] = position
    children: dict[int, list[int]] = {}
    for position, entry in enumerate(entries, start=1):
        owner = started.get(entry.run_id or "")
        if owner is not None and owner != position and entry.source in GROUPED_SOURCES:
            children.setdefault(owner, []).append(position)
    grouped = {position for members in children.values() for position in members}
    rows: list[HistoryRow] = []
    for position, entry in enumerate(entries, start=1):
        if position in grouped:
            continue
        rows.append(HistoryRow(position, entry))
        members = children.get(position, [])
        rows += [
            HistoryRow(child, entries[child - 1], True, index == len(members) - 1)
            for index, child in enumerate(members)
        ]
    return rows


class OverTime:
    """The history of the goal last asked for, kept until that goal's view changes (its projection is the key)."""

    def __init__(self) -> None:
        self._goal: GoalView | None = None
        self._tree: Tree | None = None
        self._found: GoalOverTime | None = None

    def of(self, tree: Tree, goal: GoalView | None) -> GoalOverTime | None:
        """None for no goal, the standalone row, or a goal whose goal.json does not read."""
        if not _readable(tree, goal):
            return None
        assert goal is not None
        if goal is not self._goal or tree is not self._tree:
            self._goal, self._tree, self._found = goal, tree, GoalOverTime.of(tree, goal)
        return self._found

    def past(self, tree: Tree, goal: GoalView | None, position: int) -> PastView | None:
        """The goal right after entry `position`; None before its `goal.created` (there was no goal yet)."""
        over = self.of(tree, goal)
        if over is None or not over.created_position() <= position <= len(over.history):
            return None
        entry = over.history.entries[position - 1]
        return PastView(over.live.id, position, len(over.history), entry.ts, over.view_at(position))

    def proposal_diff(self, tree: Tree, goal: GoalView | None) -> PlanDiff | None:
        """What approving the goal's pending proposal replaces, keeps and adds (None without an apply proposal)."""
        plan = pending_proposal(goal) if goal is not None and goal.state != "corrupt" else None
        if goal is None or plan is None or plan.decision != "apply" or not _readable(tree, goal):
            return None

        def history() -> GoalHistory:
            over = self.of(tree, goal)
            assert over is not None  # readable: checked above
            return over.history

        try:  # the pending plan compares with the live graph: its history is not read
            return plan_diff(tree, goal, history, plan)
        except HarnError:
            return None


def _readable(tree: Tree, goal: GoalView | None) -> bool:
    """A goal with a history: not none, not the standalone row, its goal.json read."""
    return (
        goal is not None
        and not is_standalone(goal)
        and goal.id in tree.goals
        and tree.goals[goal.id].intent is not None
    )
