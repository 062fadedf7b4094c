"""Which goals a serve round ticks: those whose inputs changed since their last tick, whose leases freed, whose
approvals were decided, or whose wake time passed. Every other goal is not read at all.

Changed paths arrive through a `ChangeFeed` (serve's own watchfiles thread, or the console's watcher). A path
names its goal directly (`supervisors/<goal>/...`) or through what the goal's last tick saw: the work items it
governs and their dependencies, the approvals of its parked items. A process's death fires no file event, so
the leases a goal waited on (another process's run, another supervisor's `supervisor.lock`) are probed at the
wake interval instead; a goal another supervisor held is simply tried again then.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harn_tui.core.changes import ChangeFeed as ChangeFeed
from harn_tui.core.changes import Parts
from harn_tui.core.ids import is_valid_id
from harn_tui.core.layout import Layout
from harn_tui.core.leases import is_held
from harn_tui.core.projection import GoalView
from harn_tui.core.supervisor.report import TickReport

RETRY_STOP_REASONS = frozenset({"busy"})


@dataclass
class GoalWatch:
    """What one goal's last tick saw, to tell which later changes concern it."""

    work_ids: frozenset[str] = frozenset()
    approval_ids: frozenset[str] = frozenset()
    held_leases: tuple[Path, ...] = ()  # leases another process held: the goal is due when one frees
    wake_at: float | None = None  # monotonic time of a timed retry


