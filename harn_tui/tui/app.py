"""The console application: owns the live model, the watcher, presence, dispatch and the embedded supervisor.

The main screen renders; this class keeps everything that talks to the tree: one watcher (a child process
whose batches post a coalesced `TreeChanged`), a 1 s liveness probe, the presence heartbeat (removed on exit,
SIGHUP and SIGTERM), transition dispatch in thread workers, and the embedded supervisor loop in a daemon
thread under the core's own leases.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from harn_tui.console.kept import keep_goals
from harn_tui.console.model import ConsoleModel, ModelUpdate, SeenEvent
from harn_tui.console.views import console_decisions
from harn_tui.core.decisions import Decision
from harn_tui.core.errors import HarnError, SystemRefused, harn_error_of
from harn_tui.core.executors import LOCAL, Executor
from harn_tui.core.layout import Layout
from harn_tui.core.presence import HEARTBEAT_EVERY_S, Heartbeat, Presence, safe_host
from harn_tui.core.service import ServiceStatus, live_services
from harn_tui.core.write_probe import write_refusal
from harn_tui.tui.dispatch import Request, run_request, tick_summary
from harn_tui.tui.forms.base import TransitionForm
from harn_tui.tui.messages import (
    Dispatched,
    FormRequested,
    SupervisorStatus,
    SupervisorToggleRequested,
    TickRequested,
    TransitionRequested,
    TreeChanged,
    WholeTreeRead,
)
from harn_tui.tui.screens.main import MainScreen
from harn_tui.tui.textual_compat import app_closing
from harn_tui.tui.watcher import TreeWatcher
from harn_tui.tui.widgets.header import HeaderState

if TYPE_CHECKING:
    from harn_tui.core.changes import ChangeFeed
    from harn_tui.core.projection import GoalView

LIVENESS_EVERY_S = 1.0
BEAT_AT_MOST_EVERY_S = 0.5
EXIT_SIGNALS = (signal.SIGHUP, signal.SIGTERM)
SIGNAL_EXIT_WAIT_S = 5.0
SUPERVISOR_WAKE_S = 5.0
SUPERVISOR_STOP_WAIT_S = 3.0
STARTING_AFTER_READ = "starting once the tree is read"
MAX_NOTICES = 200
_VERBS = {
    "plan.applied": "applied plan",
    "plan.completed": "completed plan",
    "plan.rejected": "rejected plan",
    "plan.retry_requested": "asked to retry plan",
    "plan.reopened": "reopened the mission of plan",
    "work.accepted": "accepted work",
    "work.reopened": "reopened work",
    "work.cancelled": "cancelled work",
    "approval.approve": "approved request",
    "approval.deny": "denied request",
    "attempt.started": "started an attempt of work",
}


def stylesheet_paths() -> list[str | PurePath]:
    """`styles/*.tcss`: inside the installed package (`harn_tui/styles`) or beside it in a checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "styles", package.parent / "styles"):
        if (candidate / "console.tcss").is_file():
            return list(sorted(candidate.glob("*.tcss")))
    raise FileNotFoundError(f"console stylesheet not found in {package / 'styles'} or {package.parent / 'styles'}")


def width_classes(width: int, breakpoints: list[tuple[int, str]]) -> list[str]:
    """The class a screen of this width takes from `HORIZONTAL_BREAKPOINTS` (the highest threshold reached)."""
    reached = [(threshold, name) for threshold, name in breakpoints if width >= threshold]
    return [max(reached)[1]] if reached else []


@dataclass(frozen=True)
class Notice:
    severity: str
    title: str
    message: str


