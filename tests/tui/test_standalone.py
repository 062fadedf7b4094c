"""Standalone work (no goal) that needs a human is a row of the goal list, acted on like any goal's work."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Select

from harn_tui.console.views import STANDALONE
from harn_tui.core.layout import Layout
from harn_tui.tui.forms.accept import AcceptForm
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.goals import GoalsPanel
from harn_tui.tui.widgets.graph import GraphPanel
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, open_form, settle, work_events
from tests.tui.test_start import active_keys
from tests.tui.widgets_access import goals_select

pytestmark = pytest.mark.anyio


async def test_alone_it_is_selected_on_start_and_its_approval_is_decided_from_the_keyboard(
    layout: Layout, console: Factory
) -> None:
    s.standalone_work(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        goals = app.main.query_one(GoalsPanel)
        assert goals.cursor_key == STANDALONE and app.main.goal_id == STANDALONE
        row = goals.get_row(STANDALONE)
        assert row[0].plain == "⚑ awaiting_attention" and "Standalone work" in row[2].plain
        assert "hotfix" in row[-1].plain and "rotate" in row[-1].plain
        assert app.main.context() == "findings"  # hotfix is in review: its decision is in Findings
        assert active_keys(app).get("a") == "accept_work" and "t" not in active_keys(app)
        await pilot.press("2")
        graph = app.main.query_one(GraphPanel)
        assert graph.select_key("item:rotate")
        await pilot.pause()
        assert "May I revoke the old keys now?" in app.main.query_one("#item", ContentView).text
        assert active_keys(app).get("a") == "approve_request"
        await pilot.press("a")
        await settle(pilot, app)
        decision = json.loads((layout.approval("apr-run-rotate-1-1") / "decision.json").read_text())
        assert decision["verdict"] == "approve" and decision["actor"] == "alice"
        assert [w.id for w in app.main.goal.work] == ["hotfix"]  # type: ignore[union-attr]


async def test_beside_goals_it_is_the_last_row_and_its_review_is_accepted(layout: Layout, console: Factory) -> None:
    s.review_goal(layout)
    s.standalone_work(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.main.goal_id == s.REVIEW_GOAL  # a real goal waiting comes first
        await goals_select(pilot, STANDALONE)
        await pilot.press("3")
        await pilot.pause()
        attention = app.main.query_one("#attention-body", ContentView).text
        assert "belonging to no goal" in attention and "harn work list" in attention
        await pilot.press("5")
        await pilot.pause()
        assert app.main.query_one("#findings").selected.id == "hotfix"
        form = await open_form(pilot, app, "a", AcceptForm)
        form.query_one("#choice-f1", Select).value = "fixed"
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        last = work_events(layout, "hotfix")[-1]
        assert last["event"] == "work.accepted" and last["actor"] == "alice"
        assert last["dispositions"] == [{"id": "f1", "outcome": "fixed", "reason": None}]
        assert [w.id for w in app.main.goal.work] == ["rotate"]  # type: ignore[union-attr]