@dataclass
class WakeIndex:
    """The enrolled goals and why each is due; `take_due` hands the next round's goals to the loop."""

    layout: Layout
    wake_interval_s: float
    due: set[str] = field(default_factory=set)
    watches: dict[str, GoalWatch] = field(default_factory=dict)
    _by_work: dict[str, set[str]] = field(default_factory=dict)
    _by_approval: dict[str, set[str]] = field(default_factory=dict)
    _last_probe: float = 0.0

    def enroll(self, goal_ids: Iterable[str]) -> None:
        """Goals not seen before are due (the first round ticks every enrolled goal once)."""
        for goal_id in goal_ids:
            if goal_id not in self.watches:
                self.watches[goal_id] = GoalWatch()
                self.due.add(goal_id)

    def seed(self, views: Mapping[str, GoalView]) -> None:
        """Goals whose state is already known (the console's projections): each is indexed from its view and due
        only when a tick would act on it; the others wait for a change, as after a tick that found nothing."""
        for goal_id, view in views.items():
            if goal_id not in self.watches or goal_id not in self.due:
                continue
            watch = self.watches[goal_id]
            self._index(goal_id, watch, view)
            watch.held_leases = self._held_by_others(view)
            if not would_act(view):
                self.due.discard(goal_id)

    def mark_all(self) -> None:
        self.due |= set(self.watches)

    def take_due(self, order: list[str]) -> list[str]:
        """The due goals in `order` (the enrolment order); they stop being due."""
        found = [goal_id for goal_id in order if goal_id in self.due]
        self.due.difference_update(found)
        return found

    def changed(self, changes: Iterable[Parts]) -> bool:
        """Mark the goals these changes (from a `ChangeFeed`) concern; True if one may enroll a new goal."""
        new_goal = False
        for parts in changes:
            if len(parts) < 2 or not is_valid_id(parts[1]):
                continue
            top, name = parts[0], parts[1]
            if top == "supervisors":
                if name in self.watches:
                    self.due.add(name)
                else:
                    new_goal = True
            elif top == "work":
                self.due |= self._by_work.get(name, set())
            elif top == "approvals":
                self.due |= self._by_approval.get(name) or self._approval_goal(name)
        return new_goal

    def _approval_goal(self, approval_id: str) -> set[str]:
        """The goal an approval we have not seen yet names (its request.json), if it is enrolled."""
        try:
            with open(self.layout.approval(approval_id) / "request.json", "rb") as handle:
                goal_id = json.loads(handle.read(1_000_000)).get("goal_id")
        except (OSError, ValueError, AttributeError):
            return set()
        return {goal_id} if isinstance(goal_id, str) and goal_id in self.watches else set()

    def ticked(self, goal_id: str, report: TickReport | None, failed: bool = False) -> None:
        """Record what the goal's run saw: what it reads, what it waits on, and when to try it again."""
        watch = self.watches.setdefault(goal_id, GoalWatch())
        now = time.monotonic()
        if failed:  # backed off: tried again after the wake interval
            watch.wake_at = now + self.wake_interval_s
            return
        view = report.goal if report is not None else None
        if view is not None:
            self._index(goal_id, watch, view)
            watch.held_leases = self._held_by_others(view)
        watch.wake_at = (
            now + self.wake_interval_s if report is not None and (report.stop_reason in RETRY_STOP_REASONS) else None
        )

    def retry_at(self, goal_id: str, when: float) -> None:
        """Try the goal again at `when` (a monotonic time), whatever else wakes it before."""
        watch = self.watches.setdefault(goal_id, GoalWatch())
        watch.wake_at = when if watch.wake_at is None else min(watch.wake_at, when)

    def _index(self, goal_id: str, watch: GoalWatch, view: GoalView) -> None:
        work_ids = set(view.governed_work_ids)
        for item in view.work:
            work_ids.update(item.dependencies)
        approval_ids = {item.approval_id for item in view.work if item.approval_id}
        _reindex(self._by_work, goal_id, watch.work_ids, work_ids)
        _reindex(self._by_approval, goal_id, watch.approval_ids, approval_ids)
        watch.work_ids, watch.approval_ids = frozenset(work_ids), frozenset(approval_ids)

    def _held_by_others(self, view: GoalView) -> tuple[Path, ...]:
        """Leases the goal waits on that a file event will not announce the end of."""
        leases: list[Path] = []
        for item in view.work:
            latest = item.latest_attempt
            if item.state == "running" and latest is not None:
                leases.append(self.layout.run(latest.run_id) / "lease")
        latest_plan = view.latest_plan
        if latest_plan is not None and latest_plan.status == "planning":
            leases.append(self.layout.goal(view.id) / "supervisor.lock")
        return tuple(leases)

    def next_wake_s(self) -> float:
        """Seconds until the next timed wake or lease probe (the wake interval at most)."""
        now = time.monotonic()
        soonest = self._last_probe + self.wake_interval_s
        for watch in self.watches.values():
            if watch.wake_at is not None:
                soonest = min(soonest, watch.wake_at)
        return max(0.0, soonest - now)

    def timed(self) -> None:
        """Goals whose wake time passed, and (once per wake interval) goals whose waited-on lease freed."""
        now = time.monotonic()
        for goal_id, watch in self.watches.items():
            if watch.wake_at is not None and watch.wake_at <= now:
                watch.wake_at = None
                self.due.add(goal_id)
        if now - self._last_probe < self.wake_interval_s:
            return
        self._last_probe = now
        for goal_id, watch in self.watches.items():
            if watch.held_leases and not all(is_held(lease) for lease in watch.held_leases):
                watch.held_leases = ()
                self.due.add(goal_id)


ACTING_ACTIONS = frozenset({"run", "replan", "plan_initial", "plan_milestone"})


def would_act(view: GoalView) -> bool:
    """Whether a tick of a goal in this state could write anything: a goal that needs a human, has succeeded,
    is blocked or out of budget is left alone by a tick (SPEC 7), so it need not be ticked to know that."""
    if view.next_action in ACTING_ACTIONS:
        return True
    replanning = view.intent.replanning if view.intent is not None else None
    pending = view.plan(view.pending_plan_id or "")
    return (
        view.next_action == "review_plan"
        and pending is not None
        and (pending.decision == "attention" or (replanning is not None and replanning.auto_apply))
    )


def _reindex(index: dict[str, set[str]], goal_id: str, before: frozenset[str], after: set[str]) -> None:
    for key in before - after:
        goals = index.get(key)
        if goals is not None:
            goals.discard(goal_id)
            if not goals:
                del index[key]
    for key in after - before:
        index.setdefault(key, set()).add(goal_id)
