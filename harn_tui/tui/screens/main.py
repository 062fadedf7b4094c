"""The main screen: header, goals, goal graph and the tabbed panels (attention, plans, findings, item).

It keeps the operator's selection (goal, graph item, review item) across live refreshes and, on start,
selects the first goal that needs a human and shows the panel holding its decision.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import DescendantBlur, DescendantFocus, ScreenResume
from textual.reactive import Reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, ContentSwitcher, DataTable, Input, Static

from harn_tui.console.history import OverTime, PastView
from harn_tui.console.model import ConsoleModel, ModelUpdate
from harn_tui.console.views import STANDALONE, console_decisions, first_needing_human, review_queue
from harn_tui.console.workspaces import diffable_attempts
from harn_tui.core.decisions import Decision
from harn_tui.core.projection import GoalView
from harn_tui.core.rules import pending_approval
from harn_tui.tui.commands import ConsoleCommands, bindings
from harn_tui.tui.messages import ConsoleHost
from harn_tui.tui.screens.diff import DiffScreen
from harn_tui.tui.screens.transitions import PANELS, TransitionActions
from harn_tui.tui.text import literal, under_root
from harn_tui.tui.textual_compat import OnePassScreen
from harn_tui.tui.widgets.attention import AttentionPanel
from harn_tui.tui.widgets.findings import FindingsPanel
from harn_tui.tui.widgets.footer import KeysFooter
from harn_tui.tui.widgets.goals import GoalsPanel
from harn_tui.tui.widgets.graph import GraphPanel
from harn_tui.tui.widgets.header import HeaderBar, HeaderState
from harn_tui.tui.widgets.history import HistoryPanel
from harn_tui.tui.widgets.item import ItemDetail
from harn_tui.tui.widgets.keyed_table import KeyedTable
from harn_tui.tui.widgets.plans import PlanHistory
from harn_tui.tui.widgets.tabs import TabLine
from harn_tui.tui.widgets.titles import mark_focus

TABBED = ("attention", "plans", "findings", "item", "history")
QUIET_STATES = frozenset({"succeeded", "running"})  # need nothing: done, or at work with nobody to ask
DECISION_PANELS = {"review_plan": "plans", "retry_plan": "attention", "review_work": "findings", "approval": "graph"}
PREFETCH_AFTER_S = 0.05
HISTORY_AFTER_S = 0.1  # a goal's history is read and its table filled once the selection rests this long
GOAL_SETTLE_S = 0.12
FOCUS_TARGETS = {"attention": "#attention-body", "plans": "#plans-body", "findings": "#findings-table"}


def decision_panel(goal: GoalView | None) -> str:
    """Which panel holds the decision this goal waits for (the attention panel otherwise)."""
    if goal is None:
        return "attention"
    return {"review_plan": "plans", "review": "findings", "resolve_approval": "graph"}.get(
        goal.next_action, "attention"
    )


def decision_work(goal: GoalView | None) -> str | None:
    """The work item the goal's decision is about (a parked or in-review item), if any."""
    if goal is None:
        return None
    for work in goal.work:
        if work.active and (pending_approval(work) or work.state == "in_review"):
            return work.id
    return None


