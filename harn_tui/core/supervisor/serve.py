"""`serve`: the loop for every enrolled goal, woken by tree changes (watchfiles) or a wake interval.

Stoppable and thread-safe: the console runs it in a background thread with its own `stop` event; `harn
supervisor serve` runs it in the foreground, where SIGINT/SIGTERM set that event. Either way it stops after
the current tick. Errors back off exponentially (1 s doubling to 60 s) and are logged, never swallowed silently;
a goal whose writes the system refuses backs off alone while the others are served.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from watchfiles import watch

from harn_tui.core.errors import CorruptJournal, HarnError, SystemRefused, harn_error_of
from harn_tui.core.fsio import is_temp_name
from harn_tui.core.ids import is_valid_id
from harn_tui.core.journal import read_record
from harn_tui.core.layout import Layout
from harn_tui.core.records import GoalIntent
from harn_tui.core.supervisor.report import TickReport
from harn_tui.core.supervisor.run import run_bounded
from harn_tui.core.supervisor.tick import require_goal

log = logging.getLogger("harn_tui.supervisor")

MAX_BACKOFF_S = 60.0
QUIET_NAMES = frozenset({"lease", "supervisor.lock", "transcript.jsonl"})
QUIET_TOPS = frozenset({"cache", "presence"})
ReportSink = Callable[[str, TickReport], None]


def wakes_the_loop(base: Path, path: str) -> bool:
    """A change that can change a decision: records and event logs, not leases, transcripts, scratch,
    presence heartbeats, caches or temporary files."""
    try:
        parts = Path(path).relative_to(base).parts
    except ValueError:
        return False
    if not parts or parts[0] in QUIET_TOPS or "scratch" in parts:
        return False
    return parts[-1] not in QUIET_NAMES and not is_temp_name(parts[-1])


@dataclass
class GoalBudget:
    """What one serve invocation has spent on a goal: `max_cycles` and `max_runtime_s` bound it. A goal whose
    writes the system refused waits `io_backoff` seconds (1 s doubling to 60 s) before it is tried again,
    alone: the other goals go on being served."""

    cycles: int = 0
    started: float = field(default_factory=time.monotonic)
    io_backoff: float = 0.0
    retry_at: float = 0.0

    def refused(self) -> float:
        self.io_backoff = min(MAX_BACKOFF_S, max(1.0, self.io_backoff * 2))
        self.retry_at = time.monotonic() + self.io_backoff
        return self.io_backoff

    def served(self) -> None:
        self.io_backoff = self.retry_at = 0.0


def enrolled_goals(layout: Layout, goal_ids: Sequence[str]) -> list[str]:
    """The named goals, else every goal in the tree (re-read each round, so new goals enroll)."""
    if goal_ids:
        return list(goal_ids)
    try:
        names = sorted(os.listdir(layout.supervisors))
    except FileNotFoundError:
        return []
    return [n for n in names if is_valid_id(n) and (layout.goal(n) / "goal.json").is_file()]


def serve_round(
    layout: Layout,
    goal_ids: Sequence[str],
    budgets: dict[str, GoalBudget],
    stop: threading.Event,
    on_report: ReportSink | None,
) -> int:
    """Run every enrolled goal once (each a bounded `run`); returns how many goals raised an error.

    An unreadable goal is skipped, not an error: it is a state the operator must repair, and backing off
    for it would starve the healthy goals. A goal whose write the system refused (its disk full, its tree
    read-only) backs off alone (`GoalBudget.refused`), for the same reason; its report (stop reason
    `io_error`, the error verbatim) still goes to `on_report`."""
    errors = 0
    for goal_id in enrolled_goals(layout, goal_ids):
        if stop.is_set():
            break
        budget = budgets.setdefault(goal_id, GoalBudget())
        if time.monotonic() < budget.retry_at:
            continue
        try:
            report = _serve_goal(layout, goal_id, budget, stop)
        except CorruptJournal as error:
            log.warning("supervisor serve: goal %s is unreadable, skipped: %s", goal_id, error.message)
            continue
        except (HarnError, OSError) as error:
            typed = harn_error_of(error)
            if isinstance(typed, SystemRefused):
                report = TickReport("io_error")
                report.refused_by_system(typed)
            else:
                errors += 1
                log.error("supervisor serve: goal %s: %s", goal_id, getattr(error, "message", error))
                continue
        if report is not None and report.error is not None:
            wait = budget.refused()
            log.error("supervisor serve: goal %s: %s; trying it again in %.0f s", goal_id, report.error.message,
                      wait)
        elif report is not None:
            budget.served()
        if report is not None and on_report is not None:
            on_report(goal_id, report)
    return errors


def _serve_goal(layout: Layout, goal_id: str, budget: GoalBudget, stop: threading.Event) -> TickReport | None:
    limits = read_record(layout.goal(goal_id) / "goal.json", GoalIntent).limits
    cycles_left = limits.max_cycles - budget.cycles
    deadline = budget.started + limits.max_runtime_s
    if cycles_left <= 0 or time.monotonic() >= deadline:
        return None
    report = run_bounded(layout, goal_id, max_cycles=cycles_left, deadline=deadline, stop=stop)
    budget.cycles += report.cycles
    return report


def serve(
    layout: Layout,
    goal_ids: Sequence[str] | None = None,
    wake_interval_s: float = 5.0,
    stop: threading.Event | None = None,
    on_report: ReportSink | None = None,
) -> None:
    """Serve until `stop` is set (or, with no `stop` given in the main thread, until SIGINT/SIGTERM).

    Goals named explicitly must exist (NotFound, exit 4, before anything runs)."""
    for goal_id in goal_ids or ():
        require_goal(layout, goal_id)
    event = stop if stop is not None else threading.Event()
    restore = _install_signal_handlers(event) if stop is None else None
    budgets: dict[str, GoalBudget] = {}
    backoff = 0.0
    changes = _changes(layout, max(0.05, wake_interval_s), event)
    try:
        while not event.is_set():
            errors = serve_round(layout, list(goal_ids or ()), budgets, event, on_report)
            if errors:
                backoff = min(MAX_BACKOFF_S, max(1.0, backoff * 2))
                log.warning("supervisor serve: backing off %.0f s after %d error(s)", backoff, errors)
                if event.wait(backoff):
                    break
            else:
                backoff = 0.0
            if next(changes, None) is None:
                break
    finally:
        changes.close()
        if restore is not None:
            restore()


def _changes(layout: Layout, wake_interval_s: float, stop: threading.Event) -> Generator[bool, None, None]:
    """Yields once per wake: a relevant change (after a 50 ms debounce) or the wake interval passing.

    One watcher lives across rounds, so a change made while a round runs wakes the next wait at once.
    """
    base = layout.base
    last = time.monotonic()
    for batch in watch(
        base, watch_filter=None, debounce=50, step=50, stop_event=stop,
        rust_timeout=int(wake_interval_s * 1000), yield_on_timeout=True, raise_interrupt=False,
    ):
        relevant = any(wakes_the_loop(base, path) for _, path in batch)
        if relevant or time.monotonic() - last >= wake_interval_s:
            yield True
            last = time.monotonic()


def _install_signal_handlers(event: threading.Event) -> Callable[[], None] | None:
    """SIGINT/SIGTERM set `event` (stop after the current tick); only possible in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def request_stop(signum: int, frame: FrameType | None) -> None:
        log.info("supervisor serve: signal %d, stopping after the current tick", signum)
        event.set()

    previous: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, request_stop)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore
