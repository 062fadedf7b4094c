"""`run`: ticks under one hold of `supervisor.lock` until the goal stops needing the loop or a bound is hit."""

from __future__ import annotations

import threading
import time

from harn_tui.core.executors import LOCAL, Executor
from harn_tui.core.journal import read_record
from harn_tui.core.layout import Layout
from harn_tui.core.queries import show_goal
from harn_tui.core.records import GoalIntent
from harn_tui.core.supervisor.report import TERMINAL_STOP_REASONS, TickReport
from harn_tui.core.supervisor.tick import locked_tick, require_goal, tick_locked


def run_goal(layout: Layout, goal_id: str, executor: Executor = LOCAL) -> TickReport:
    """Tick until succeeded / needs a human / blocked / budget exhausted / a tick changed nothing, or the
    goal's `max_cycles` / `max_runtime_s` for this run is reached; attempts run on `executor`."""
    return run_bounded(layout, goal_id, executor=executor)


def run_bounded(
    layout: Layout,
    goal_id: str,
    *,
    max_cycles: int | None = None,
    deadline: float | None = None,
    stop: threading.Event | None = None,
    executor: Executor = LOCAL,
) -> TickReport:
    """`run` with explicit bounds (serve passes what is left of its own); `deadline` is a monotonic time."""
    require_goal(layout, goal_id)
    report = locked_tick(layout, goal_id, lambda: _ticks(layout, goal_id, max_cycles, deadline, stop, executor))
    report.goal = show_goal(layout, goal_id)
    return report


def _ticks(
    layout: Layout,
    goal_id: str,
    max_cycles: int | None,
    deadline: float | None,
    stop: threading.Event | None,
    executor: Executor,
) -> TickReport:
    limits = read_record(layout.goal(goal_id) / "goal.json", GoalIntent).limits
    cycles_cap = limits.max_cycles if max_cycles is None else max_cycles
    ends_at = time.monotonic() + limits.max_runtime_s if deadline is None else deadline
    total = TickReport("no_change")
    while True:
        if stop is not None and stop.is_set():
            total.stop_reason = "stopped"
            return total
        if total.cycles >= cycles_cap:
            total.stop_reason = "max_cycles"
            return total
        if time.monotonic() >= ends_at:
            total.stop_reason = "max_runtime"
            return total
        report = tick_locked(layout, goal_id, executor=executor)
        total.absorb(report)
        if report.stop_reason in TERMINAL_STOP_REASONS or report.error is not None or report.unavailable:
            return total
        if not report.acted:
            total.stop_reason = "running" if report.stop_reason == "running" else "no_change"
            return total
