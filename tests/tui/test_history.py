"""The History tab (7), the past view (enter, esc) and the approval card's diff, by keyboard under Pilot."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from harn_tui.core import clock
from harn_tui.core.layout import Layout
from harn_tui.core.records import PlanRejected
from harn_tui.tui.widgets.graph import GraphPanel
from harn_tui.tui.widgets.history import HistoryPanel
from tests.tui import builders as b
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, settle

pytestmark = pytest.mark.anyio


@pytest.fixture
def history_tree(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    """The plan goal written one second apart per timestamp (the pinned clock would tie every entry)."""
    yield from ticking(layout, monkeypatch, s.plan_goal)


def ticking(layout: Layout, monkeypatch: pytest.MonkeyPatch, build: Any) -> Iterator[Layout]:
    """Build with a clock one second further at every reading, from an hour before the pinned time."""
    start = datetime(2026, 7, 16, 9, 0, tzinfo=UTC)
    calls = iter(range(100_000))

    class Ticking(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Ticking:
            moment = start + timedelta(seconds=next(calls))
            return cls.fromtimestamp(moment.timestamp(), tz)

    with monkeypatch.context() as patch:
        patch.delenv("HARN_FIXED_NOW")
        patch.setattr(clock, "datetime", Ticking)
        build(layout)
    yield layout


def positions(app: Any) -> list[int]:
    table = app.main.query_one(HistoryPanel)
    return [int(key.split(":")[1]) for key in table._order]


def banner(app: Any) -> str:
    widget = app.main.query_one("#past")
    return str(widget.content) if widget.display else ""


async def test_history_tab_lists_every_entry_with_a_runs_events_under_its_attempt(
    history_tree: Layout, console: Factory
) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("7")
        await pilot.pause()
        assert app.main.context() == "history" and app.main.active_tab() == "history"
        table = app.main.query_one(HistoryPanel)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        events = [str(row[2]) for row in rows]
        assert events[:2] == ["work.created", "work.created"] and "goal.created" in events
        started = events.index("attempt.started")
        assert events[started + 1 : started + 3] == ["├ attempt.finished", "└ work.accepted"], (
            "a run's finish and its acceptance are grouped under its attempt"
        )
        assert sorted(positions(app)) == list(range(1, len(rows) + 1)), "every entry once"
        assert "entries · enter: the goal as it stood then" in str(table.border_subtitle)
        assert table.cursor_key == table._order[-1], "the newest entry is selected"


async def test_enter_shows_the_past_with_every_transition_disabled_and_esc_returns(
    history_tree: Layout, console: Factory
) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.main.check_action("approve_plan", ()) is True
        await open_past(pilot)
        assert app.model is not None
        over = app.main.over_time.of(app.model.tree, app.main.goal)
        assert over is not None
        applied = next(k for k, e in enumerate(over.history.entries, 1) if e.event == "plan.applied")
        total = len(over.history)
        assert banner(app).startswith(
            f"viewing {over.history.entries[applied - 2].ts} (entry {applied - 1} of {total}) · esc: back to now"
        )
        assert "then: awaiting_attention/review_plan" in banner(app)
        graph = app.main.query_one(GraphPanel)
        assert "generation 0" in str(graph.border_subtitle)
        for action in ("approve_plan", "reject_plan", "tick_goal", "accept_work", "cancel_work"):
            assert not app.main.check_action(action, ()), action
        await pilot.press("4")
        await pilot.pause()
        await pilot.press("a")
        await settle(pilot, app)
        assert not any(n.title == "done" for n in app.notices), "no transition runs in the past"
        await pilot.press("escape")
        await pilot.pause()
        assert banner(app) == "" and "generation 1" in str(graph.border_subtitle)
        assert app.main.check_action("approve_plan", ()) is True


async def test_the_live_tree_keeps_updating_under_the_past(history_tree: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("7")
        await pilot.pause()
        before = app.main.query_one(HistoryPanel).row_count
        table = app.main.query_one(HistoryPanel)
        table.move_cursor(row=0)
        await pilot.press("enter")
        await pilot.pause()
        assert banner(app) == "" and app.notices[-1].message.endswith("before the goal was created")
        assert app.model is not None
        over = app.main.over_time.of(app.model.tree, app.main.goal)
        assert over is not None
        created = over.created_position()
        table.move_cursor(row=table._order.index(f"entry:{created}"))
        await pilot.press("enter")
        await pilot.pause()
        heading = banner(app)
        assert heading.startswith("viewing ")
        b.plan_event(history_tree, s.PLAN_GOAL, s.PENDING_PLAN, PlanRejected, actor="bob", reason="not now")
        await app.apply_paths([history_tree.plan(s.PLAN_GOAL, s.PENDING_PLAN) / "events.jsonl"])
        await pilot.pause()
        goal = app.main.goal
        assert goal is not None and goal.latest_plan_status == "rejected", "the live model moved on"
        assert banner(app) == heading, "the past stays on screen"
        assert app.main.query_one(HistoryPanel).row_count == before + 1, "the new entry is listed"
        await pilot.press("escape")
        await pilot.pause()
        assert not app.main.check_action("approve_plan", ()), "now: the plan was rejected"


async def test_the_approval_card_shows_what_approving_replaces_keeps_and_adds(
    everything: Layout, console: Factory
) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        body = str(app.main.query_one("#plans-body").content)
        card = body[body.index("If approved") :]
        assert "generation 1 → 2" in card
        replaced = card[card.index("replaces") : card.index("keeps")]
        assert replaced.startswith("replaces 1:") and f"◌ waiting {s.APPLIED_PLAN}-fix" in replaced
        kept = card[card.index("keeps") : card.index("adds")]
        assert "fixtures" in kept and f"{s.APPLIED_PLAN}-lexer" in kept
        added = card[card.index("adds") :]
        assert f"{s.PENDING_PLAN}-guard" in added and f"{s.PENDING_PLAN}-verify" in added


# ----- snapshots (sync tests: `snap_compare` runs the app itself)

WIDE = (120, 40)
NARROW = (80, 24)


async def open_history(pilot: Any) -> None:
    await pilot.press("7")
    await pilot.pause()


async def open_past(pilot: Any) -> None:
    """The History tab, the cursor on the entry just before the first plan.applied, enter."""
    await open_history(pilot)
    main = pilot.app.main
    over = main.over_time.of(pilot.app.model.tree, main.goal)
    applied = next(k for k, e in enumerate(over.history.entries, 1) if e.event == "plan.applied")
    table = main.query_one(HistoryPanel)
    table.move_cursor(row=table._order.index(f"entry:{applied - 1}"))
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
def test_snapshot_history_tab(history_tree: Layout, console: Factory, snap_compare: Any, size: tuple[int, int]) -> None:
    """History tab (`[7 History]`, ▶ focused) of goal-01-plan: HH:MM:SS, actor (alice in bold), event, summary;
    each attempt's finish and acceptance under it as `├`/`└`; the newest entry selected at the bottom; the
    subtitle counts the entries and says enter shows the goal as it stood then."""
    assert snap_compare(console(), terminal_size=size, run_before=open_history)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
def test_snapshot_past_view(history_tree: Layout, console: Factory, snap_compare: Any, size: tuple[int, int]) -> None:
    """The past: a reversed heading `viewing 2026-07-16T09:00:…Z (entry K of N) · esc: back to now` and the
    state then (awaiting_attention/review_plan, plan-0001 awaiting review); the graph at generation 0 with
    `parser` as ◆root; the footer offers only esc Back to now among the keys (no a, x, t)."""
    assert snap_compare(console(), terminal_size=size, run_before=open_past)


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
def test_snapshot_approval_card_with_its_diff(
    history_tree: Layout, console: Factory, snap_compare: Any, size: tuple[int, int]
) -> None:
    """The approval card of plan-0002, right under its heading: `If approved  generation 1 → 2`, replaces 1
    (◌ waiting plan-0001-aaaaaaaa-fix with its title), keeps 2 (✔ succeeded fixtures, ✖ blocked …-lexer), adds 2
    (plan-0002-bbbbbbbb-guard, …-verify); the rationale follows."""
    assert snap_compare(console(), terminal_size=size)
