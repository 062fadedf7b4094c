"""`serve`: the loop for every enrolled goal, woken by tree changes or a wake interval, idle for free.

A round ticks only the goals with a reason to (`wakes.WakeIndex`): inputs changed since their last tick, a
lease they waited on freed, an approval decided, a wake time passed. A goal that needs a human and whose files
did not change is not read again. Changes come from a watchfiles thread of its own, or from a `ChangeFeed` the
caller fills (the console feeds it from its one watcher). The loop keeps `service/<host>-<pid>.json` fresh
from another thread while it runs (`core.service`).

Stoppable and thread-safe: the console runs it in a background thread with its own `stop` event; `harn
supervisor serve` runs it in the foreground, where SIGINT/SIGTERM set that event. Either way it stops after
the current tick. Errors back off exponentially (1 s doubling to 60 s) and are logged, never swallowed silently;
a goal whose writes the system refuses, or whose attempts the executor cannot take (its cluster unreachable),
backs off alone while the others are served.
"""

from __future__ import annotations

import logging
import os
import signal
import stat
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from watchfiles import watch

from harn_tui.core.changes import ChangeFeed
from harn_tui.core.errors import CorruptJournal, HarnError, SystemRefused, harn_error_of
from harn_tui.core.executors import LOCAL, Executor
from harn_tui.core.ids import is_valid_id
from harn_tui.core.journal import read_record
from harn_tui.core.layout import Layout
from harn_tui.core.projection import GoalView
from harn_tui.core.records import GoalIntent
from harn_tui.core.service import LoopState, ServiceHeartbeat
from harn_tui.core.supervisor.report import TickReport
from harn_tui.core.supervisor.run import run_bounded
from harn_tui.core.supervisor.tick import require_goal
from harn_tui.core.supervisor.wakes import WakeIndex

log = logging.getLogger("harn_tui.supervisor")

MAX_BACKOFF_S = 60.0
WATCH_POLL_MS = 1000  # a polling watch re-walks the whole tree each time: seconds of CPU a minute on a large one
WATCH_RETRY_S = 30.0
# every goal is ticked again this often whatever the file events said: a safety net for an event the watcher
# lost (an inotify queue overflow); a round of 200 large idle goals costs about 10 s of CPU
RESCAN_S = 1800.0
ReportSink = Callable[[str, TickReport], None]


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
    """The named goals, else every goal in the tree (listed again when a change names a goal not enrolled)."""
    if goal_ids:
        return list(goal_ids)
    try:
        names = sorted(os.listdir(layout.supervisors))
    except FileNotFoundError:
        return []
    return [n for n in names if is_valid_id(n) and _holds_goal(layout.goal(n) / "goal.json")]


