"""A console on a tree that is slow to read starts from the goal list the last console kept: the kept rows are
marked as last seen, every goal it shows in full is read from the records first, nothing acts on a kept row,
and the whole tree read behind the first frame takes over without moving the operator or ringing the bell."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from harn_tui.console import kept as kept_module
from harn_tui.console.kept import keep_goals
from harn_tui.console.model import ConsoleModel
from harn_tui.core.layout import Layout
from harn_tui.core.transitions import approve_plan, reopen_work
from harn_tui.core.view_cache import DISABLE_ENV
from harn_tui.tui.widgets.goals import GoalsPanel
from harn_tui.tui.widgets.graph import GraphPanel
from harn_tui.tui.widgets.header import HeaderBar
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, notices, wait_until
from tests.tui.widgets_access import goals_select

pytestmark = pytest.mark.anyio


@pytest.fixture
def started(everything: Layout, monkeypatch: pytest.MonkeyPatch) -> ConsoleModel:
    """The list kept while the plan goal waited for review (reading it whole took 5 s); then bob approved that
    plan and reopened the review goal's work. A console opens."""
    monkeypatch.delenv(DISABLE_ENV, raising=False)
    keep_goals(everything, ConsoleModel.load(everything).goal_list(), read_seconds=5.0)
    approve_plan(everything, s.PLAN_GOAL, s.PENDING_PLAN, actor="bob")
    reopen_work(everything, "docs", actor="bob", findings=["one more thing"])
    model = ConsoleModel.opening(everything)
    assert not model.complete
    return model


def held_read(layout: Layout) -> tuple[threading.Event, Callable[[], ConsoleModel]]:
    """A whole read that waits until the test sets the event (at most 10 s), so it can look at the console first."""
    gate = threading.Event()

    def read_whole() -> ConsoleModel:
        gate.wait(10)
        return ConsoleModel.load(layout)

    return gate, read_whole


def state_cell(app: object, goal_id: str) -> str:
    return app.main.query_one(GoalsPanel).get_row(goal_id)[0].plain  # type: ignore[attr-defined,no-any-return]