class HarnConsole(App[None]):
    TITLE = "harn"
    CSS_PATH = stylesheet_paths()
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    def __init__(
        self,
        layout: Layout,
        *,
        actor: str,
        supervisor: bool = False,
        model: ConsoleModel | None = None,
        watch: bool = True,
        presence: bool = True,
        root_label: str | None = None,
        watcher: TreeWatcher | None = None,
        bell: bool = True,
        executor: Executor = LOCAL,
        read_whole: Callable[[], ConsoleModel] | None = None,
        first_frame_shown: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            # no sliding tab underlines or smooth scrolls: each is a dozen frames over a slow link
            self.animation_level = "none"
        self.layout = layout
        self.actor = actor
        self.model = model
        self.watch_tree = watch
        self.presence_enabled = presence
        self.root_label = root_label or str(layout.root)
        self.supervisor_wanted = supervisor
        self.executor = executor  # where the embedded supervisor's and the tick key's attempts run
        # wanted: "starting" from the first frame on, though the loop starts only after it (see on_mount)
        self.supervisor_status = "starting" if supervisor else "off"
        self.notices: list[Notice] = []
        self.others: tuple[Presence, ...] = ()
        self.services: tuple[ServiceStatus, ...] = ()
        self.heartbeat = Heartbeat.for_this_process(layout, actor)
        self.watcher: TreeWatcher | None = watcher if watch else None
        self._supervisor_stop: threading.Event | None = None
        self._supervisor_thread: threading.Thread | None = None
        self._beat_key: tuple[str | None, str | None] | None = None
        self._last_beat = 0.0
        self._signals: list[int] = []
        self._beat_timer: Timer | None = None
        self.last_tick: str | None = None
        self.presence_off: str | None = None
        self.ring_bell = bell
        self.decisions: list[Decision] = []
        self.bells = 0  # how often a new decision rang the bell (for tests and the record)
        # a model started from the kept goal list: how the whole tree is read behind it, and the paths that
        # changed meanwhile (re-read into the whole model, which may have read them before they changed)
        self.read_whole = read_whole or (lambda: ConsoleModel.load(layout))
        self._changed_while_reading: list[Path] = []
        self._supervisor_after_read = False
        self._first_frame_shown = first_frame_shown  # called once the first frame is on the terminal

    # ----- lifecycle

    def on_mount(self) -> None:
        if self.model is None:
            self.model = ConsoleModel.load(self.layout)
        self.decisions = console_decisions(self.model) if self.model.complete else []
        if self.supervisor_wanted and not self.model.complete:
            self.supervisor_status = STARTING_AFTER_READ  # what the first frame's header says the loop waits for
        main = MainScreen(self.model)
        # the width's breakpoint class before the screen's widgets are styled: set by the first resize
        # instead, it restyles every widget again before the first frame
        main.add_class(*width_classes(self.size.width, self.HORIZONTAL_BREAKPOINTS), update=False)
        self.push_screen(main)
        if self._first_frame_shown is not None:  # before the work queued behind the first frame below
            self.call_after_refresh(self._first_frame_shown)
        if not self.model.complete:
            self.call_after_refresh(self._start_reading_whole)
        if self.watch_tree:
            self.watcher = self.watcher or TreeWatcher(self.layout.base)
            if self.presence_enabled:
                self.watcher.ignored.add(self.layout.presence.resolve() / self.heartbeat.name)
            self.call_after_refresh(self._start_watching)
            self.set_interval(LIVENESS_EVERY_S, self._probe_liveness, name="liveness")
            # a serve loop that died leaves its file: it goes stale with no file event
            self.set_interval(HEARTBEAT_EVERY_S, self.refresh_services, name="services")
            self.call_after_refresh(self.refresh_services)
        if self.presence_enabled:
            self.set_interval(HEARTBEAT_EVERY_S, self._heartbeat, name="presence")
        if self.supervisor_wanted:
            # after the first paint, as the watcher: its first round competes with the first frame
            self.call_after_refresh(self.start_supervisor)
        self._catch_signals()

    def _catch_signals(self) -> None:
        """SIGHUP (the terminal closed: tmux killed, SSH dropped) and SIGTERM end the console as ctrl+q does,
        its presence heartbeat removed first, so the others do not see a ghost operator."""
        loop = asyncio.get_running_loop()
        for signum in EXIT_SIGNALS:
            try:
                loop.add_signal_handler(signum, self._on_exit_signal, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                continue  # not the main thread, or no signals here: ctrl+q still cleans up
            self._signals.append(signum)

    def _on_exit_signal(self, signum: int) -> None:
        if self.presence_enabled:
            self.heartbeat.remove()
        # the terminal may be gone: if shutting down hangs on it, end the process anyway
        killer = threading.Timer(SIGNAL_EXIT_WAIT_S, os._exit, args=(128 + signum,))
        killer.daemon = True
        killer.start()
        self.exit(return_code=128 + signum)

    def _start_watching(self) -> None:
        """After the first paint: arming the watcher competes for the CPU with the first frame."""
        if self.watcher is not None and not self.closing:
            self.watcher.follow(lambda: self.post_message(TreeChanged()))

    def _start_reading_whole(self) -> None:
        """After the first frame: read the whole tree in a thread; `on_whole_tree_read` puts it in place."""

        def read() -> None:
            try:
                model = self.read_whole()
            except Exception as error:  # any: the console stays on the goals it read, and says why
                typed = harn_error_of(error) if isinstance(error, (HarnError, OSError)) else None
                detail = typed.message if typed is not None else f"{type(error).__name__}: {error}"
                self.post_message(WholeTreeRead(None, detail))
                return
            self.post_message(WholeTreeRead(model))

        threading.Thread(target=read, name="harn-read-whole-tree", daemon=True).start()

    def on_whole_tree_read(self, message: WholeTreeRead) -> None:
        if message.model is None:  # the kept rows stay marked as last seen; the goals read are the records'
            self.note("error", "reading the whole tree", message.error or "failed")
            return
        if self.closing:
            return
        model = message.model
        model.apply(self._changed_while_reading)
        self._changed_while_reading = []
        self.model = model
        self.decisions = console_decisions(model)  # waiting before this console saw them: no bell
        self.main.whole_tree_read(model)
        self.refresh_header()
        self.keep_goal_list()
        if self._supervisor_after_read:
            self._supervisor_after_read = False
            self.start_supervisor()

    def keep_goal_list(self) -> None:
        """Keep the goal list for the next console (only a whole model's: a partial one's rows may be kept ones)."""
        model = self.model
        if model is not None and model.complete and model.read_seconds is not None:
            keep_goals(self.layout, model.goal_list(), model.read_seconds)

    def on_unmount(self) -> None:
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()
            for signum in self._signals:
                loop.remove_signal_handler(signum)
        if self.watcher is not None:
            self.watcher.close()
        if self.presence_enabled:
            self.heartbeat.remove()
        self.keep_goal_list()
        if self._supervisor_stop is not None:
            self._supervisor_stop.set()
        if self._supervisor_thread is not None:
            self._supervisor_thread.join(timeout=SUPERVISOR_STOP_WAIT_S)

    @property
    def main(self) -> MainScreen:
        return self.get_screen_main()

    def get_screen_main(self) -> MainScreen:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("the main screen is not mounted")

    # ----- live updates

    async def on_tree_changed(self, _message: TreeChanged) -> None:
        if self.watcher is None or self.model is None:
            return
        await self.apply_paths(self.watcher.drain())

    async def apply_paths(self, paths: Iterable[Path]) -> ModelUpdate:
        """Re-read `paths` into the model and bring the screen up to date (also used after a dispatch)."""
        assert self.model is not None
        if not self.model.complete:
            paths = list(paths)
            self._changed_while_reading += paths
        update = self.model.apply(paths)
        self._show_update(update)
        return update

    @property
    def closing(self) -> bool:
        """True once the app is shutting down: timers and watcher messages then leave the screen alone."""
        return app_closing(self)

    def _show_update(self, update: ModelUpdate) -> None:
        if update.empty or self.closing:
            return
        header = update.seen != ()
        if update.presence:
            others = tuple(self.heartbeat.others()) if self.presence_enabled else ()
            header = header or others != self.others
            self.others = others
        if update.services:
            header = self._read_services() or header
        if update.goals:
            header = self._note_decisions() or header
        self.main.model_updated(update)
        for seen in update.transitions_by_others(self.actor):
            self.note("information", f"{seen.actor}", _describe(seen))
        if header:
            self.refresh_header()

    def _note_decisions(self) -> bool:
        """Recompute the decision queue; a decision not waiting before rings the bell once. True if it changed."""
        assert self.model is not None
        if not self.model.complete:  # the queue is the whole tree's: none until it is read
            return False
        before = {decision.key for decision in self.decisions}
        self.decisions = console_decisions(self.model)
        now = {decision.key for decision in self.decisions}
        if now - before and self.ring_bell:
            self.bells += 1
            self.bell()
        return now != before

    def _probe_liveness(self) -> None:
        if self.model is not None:
            self._show_update(self.model.refresh_liveness())

    # ----- presence

    def beat(self, goal_id: str | None, focus: str | None) -> None:
        """Rewrite the heartbeat if what this operator looks at changed (the timer rewrites it anyway).

        At most one write per `BEAT_AT_MOST_EVERY_S`: an operator running the cursor down a list writes once,
        when the cursor rests, not once per row."""
        if not self.presence_enabled or self._beat_key == (goal_id, focus):
            return
        self._beat_key = (goal_id, focus)
        wait = self._last_beat + BEAT_AT_MOST_EVERY_S - time.monotonic()
        if wait <= 0:
            self._write_beat()
        elif self._beat_timer is None:
            self._beat_timer = self.set_timer(wait, self._write_beat, name="presence-beat")

    def _write_beat(self) -> None:
        self._beat_timer = None
        self._last_beat = time.monotonic()
        goal_id, focus = self._beat_key or (None, None)
        try:
            self.heartbeat.beat(goal_id, focus)
        except SystemRefused as error:
            if self.presence_off is None:
                self.presence_off = error.message
                self.note("warning", "presence is off", f"presence is off: {error.message}")
                self.refresh_header_if_ready()
            return
        except OSError as error:
            self.note("warning", "presence", f"could not write the presence heartbeat: {error}")
            return
        if self.presence_off is not None:
            self.presence_off = None
            self.note("information", "presence", "presence is on again: the heartbeat was written")
            self.refresh_header_if_ready()

    def _heartbeat(self) -> None:
        self._write_beat()
        others = tuple(self.heartbeat.others())
        if others != self.others:
            self.others = others
            self.refresh_header()

    def _read_services(self) -> bool:
        """Re-read the live serve loops; True if they changed."""
        try:
            services = tuple(live_services(self.layout))
        except OSError:
            services = ()
        changed = services != self.services
        self.services = services
        return changed

    def refresh_services(self) -> None:
        if self._read_services():
            self.refresh_header_if_ready()

    def refresh_header(self) -> None:
        if self.closing:
            return
        model = self.model
        self.main.show_header(
            HeaderState(
                root=self.root_label,
                actor=self.actor,
                others=self.others,
                supervisor=self.supervisor_status,
                last_supervisor_event=model.last_supervisor_event if model is not None else None,
                last_tick=self.last_tick,
                services=self.services,
                decisions=len(self.decisions),
                own_service=(safe_host(), os.getpid()) if self.supervisor_running else None,
                presence_off=self.presence_off if self.presence_enabled else None,
                reading=self._reading(),
            )
        )

    def _reading(self) -> str | None:
        """The header's `reading`: while the whole tree is read, when the kept rows were seen ("" for none kept)."""
        model = self.model
        if model is None or model.complete or model.kept is None:
            return None
        return model.kept.seen_clock or ""

    # ----- notifications

    def note(self, severity: SeverityLevel, title: str, message: str) -> None:
        """Notify literally (never markup) and keep the notice for tests and the record."""
        self.notices.append(Notice(severity, title, message))
        del self.notices[:-MAX_NOTICES]
        self.notify(message, title=title, severity=severity, markup=False, timeout=8 if severity == "error" else 5)

    # ----- transitions

    def dispatch(self, request: Request, refresh: Iterable[Path] = ()) -> None:
        self._dispatch_worker(request, tuple(refresh))

    @work(thread=True, group="dispatch", exit_on_error=False)
    def _dispatch_worker(self, request: Request, refresh: tuple[Path, ...]) -> None:
        result = run_request(self.layout, self.actor, request)
        self.post_message(Dispatched(result, refresh))

    async def on_dispatched(self, message: Dispatched) -> None:
        result = message.result
        if result.ok:
            self.note("information", "done" if result.outcome != "already_done" else "already done", result.message)
        else:
            self.note("error", f"refused: {result.title}", result.message)
        if message.refresh and self.model is not None:
            await self.apply_paths(message.refresh)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group in ("dispatch", "watch"):
            self.note(
                "error", f"{event.worker.group} failed", f"{type(event.worker.error).__name__}: {event.worker.error}"
            )

    def tick(self, goal_id: str, refresh: Iterable[Path]) -> None:
        """One supervisor tick for a goal, in a daemon thread (it may run templates for minutes)."""
        from harn_tui.tui import dispatch as requests

        request = requests.tick_goal(goal_id, self.executor)
        paths = tuple(refresh)

        def run() -> None:
            self.post_message(Dispatched(run_request(self.layout, self.actor, request), paths))

        self.note("information", "tick", f"ticking goal {goal_id}…")
        threading.Thread(target=run, name=f"harn-tick-{goal_id}", daemon=True).start()

    # ----- embedded supervisor

    @property
    def supervisor_running(self) -> bool:
        return self._supervisor_thread is not None and self._supervisor_thread.is_alive()

    def toggle_supervisor(self) -> None:
        if self._supervisor_after_read:
            self._supervisor_after_read = False
            self.supervisor_status = "off"
            self.refresh_header_if_ready()
        elif self.supervisor_running:
            self.stop_supervisor()
        else:
            self.start_supervisor()

    def start_supervisor(self) -> None:
        """Start the embedded loop, fed by this console's watcher (subscribed here, before its first batch can
        arrive) and seeded with the goals as this console projects them; without a watcher, serve watches."""
        from harn_tui.core.changes import ChangeFeed

        if self.supervisor_running:
            return
        if self.model is not None and not self.model.complete:  # it starts from the console's whole model
            self._supervisor_after_read = True
            self.supervisor_status = STARTING_AFTER_READ
            self.refresh_header_if_ready()
            return
        stop = threading.Event()
        self._supervisor_stop = stop
        feed = ChangeFeed(self.layout.base) if self.watcher is not None else None
        if self.watcher is not None and feed is not None:
            self.watcher.subscribers.append(feed.put)
        known = dict(self.model.goals) if feed is not None and self.model is not None else None
        self._supervisor_thread = threading.Thread(
            target=self._serve, args=(stop, feed, known), name="harn-embedded-supervisor", daemon=True
        )
        self.supervisor_status = "starting"
        self._supervisor_thread.start()
        self.refresh_header_if_ready()

    def stop_supervisor(self) -> None:
        if self._supervisor_stop is not None:
            self._supervisor_stop.set()
        self.supervisor_status = "stopping"
        self.refresh_header_if_ready()

    def _serve(self, stop: threading.Event, feed: ChangeFeed | None, known: dict[str, GoalView] | None) -> None:
        try:
            try:
                from harn_tui.core.supervisor import serve
            except ImportError as error:
                self.post_message(SupervisorStatus("unavailable", str(error)))
                return
            self.post_message(SupervisorStatus("on"))

            def on_report(goal_id: str, report: Any) -> None:
                if report.acted:  # "last tick" names the goal that did something, not the last one checked
                    self.post_message(SupervisorStatus("on", last_tick=f"{goal_id}: {tick_summary(report)}"))
                if report.error is not None:  # serve backs this goal off and goes on with the others
                    self.post_message(SupervisorStatus("on", report.error.message))
                elif report.unavailable is not None:
                    self.post_message(SupervisorStatus("on", f"the executor is unavailable: {report.unavailable}"))

            try:
                serve(
                    self.layout,
                    [],
                    SUPERVISOR_WAKE_S,
                    stop,
                    on_report,
                    feed=feed,
                    actor=self.actor,
                    known=known,
                    executor=self.executor,
                )
            except (HarnError, OSError) as error:
                typed = harn_error_of(error)
                if typed is None:
                    raise
                self.post_message(SupervisorStatus("failed", typed.message))
                return
        finally:
            if self.watcher is not None and feed is not None and feed.put in self.watcher.subscribers:
                self.watcher.subscribers.remove(feed.put)
        self.post_message(SupervisorStatus("off"))

    def on_supervisor_status(self, message: SupervisorStatus) -> None:
        if message.last_tick:
            self.last_tick = message.last_tick
        if message.status == "on" and message.detail:  # a goal's io error: the loop keeps serving
            self.note("error", "embedded supervisor", message.detail)
            return
        if message.status in ("off", "failed", "unavailable") and self._supervisor_thread is not None:
            self._supervisor_thread.join(1.0)  # it posted this as its last act: once joined, `s` starts a new one
        self.supervisor_status = message.status if not message.detail else f"{message.status}: {message.detail}"
        if message.detail:
            self.note("warning", "embedded supervisor", f"{message.status}: {message.detail}")
        self.refresh_header_if_ready()

    # ----- what screens ask for

    def on_transition_requested(self, message: TransitionRequested) -> None:
        self.dispatch(message.request, message.refresh)

    def on_form_requested(self, message: FormRequested) -> None:
        self.open_form(message.form, message.done)

    def on_tick_requested(self, message: TickRequested) -> None:
        self.tick(message.goal_id, message.refresh)

    def on_supervisor_toggle_requested(self, message: SupervisorToggleRequested) -> None:
        self.toggle_supervisor()

    # ----- forms

    def open_form(self, form: TransitionForm[Any], done: Callable[[Any], None]) -> None:
        """Open a transition form, saying first when the system refuses writes to the tree (the operator learns
        before typing that the decision may not be recorded; the core still tries, and says what happened)."""
        refusal = write_refusal(self.layout)
        form.writes_refused = refusal.message if refusal is not None else None
        self.push_screen(form, callback=done)

    def refresh_header_if_ready(self) -> None:
        if any(isinstance(screen, MainScreen) for screen in self.screen_stack):
            self.refresh_header()


def _describe(seen: SeenEvent) -> str:
    verb = _VERBS.get(seen.event, seen.event)
    where = f" (goal {seen.goal_id})" if seen.goal_id else ""
    return f"{seen.actor} {verb} {seen.target}{where}"