def _holds_goal(path: Path) -> bool:
    """A goal directory with its goal.json, or one this account may not look into (another member's directory
    with the wrong mode): that goal is enrolled, found unreadable by its tick and skipped, and the others are
    served, where a PermissionError here would stop the whole loop."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True


@dataclass
class RoundResult:
    errors: int = 0
    failed: list[str] = field(default_factory=list)
    last_error: str | None = None


def serve_round(
    layout: Layout,
    goal_ids: Sequence[str],
    budgets: dict[str, GoalBudget],
    stop: threading.Event,
    on_report: ReportSink | None,
    index: WakeIndex | None = None,
    executor: Executor = LOCAL,
) -> RoundResult:
    """Run each of `goal_ids` once (each a bounded `run`), telling `index` what each run saw.

    An unreadable goal is skipped, not an error: it is a state the operator must repair, and backing off
    for it would starve the healthy goals. A goal whose write the system refused (its disk full, its tree
    read-only) backs off alone (`GoalBudget.refused`), for the same reason; its report (stop reason
    `io_error`, the error verbatim) still goes to `on_report`."""
    result = RoundResult()
    for goal_id in goal_ids:
        if stop.is_set():
            if index is not None:
                index.due.add(goal_id)
            continue
        budget = budgets.setdefault(goal_id, GoalBudget())
        if time.monotonic() < budget.retry_at:
            if index is not None:
                index.retry_at(goal_id, budget.retry_at)
            continue
        try:
            report = _serve_goal(layout, goal_id, budget, stop, executor)
        except CorruptJournal as error:
            log.warning("supervisor serve: goal %s is unreadable, skipped: %s", goal_id, error.message)
            if index is not None:
                index.ticked(goal_id, None)
            continue
        except (HarnError, OSError) as error:
            typed = harn_error_of(error)
            if isinstance(typed, SystemRefused):
                report = TickReport("io_error")
                report.refused_by_system(typed)
            else:
                message = str(getattr(error, "message", error))
                result.errors += 1
                result.failed.append(goal_id)
                result.last_error = f"goal {goal_id}: {message}"
                log.error("supervisor serve: goal %s: %s", goal_id, message)
                continue
        if index is not None:
            index.ticked(goal_id, report)
        problem = report.error.message if report is not None and report.error is not None else None
        if report is not None and report.unavailable is not None:
            problem = f"the executor is unavailable: {report.unavailable}"
        if problem is not None:
            wait = budget.refused()
            result.last_error = f"goal {goal_id}: {problem}"
            log.error("supervisor serve: goal %s: %s; trying it again in %.0f s", goal_id, problem, wait)
            if index is not None:
                index.retry_at(goal_id, budget.retry_at)
        elif report is not None:
            budget.served()
        if report is not None and on_report is not None:
            on_report(goal_id, report)
    return result


def _serve_goal(
    layout: Layout, goal_id: str, budget: GoalBudget, stop: threading.Event, executor: Executor
) -> TickReport | None:
    limits = read_record(layout.goal(goal_id) / "goal.json", GoalIntent).limits
    cycles_left = limits.max_cycles - budget.cycles
    deadline = budget.started + limits.max_runtime_s
    if cycles_left <= 0 or time.monotonic() >= deadline:
        return None
    report = run_bounded(layout, goal_id, max_cycles=cycles_left, deadline=deadline, stop=stop, executor=executor)
    budget.cycles += report.cycles
    return report


def serve(
    layout: Layout,
    goal_ids: Sequence[str] | None = None,
    wake_interval_s: float = 5.0,
    stop: threading.Event | None = None,
    on_report: ReportSink | None = None,
    *,
    feed: ChangeFeed | None = None,
    actor: str = "supervisor",
    rescan_s: float = RESCAN_S,
    known: Mapping[str, GoalView] | None = None,
    executor: Executor = LOCAL,
) -> None:
    """Serve until `stop` is set (or, with no `stop` given in the main thread, until SIGINT/SIGTERM).

    Goals named explicitly must exist (NotFound, exit 4, before anything runs). Without a `feed`, a watchfiles
    thread of this loop's own fills one; with it, the caller's watcher must put every changed path in it.
    `known` are projections the caller already holds (the console's): the first round then ticks only those of
    them a tick would act on, instead of reading every goal again to find that out."""
    for goal_id in goal_ids or ():
        require_goal(layout, goal_id)
    event = stop if stop is not None else threading.Event()
    restore = _install_signal_handlers(event) if stop is None else None
    named = list(goal_ids or ())
    state = LoopState()
    order = enrolled_goals(layout, named)
    state.enrolled(order)
    heartbeat = ServiceHeartbeat(layout, actor, state, executor=executor.name).start()
    watcher_stop = threading.Event()
    if feed is None:
        feed = ChangeFeed(layout.base)
        _watch_in_thread(layout, feed, watcher_stop, state)
    try:
        _loop(
            layout,
            named,
            order,
            max(0.05, wake_interval_s),
            event,
            on_report,
            feed,
            state,
            rescan_s,
            known or {},
            executor,
        )
    finally:
        watcher_stop.set()
        heartbeat.stop()
        if restore is not None:
            restore()


def _loop(
    layout: Layout,
    named: list[str],
    order: list[str],
    wake_interval_s: float,
    stop: threading.Event,
    on_report: ReportSink | None,
    feed: ChangeFeed,
    state: LoopState,
    rescan_s: float,
    known: Mapping[str, GoalView],
    executor: Executor,
) -> None:
    index = WakeIndex(layout, wake_interval_s)
    index.enroll(order)
    index.seed(known)
    budgets: dict[str, GoalBudget] = {}
    backoff = 0.0
    rescanned = time.monotonic()
    while not stop.is_set():
        due = index.take_due(order)
        if due:
            result = serve_round(layout, due, budgets, stop, on_report, index, executor)
            backoff = min(MAX_BACKOFF_S, max(1.0, backoff * 2)) if result.errors else 0.0
            state.round_done(order, result.last_error, backoff)
            if result.errors:
                log.warning("supervisor serve: backing off %.0f s after %d error(s)", backoff, result.errors)
                if stop.wait(backoff):
                    break
                index.due.update(result.failed)
        paths = feed.wait(0.0 if index.due else index.next_wake_s(), stop)
        rescan = feed.take_lost() or time.monotonic() - rescanned >= rescan_s
        if index.changed(paths) or rescan:
            order = enrolled_goals(layout, named)
            index.enroll(order)
            state.enrolled(order)
        if rescan:
            rescanned = time.monotonic()
            index.mark_all()
        index.timed()


def _watch_in_thread(layout: Layout, feed: ChangeFeed, stop: threading.Event, state: LoopState) -> threading.Thread:
    """Put every change under `.harnery/` into `feed` (after a 50 ms debounce) until `stop` is set.

    A native watch can fail to arm or die (an exhausted inotify limit: one watch of a 200-goal tree holds about
    100,000 directories). The loop must not go on blind: the failure goes to the log and the status file, the
    watch falls back to polling (then retries every `WATCH_RETRY_S`), and every goal is due again once it is
    armed, since what changed meanwhile was not seen."""

    def run() -> None:
        polling = False
        while not stop.is_set():
            try:
                for batch in watch(
                    layout.base,
                    watch_filter=None,
                    debounce=50,
                    step=50,
                    stop_event=stop,
                    raise_interrupt=False,
                    force_polling=polling,
                    poll_delay_ms=WATCH_POLL_MS,
                ):
                    feed.put(path for _, path in batch)
                if stop.is_set():
                    return
                failure = "it ended"
            except (OSError, RuntimeError) as error:
                failure = f"{type(error).__name__}: {error}"
            how = "polling" if polling else "native"
            message = f"the {how} file watch failed ({failure}); " + ("retrying" if polling else "polling instead")
            log.warning("supervisor serve: %s", message)
            state.failed(message)
            feed.lost()
            if polling and stop.wait(WATCH_RETRY_S):
                return
            polling = True

    thread = threading.Thread(target=run, name="harn-serve-watch", daemon=True)
    thread.start()
    return thread


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