async def test_the_first_frame_marks_kept_rows_and_shows_the_selected_goal_as_read(
    everything: Layout, started: ConsoleModel, console: Factory
) -> None:
    gate, read_whole = held_read(everything)
    app = console(model=started, read_whole=read_whole, supervisor=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.main
        # the kept list said the plan goal waited for review: it is selected, and read, so it shows the truth
        assert screen.goal_id == s.PLAN_GOAL and s.PLAN_GOAL not in started.unread
        assert not state_cell(app, s.PLAN_GOAL).startswith("~")
        assert screen.goal is not None and screen.goal.state != "awaiting_attention"
        assert screen.query_one(GraphPanel).row_count > 0
        # the review goal is not read yet: its kept row says so, and still says what was true then
        assert state_cell(app, s.REVIEW_GOAL) == "~⚑ awaiting_attention"
        header = str(screen.query_one(HeaderBar).content)
        assert "reading the tree: ~ rows as seen" in header and "decision" not in header
        assert "as last seen (~), reading" in str(screen.query_one(GoalsPanel).border_subtitle)
        assert not screen.check_action("next_decision", (1,))  # the queue is the whole tree's
        assert app.supervisor_status == "starting once the tree is read" and not app.supervisor_running

        # selecting a kept row reads that goal first: what it shows is the records', bob's reopen included
        await goals_select(pilot, s.REVIEW_GOAL)
        assert not state_cell(app, s.REVIEW_GOAL).startswith("~")
        docs = screen.goal.work_item("docs") if screen.goal is not None else None
        assert docs is not None and docs.state == "ready" and docs.open_findings

        gate.set()
        await wait_until(pilot, lambda: app.model is not None and app.model.complete, timeout=10)
        await pilot.pause()
        assert screen.goal_id == s.REVIEW_GOAL  # the operator was not moved
        assert app.model is not None
        assert not [goal_id for goal_id in app.model.goals if state_cell(app, goal_id).startswith("~")]
        assert "reading the tree" not in str(screen.query_one(HeaderBar).content)
        assert app.decisions and screen.check_action("next_decision", (1,))
        assert app.bells == 0  # these decisions were waiting before this console opened
        assert app.supervisor_status != "starting once the tree is read"
        app.stop_supervisor()


async def test_a_change_while_the_tree_is_read_is_not_lost(
    everything: Layout, console: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole read may have read a file before another process changed it: what the watcher reported meanwhile
    is read again into the whole model."""
    monkeypatch.delenv(DISABLE_ENV, raising=False)
    keep_goals(everything, ConsoleModel.load(everything).goal_list(), read_seconds=5.0)
    started = ConsoleModel.opening(everything)
    gate = threading.Event()
    whole: list[ConsoleModel] = []

    def read_whole() -> ConsoleModel:
        whole.append(ConsoleModel.load(everything))  # read now, before the change below
        gate.wait(10)
        return whole[0]

    app = console(model=started, read_whole=read_whole)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: bool(whole))
        reopen_work(everything, "docs", actor="carol", findings=["and another"])
        await app.apply_paths([everything.work("docs") / "events.jsonl"])  # as the watcher reports it
        gate.set()
        await wait_until(pilot, lambda: app.model is not None and app.model.complete, timeout=10)
        view = app.model.goals[s.REVIEW_GOAL].work_item("docs") if app.model is not None else None
        assert view is not None and view.state == "ready" and len(view.open_findings) == 1


async def test_a_console_keeps_its_goal_list_when_it_closes(everything: Layout, console: Factory) -> None:
    from harn_tui.console.kept import kept_goals

    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        approve_plan(everything, s.PLAN_GOAL, s.PENDING_PLAN, actor="bob")
        await app.apply_paths([everything.plan(s.PLAN_GOAL, s.PENDING_PLAN) / "events.jsonl"])
        await pilot.pause()
    kept = kept_goals(everything)
    assert kept is not None
    rows = {row.id: row for row in kept.rows}
    assert rows[s.PLAN_GOAL].state == app.model.goals[s.PLAN_GOAL].state != "awaiting_attention"  # type: ignore[union-attr]


async def test_a_whole_read_that_fails_leaves_the_kept_rows_marked_and_says_why(
    everything: Layout, started: ConsoleModel, console: Factory
) -> None:
    def read_whole() -> ConsoleModel:
        raise MemoryError("no room for 200,000 events")

    app = console(model=started, read_whole=read_whole)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: bool(app.notices))
        assert notices(app) == ["error|reading the whole tree|MemoryError: no room for 200,000 events"]
        assert app.model is started and not started.complete
        assert state_cell(app, s.REVIEW_GOAL).startswith("~")  # still marked: never shown as current
        assert not app.main.check_action("next_decision", (1,))


async def test_a_large_tree_with_nothing_kept_paints_its_goals_unread_and_reads_them_behind(
    everything: Layout, console: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first console on a large tree (or one with the cache off): the first frame lists every goal, marked as
    not read yet, with the first goal read and shown; filter and quiet toggle never judge an unread row by a
    state it does not have; the whole read takes over."""
    monkeypatch.setenv(DISABLE_ENV, "1")
    monkeypatch.setattr(kept_module, "UNREAD_START_WORK_ITEMS", 1)
    started = ConsoleModel.opening(everything)
    first = min(started.goals)
    gate, read_whole = held_read(everything)
    app = console(model=started, read_whole=read_whole, supervisor=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.main
        assert screen.goal_id == first and screen.goal is not None and screen.goal.state != "blocked"
        assert screen.query_one(GraphPanel).row_count > 0
        assert state_cell(app, s.REVIEW_GOAL) == "… not read yet"
        header = str(screen.query_one(HeaderBar).content)
        assert "reading the tree" in header and "rows as seen" not in header
        assert "not read yet (…), reading" in str(screen.query_one(GoalsPanel).border_subtitle)
        assert app.supervisor_status == "starting once the tree is read"
        screen.filter_text = "awaiting"
        assert [goal.id for goal in screen.visible_goals()] == [first]  # the unread rows say no state
        screen.filter_text, screen.hide_quiet = "", True
        assert len(screen.visible_goals()) == len(started.goals)  # nor that they need nothing
        screen.hide_quiet = False

        gate.set()
        await wait_until(pilot, lambda: app.model is not None and app.model.complete, timeout=10)
        await pilot.pause()
        assert screen.goal_id == first
        assert state_cell(app, s.REVIEW_GOAL) == "⚑ awaiting_attention"
        assert "reading the tree" not in str(screen.query_one(HeaderBar).content)
        assert app.decisions and app.bells == 0
        app.stop_supervisor()
