"""The goal list as the last console saw it, kept in `cache/` so the next console paints at once.

A console on a large tree needs seconds to read every record; the goal list it showed when it last read them
is a few kilobytes. The next console shows those rows straight away, each marked as last seen, reads the goal
it selects (and any goal the operator selects) on the spot, and reads the whole tree behind the first frame;
then every row is the records' again. A kept row is never shown as current: it is the state at `seen_at`.

With nothing kept (the first console on a tree, or the cache off), a large tree starts the same way from rows
that say only which goals there are (`unread_goals`): id and title, no state, each marked as not read yet.

The document lives in the view cache (`core.view_cache.keep_document`): this account's own file, whole or
ignored, written by this harn, never in a shared tree, off with `HARN_NO_VIEW_CACHE`.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast, get_args

from harn_tui.core.addresses import GOAL_RECORD
from harn_tui.core.ids import is_valid_id
from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView
from harn_tui.core.rules import GoalAction, GoalState
from harn_tui.core.tree import ids_in
from harn_tui.core.view_cache import keep_document, kept_document

KEY = "console-goals"
VERSION = 1
WORTH_KEEPING_S = 0.5  # a tree read faster than this is read whole before the first frame, as if nothing were kept
# with nothing kept, a tree of fewer work items than this is read whole before the first frame: on the benchmark
# machine (2-core Xeon) reading one costs about 0.3 ms, so this many take about WORTH_KEEPING_S
UNREAD_START_WORK_ITEMS = 1_500
MAX_TITLE_BYTES = 64 * 1024  # a goal file larger than this gives an unread row no title
MAX_GOALS = 100_000
ROW_FIELDS = ("id", "title", "state", "next_action", "reason", "attempts", "replans")
STATES = frozenset(get_args(GoalState))
ACTIONS = frozenset(get_args(GoalAction))


@dataclass(frozen=True, slots=True)
class KeptRow:
    """One goal list row as last seen: the words the list showed (budgets already as `used/left`); with no
    `state`, a goal known only by its directory (`unread_goals`), nothing else said of it."""

    id: str
    title: str
    state: GoalState | None
    next_action: GoalAction | None
    reason: str
    attempts: str
    replans: str

    @property
    def words(self) -> tuple[str, ...]:
        """What the goal filter matches in this row (as in a read goal's: id, title, state, next action, why)."""
        return self.id, self.title, self.state or "", self.next_action or "", self.reason


@dataclass(frozen=True, slots=True)
class KeptGoals:
    seen_at: str | None  # when the rows were the records' (UTC, ISO 8601); None: rows of unread goals, no state
    rows: tuple[KeptRow, ...]
    read_seconds: float  # how long reading the whole tree took then

    @property
    def worth_starting_from(self) -> bool:
        """Whether a console should start from these rows: there are some, and the whole tree is slow to read."""
        return bool(self.rows) and self.read_seconds >= WORTH_KEEPING_S

    @property
    def nothing_kept(self) -> bool:
        """Whether these are the rows of unread goals (`unread_goals`), not a goal list a console kept."""
        return self.seen_at is None

    @property
    def seen_clock(self) -> str | None:
        """`HH:MM` of `seen_at` in local time, for the list's marks (None for rows of unread goals)."""
        if self.seen_at is None:  # nothing kept
            return None
        try:
            return datetime.fromisoformat(self.seen_at).astimezone().strftime("%H:%M")
        except ValueError:
            return "?"


def budget_cells(goal: GoalView) -> tuple[str, str]:
    """The goal list's Attempts and Replans cells (`used/left`, or `—` where a budget does not apply)."""
    corrupt = goal.state == "corrupt"
    attempts = "—" if corrupt else f"{goal.attempts_used}/{goal.attempts_remaining}"
    no_replanning = corrupt or goal.intent is None or goal.intent.replanning is None
    replans = "—" if no_replanning else f"{goal.replans_used}/{goal.replans_remaining}"
    return attempts, replans


def kept_goals(layout: Layout) -> KeptGoals | None:
    """The rows the last console kept for this tree, or None (none kept, damaged, or not rows of goals)."""
    document = kept_document(layout.base, KEY)
    try:
        return _parse(document)
    except (TypeError, ValueError, KeyError):
        return None


def unread_goals(layout: Layout) -> KeptGoals | None:
    """With nothing kept: rows for the goals of a tree of `UNREAD_START_WORK_ITEMS` work items or more (slow to
    read whole), each its id and the title its goal file gives, no state; None for a smaller tree (read whole at
    once)."""
    # Only directory listings and the goal files are read (no journal): a title that does not read is left
    # empty, and the goal is read properly when it is shown or when the whole tree is.
    work_items = UNREAD_START_WORK_ITEMS
    try:
        with os.scandir(layout.work_dir) as entries:
            if sum(1 for _ in itertools.islice(entries, work_items)) < work_items:
                return None
        names = ids_in(layout.supervisors)  # the goals the whole read will read
    except OSError:
        return None
    rows = tuple(KeptRow(name, _title(layout.goal(name) / GOAL_RECORD), None, None, "", "", "") for name in names)
    return KeptGoals(None, rows, 0.0)


def _title(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read(MAX_TITLE_BYTES + 1))
    except (OSError, ValueError):
        return ""
    title = data.get("title") if isinstance(data, dict) else None
    return title if isinstance(title, str) else ""


def keep_goals(layout: Layout, goals: Iterable[GoalView], read_seconds: float, now: datetime | None = None) -> None:
    """Keep `goals` (views projected from the records, in `read_seconds`) as the rows a next console starts
    from."""
    rows = []
    for goal in goals:
        attempts, replans = budget_cells(goal)
        rows.append([goal.id, goal.title, goal.state, goal.next_action, goal.reason, attempts, replans])
    seen_at = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    document = {"version": VERSION, "seen_at": seen_at, "read_seconds": round(read_seconds, 3), "goals": rows}
    keep_document(layout.base, KEY, document)


def kept_view(row: KeptRow) -> GoalView:
    """A goal-shaped view of a kept row, for what reads the list (selection, filter, quiet goals): no graph, no
    plans and no budgets, so nothing can act on it. The console reads the goal before showing more of it.

    A row of an unread goal has no state: its view says `blocked` / `wait`, which nothing shows (the list shows
    the row, the filter and the quiet toggle read the row's words, and the goal is read before it is selected)."""
    return GoalView.without_graph(row.id, row.title, row.state or "blocked", row.next_action or "wait", row.reason)


def _parse(document: Any) -> KeptGoals | None:
    if not isinstance(document, dict) or document.get("version") != VERSION:
        return None
    seen_at, goals, seconds = document["seen_at"], document["goals"], document["read_seconds"]
    if not isinstance(seen_at, str) or not isinstance(goals, list) or len(goals) > MAX_GOALS:
        return None
    if type(seconds) not in (int, float) or not 0 <= seconds < 1e6:
        return None
    datetime.fromisoformat(seen_at)
    rows = tuple(_row(cells) for cells in goals)
    ids = [row.id for row in rows]
    if len(set(ids)) != len(ids):
        return None
    return KeptGoals(seen_at, tuple(sorted(rows, key=lambda row: row.id)), float(seconds))


def _row(cells: Sequence[Any]) -> KeptRow:
    if not isinstance(cells, list) or len(cells) != len(ROW_FIELDS) or not all(isinstance(c, str) for c in cells):
        raise TypeError("a kept row is a list of seven strings")
    goal_id, title, state, next_action, reason, attempts, replans = cells
    if not is_valid_id(goal_id) or state not in STATES or next_action not in ACTIONS:
        raise ValueError(f"{goal_id!r}: not a goal id, state and next action")
    return KeptRow(goal_id, title, cast(GoalState, state), cast(GoalAction, next_action), reason, attempts, replans)