class MainScreen(TransitionActions, OnePassScreen):
    AUTO_FOCUS = "#goals"  # not the goal filter above it, which takes the focus only when `/` opens it
    # A focus change restyles the widgets it concerns (their `:focus` rules and focus watchers repaint them).
    # Textual's default also repaints the whole screen: every focus key wrote the screen twice, and the widgets
    # changed in that frame kept their repaint regions, so their next small change repainted them whole again.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    BINDINGS = bindings()
    COMMANDS = {ConsoleCommands}

    def __init__(self, model: ConsoleModel) -> None:
        super().__init__()
        self.model = model
        self.goal_id: str | None = None
        self.stale: set[str] = set(TABBED)
        self._prefetch: Timer | None = None
        self._refill: Timer | None = None
        self._history: Timer | None = None
        self._history_armed = 0  # counts the arming of the History prefetch: only the latest starts its timer
        self._refilled_at = 0.0
        self.shown_goal: str | None = None  # the goal the graph and tabs show (follows goal_id after a move)
        self.over_time = OverTime()
        self.past: PastView | None = None  # while set, the graph and tabs show the goal as it stood then
        self.filter_text = ""  # `/`: the goal list shows only goals matching it
        self.filter_open = False  # the filter line is shown
        self.hide_quiet = False  # `h`: the goal list leaves out the goals that need nothing
        self.decision_at: tuple[str | None, ...] | None = None  # the decision `n` / `N` went to last
        self._painted = False  # the first frame is on the terminal (work ahead waits for it)
        self._bindings_held = 0  # inside `bindings_once`: the footer's keys are refreshed once, at its end
        self._bindings_asked = False

    @property
    def console(self) -> ConsoleHost:
        return cast(ConsoleHost, self.app)  # the app this screen runs in: `HarnConsole` satisfies it

    @property
    def goal(self) -> GoalView | None:
        """The selected goal's view (or the standalone work's, a goal-shaped view of work with no goal)."""
        return self.model.goal_view(self.goal_id)

    @property
    def displayed_goal(self) -> GoalView | None:
        """What the graph and the tabs show: the goal as it stood at the past entry being viewed, else now."""
        return self.past.view if self.past is not None else self.goal

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header")
        root = str(self.model.layout.root)
        yield Input(
            placeholder="filter goals: id, title, state, next action, why · enter: to the list · esc: clear",
            id="goal-filter",
        )
        yield GoalsPanel(root, id="goals")
        yield Static("", id="past")
        with Horizontal(id="body"):
            yield GraphPanel(root, id="graph")
            with Vertical(id="right"):
                yield TabLine(id="tabline")
                with ContentSwitcher(initial="attention", id="tabs"):
                    yield AttentionPanel(id="attention")
                    yield PlanHistory(id="plans")
                    yield FindingsPanel(id="findings")
                    yield ItemDetail(id="item")
                    yield HistoryPanel(root, id="history")
        yield KeysFooter()

    def refresh_bindings(self) -> None:
        if self._bindings_held:
            self._bindings_asked = True
            return
        super().refresh_bindings()

    @contextmanager
    def bindings_once(self) -> Iterator[None]:
        """Refresh the footer's keys once, after the steps of one key: `n` selects a goal, switches the tab and
        moves the focus, each asking for it, and each refresh asks every binding's `check_action`."""
        self._bindings_held += 1
        try:
            yield
        finally:
            self._bindings_held -= 1
            if not self._bindings_held and self._bindings_asked:
                self._bindings_asked = False
                super().refresh_bindings()

    def on_mount(self) -> None:
        self.query_one("#past").display = False
        for table in self.query(KeyedTable):
            table.cursor_moved = self.cursor_moved
        goals = self.model.console_goals()
        first = first_needing_human(goals)
        if first is None and self.model.kept is not None and self.model.kept.nothing_kept and goals:
            first = goals[0]  # no goal is read yet, so none is known to wait for a human: the first one is read
        self.show_goal_list(prefer=first.id if first else None)
        self.select_goal(first.id if first else None, focus_decision=True)
        self.console.refresh_header()
        self.call_after_refresh(self._first_frame_shown)

    def on_screen_resume(self, event: ScreenResume) -> None:
        """The first time, the widgets were styled as they were mounted, moments ago: Textual's own handler
        (it runs next) would style every one of them again before the first frame. Later (back from a form or
        the diff screen), it does."""
        if not self._painted:
            event.refresh_styles = False

    def _first_frame_shown(self) -> None:
        self._painted = True
        self._arm_history_prefetch()

    # ----- selection

    def goal_cursor_moved(self, goal_id: str) -> None:
        """The goal list's cursor moved. The selection (what the keys act on, the footer) follows at once and the
        cursor is drawn first; the graph and tabs are refilled right after that frame if the cursor was resting,
        else once it rests (`GOAL_SETTLE_S`), so holding an arrow key runs through the goals without building
        every goal's panels on the way."""
        self.goal_id = goal_id
        resting = self._refill is None and time.monotonic() - self._refilled_at >= GOAL_SETTLE_S
        if self._refill is not None:
            self._refill.stop()
        self._refill = self.set_timer(0.001 if resting else GOAL_SETTLE_S, self._refill_goal, name="goal-refill")
        self.announce()
        self.refresh_bindings()

    def _refill_goal(self) -> None:
        self._refill = None
        if not self.console.closing:
            self.select_goal(self.goal_id)

    def flush_goal(self) -> None:
        """Refill the panels now if a goal switch is still pending (before the operator acts on a panel)."""
        if self._refill is not None:
            self._refill_goal()

    def select_goal(self, goal_id: str | None, *, focus_decision: bool = False) -> None:
        if self._refill is not None:
            self._refill.stop()
            self._refill = None
        self._refilled_at = time.monotonic()
        self.goal_id = goal_id
        self.shown_goal = goal_id
        self._leave_past()
        if self.model.read_goal(goal_id):  # a kept row: the goal is read from the records before it is shown
            self.show_goal_list(prefer=goal_id)
        goal = self.goal
        graph = self.query_one(GraphPanel)
        graph.show(goal, prefer_work=decision_work(goal))
        self.stale = set(TABBED)
        panel = decision_panel(goal)
        tab = "item" if panel == "graph" else panel
        self.show_tab(tab)
        self.refresh_tab(tab)
        if focus_decision and goal is not None and goal.needs_human:
            self.focus_panel(panel)
        self._arm_history_prefetch()
        self.announce()
        self.refresh_bindings()

    def _arm_history_prefetch(self) -> None:
        """Read the History of the goal shown once the selection rests, counted from the frame showing that goal:
        never before it (the first frame, or the frame of the key that moved the selection), which a
        thousand-entry history would hold back."""
        if self._history is not None:
            self._history.stop()
            self._history = None
        self._history_armed += 1
        if self._painted:
            self.call_after_refresh(self._start_history_timer, self._history_armed)

    def _start_history_timer(self, armed: int) -> None:
        if armed == self._history_armed and not self.console.closing:
            self._history = self.set_timer(HISTORY_AFTER_S, self._prefetch_history, name="history-prefetch")

    def _prefetch_history(self) -> None:
        """Fill the hidden History tab of the goal the selection rests on: a goal with a thousand entries takes
        longer to read and lay out than a key may, so `7` finds it ready (and shows it without rebuilding)."""
        self._history = None
        if self.console.closing:
            return
        if self.active_tab() != "history":
            self.refresh_tab("history")
        self._prepare_next_decision()
        # What was just built (a thousand-entry history, its rows, the next goal's graph) lives while the
        # selection rests, and every goal visited adds to what a full collection walks: 100-250 ms, set off
        # by the allocations of some later key's frame. The young garbage is collected, and what is left moved
        # out of the collector's reach (it is still freed when nothing refers to it).
        gc.collect(1)
        gc.freeze()

    def _prepare_next_decision(self) -> None:
        """Build the graph rows of the goal the next `n` goes to, and the text of the panel holding its decision,
        while the operator reads."""
        decision = self._decision_after(1)
        if decision is None:
            return
        goal = self.model.goal_view(decision.goal_id or STANDALONE)
        if goal is None or goal.id == self.goal_id:
            return
        self.query_one(GraphPanel).prepare(goal)
        panel = DECISION_PANELS[decision.kind]
        work = goal.work_item(decision.work_id) if decision.work_id else None
        if panel == "plans":
            self.query_one(PlanHistory).prepare(goal, self.over_time.proposal_diff(self.model.tree, goal))
        elif panel == "attention":
            self.query_one(AttentionPanel).prepare(self.model, goal)
        elif panel == "findings" and work is not None:
            self.query_one(FindingsPanel).prepare(self.model, work)
        elif panel == "graph" and work is not None:
            self.query_one(ItemDetail).prefetch(self.model, goal, [work.id])

    def show_goal_panels(self) -> None:
        """Mark every tab stale and refill the visible one; a hidden tab is refilled when it is shown."""
        self.stale = set(TABBED)
        self.refresh_tab(self.active_tab())

    def refresh_tab(self, name: str) -> None:
        if name not in self.stale:
            return
        self.stale.discard(name)
        goal = self.displayed_goal
        if name == "history":
            self.query_one(HistoryPanel).show(self.over_time.of(self.model.tree, self.goal))
        elif name == "attention":
            self.query_one(AttentionPanel).show(self.model, goal)
        elif name == "plans":
            live = self.past is None
            diff = self.over_time.proposal_diff(self.model.tree, goal) if live else None
            self.query_one(PlanHistory).show(goal, diff)
        elif name == "findings":
            findings = self.query_one(FindingsPanel)
            findings.show(self.model, goal)
            if goal is not None and findings.selected is None:
                queue = review_queue(goal)
                if queue:
                    findings.table.select_key(queue[0].id)
        elif name == "item":
            self.query_one(ItemDetail).show(self.model, goal, self.query_one(GraphPanel).work_id_at_cursor)

    def show_item(self) -> None:
        """The graph cursor moved: refill the item tab now if it is shown, else when it is; once the cursor
        rests, build the detail of the items next to it, so the next move shows it at once."""
        self.stale.add("item")
        if self.active_tab() == "item":
            self.refresh_tab("item")
            if self._prefetch is not None:
                self._prefetch.stop()
            self._prefetch = self.set_timer(PREFETCH_AFTER_S, self._prefetch_neighbours, name="item-prefetch")

    def _prefetch_neighbours(self) -> None:
        self._prefetch = None
        if self.active_tab() == "item" and not self.console.closing:
            graph = self.query_one(GraphPanel)
            self.query_one(ItemDetail).prefetch(self.model, self.goal, graph.neighbour_work_ids())

    def active_tab(self) -> str:
        return self.query_one("#tabs", ContentSwitcher).current or "attention"

    def show_tab(self, name: str) -> None:
        """Show one of the right-hand panels (refilled first if stale); the others keep their state."""
        switcher = self.query_one("#tabs", ContentSwitcher)
        if name not in TABBED or switcher.current == name:
            return
        self.refresh_tab(name)
        switcher.current = name
        self.query_one(TabLine).show_active(name)
        self.refresh_bindings()

    def focus_panel(self, name: str) -> None:
        self.flush_goal()
        self.show_tab(name)
        self.refresh_tab(name)
        widget = self.query_one(FOCUS_TARGETS.get(name, f"#{name}"))
        if name == "findings" and not widget.display:
            widget = self.query_one("#findings-detail")
        widget.focus()
        # the mark now, not when the focus message arrives: it is then in the frame this key causes, not in a
        # second frame after it
        if widget.focusable:
            self.mark_focused_panel(name)

    def action_show_diff(self) -> None:
        work = self.focused_work()
        diffs = diffable_attempts(work, self.model.proof) if work is not None else []
        if diffs:
            self.app.push_screen(DiffScreen(diffs, self.model.layout.root))

    def action_focus_panel(self, name: str) -> None:
        self.focus_panel(name)

    def action_cycle_panel(self, step: int) -> None:
        """Tab / shift+tab: the next or previous panel in the order of the keys 1..7."""
        current = self.context()
        index = PANELS.index(current) if current in PANELS else -1 if step > 0 else 0
        self.focus_panel(PANELS[(index + step) % len(PANELS)])

    @on(DataTable.RowSelected)
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        """Enter on a goal opens its graph; enter on a graph item opens its detail; enter on a history entry shows
        the goal as it stood right after it."""
        if isinstance(event.data_table, GoalsPanel):
            self.focus_panel("graph")
        elif isinstance(event.data_table, GraphPanel):
            self.focus_panel("item")
        elif isinstance(event.data_table, HistoryPanel):
            position = event.data_table.position_at_cursor
            if position is not None:
                self.show_past(position)

    # ----- the goal list at scale: filter, quiet goals, the decision queue

    def visible_goals(self) -> list[GoalView]:
        """The goals the list shows: those matching the filter (any of id, title, state, next action, why,
        ignoring case), less the quiet ones while they are hidden. A goal not read yet is matched by the words of
        its row; one with no state kept is never quiet (nothing says it needs nothing)."""
        needle = self.filter_text.casefold()
        kept = self.model.kept_rows()
        shown = []
        for goal in self.model.console_goals():
            row = kept.get(goal.id)
            state = row.state if row is not None else goal.state
            if self.hide_quiet and state in QUIET_STATES:
                continue
            words = row.words if row is not None else (goal.id, goal.title, goal.state, goal.next_action, goal.reason)
            if needle and not any(needle in word.casefold() for word in words):
                continue
            shown.append(goal)
        return shown

    def show_goal_list(self, prefer: str | None = None) -> None:
        goals = self.model.console_goals()
        shown = goals if not (self.filter_text or self.hide_quiet) else self.visible_goals()
        self.query_one(GoalsPanel).show(
            shown,
            prefer=prefer,
            of=goals,
            filter_text=self.filter_text,
            quiet_hidden=self.hide_quiet,
            kept=self.model.kept_rows(),
        )

    def action_filter_goals(self) -> None:
        field = self.query_one("#goal-filter", Input)
        field.display = self.filter_open = True
        field.focus()

    def action_clear_filter(self) -> None:
        field = self.query_one("#goal-filter", Input)
        field.value = ""
        field.display = self.filter_open = False
        self.filter_text = ""
        self.show_goal_list(prefer=self.goal_id)
        self.query_one(GoalsPanel).focus()

    @on(Input.Changed, "#goal-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter_text = event.value.strip()
        self.show_goal_list(prefer=self.goal_id)
        self.refresh_bindings()

    @on(Input.Submitted, "#goal-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(GoalsPanel).focus()

    def action_toggle_quiet(self) -> None:
        self.hide_quiet = not self.hide_quiet
        self.show_goal_list(prefer=self.goal_id)

    def action_next_decision(self, step: int) -> None:
        """Go to the next (`step` 1) or previous (-1) decision waiting for a human, oldest first: select its goal
        and focus the panel holding it, with its item selected, so its own keys decide it."""
        decision = self._decision_after(step)
        if decision is None:
            return
        self.decision_at = decision.key
        goal_id = decision.goal_id or STANDALONE
        with self.bindings_once():
            if goal_id not in {goal.id for goal in self.visible_goals()}:
                self.action_clear_filter()
            self.query_one(GoalsPanel).select_key(goal_id)
            self.select_goal(goal_id)
            panel = DECISION_PANELS[decision.kind]
            if decision.kind == "approval" and decision.work_id:
                self.query_one(GraphPanel).select_key(f"item:{decision.work_id}")
            self.focus_panel(panel)
            if decision.kind == "review_work" and decision.work_id:
                self.query_one(FindingsPanel).table.select_key(decision.work_id)
            self.refresh_bindings()

    def _decision_after(self, step: int) -> Decision | None:
        """The decision `n` (`step` 1) or `N` (-1) goes to from the last one it went to, oldest first."""
        if not self.model.complete:  # the queue is the whole tree's
            return None
        decisions = self.console.decisions or console_decisions(self.model)
        if not decisions:
            return None
        keys = [decision.key for decision in decisions]
        here = keys.index(self.decision_at) if self.decision_at in keys else (-1 if step > 0 else 0)
        return decisions[(here + step) % len(decisions)]

    # ----- the past

    def show_past(self, position: int) -> None:
        """Show the selected goal as it stood right after history entry `position`: the graph and every tab but
        History, under a heading; no transition is legal until esc (the live tree keeps updating underneath)."""
        self.flush_goal()
        past = self.over_time.past(self.model.tree, self.goal, position)
        if past is None:
            self.console.note("information", "history", f"entry {position} is from before the goal was created")
            return
        self.past = past
        view = past.view
        heading = Content.styled(past.heading, "bold reverse")
        state = Content.assemble(
            ("then: ", "dim"),
            (f"{view.state}/{view.next_action}", "bold"),
            " — ",
            literal(under_root(view.reason, self.model.layout.root)),
        )
        banner = self.query_one("#past", Static)
        banner.update(Content("\n").join([heading, state]))
        banner.display = True
        self.query_one(GraphPanel).show(view, prefer_work=self.query_one(GraphPanel).work_id_at_cursor)
        self.stale = set(TABBED) - {"history"}
        self.refresh_bindings()
        self.announce()

    def action_back_to_now(self) -> None:
        if self.past is None:
            return
        self._leave_past()
        graph = self.query_one(GraphPanel)
        graph.show(self.goal, prefer_work=graph.work_id_at_cursor)
        self.stale = set(TABBED) - {"history"}
        self.refresh_tab(self.active_tab())
        self.refresh_bindings()

    def _leave_past(self) -> None:
        if self.past is not None:
            self.past = None
            self.query_one("#past").display = False

    def show_header(self, state: HeaderState) -> None:
        for header in self.query(HeaderBar):
            header.show(state)

    # ----- live updates

    def whole_tree_read(self, model: ConsoleModel) -> None:
        """The whole tree was read behind the kept goal list: show it, keeping the operator's selection, the
        graph's cursor and the tab shown."""
        self.model = model
        self.over_time = OverTime()
        self._leave_past()
        self.show_goal_list(prefer=self.goal_id)
        if self.goal is None:
            first = first_needing_human(self.model.console_goals())
            self.select_goal(first.id if first else None)
            return
        graph = self.query_one(GraphPanel)
        graph.show(self.goal, prefer_work=graph.work_id_at_cursor)
        self.show_goal_panels()
        self.refresh_bindings()

    def model_updated(self, update: ModelUpdate) -> None:
        """Bring the panels up to date with `update`: only what it touched is refilled, in place."""
        if not self.query(GoalsPanel):
            return
        if update.goals:
            goals = self.model.console_goals()
            self.show_goal_list(prefer=self.goal_id)
            if self.goal is None:
                first = first_needing_human(goals)
                self.select_goal(first.id if first else None)
                return
        if self.goal_id in update.goals and self.past is not None:
            self.stale.add("history")  # the past stays on screen; its history grows underneath
            self.refresh_tab(self.active_tab())
        elif self.goal_id in update.goals:
            graph = self.query_one(GraphPanel)
            graph.show(self.goal, prefer_work=graph.work_id_at_cursor)
            self.show_goal_panels()
        elif update.transcripts:
            goal = self.goal
            item = goal.work_item(self.query_one(GraphPanel).work_id_at_cursor or "") if goal else None
            latest = item.latest_attempt if item is not None else None
            if latest is not None and latest.run_id in update.transcripts:
                self.query_one(ItemDetail).forget()
                self.show_item()
        self.refresh_bindings()

    # ----- events

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Most moves were already handled by `cursor_moved` in the same frame; this catches the rest."""
        if isinstance(event.data_table, KeyedTable):
            self.cursor_moved(event.data_table)

    def cursor_moved(self, table: KeyedTable) -> None:
        """A list's cursor moved: update only what depends on it (idempotent, so a late message costs nothing)."""
        if isinstance(table, GoalsPanel):
            key = table.cursor_key
            if key is not None and key != self.goal_id:
                self.goal_cursor_moved(key)
            return
        if isinstance(table, GraphPanel):
            if table.work_id_at_cursor == self.query_one(ItemDetail).shown_work and "item" not in self.stale:
                return
            if table.has_focus:
                self.show_tab("item")
            self.show_item()
        elif table.id == "findings-table":
            findings = self.query_one(FindingsPanel)
            selected = findings.selected
            if (selected.id if selected is not None else None) == findings.shown:
                return
            findings.show_selected(self.model)
        else:
            return
        self.announce()
        self.refresh_bindings()

    @on(DescendantFocus)
    def _focus_moved(self, event: DescendantFocus) -> None:
        if not isinstance(event.widget, GoalsPanel):
            self.flush_goal()
        graph = event.widget
        if isinstance(graph, GraphPanel):
            self.show_tab("item")
            if graph.work_id_at_cursor != self.query_one(ItemDetail).shown_work or "item" in self.stale:
                self.show_item()
        self.mark_focused_panel()
        self.announce()

    @on(DescendantBlur)
    def _focus_left(self) -> None:
        self.call_after_refresh(self.mark_focused_panel)

    def mark_focused_panel(self, context: str | None = None) -> None:
        """`▶` in the title (and a heavy border) of the panel the keys act on (`context`, else the one holding the
        focus): visible without colour."""
        context = context or self.context()
        for name in PANELS:
            mark_focus(self.query_one(f"#{name}"), name == context)

    @on(TabLine.Chosen)
    def _tab_clicked(self, event: TabLine.Chosen) -> None:
        self.focus_panel(event.name)

    @on(Button.Pressed)
    async def _button(self, event: Button.Pressed) -> None:
        action = {
            "card-approve": "approve_plan",
            "card-reject": "reject_plan",
            "attention-retry": "retry_plan",
            "findings-accept": "accept_work",
            "findings-reopen": "reopen_work",
        }.get(event.button.id or "")
        if action is not None:
            event.stop()
            if self.check_action(action, ()):
                await self.run_action(action)

    def announce(self) -> None:
        """Tell the other consoles what this operator is looking at (presence heartbeat)."""
        context = self.context()
        work = self.focused_work()
        focus = f"{context} {work.id}" if work is not None and context else context
        self.console.beat(self.goal_id, focus)
